// SPDX-License-Identifier: Apache-2.0
// Every schedule the DP and the baselines produce for the four benchmark models passes the
// verifier and round-trips through IOS JSON; the DP is deterministic; a cancelled search
// throws Cancelled and leaves no result; progress reaches the down-set total.
#include "bundled_models.h"
#include "cost/analytic_cost_model.h"
#include "cost/device_profile.h"
#include "cost/simulated_gpu_cost_model.h"
#include "eval/evaluate.h"
#include "io/ios_json.h"
#include "schedule/ios_stages.h"
#include "schedule/verify.h"
#include "schedulers/baselines.h"
#include "schedulers/ios_dp.h"
#include "util/error.h"

#include <QTest>
#include <thread>

using namespace ios;

class TestIosDpModels : public QObject {
    Q_OBJECT

private slots:
    void schedulesVerifyAndRoundTrip_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("strategy");
        for (const char* m : {"inception_v3", "squeezenet", "nasnet_large", "randwire_large"})
            for (auto st : {schedulers::Strategy::Parallel, schedulers::Strategy::Merge,
                            schedulers::Strategy::Both})
                QTest::addRow("%s %s", m, std::string(schedulers::toString(st)).c_str())
                    << m << int(st);
    }
    void schedulesVerifyAndRoundTrip() {
        QFETCH(QString, model);
        QFETCH(int, strategy);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const cost::AnalyticCostModel cost(g);
        schedulers::Options o;
        o.strategy = schedulers::Strategy(strategy);
        const auto res = schedulers::optimize(ir::PreparedModel(g), o, cost);
        const auto dags = ir::buildDags(g);
        schedule::verify(dags, res.schedule);
        QVERIFY(qAbs(eval::totalLatencyMs(dags, res.schedule, cost) - res.latencyMs) < 1e-9);
        for (const schedule::Schedule& s :
             {res.schedule, schedulers::sequential(dags), schedulers::greedy(dags)}) {
            schedule::verify(dags, s);
            // IOS JSON: the optimised model (merged convs become one node) reads back, and its
            // stages are a valid schedule of it covering the same number of stages.
            const ir::Graph opt = schedule::optimizedGraph(g, dags, s);
            const ir::Graph back = io::parseIosJson(io::writeIosJson(opt), "roundtrip");
            const auto backDags = ir::buildDags(back);
            const schedule::Schedule read = schedule::scheduleFromStages(back, backDags);
            schedule::verify(backDags, read);
            for (size_t b = 0; b < s.blocks.size(); ++b)
                QCOMPARE(read.blocks[b].stages.size(), s.blocks[b].stages.size());
            bool merges = false;
            for (const auto& b : s.blocks)
                for (const auto& st : b.stages)
                    merges |= st.kind == schedule::StageKind::Merge && st.operatorCount() > 1;
            if (!merges) { // without merges the schedule reads back exactly, as parallel stages
                schedule::Schedule plain = s;
                for (auto& b : plain.blocks)
                    for (auto& st : b.stages)
                        st.kind = schedule::StageKind::Parallel;
                QVERIFY(read == plain);
            }
        }
    }

    void deterministic() {
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const cost::AnalyticCostModel cost(g);
        const auto a = schedulers::optimize(ir::PreparedModel(g), {}, cost);
        const auto b = schedulers::optimize(ir::PreparedModel(g), {}, cost);
        QVERIFY(a.schedule == b.schedule);
        QCOMPARE(a.latencyMs, b.latencyMs);
        QCOMPARE(a.stats.transitions, b.stats.transitions);
    }

    // The DP prices parallel stages of an additive model (StageShortcuts::additiveParallelStages)
    // from bitsets; hiding that fast path must give the same schedule, bit for bit.
    void additiveFastPathMatchesStages_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("endings");
        QTest::addColumn<int>("r");
        for (const char* m : {"inception_v3", "squeezenet", "nasnet_large", "randwire_large"})
            for (auto e : {schedulers::Endings::Reference, schedulers::Endings::All})
                QTest::addRow("%s %s", m, std::string(schedulers::toString(e)).c_str())
                    << m << int(e) << (std::string(m) == "inception_v3" ? 100 : 2);
    }
    void additiveFastPathMatchesStages() {
        QFETCH(QString, model);
        QFETCH(int, endings);
        QFETCH(int, r);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const cost::AnalyticCostModel cost(g);
        struct StagesOnly final : cost::CostModel { // forwards stageLatencyMs only
            const cost::CostModel& inner;
            explicit StagesOnly(const cost::CostModel& c) : inner(c) {}
            double stageLatencyMs(const ir::BlockDag& d, const schedule::Stage& s) const override {
                return inner.stageLatencyMs(d, s);
            }
            std::string describe() const override { return inner.describe(); }
        } slow(cost);
        schedulers::Options o;
        o.strategy = schedulers::Strategy::Both;
        o.endings = schedulers::Endings(endings);
        o.r = r;
        const auto fast = schedulers::optimize(ir::PreparedModel(g), o, cost);
        const auto ref = schedulers::optimize(ir::PreparedModel(g), o, slow);
        QVERIFY(fast.schedule == ref.schedule);
        QCOMPARE(fast.latencyMs, ref.latencyMs);
        QCOMPARE(fast.stats.transitions, ref.stats.transitions);
    }

    void progressReachesTotal() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        const cost::AnalyticCostModel cost(g);
        schedulers::SearchControl control;
        uint64_t lastDone = 0, lastTotal = 0;
        control.progress = [&](uint64_t done, uint64_t total) {
            QVERIFY(done >= lastDone && done <= total);
            lastDone = done;
            lastTotal = total;
        };
        const auto res = schedulers::optimize(ir::PreparedModel(g), {}, cost, &control);
        QCOMPARE(lastTotal, res.stats.states);
        QCOMPARE(lastDone, res.stats.states);
    }

    // A cancel from another thread stops RandWire's unpruned search: Cancelled, no result.
    // (Simulated: seconds long, where the analytic search may end before the cancel.)
    void cancel() {
        const ir::Graph g = samples::loadBundledModel("randwire_large");
        const cost::SimulatedGpuCostModel cost(g, cost::loadDevice("V100"));
        schedulers::Options o;
        o.strategy = schedulers::Strategy::Parallel;
        o.r = o.s = 100;
        schedulers::SearchControl control;
        bool started = false;
        control.progress = [&](uint64_t, uint64_t) { started = true; };
        std::thread canceller([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            control.cancel = true;
        });
        std::optional<schedulers::Result> result;
        bool cancelled = false;
        try {
            result = schedulers::optimize(ir::PreparedModel(g), o, cost, &control);
        } catch (const Cancelled&) {
            cancelled = true;
        }
        canceller.join();
        QVERIFY(cancelled);
        QVERIFY(!result.has_value());
        // Already cancelled: stops before any work.
        QVERIFY_THROWS_EXCEPTION(Cancelled,
                                 schedulers::optimize(ir::PreparedModel(g), o, cost, &control));
        Q_UNUSED(started);
    }

    void stateSpaceRecording() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        const cost::AnalyticCostModel cost(g);
        schedulers::Options o;
        o.recordStateSpace = true;
        const auto res = schedulers::optimize(ir::PreparedModel(g), o, cost);
        QVERIFY(res.stateSpace.has_value());
        const auto& ss = *res.stateSpace;
        QVERIFY(!ss.truncated);
        QCOMPARE(uint64_t(ss.transitions.size()), res.stats.transitions);
        QVERIFY(ss.states.size() > res.stats.states); // plus one empty state per part
        size_t stages = 0;
        for (const auto& b : res.schedule.blocks)
            stages += b.stages.size();
        QCOMPARE(ss.chosen.size(), stages);
        o.maxRecordedTransitions = 10;
        const auto small = schedulers::optimize(ir::PreparedModel(g), o, cost);
        QVERIFY(small.stateSpace->truncated);
        QCOMPARE(small.stateSpace->transitions.size(), size_t{10});
    }

    void badOptions() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        const cost::AnalyticCostModel cost(g);
        schedulers::Options o;
        o.r = 0;
        QVERIFY_THROWS_EXCEPTION(UserError, schedulers::optimize(ir::PreparedModel(g), o, cost));
        o.r = 3;
        o.s = 0;
        QVERIFY_THROWS_EXCEPTION(UserError, schedulers::optimize(ir::PreparedModel(g), o, cost));
    }
};

QTEST_GUILESS_MAIN(TestIosDpModels)
#include "tst_ios_dp_models.moc"
