// SPDX-License-Identifier: Apache-2.0
// The activation-memory model (ir/memory.h, docs/memory.md): tensor bytes, the walk of an
// order (sample = live + output, frees after the last consumer, sinks kept, the input live at
// step 0), its options (materialized assembly, sequential transients, weights), TFLite's arena
// with fragmentation, stage schedules, and every scheduler's outcome carrying its peak.
#include "build_flavour.h"
#include "bundled_models.h"
#include "cost/analytic_cost_model.h"
#include "eval/memory_eval.h"
#include "ir/block_dag.h"
#include "ir/memory.h"
#include "ir/metrics.h"
#include "ir/prepared_model.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "memory_fixtures.h"
#include "memory_test_support.h"
#include "schedulers/scheduler.h"
#include "user_error_text.h"
#include "util/error.h"

#include <QTest>

using namespace ios;
using namespace ios::testing;

namespace {

ir::MemoryProblem problemOf(const ir::Graph& g, const ir::MemoryOptions& options = {}) {
    const ir::BlockDag dag = ir::buildBlockDag(g.blocks.front());
    return ir::blockMemoryProblem(g, dag, 0, options);
}

// The least peak over all orders (the oracle of memory_test_support.h).
int64_t bestPeak(const ir::MemoryProblem& p) {
    std::vector<int> ops(p.ops.size());
    for (size_t i = 0; i < ops.size(); ++i)
        ops[i] = static_cast<int>(i);
    return OrderOracle(p, ops).best;
}

} // namespace

class TestMemoryModel : public QObject {
    Q_OBJECT

private slots:
    void tensorBytesFollowShapeBatchAndPrecision() {
        QCOMPARE(ir::tensorBytes({16, 8, 8}, {}), int64_t{4096});
        ir::MemoryOptions int8;
        int8.batch = 2;
        int8.bytesPerElement = 1;
        QCOMPARE(ir::tensorBytes({16, 8, 8}, int8), int64_t{2048});
        ir::MemoryOptions huge;
        huge.batch = 1 << 20;
        huge.bytesPerElement = 64;
        QVERIFY_THROWS_EXCEPTION(UserError, ir::tensorBytes({1 << 20, 4096, 4096}, huge));
        ir::MemoryOptions bad;
        bad.batch = 0;
        QVERIFY(userErrorOf([&] { ir::checkMemoryOptions(bad); }).contains("batch"));
    }

    // Core model: the best order of the A5 example peaks at 20 480 B; materialized assembly
    // (a 64-channel concatenation buffer) at 32 768 B.
    void fourBranchExampleNumbers() {
        const ir::Graph g = fourBranchGraph();
        const ir::MemoryProblem core = problemOf(g);
        QCOMPARE(core.ops.size(), size_t{5});
        QCOMPARE(bestPeak(core), int64_t{20480});
        ir::MemoryOptions materialized;
        materialized.materializedAssembly = true;
        const ir::MemoryProblem m = problemOf(g, materialized);
        QCOMPARE(m.ops.size(), size_t{6}); // y's assembly op
        QCOMPARE(m.assemblyOf[4], 4);
        QCOMPARE(m.opOfBlockOp[4], 5);
        QCOMPARE(bestPeak(m), int64_t{32768});
    }

    // Sample = live + the new output; a tensor dies after its last consumer; the block input
    // is live at step 0; sinks and dangling outputs are never freed.
    void walkSamplesAndFrees() {
        ir::Graph g;
        g.name = "walk";
        g.input = placeholder("in", {2, 4, 4}); // 128 B
        std::vector<Node> inner = {
            conv("a", concat({val("in", 0, 2)}), 4, {1, 1}), // 256 B
            conv("b", concat({val("in", 0, 2)}), 1, {1, 1}), // 64 B, read by nobody
            conv("c", concat({val("a", 0, 4)}), 2, {1, 1}),  // 128 B
        };
        g.blocks.push_back(block(g.input, std::move(inner),
                                 element("d", sum({val("a", 0, 2), val("c", 0, 2)}),
                                         ir::ElementOp::Add))); // 128 B
        ir::validateAndInferShapes(g);
        const ir::MemoryProblem p = problemOf(g);
        QVERIFY(p.tensors[2].sink);  // b dangles
        QVERIFY(p.tensors[4].sink);  // d is the exit
        QVERIFY(!p.tensors[1].sink); // a
        const ir::MemoryWalk w = ir::walkMemory(p, ir::orderSteps({0, 1, 2, 3}), true);
        // a: 128 + 256; b: in freed after b → 384 + 64 sample, then 256 + 64 live
        const std::vector<int64_t> samples = {384, 448, 448, 576};
        const std::vector<int64_t> after = {384, 320, 448, 192}; // d: a, c freed; b, d stay
        QCOMPARE(w.stepPeak, samples);
        QCOMPARE(w.liveAfter, after);
        QCOMPARE(w.peak, int64_t{576});
        QCOMPARE(w.peakStep, 3);
        const std::vector<int> liveAtD = {1, 2, 3, 4}; // a, b, c, d
        QCOMPARE(w.liveAt[3], liveAtD);
        QCOMPARE(ir::orderPeak(p, {1, 0, 2, 3}), int64_t{576});
    }

    void invalidOrdersNameTheOperator() {
        const ir::MemoryProblem p = problemOf(fourBranchGraph());
        QVERIFY(userErrorOf([&] { ir::orderPeak(p, {4, 0, 1, 2, 3}); }).contains("'y'"));
        QVERIFY(userErrorOf([&] {
                    ir::orderPeak(p, {0, 0, 1, 2, 3, 4});
                }).contains("scheduled twice"));
        QVERIFY(userErrorOf([&] { ir::orderPeak(p, {0, 1, 2, 3}); }).contains("not scheduled"));
        QVERIFY(userErrorOf([&] { ir::orderPeak(p, {0, 1, 2, 3, 9}); }).contains("range"));
    }

    void sequentialTransientsAndWeights() {
        ir::Graph g;
        g.name = "seq";
        g.input = placeholder("in", {4, 4, 4});                                       // 256 B
        Node s = sequential("s", {conv("s1", concat({val("in", 0, 4)}), 16, {1, 1}),  // 1024
                                  conv("s2", concat({val("s1", 0, 16)}), 8, {1, 1}),  // 512
                                  conv("s3", concat({val("s2", 0, 8)}), 2, {1, 1})}); // 128
        g.blocks.push_back(block(g.input, {}, std::move(s)));
        ir::validateAndInferShapes(g);
        QCOMPARE(ir::orderPeak(problemOf(g), {0}), int64_t{256 + 128});
        ir::MemoryOptions transients;
        transients.sequentialTransients = true;
        // T = max(1024, 1024 + 512, 512 + 128) = 1536: the step holds 1536 - 128 more.
        QCOMPARE(ir::orderPeak(problemOf(g, transients), {0}), int64_t{256 + 1536});
        ir::MemoryOptions weights;
        weights.countWeights = true;
        const ir::NodeIndex index(g);
        const int64_t params = ir::computeMetrics(g.blocks[0].exitNode, index).parameters;
        QCOMPARE(ir::orderPeak(problemOf(g, weights), {0}), int64_t{256 + 128} + 4 * params);
    }

    // TFLite's arena: best-fitting gap, else the top; freed gaps too small for a later tensor
    // make the footprint exceed the sum of live bytes (Serenity Fig. 12(a)).
    void arenaFragmentation() {
        const ir::MemoryProblem p = fragmentingArenaProblem();
        QCOMPARE(ir::orderPeak(p, {0, 1, 2}), int64_t{20});      // in + b + c
        QCOMPARE(ir::arenaFootprint(p, {0, 1, 2}), int64_t{24}); // a's 4-byte hole is unused
        // A chain leaves no holes: the footprint is the sum of live bytes at the peak.
        const ir::MemoryProblem chain = chainArenaProblem();
        QCOMPARE(ir::arenaFootprint(chain, {0, 1}), ir::orderPeak(chain, {0, 1}));
        // An accumulation group: the second member's temporary takes a scratch block.
        ir::MemoryProblem acc;
        acc.name = "accumulation";
        acc.tensors = {
            {"in", 8, {}, {}, false}, {"y", 8, {0, 1}, {}, false}, {"z", 4, {2}, {}, false}};
        acc.ops = {{"y.part1", 0, 1, {0}}, {"y.part2", 1, 1, {0}, 0, 8}, {"z", 2, 2, {1}}};
        acc.opOfBlockOp = {0, 1, 2};
        acc.assemblyOf = {-1, -1, -1};
        ir::finishMemoryProblem(acc);
        QCOMPARE(ir::orderPeak(acc, {0, 1, 2}), int64_t{24}); // in + y + y's temporary
        QCOMPARE(ir::arenaFootprint(acc, {0, 1, 2}), int64_t{24});
    }

    // A stage allocates all of its outputs at its start, a group's chain included.
    void stageSchedulesAllocateAtStart() {
        const ir::Graph g = fourBranchGraph();
        const ir::BlockDag dag = ir::buildBlockDag(g.blocks.front());
        const std::vector<ir::MemoryProblem> problems =
            ir::modelMemoryProblems(g, {dag}, ir::MemoryOptions{});
        schedule::Schedule all;
        all.blocks.push_back({{{schedule::StageKind::Parallel, {{0}, {1}, {2}, {3}}},
                               {schedule::StageKind::Parallel, {{4}}}}});
        QCOMPARE(eval::scheduleMemory(problems, all).peak, int64_t{4096 * 5});
        schedule::Schedule chain; // one group running everything: every output at once
        chain.blocks.push_back({{{schedule::StageKind::Parallel, {{0, 1, 2, 3, 4}}}}});
        QCOMPARE(eval::scheduleMemory(problems, chain).peak, int64_t{4096 * 6});
        schedule::Schedule missing;
        missing.blocks.push_back({{{schedule::StageKind::Parallel, {{0, 1, 2, 3}}}}});
        QVERIFY(userErrorOf([&] {
                    eval::scheduleMemory(problems, missing);
                }).contains("not scheduled"));
    }

    // Kahn FIFO: ready ops in file order, successors appended as they become ready.
    void kahnOrderIsFifo() {
        std::mt19937 rng(7);
        for (int trial = 0; trial < 50; ++trial) {
            const ir::MemoryProblem p = randomMemoryProblem(rng, 9);
            const std::vector<int> order = ir::kahnOrder(p);
            QCOMPARE(order.size(), p.ops.size());
            ir::orderPeak(p, order); // topological, or this throws
        }
        const ir::MemoryProblem p = problemOf(fourBranchGraph());
        QCOMPARE(ir::kahnOrder(p), (std::vector<int>{0, 1, 2, 3, 4}));
    }

    // Every registered scheduler's outcome carries the peak of its schedule; the joined
    // model problem never peaks above the largest block.
    void outcomesCarryTheirPeak() {
        for (const char* name : {"squeezenet", "inception_v3"}) {
            const ir::Graph g = samples::loadModel(name);
            const ir::PreparedModel model(g);
            const cost::AnalyticCostModel cost(g, cost::AnalyticParams{});
            const std::vector<ir::MemoryProblem> problems =
                ir::modelMemoryProblems(g, model.dags(), ir::MemoryOptions{});
            int64_t sequentialPeak = 0;
            for (const schedulers::Scheduler* s : schedulers::registeredSchedulers()) {
                schedulers::Params params;
                const schedulers::Outcome out = s->run(model, params, cost, nullptr);
                // metaflow's schedule refers to its rewritten graph.
                const ir::PreparedModel& scheduled = schedulers::scheduledModel(model, out);
                QCOMPARE(out.peakBytes,
                         eval::scheduleMemory(ir::modelMemoryProblems(scheduled.graph(),
                                                                      scheduled.dags(),
                                                                      ir::MemoryOptions{}),
                                              out.schedule)
                             .peak);
                QVERIFY(out.peakBytes > 0);
                if (s->key() == "sequential")
                    sequentialPeak = out.peakBytes;
                if (s->key() == "serenity")
                    QVERIFY2(out.peakBytes <= sequentialPeak, name);
            }
            int64_t largest = 0;
            for (const ir::MemoryProblem& p : problems)
                largest = std::max(largest, ir::orderPeak(p, ir::kahnOrder(p)));
            const ir::MemoryProblem whole = ir::joinedMemoryProblem(problems);
            QVERIFY(ir::orderPeak(whole, ir::kahnOrder(whole)) <= largest);
        }
    }
};

QTEST_GUILESS_MAIN(TestMemoryModel)
#include "tst_memory_model.moc"
