// SPDX-License-Identifier: Apache-2.0
// `ios-sched fidelity` (app/cli/cmd_fidelity.cpp, docs/cli.md, docs/gpu.md) on the committed
// H100 stage measurements of SqueezeNet: every measured stage counted and ranked, the decision
// loss at least 1, the text report with its worst stages, and clear refusals (no cache, a
// cache without the model, a stage the simulator picks that nobody measured). Commands run
// in-process through runCommandLine (tests/cli_run.h).
#include "bundled_models.h"
#include "cli_run.h"
#include "cost/device_profile.h"
#include "cost/measurement_cache.h"
#include "cost/simulated_gpu_cost_model.h"
#include "io/schedule_file.h"
#include "ir/prepared_model.h"
#include "json_object.h"
#include "schedulers/scheduler.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace ios;

namespace {

using testing::jsonObject;
using testing::runCli;

const std::string kCache = IOS_SOURCE_DIR "/sample_models/measured/h100_measured_cache.json";

int cachedStages(const std::string& model) {
    int n = 0;
    const cost::MeasurementCache cache = cost::MeasurementCache::load(kCache);
    for (const cost::StageMeasurement& m : cache.entries())
        n += m.model == model && m.batch == 1 ? 1 : 0;
    return n;
}

// The committed SqueezeNet measurements less the stage `dropped`, saved in `dir`.
// The squeezenet entries without `dropped` and every stage of its canonical class (the replay
// would give it theirs).
std::string cacheWithout(const std::string& dropped, const QTemporaryDir& dir) {
    const cost::MeasurementCache full = cost::MeasurementCache::load(kCache);
    const ir::Graph graph = samples::loadModel("squeezenet");
    const cost::StageClassIndex index(graph);
    cost::StageMemo::Key droppedClass, key;
    if (!index.classKey(dropped, droppedClass))
        throw std::logic_error("the dropped stage is not of squeezenet");
    cost::MeasurementCache partial;
    for (const cost::StageMeasurement& m : full.entries())
        if (m.model == "squeezenet" && !(index.classKey(m.stage, key) && key == droppedClass))
            partial.add(m);
    const std::string file = dir.filePath(QStringLiteral("partial.json")).toStdString();
    partial.save(file);
    return file;
}

} // namespace

class TestCliFidelity : public QObject {
    Q_OBJECT

private slots:
    void jsonCountsEveryMeasuredStage() {
        const testing::CliRun r =
            runCli({"fidelity", "squeezenet", "--cost-model", "cache:" + kCache, "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = jsonObject(r.out);
        QCOMPARE(j.value(QStringLiteral("model")).toString(), QStringLiteral("squeezenet"));
        QCOMPARE(j.value(QStringLiteral("device")).toString(), QStringLiteral("H100"));
        QCOMPARE(j.value(QStringLiteral("stages")).toInt(), cachedStages("squeezenet"));
        QCOMPARE(j.value(QStringLiteral("stages")).toInt(), 230);
        const double rho = j.value(QStringLiteral("spearman")).toDouble();
        const double tau = j.value(QStringLiteral("kendall_tau_b")).toDouble();
        // The simulator ranks stages far better than chance but not perfectly.
        QVERIFY2(rho > 0.5 && rho < 1, qPrintable(QString::number(rho)));
        QVERIFY2(tau > 0.5 && tau < rho, qPrintable(QString::number(tau)));
        QVERIFY(j.value(QStringLiteral("mape_pct")).toDouble() > 0);
        int perKind = 0;
        QStringList kinds;
        for (const QJsonValue& k : j.value(QStringLiteral("by_kind")).toArray()) {
            kinds << k.toObject().value(QStringLiteral("kind")).toString();
            perKind += k.toObject().value(QStringLiteral("stages")).toInt();
        }
        QCOMPARE(kinds, (QStringList{QStringLiteral("parallel"), QStringLiteral("merge")}));
        QCOMPARE(perKind, 230);
        const QJsonObject d = j.value(QStringLiteral("decision")).toObject();
        const double simChoice = d.value(QStringLiteral("simulated_choice_measured_ms")).toDouble();
        const double measChoice = d.value(QStringLiteral("measured_choice_measured_ms")).toDouble();
        QVERIFY(measChoice > 0);
        // The measured DP is optimal under the measurements: the loss is at least 1.
        QVERIFY(simChoice >= measChoice * (1 - 1e-12));
        QCOMPARE(d.value(QStringLiteral("loss")).toDouble(), simChoice / measChoice);
        QVERIFY(d.value(QStringLiteral("simulated_choice_simulated_ms")).toDouble() <=
                d.value(QStringLiteral("measured_choice_simulated_ms")).toDouble() * (1 + 1e-12));
        QCOMPARE(j.value(QStringLiteral("worst")).toArray().size(), 10);
    }

    void textListsTheWorstStagesWithTheirOperators() {
        const testing::CliRun r = runCli(
            {"fidelity", "squeezenet", "--cost-model", "cache:" + kCache, "--device", "V100"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.find("simulated V100 vs measured on NVIDIA H100") != std::string::npos,
                 r.out.c_str());
        QVERIFY(r.out.find("decision loss") != std::string::npos);
        const size_t worst = r.out.find("worst stages");
        QVERIFY(worst != std::string::npos);
        QVERIFY(r.out.find("group 0: conv", worst) != std::string::npos);
    }

    void keptSchedulesArePricedUnderBothModels() {
        // The committed IOS-both schedule of SqueezeNet was searched on these measurements: the
        // DP finds it again, at the same price.
        const std::string kept =
            IOS_SOURCE_DIR "/sample_models/measured/schedules/squeezenet-both.json";
        const testing::CliRun r =
            runCli({"fidelity", "squeezenet", "--cost-model", "cache:" + kCache, "--schedules",
                    kept, "--worst", "0", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = jsonObject(r.out);
        QVERIFY(j.value(QStringLiteral("worst")).toArray().isEmpty());
        const QJsonArray schedules = j.value(QStringLiteral("schedules")).toArray();
        QCOMPARE(schedules.size(), 1);
        const QJsonObject s = schedules.first().toObject();
        QCOMPARE(s.value(QStringLiteral("stages")).toInt(), 29);
        const QJsonObject d = j.value(QStringLiteral("decision")).toObject();
        QCOMPARE(s.value(QStringLiteral("measured_ms")).toDouble(),
                 d.value(QStringLiteral("measured_choice_measured_ms")).toDouble());
        QCOMPARE(s.value(QStringLiteral("simulated_ms")).toDouble(),
                 d.value(QStringLiteral("measured_choice_simulated_ms")).toDouble());
    }

    void aKeptScheduleWithAnUnmeasuredStageIsNamed() {
        const std::string kept =
            IOS_SOURCE_DIR "/sample_models/measured/schedules/squeezenet-greedy.json";
        const ir::Graph graph = samples::loadModel("squeezenet");
        const ir::PreparedModel prepared(graph);
        const schedule::Schedule greedy = io::loadScheduleFile(kept, graph, prepared.dags());
        const std::string dropped =
            cost::stageKey(prepared.dags().at(1), greedy.blocks.at(1).stages.back());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string file = cacheWithout(dropped, dir);
        const testing::CliRun r = runCli(
            {"fidelity", "squeezenet", "--cost-model", "cache:" + file, "--schedules", kept});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.find("schedule " + kept + " has a stage the measurements lack") !=
                     std::string::npos,
                 r.err.c_str());
        QVERIFY2(r.err.find("stage " + dropped + " was not measured") != std::string::npos,
                 r.err.c_str());
    }

    void refusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no cache") << QStringList{QStringLiteral("squeezenet")}
                                  << QStringLiteral("--cost-model cache:FILE");
        QTest::newRow("simulated")
            << QStringList{QStringLiteral("squeezenet"), QStringLiteral("--cost-model"),
                           QStringLiteral("simulated")}
            << QStringLiteral("must be cache:FILE");
        QTest::newRow("model not measured")
            << QStringList{QStringLiteral("demo_figure2"), QStringLiteral("--cost-model"),
                           QStringLiteral("cache:") + QString::fromStdString(kCache)}
            << QStringLiteral("no measurements for model 'demo_figure2'");
    }
    void refusals() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        std::vector<std::string> argv{"fidelity"};
        for (const QString& a : args)
            argv.push_back(a.toStdString());
        const testing::CliRun r = runCli(argv);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.find(message.toStdString()) != std::string::npos, r.err.c_str());
    }

    void aStageTheSimulatorPicksButNobodyMeasuredIsNamed() {
        // The committed SqueezeNet stages without one stage of the simulated DP's schedule.
        const ir::Graph graph = samples::loadModel("squeezenet");
        const ir::PreparedModel prepared(graph);
        const cost::SimulatedGpuCostModel sim(graph, *cost::findBundledDevice("H100"), 1);
        const schedule::Schedule chosen =
            schedulers::schedulerByName("ios-both").run(prepared, {}, sim, nullptr).schedule;
        const std::string dropped =
            cost::stageKey(prepared.dags().at(1), chosen.blocks.at(1).stages.front());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string file = cacheWithout(dropped, dir);
        const testing::CliRun r =
            runCli({"fidelity", "squeezenet", "--cost-model", "cache:" + file});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.find("picks on the simulator has a stage the measurements lack") !=
                     std::string::npos,
                 r.err.c_str());
        QVERIFY2(r.err.find("stage " + dropped + " was not measured") != std::string::npos,
                 r.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCliFidelity)
#include "tst_cli_fidelity.moc"
