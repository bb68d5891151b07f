// SPDX-License-Identifier: Apache-2.0
// Searches give the same results, bit for bit, whatever the thread count (the DP's parts and
// specialization rows as parallel jobs), and the canonical stage memo changes no latency:
// the simulated GPU with its memo and without it (every stage simulated) agree exactly.
#include "build_flavour.h"
#include "bundled_models.h"
#include "cost/analytic_cost_model.h"
#include "cost/device_profile.h"
#include "cost/simulated_gpu_cost_model.h"
#include "cost/stage_memo.h"
#include "ir/block_dag.h"
#include "schedulers/ios_dp.h"
#include "schedulers/scheduler.h"
#include "schedulers/specialize.h"
#include "search_results.h"

#include <QTest>
#include <cstring>

using namespace ios;

namespace {

// The simulated GPU without its canonical memo: every distinct stage is simulated.
class NoMemo final : public cost::CostModel {
public:
    explicit NoMemo(const cost::CostModel& inner) : inner_(inner) {}
    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override {
        return inner_.stageLatencyMs(dag, stage);
    }
    std::string describe() const override { return inner_.describe() + " (no memo)"; }

private:
    const cost::CostModel& inner_;
};

using ios::testing::compareSearchResults;
using ios::testing::sameBits;

std::vector<const char*> models() {
    if (kFullModels)
        return {"inception_v3", "squeezenet", "nasnet_large", "randwire_large"};
    return {"inception_v3", "squeezenet"};
}

} // namespace

class TestSearchThreads : public QObject {
    Q_OBJECT

private slots:
    // Threads 1, 2 and 7 give the same schedules, latencies and counts (analytic model: the
    // DP itself; simulated: the shared canonical memo under concurrent pricing).
    void dpSameForEveryThreadCount_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("simulated");
        for (const char* m : models())
            for (bool sim : {false, true})
                QTest::addRow("%s %s", m, sim ? "simulated" : "analytic") << m << sim;
    }
    void dpSameForEveryThreadCount() {
        QFETCH(QString, model);
        QFETCH(bool, simulated);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const ir::PreparedModel prepared(g);
        // Simulated: the combined strategy only (its stages include the other two's).
        std::vector<schedulers::Strategy> strategies{schedulers::Strategy::Both};
        if (!simulated)
            strategies = {schedulers::Strategy::Parallel, schedulers::Strategy::Merge,
                          schedulers::Strategy::Both};
        for (schedulers::Strategy strategy : strategies) {
            std::optional<schedulers::Result> first;
            for (int threads : {1, 2, 7}) {
                // A fresh model per run: the memo starts empty, so each run prices for itself.
                std::unique_ptr<cost::CostModel> cost;
                if (simulated)
                    cost =
                        std::make_unique<cost::SimulatedGpuCostModel>(g, cost::loadDevice("V100"));
                else
                    cost = std::make_unique<cost::AnalyticCostModel>(g);
                schedulers::Options o;
                o.strategy = strategy;
                o.threads = threads;
                schedulers::Result r = schedulers::optimize(prepared, o, *cost);
                if (!first)
                    first = std::move(r);
                else
                    compareSearchResults(*first, r);
            }
        }
    }

    // With the memo (NasNet repeats its cells: most stages are found there) and without it,
    // the same schedule and the same latency to the bit.
    void memoChangesNoLatency_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("device");
        for (const char* m : models())
            for (const char* d : {"V100", "K80"})
                if (std::strcmp(d, "V100") == 0 || std::strstr(m, "_large") == nullptr)
                    QTest::addRow("%s %s", m, d) << m << d;
    }
    void memoChangesNoLatency() {
        QFETCH(QString, model);
        QFETCH(QString, device);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const ir::PreparedModel prepared(g);
        const cost::SimulatedGpuCostModel sim(g, cost::loadDevice(device.toStdString()));
        const NoMemo plain(sim);
        schedulers::Options o;
        const schedulers::Result withMemo = schedulers::optimize(prepared, o, sim);
        const schedulers::Result without = schedulers::optimize(prepared, o, plain);
        compareSearchResults(withMemo, without);
        QCOMPARE(without.stats.stagesPriced, without.stats.stages);
        QCOMPARE(without.stats.partsSearched, uint64_t(without.stats.parts.size()));
        QVERIFY(withMemo.stats.stagesPriced <= withMemo.stats.stages);
        // A second search under the same model finds every stage in the memo.
        const schedulers::Result again = schedulers::optimize(prepared, o, sim);
        compareSearchResults(withMemo, again);
        QCOMPARE(again.stats.stagesPriced, uint64_t(0));
    }

    // NasNet-A's cells repeat: its parts share stages, so far fewer are simulated than met.
    void nasnetStagesMostlyShared() {
        if (!kFullModels)
            QSKIP("big model: optimised builds only");
        const ir::Graph g = samples::loadBundledModel("nasnet_large");
        const cost::SimulatedGpuCostModel sim(g, cost::loadDevice("V100"));
        const schedulers::Result r = schedulers::optimize(ir::PreparedModel(g), {}, sim);
        QVERIFY(r.stats.stages > 0);
        // Cells equal to an earlier one (same structure, same operator classes) take its
        // outcome instead of a search; memoChangesNoLatency shows the outcome is the same.
        QVERIFY(r.stats.partsSearched < r.stats.parts.size());
        QVERIFY2(r.stats.stagesPriced * 2 < r.stats.stages,
                 (std::to_string(r.stats.stagesPriced) + " of " + std::to_string(r.stats.stages))
                     .c_str());
    }

    // Operators that launch the same kernels share a class; a different kernel size or input
    // shape does not. Names never matter.
    void classesFollowKernelsNotNames() {
        ir::Graph g;
        g.name = "classes";
        g.input.kind = ir::NodeKind::Placeholder;
        g.input.name = g.input.hintName = "in";
        g.input.outputShape = {16, 8, 8};
        ir::Block b;
        b.enterName = "in";
        b.enterNode = g.input;
        auto conv = [](const std::string& name, const std::string& from, int64_t c, int k) {
            ir::Node n;
            n.kind = ir::NodeKind::Conv;
            n.name = n.hintName = name;
            n.inputs = {{{from, 0, c}}};
            n.conv.outChannels = 16;
            n.conv.kernel = {k, k};
            n.conv.padding = {k / 2, k / 2};
            n.outputShape = {16, 8, 8};
            return n;
        };
        b.innerNodes = {conv("a", "in", 16, 3), conv("zz_other_name", "in", 16, 3),
                        conv("c", "in", 16, 1), conv("d", "a", 16, 3)};
        ir::Node exit;
        exit.kind = ir::NodeKind::Identity;
        exit.name = exit.hintName = "out";
        exit.inputs = {{{"zz_other_name", 0, 16}, {"c", 0, 16}, {"d", 0, 16}}};
        exit.outputShape = {16, 8, 8};
        b.exitNode = exit;
        g.blocks.push_back(b);
        const cost::SimulatedGpuCostModel sim(g, cost::loadDevice("V100"));
        const auto dags = ir::buildDags(g);
        std::vector<uint32_t> cls;
        QVERIFY(sim.canonicalStageMemo(dags[0], cls) != nullptr);
        QCOMPARE(cls.size(), dags[0].ops.size());
        auto classOf = [&](const char* name) {
            for (size_t i = 0; i < dags[0].ops.size(); ++i)
                if (dags[0].ops[i]->name == name)
                    return cls[i];
            return ~0u;
        };
        QCOMPARE(classOf("a"), classOf("zz_other_name"));
        QCOMPARE(classOf("a"), classOf("d")); // reads a 16x8x8 tensor too
        QVERIFY(classOf("a") != classOf("c"));
        QVERIFY(classOf("a") != classOf("out"));
    }

    // Specialization rows run as parallel jobs: the same matrix for every thread count.
    void specializeSameForEveryThreadCount() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        const ir::PreparedModel prepared(g);
        const cost::SimulatedGpuCostModel v100(g, cost::loadDevice("V100"));
        const cost::SimulatedGpuCostModel a100(g, cost::loadDevice("A100"), 4);
        const cost::SimulatedGpuCostModel k80(g, cost::loadDevice("K80"), 2);
        const std::vector<const cost::CostModel*> settings{&v100, &a100, &k80};
        const schedulers::Scheduler& both = schedulers::schedulerByName("ios-both");
        schedulers::Params p;
        p.threads = 1;
        const auto one = schedulers::specialize(prepared, settings, both, p);
        for (int threads : {2, 7}) {
            p.threads = threads;
            const auto many = schedulers::specialize(prepared, settings, both, p);
            QCOMPARE(many.latencyMs.size(), one.latencyMs.size());
            for (size_t i = 0; i < one.latencyMs.size(); ++i)
                for (size_t j = 0; j < one.latencyMs[i].size(); ++j)
                    QVERIFY(sameBits(one.latencyMs[i][j], many.latencyMs[i][j]));
        }
    }
};

QTEST_GUILESS_MAIN(TestSearchThreads)
#include "tst_search_threads.moc"
