// SPDX-License-Identifier: Apache-2.0
// A saved schedule reopens exactly (io/schedule_document.h): every registered scheduler's
// result on the four bundled benchmark models and the ONNX samples, exported as the explorer
// and ios-sched write it — IOS JSON (merges as merged nodes), native JSON with merge_stages,
// a schedule file, and for stream programs a program file — opens against its model as the
// same stages, the same latency and the same peak memory; files that do not fit the model are
// refused with one line naming the file and the node.
#include "bundled_models.h"
#include "cost/simulated_gpu_cost_model.h"
#include "io/ios_json.h"
#include "io/model_file.h"
#include "io/program_json.h"
#include "io/schedule_document.h"
#include "io/schedule_file.h"
#include "schedule/ios_stages.h"
#include "schedulers/scheduler.h"
#include "util/error.h"

#include <QDir>
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace ios;

namespace {

// Merge stages as the files hold them: members in file order (the order of a merged node's
// channels), and a "merge" of one operator as the one-operator stage it is (the same kernel;
// IOS JSON has no merge marker), so a schedule and its reopened copy compare stage for stage.
schedule::Schedule canonical(schedule::Schedule s) {
    for (schedule::BlockSchedule& b : s.blocks)
        for (schedule::Stage& st : b.stages)
            if (st.kind == schedule::StageKind::Merge) {
                std::sort(st.groups.front().begin(), st.groups.front().end());
                if (st.operatorCount() == 1)
                    st.kind = schedule::StageKind::Parallel;
            }
    return s;
}

ir::Graph loadModel(const QString& model) {
    if (model.endsWith(QLatin1String(".onnx")))
        return io::loadModelFile(
            (QStringLiteral(IOS_SOURCE_DIR "/sample_models/onnx/") + model).toStdString());
    return samples::loadBundledModel(model.toStdString());
}

// The document `text` opens as, priced like the original.
schedulers::Outcome reopen(const std::string& text, const std::string& name,
                           const ir::PreparedModel& prepared, const cost::CostModel& cost) {
    const io::ScheduleDocument doc = io::parseScheduleDocument(text, name, prepared);
    return io::pricedScheduleDocument(doc, prepared, cost);
}

std::string refusal(const std::string& text, const ir::PreparedModel& prepared) {
    try {
        io::parseScheduleDocument(text, "bad.json", prepared);
    } catch (const UserError& e) {
        return e.what();
    }
    return "accepted";
}

} // namespace

class TestScheduleDocuments : public QObject {
    Q_OBJECT

private slots:
    void roundTripsExactly_data() {
        QTest::addColumn<QString>("model");
        QStringList models{"inception_v3", "squeezenet", "nasnet_large", "randwire_large"};
        for (const QString& onnx : QDir(QStringLiteral(IOS_SOURCE_DIR "/sample_models/onnx"))
                                       .entryList({QStringLiteral("*.onnx")}, QDir::Files))
            models << onnx;
        for (const QString& m : models)
            QTest::addRow("%s", qPrintable(m)) << m;
    }
    void roundTripsExactly() {
        QFETCH(QString, model);
        ir::Graph graph;
        try {
            graph = loadModel(model);
        } catch (const UserError& e) {
            if (model.endsWith(QLatin1String(".onnx")) &&
                std::string(e.what()).find("ONNX") != std::string::npos)
                QSKIP("this build reads no ONNX");
            throw;
        }
        const ir::PreparedModel prepared(graph);
        const cost::SimulatedGpuCostModel cost(graph, *cost::findBundledDevice("V100"));
        int checked = 0;
        for (const schedulers::Scheduler* scheduler : schedulers::registeredSchedulers()) {
            const std::string key(scheduler->key());
            schedulers::Outcome o;
            try {
                o = scheduler->run(prepared, schedulers::Params{}, cost, nullptr);
            } catch (const UserError&) {
                continue; // refused for this model (the comparison says why); nothing to save
            }
            if (o.rewritten)
                continue; // schedules another graph (MetaFlow): the files are of the model
            const std::vector<ir::BlockDag>& dags = prepared.dags();
            std::vector<std::pair<std::string, std::string>> files;
            if (o.programs.empty()) {
                files = {{"s.ios.json",
                          io::writeIosJson(schedule::optimizedGraph(graph, dags, o.schedule))},
                         {"s.json", io::writeNativeSchedule(graph, dags, o.schedule)},
                         {"s.schedule.json", io::writeScheduleFile(graph, dags, o.schedule)}};
            } else {
                files = {{"p.json",
                          io::programFileText(graph.name, key, o.latencyMs, dags, o.programs)}};
            }
            for (const auto& [name, text] : files) {
                const std::string what = key + " as " + name;
                const schedulers::Outcome back = reopen(text, name, prepared, cost);
                // Exactly the latency the original prices to (outcomeLatencyMs), which is the
                // search's own up to the order of the sums (the DP adds per part).
                QVERIFY2(back.latencyMs == schedulers::outcomeLatencyMs(dags, o, cost),
                         what.c_str());
                QVERIFY2(std::abs(back.latencyMs - o.latencyMs) <= 1e-12 * o.latencyMs,
                         what.c_str());
                if (o.programs.empty()) {
                    QVERIFY2(canonical(back.schedule) == canonical(o.schedule), what.c_str());
                    QVERIFY2(back.peakBytes == o.peakBytes, what.c_str());
                } else {
                    // A program reopens as itself; its stage view is its issue order.
                    QVERIFY2(back.programs == o.programs, what.c_str());
                }
                ++checked;
            }
        }
        QVERIFY(checked >= 8);
    }

    // Another device and batch re-price the same stages; nothing is searched.
    void repricesUnderAnotherCostModel() {
        const ir::Graph graph = samples::loadBundledModel("squeezenet");
        const ir::PreparedModel prepared(graph);
        const cost::SimulatedGpuCostModel v100(graph, *cost::findBundledDevice("V100"));
        const cost::SimulatedGpuCostModel a100(graph, *cost::findBundledDevice("A100"), 16);
        const schedulers::Outcome o =
            schedulers::schedulerByName("ios-both").run(prepared, {}, v100, nullptr);
        const std::string text = io::writeScheduleFile(graph, prepared.dags(), o.schedule);
        const schedulers::Outcome there = reopen(text, "s.json", prepared, a100);
        QCOMPARE(canonical(there.schedule), canonical(o.schedule));
        QCOMPARE(there.latencyMs, schedulers::outcomeLatencyMs(prepared.dags(), o, a100));
        QVERIFY(there.latencyMs != o.latencyMs);
        QVERIFY(there.peakBytes > o.peakBytes); // batch 16
    }

    // One line naming the file and the node: unknown operator, missing one, one scheduled
    // twice, dependencies out of order, another model, not a schedule.
    void refusesFilesThatDoNotFit() {
        const ir::Graph graph = samples::loadBundledModel("squeezenet");
        const ir::PreparedModel prepared(graph);
        const schedule::Schedule seq = [&] {
            const cost::SimulatedGpuCostModel cost(graph, *cost::findBundledDevice("V100"));
            return schedulers::schedulerByName("sequential")
                .run(prepared, {}, cost, nullptr)
                .schedule;
        }();
        const auto fileWith = [&](auto edit) {
            ir::Graph g = schedule::withStages(graph, prepared.dags(), seq);
            edit(g.blocks[0].stages);
            return io::writeIosJson(g);
        };
        const std::string first = prepared.dags()[0].ops[0]->name;
        const std::string second = prepared.dags()[0].ops[1]->name;

        std::string m = refusal(fileWith([](auto& st) { st[0][0][0] = "no_such_op"; }), prepared);
        QVERIFY2(m.find("bad.json") != std::string::npos &&
                     m.find("no_such_op") != std::string::npos,
                 m.c_str());
        m = refusal(fileWith([](auto& st) { st.pop_back(); }), prepared);
        QVERIFY2(m.find("bad.json") != std::string::npos, m.c_str());
        m = refusal(fileWith([](auto& st) { st.push_back(st.front()); }), prepared);
        QVERIFY2(m.find("bad.json") != std::string::npos && m.find(first) != std::string::npos,
                 m.c_str());
        m = refusal(fileWith([](auto& st) { std::swap(st[0], st[1]); }), prepared);
        QVERIFY2(m.find("bad.json") != std::string::npos &&
                     (m.find(first) != std::string::npos || m.find(second) != std::string::npos),
                 m.c_str());

        const ir::Graph other = samples::loadBundledModel("inception_v3");
        const ir::PreparedModel otherPrepared(other);
        const std::string theirs = io::writeScheduleFile(graph, prepared.dags(), seq);
        m = refusal(theirs, otherPrepared);
        QVERIFY2(m.find("squeezenet") != std::string::npos, m.c_str());
        ir::Graph unscheduled = graph;
        for (ir::Block& b : unscheduled.blocks)
            b.stages.clear();
        m = refusal(io::writeIosJson(unscheduled), prepared); // a model without a schedule
        QVERIFY2(m.find("no stages") != std::string::npos, m.c_str());
        m = refusal("{\"hello\": 1}", prepared);
        QVERIFY2(m.find("not a schedule") != std::string::npos, m.c_str());
    }

    // IOS JSON cannot hold explicit parts: the writer says so instead of dropping them silently.
    void iosJsonSaysItDropsParts() {
        const ir::Graph nasnet = samples::loadBundledModel("nasnet_large");
        std::vector<std::string> warnings;
        io::writeIosJson(nasnet, &warnings);
        QVERIFY(std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
            return w.find("explicit DP parts") != std::string::npos &&
                   w.find("25 parts") != std::string::npos;
        }));
        warnings.clear();
        io::writeIosJson(samples::loadBundledModel("squeezenet"), &warnings);
        QVERIFY(warnings.empty());
    }
};

QTEST_GUILESS_MAIN(TestScheduleDocuments)
#include "tst_schedule_documents.moc"
