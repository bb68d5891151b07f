// SPDX-License-Identifier: Apache-2.0
// The stage simulation: a one-group stage is its kernels run back to back; concurrency never
// beats the slowest group alone; the simulation is deterministic; timelines add up.
#include "bundled_models.h"
#include "cost/simulated_gpu_cost_model.h"
#include "cost/stage_simulator.h"
#include "eval/evaluate.h"
#include "eval/timeline.h"
#include "ir/block_dag.h"
#include "schedulers/baselines.h"

#include <QTest>
#include <algorithm>
#include <random>

using namespace ios;
using namespace ios::cost;
using schedule::Stage;
using schedule::StageKind;

namespace {

const DeviceProfile& v100() {
    return *findBundledDevice("V100");
}

Stage parallel(std::vector<std::vector<int>> groups) {
    return {StageKind::Parallel, std::move(groups)};
}

struct Model {
    ir::Graph graph;
    std::vector<ir::BlockDag> dags;
    explicit Model(const char* name)
        : graph(samples::loadBundledModel(name)), dags(ir::buildDags(graph)) {}
};

} // namespace

class TestStageSimulator : public QObject {
    Q_OBJECT

private slots:
    // One group = one stream, pipelined: kernel i starts when issued (i × launch overhead)
    // and its predecessor is done (+ the kernel gap); each kernel runs alone on the GPU.
    void oneGroupIsItsSequentialTime_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("batch");
        QTest::newRow("figure2 b1") << "demo_figure2" << 1;
        QTest::newRow("inception b1") << "inception_v3" << 1;
        QTest::newRow("inception b16") << "inception_v3" << 16;
        QTest::newRow("nasnet b1") << "nasnet_large" << 1;
    }
    void oneGroupIsItsSequentialTime() {
        QFETCH(QString, model);
        QFETCH(int, batch);
        const Model m(model.toStdString().c_str());
        const SimulatedGpuCostModel cost(m.graph, v100(), batch);
        const ir::BlockDag& dag = m.dags.front();
        std::vector<int> group;
        for (int i = 0; i < static_cast<int>(std::min<size_t>(dag.ops.size(), 4)); ++i)
            group.push_back(i);
        double end = -kSmModel.kernelGapUs;
        int issued = 0;
        for (int op : group)
            for (const KernelDesc& k : cost.kernelsOf(*dag.ops[static_cast<size_t>(op)])) {
                const double start =
                    std::max(issued * v100().launchOverheadUs, end + kSmModel.kernelGapUs);
                end = start + soloKernelUs(k, v100());
                ++issued;
            }
        const double expected = std::max(end, issued * v100().launchOverheadUs);
        const StageRun run = cost.simulate(dag, parallel({group}));
        QVERIFY(!run.synchronized);
        QVERIFY(qAbs(run.latencyUs - expected) < 1e-6 * expected);
    }

    // IOS §3: groups of a stage share the GPU. Adding a group can only slow the others down
    // (and costs a synchronisation), so a stage is never faster than its slowest group alone.
    void concurrencyNeverBeatsSlowestGroup_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("batch");
        QTest::newRow("inception b1") << "inception_v3" << 1;
        QTest::newRow("inception b64") << "inception_v3" << 64;
        QTest::newRow("squeezenet b1") << "squeezenet" << 1;
        QTest::newRow("randwire b1") << "randwire_large" << 1;
    }
    void concurrencyNeverBeatsSlowestGroup() {
        QFETCH(QString, model);
        QFETCH(int, batch);
        const Model m(model.toStdString().c_str());
        const SimulatedGpuCostModel cost(m.graph, v100(), batch);
        std::mt19937 rng(1234);
        for (const ir::BlockDag& dag : m.dags) {
            const int n = static_cast<int>(dag.ops.size());
            for (int trial = 0; trial < 6; ++trial) {
                // Cost models price any grouping; dependencies do not matter here.
                std::vector<int> ops(static_cast<size_t>(n));
                for (int i = 0; i < n; ++i)
                    ops[static_cast<size_t>(i)] = i;
                std::shuffle(ops.begin(), ops.end(), rng);
                const int groups = 1 + static_cast<int>(rng() % 4);
                std::vector<std::vector<int>> gs(static_cast<size_t>(groups));
                for (int i = 0; i < std::min(n, 2 * groups); ++i)
                    gs[static_cast<size_t>(i % groups)].push_back(ops[static_cast<size_t>(i)]);
                gs.erase(
                    std::remove_if(gs.begin(), gs.end(), [](const auto& g) { return g.empty(); }),
                    gs.end());
                double slowest = 0;
                for (const auto& g : gs)
                    slowest = std::max(slowest, cost.stageLatencyMs(dag, parallel({g})));
                const double together = cost.stageLatencyMs(dag, parallel(gs));
                QVERIFY2(together >= slowest * (1 - 1e-9),
                         qPrintable(QStringLiteral("%1 groups: %2 ms < slowest alone %3 ms")
                                        .arg(gs.size())
                                        .arg(together)
                                        .arg(slowest)));
            }
        }
    }

    void deterministic() {
        const Model m("inception_v3");
        const SimulatedGpuCostModel a(m.graph, v100(), 1);
        const SimulatedGpuCostModel b(m.graph, v100(), 1);
        const auto sched = schedulers::greedy(m.dags);
        const auto t1 = eval::buildTimeline(m.dags, sched, a);
        const auto t2 = eval::buildTimeline(m.dags, sched, b);
        const auto t3 = eval::buildTimeline(m.dags, sched, a); // cached kernels
        QCOMPARE(t1.latencyUs, t2.latencyUs);
        QCOMPARE(t1.latencyUs, t3.latencyUs);
        QCOMPARE(t1.kernels.size(), t2.kernels.size());
        for (size_t i = 0; i < t1.kernels.size(); ++i) {
            QCOMPARE(t1.kernels[i].startUs, t2.kernels[i].startUs);
            QCOMPARE(t1.kernels[i].endUs, t2.kernels[i].endUs);
        }
    }

    // Figure 2: a, c and d read the same input; run on three streams their kernels overlap.
    void concurrentKernelsOverlap() {
        const Model m("demo_figure2");
        const SimulatedGpuCostModel cost(m.graph, v100(), 1);
        const StageRun run = cost.simulate(m.dags.front(), parallel({{0}, {2}, {3}}));
        QVERIFY(run.synchronized);
        QCOMPARE(run.kernels.size(), size_t{3});
        double latestStart = 0, earliestEnd = 1e30;
        for (const KernelRun& k : run.kernels) {
            latestStart = std::max(latestStart, k.startUs);
            earliestEnd = std::min(earliestEnd, k.endUs);
            QVERIFY(k.startUs >= k.issueUs + v100().launchLatencyUs - 1e-9);
        }
        QVERIFY(latestStart < earliestEnd);
        // Utilisation samples are ordered and within [0, 1].
        for (size_t i = 0; i < run.samples.size(); ++i) {
            QVERIFY(run.samples[i].activeSms <= v100().smCount);
            QVERIFY(run.samples[i].warpOccupancy >= 0 && run.samples[i].warpOccupancy <= 1);
            if (i > 0)
                QVERIFY(run.samples[i].timeUs > run.samples[i - 1].timeUs);
        }
        QVERIFY(run.meanActiveSmFraction > 0 && run.meanActiveSmFraction <= 1);
    }

    // A merge stage is one merged convolution (a, c, d of Figure 2 share their input).
    void mergeStageIsOneKernel() {
        const Model m("demo_figure2");
        const SimulatedGpuCostModel cost(m.graph, v100(), 1);
        const Stage merge{StageKind::Merge, {{0, 2, 3}}};
        const auto groups = cost.stageKernels(m.dags.front(), merge);
        QCOMPARE(groups.size(), size_t{1});
        QCOMPARE(groups.front().size(), size_t{1});
        QCOMPARE(groups.front().front().kernels.size(), size_t{1});
        QCOMPARE(groups.front().front().label, std::string("merged(1,3,4)"));
        QVERIFY(cost.stageLatencyMs(m.dags.front(), merge) > 0);
    }

    void timelineAddsUpToTheEvaluation() {
        const Model m("squeezenet");
        const SimulatedGpuCostModel cost(m.graph, v100(), 1);
        const auto sched = schedulers::greedy(m.dags);
        const auto tl = eval::buildTimeline(m.dags, sched, cost);
        QVERIFY(qAbs(tl.latencyUs - 1000 * eval::totalLatencyMs(m.dags, sched, cost)) <
                1e-6 * tl.latencyUs);
        for (size_t i = 1; i < tl.stages.size(); ++i)
            QCOMPARE(tl.stages[i].startUs, tl.stages[i - 1].endUs);
        for (const auto& k : tl.kernels)
            QVERIFY(k.startUs <= k.endUs && k.endUs <= tl.latencyUs);
    }

    // stageLatencyMs (the search's path: no timeline, cached kernels by reference) is the
    // timeline simulation's latency, bit for bit, on random parallel stages of real blocks.
    void latencyPathIsTheTimelineLatency_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("device");
        QTest::addColumn<int>("batch");
        QTest::newRow("inception V100 b1") << "inception_v3"
                                           << "V100" << 1;
        QTest::newRow("inception K80 b16") << "inception_v3"
                                           << "K80" << 16;
        QTest::newRow("nasnet H100 b1") << "nasnet_large"
                                        << "H100" << 1;
        QTest::newRow("randwire A100 b8") << "randwire_large"
                                          << "A100" << 8;
    }
    void latencyPathIsTheTimelineLatency() {
        QFETCH(QString, model);
        QFETCH(QString, device);
        QFETCH(int, batch);
        const Model m(model.toStdString().c_str());
        const SimulatedGpuCostModel cost(m.graph, *findBundledDevice(device.toStdString()), batch);
        std::mt19937 rng(7);
        int checked = 0;
        for (const ir::BlockDag& dag : m.dags) {
            const int n = static_cast<int>(dag.ops.size());
            for (int trial = 0; trial < 40; ++trial) {
                std::vector<int> ops(static_cast<size_t>(n));
                for (int i = 0; i < n; ++i)
                    ops[static_cast<size_t>(i)] = i;
                std::shuffle(ops.begin(), ops.end(), rng);
                const int groups = 1 + static_cast<int>(rng() % 8);
                Stage st{StageKind::Parallel,
                         std::vector<std::vector<int>>(static_cast<size_t>(groups))};
                const int take = std::min(n, 1 + static_cast<int>(rng() % 24));
                for (int i = 0; i < take; ++i)
                    st.groups[static_cast<size_t>(i % groups)].push_back(
                        ops[static_cast<size_t>(i)]);
                const double fast = cost.stageLatencyMs(dag, st);
                const double full = cost.simulate(dag, st).latencyUs / 1000.0;
                QVERIFY2(
                    fast == full,
                    qPrintable(QString("%1 vs %2").arg(fast, 0, 'g', 17).arg(full, 0, 'g', 17)));
                ++checked;
            }
        }
        QVERIFY(checked >= 40);
    }

    // A merge stage takes the same route (its merged kernels by reference).
    void mergeLatencyPathIsTheTimelineLatency() {
        const Model m("demo_figure2");
        const SimulatedGpuCostModel cost(m.graph, v100(), 4);
        const Stage merge{StageKind::Merge, {{0, 2, 3}}};
        QVERIFY(cost.stageLatencyMs(m.dags.front(), merge) ==
                cost.simulate(m.dags.front(), merge).latencyUs / 1000.0);
    }

    void emptyStageTakesNoTime() { QCOMPARE(simulateStage({}, v100()).latencyUs, 0.0); }
};

QTEST_GUILESS_MAIN(TestStageSimulator)
#include "tst_stage_simulator.moc"
