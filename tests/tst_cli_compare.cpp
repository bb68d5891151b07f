// SPDX-License-Identifier: Apache-2.0
// `compare` and `specialize` on one block (--block B, app/cli/block_option.h, the IOS paper's
// Figures 16 and 10) and a comparison that keeps going past a scheduler that cannot run under
// the cost model (docs/cli.md "compare"). A block's latency is checked against the whole
// model's: every scheduler schedules block by block, so the block searched alone must cost what
// that block costs in the whole model's schedule, under the simulated GPU and under replayed
// measurements. Commands run in-process through runCommandLine (tests/cli_run.h).
#include "bundled_models.h"
#include "cli_run.h"
#include "cost/device_profile.h"
#include "cost/measurement_cache.h"
#include "cost/simulated_gpu_cost_model.h"
#include "eval/evaluate.h"
#include "eval/program_eval.h"
#include "ir/prepared_model.h"
#include "json_object.h"
#include "schedulers/scheduler.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace ios;

namespace {

using testing::jsonObject;
using testing::runCli;

const std::string kCache = IOS_SOURCE_DIR "/sample_models/measured/h100_measured_cache.json";

// Block `block`'s latency in `scheduler`'s whole-model schedule under `cost` (searched under
// `searchCost`): its stages' sum, or its stream program's for a RAF policy.
double wholeModelBlockMs(const ir::PreparedModel& model, const schedulers::Scheduler& scheduler,
                         const cost::CostModel& searchCost, const cost::CostModel& cost,
                         size_t block) {
    const schedulers::Outcome out = scheduler.run(model, {}, searchCost, nullptr);
    const ir::BlockDag& dag = model.dags().at(block);
    if (out.programs.empty())
        return eval::blockLatencyMs(dag, out.schedule.blocks.at(block), cost);
    return eval::programLatencyMs({dag}, {out.programs.at(block)}, cost);
}

bool close(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

// compare --block B --json's row of `strategy`.
QJsonObject row(const QJsonObject& doc, const QString& strategy) {
    for (const QJsonValue& v : doc.value(QStringLiteral("strategies")).toArray())
        if (v.toObject().value(QStringLiteral("strategy")).toString() == strategy)
            return v.toObject();
    return {};
}

// The committed measurements of `model` reduced to one stage: nothing can be scheduled.
std::string cacheOfOneStage(const std::string& model, const QTemporaryDir& dir) {
    const cost::MeasurementCache full = cost::MeasurementCache::load(kCache);
    cost::MeasurementCache one;
    for (const cost::StageMeasurement& m : full.entries())
        if (m.model == model && m.batch == 1 && one.entries().empty())
            one.add(m);
    const std::string file = dir.filePath(QStringLiteral("one.json")).toStdString();
    one.save(file);
    return file;
}

} // namespace

class TestCliCompare : public QObject {
    Q_OBJECT

private slots:
    void compareBlockIsTheWholeModelsBlock_data() {
        QTest::addColumn<QString>("costModel");
        QTest::newRow("simulated") << QString();
        QTest::newRow("replayed measurements") << QString::fromStdString("cache:" + kCache);
    }

    void compareBlockIsTheWholeModelsBlock() {
        QFETCH(QString, costModel);
        const ir::Graph graph = samples::loadModel("inception_v3");
        const ir::PreparedModel prepared(graph);
        std::unique_ptr<cost::CostModel> cost;
        if (costModel.isEmpty())
            cost = std::make_unique<cost::SimulatedGpuCostModel>(
                graph, *cost::findBundledDevice("V100"), 1);
        else
            cost = std::make_unique<cost::CachedCostModel>(cost::MeasurementCache::load(kCache),
                                                           graph, 1);
        for (const size_t block : {size_t{0}, size_t{5}, graph.blocks.size() - 2}) {
            std::vector<std::string> args{"compare", "inception_v3", "--block",
                                          std::to_string(block), "--json"};
            if (!costModel.isEmpty())
                args.insert(args.end(), {"--cost-model", costModel.toStdString()});
            const testing::CliRun r = runCli(args);
            QCOMPARE(r.code, 0);
            const QJsonObject doc = jsonObject(r.out);
            QCOMPARE(doc.value(QStringLiteral("block")).toInt(-1), static_cast<int>(block));
            for (const char* key : {"sequential", "greedy", "ios-both", "raf-asap"}) {
                const QJsonObject rowOf = row(doc, QString::fromUtf8(key));
                QCOMPARE(rowOf.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
                const double got = rowOf.value(QStringLiteral("latency_ms")).toDouble();
                const double want = wholeModelBlockMs(prepared, schedulers::schedulerByName(key),
                                                      *cost, *cost, block);
                QVERIFY2(want > 0 && close(got, want),
                         qPrintable(QStringLiteral("%1 block %2: %3 vs the whole model's %4")
                                        .arg(key)
                                        .arg(block)
                                        .arg(got, 0, 'g', 17)
                                        .arg(want, 0, 'g', 17)));
            }
        }
    }

    void specializeBlockIsTheWholeModelsBlock() {
        // Row i: the block's schedule optimised at batches[i]; column j: run at batches[j].
        const ir::Graph graph = samples::loadModel("inception_v3");
        const ir::PreparedModel prepared(graph);
        const int block = static_cast<int>(graph.blocks.size()) - 2;
        const int batches[] = {1, 32};
        const testing::CliRun r = runCli({"specialize", "inception_v3", "--block",
                                          std::to_string(block), "--batches", "1,32", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject doc = jsonObject(r.out);
        QCOMPARE(doc.value(QStringLiteral("block")).toInt(-1), block);
        const QJsonArray matrix = doc.value(QStringLiteral("batch_matrix"))
                                      .toObject()
                                      .value(QStringLiteral("latency_ms"))
                                      .toArray();
        QCOMPARE(matrix.size(), 2);
        const cost::DeviceProfile v100 = *cost::findBundledDevice("V100");
        const cost::SimulatedGpuCostModel at[] = {{graph, v100, batches[0]},
                                                  {graph, v100, batches[1]}};
        const schedulers::Scheduler& both = schedulers::schedulerByName("ios-both");
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                const double got = matrix.at(i).toArray().at(j).toDouble();
                const double want =
                    wholeModelBlockMs(prepared, both, at[i], at[j], static_cast<size_t>(block));
                QVERIFY2(close(got, want), qPrintable(QStringLiteral("[%1][%2]: %3 vs %4")
                                                          .arg(i)
                                                          .arg(j)
                                                          .arg(got, 0, 'g', 17)
                                                          .arg(want, 0, 'g', 17)));
            }
        // The text names the block.
        const testing::CliRun text = runCli(
            {"specialize", "inception_v3", "--block", std::to_string(block), "--batches", "1,32"});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.find("inception_v3 block " + std::to_string(block) + ": ios-both") !=
                     std::string::npos,
                 text.out.c_str());
    }

    void blockOutOfRangeNamesTheModelAndRange_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("offset"); // from the model's block count
        QTest::newRow("specialize, one past") << "specialize"
                                              << "inception_v3" << 0;
        QTest::newRow("compare, one past") << "compare"
                                           << "squeezenet" << 0;
        QTest::newRow("compare, negative") << "compare"
                                           << "inception_v3" << -1000;
    }

    void blockOutOfRangeNamesTheModelAndRange() {
        QFETCH(QString, command);
        QFETCH(QString, model);
        QFETCH(int, offset);
        const ir::Graph graph = samples::loadModel(model.toStdString());
        const int n = static_cast<int>(graph.blocks.size());
        const int block = offset < 0 ? -1 : n + offset;
        const testing::CliRun r =
            runCli({command.toStdString(), model.toStdString(), "--block", std::to_string(block)});
        QCOMPARE(r.code, 1);
        QVERIFY(r.out.empty());
        const std::string want = "error: block " + std::to_string(block) +
                                 " is out of range: model '" + model.toStdString() +
                                 "' has blocks 0 to " + std::to_string(n - 1) + "\n";
        QVERIFY2(r.err.size() > want.size() &&
                     r.err.compare(r.err.size() - want.size(), want.size(), want) == 0,
                 r.err.c_str());
        QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), 1);
        // The last block is in range.
        QCOMPARE(runCli({command.toStdString(), model.toStdString(), "--block",
                         std::to_string(n - 1), "--json"})
                     .code,
                 0);
    }

    void comparisonKeepsGoingPastASchedulerThatCannotRun() {
        // Replayed measurements are keyed by the original operators: MetaFlow's rewritten graph
        // cannot be priced by them. Its row says so; the others run; exit 0.
        const testing::CliRun r =
            runCli({"compare", "squeezenet", "--cost-model", "cache:" + kCache, "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject doc = jsonObject(r.out);
        const QJsonArray rows = doc.value(QStringLiteral("strategies")).toArray();
        QCOMPARE(static_cast<size_t>(rows.size()), schedulers::registeredSchedulers().size());
        const QJsonObject metaflow = row(doc, QStringLiteral("metaflow"));
        QCOMPARE(metaflow.value(QStringLiteral("status")).toString(),
                 QStringLiteral("not applicable"));
        QVERIFY(metaflow.value(QStringLiteral("reason"))
                    .toString()
                    .contains(QStringLiteral("rewritten graph")));
        QVERIFY(!metaflow.contains(QStringLiteral("latency_ms")));
        const ir::Graph graph = samples::loadModel("squeezenet");
        const ir::PreparedModel prepared(graph);
        const cost::CachedCostModel cache(cost::MeasurementCache::load(kCache), graph, 1);
        const double sequentialMs =
            schedulers::schedulerByName("sequential").run(prepared, {}, cache, nullptr).latencyMs;
        int ran = 0;
        for (const QJsonValue& v : rows) {
            const QJsonObject o = v.toObject();
            if (o.value(QStringLiteral("status")).toString() != QStringLiteral("ok"))
                continue;
            ++ran;
            const double ms = o.value(QStringLiteral("latency_ms")).toDouble();
            QVERIFY(ms > 0);
            QVERIFY(close(o.value(QStringLiteral("speedup")).toDouble(), sequentialMs / ms));
        }
        QVERIFY2(ran >= 5, qPrintable(QString::number(ran))); // the baselines and the IOS DPs
        QCOMPARE(
            row(doc, QStringLiteral("sequential")).value(QStringLiteral("latency_ms")).toDouble(),
            sequentialMs);

        const testing::CliRun text =
            runCli({"compare", "squeezenet", "--cost-model", "cache:" + kCache});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.find("\nmetaflow     not applicable: a rewritten graph") !=
                     std::string::npos,
                 text.out.c_str());
        QVERIFY(text.err.find("error") == std::string::npos);
    }

    void comparisonWhereNothingRunsFails() {
        // One measured stage: every scheduler meets a stage the cache lacks. Every row says
        // why, and the command fails with one line.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string file = cacheOfOneStage("squeezenet", dir);
        const testing::CliRun r =
            runCli({"compare", "squeezenet", "--cost-model", "cache:" + file, "--json"});
        QCOMPARE(r.code, 1);
        const QJsonArray rows = jsonObject(r.out).value(QStringLiteral("strategies")).toArray();
        QCOMPARE(static_cast<size_t>(rows.size()), schedulers::registeredSchedulers().size());
        for (const QJsonValue& v : rows)
            QCOMPARE(v.toObject().value(QStringLiteral("status")).toString(),
                     QStringLiteral("not applicable"));
        QVERIFY2(r.err.find("error: no scheduler could run under") != std::string::npos,
                 r.err.c_str());
        QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), 1);
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"
