// SPDX-License-Identifier: Apache-2.0
// Serenity's identity graph rewriting (docs/memory.md; SERENITY contract A5, acceptance 6):
// every match — on the bundled models and on random graphs with concatenation-fed and
// depthwise convs — computes exactly the original outputs in the CPU reference executor; the
// A5 example's peaks (32 768 B materialized, 20 480 B core, 16 384 B rewritten); the rewritten
// memory problem's DP optimum equals brute force; `best` decides per partition and never
// raises a partition's optimum; the negative cases never match.
#include "build_flavour.h"
#include "bundled_models.h"
#include "ir/block_dag.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "memory_fixtures.h"
#include "memory_test_support.h"
#include "random_concat_graphs.h"
#include "ref/reference_executor.h"
#include "schedulers/serenity/memory_dp.h"
#include "schedulers/serenity/rewrite.h"
#include "schedulers/serenity/rewrite_plan.h"
#include "serenity_rewrite_error.h"

#include <QTest>
#include <cmath>
#include <limits>

using namespace ios;
using namespace ios::testing;
namespace sy = ios::schedulers::serenity;
using ir::ActType;

Q_DECLARE_METATYPE(ios::ir::Graph)

namespace {

constexpr double kTolerance = 1e-5; // the contract's bound; double precision gives ~1e-15

// The A5 example followed, after the cut at y, by a concatenation that rewriting makes worse:
// y → two 1-channel convs → a 64-channel conv over their concatenation (each later member
// needs a 16 KiB temporary).
ir::Graph helpsThenHurts() {
    ir::Graph g = fourBranchGraph();
    ir::Block& b = g.blocks.front();
    b.innerNodes.push_back(b.exitNode);
    b.innerNodes.push_back(conv("d0", concat({val("y", 0, 16)}), 1, {1, 1}));
    b.innerNodes.push_back(conv("d1", concat({val("y", 0, 16)}), 1, {1, 1}));
    b.exitNode = conv("z", concat({val("d0", 0, 1), val("d1", 0, 1)}), 64, {1, 1});
    for (Node& n : b.innerNodes)
        n.outputShape = {};
    ir::validateAndInferShapes(g);
    return g;
}

sy::RewrittenPlan plan(const ir::Graph& g, sy::RewriteMode mode,
                       sy::Partition partition = sy::Partition::Cuts, bool materialized = false) {
    ir::MemoryOptions memory;
    memory.materializedAssembly = materialized;
    sy::PlanOptions options;
    options.partition = partition;
    options.limits.maxExpansions = 0;
    return sy::planRewrittenMemory(g, memory, options, mode);
}

int64_t bruteForcePeak(const ir::MemoryProblem& p) {
    return OrderOracle(p, sy::wholeSegment(p).ops).best;
}

} // namespace

class TestSerenityRewrite : public QObject {
    Q_OBJECT

private slots:
    // A5: 32 768 B with the concatenation materialized, 20 480 B in the core model, 16 384 B
    // rewritten (either way: the partial convs read no concatenation). Brute force agrees.
    void fourBranchExample() {
        const ir::Graph g = fourBranchGraph();
        const std::vector<sy::RewriteMatch> matches = sy::findRewrites(g);
        QCOMPARE(matches.size(), size_t{1});
        QVERIFY(matches[0].kind == sy::RewriteKind::ChannelWise);
        QCOMPARE(matches[0].members,
                 (std::vector<std::string>{"y.part1", "y.part2", "y.part3", "y.part4"}));
        for (bool materialized : {false, true}) {
            const sy::RewrittenPlan none =
                plan(g, sy::RewriteMode::None, sy::Partition::Cuts, materialized);
            QCOMPARE(none.plan.peak, materialized ? int64_t{32768} : int64_t{20480});
            QCOMPARE(none.rewrites, std::vector<int>{0});
            QCOMPARE(none.matches, std::vector<int>{1});
            QCOMPARE(bruteForcePeak(none.problems[0]), none.plan.peak);
            for (sy::RewriteMode mode : {sy::RewriteMode::All, sy::RewriteMode::Best}) {
                const sy::RewrittenPlan r = plan(g, mode, sy::Partition::Cuts, materialized);
                QCOMPARE(r.plan.peak, int64_t{16384});
                QCOMPARE(r.originalPeak, none.plan.peak);
                QCOMPARE(r.rewrites, std::vector<int>{1});
                QCOMPARE(r.problems[0].ops.size(), size_t{8});
                QCOMPARE(bruteForcePeak(r.problems[0]), int64_t{16384});
            }
        }
        QVERIFY(rewriteError(g, sy::rewriteGraph(g, matches), 7) <= kTolerance);
    }

    // The accumulation group: members share y's tensor, later ones need a y-sized temporary;
    // y's readers (none here: y is the exit, a sink) would depend on all of them.
    void accumulationAndSliceGroups() {
        for (bool depthwise : {false, true}) {
            const ir::Graph g = fourBranchGraph(depthwise);
            const std::vector<sy::RewriteMatch> matches = sy::findRewrites(g);
            QCOMPARE(matches.size(), size_t{1});
            QVERIFY(matches[0].kind ==
                    (depthwise ? sy::RewriteKind::KernelWise : sy::RewriteKind::ChannelWise));
            const sy::GraphRewrite rw = sy::rewriteGraph(g, matches);
            const ir::BlockDag dag = ir::buildBlockDag(rw.graph.blocks[0]);
            const ir::MemoryProblem p = sy::rewrittenBlockProblem(rw, dag, 0, {});
            QCOMPARE(p.ops.size(), size_t{8});
            const ir::MemoryProblem::Tensor& y = p.tensors[static_cast<size_t>(p.ops[7].output)];
            QCOMPARE(y.name, std::string("y"));
            QCOMPARE(y.bytes, depthwise ? int64_t{16384} : int64_t{4096});
            QCOMPARE(y.producers, (std::vector<int>{4, 5, 6, 7})); // c0..c3, then the members
            QVERIFY(y.sink);
            for (int member : y.producers) {
                QCOMPARE(p.ops[static_cast<size_t>(member)].accumulateBytes,
                         depthwise ? int64_t{0} : int64_t{4096});
                QCOMPARE(p.ops[static_cast<size_t>(member)].inputs.size(), size_t{1});
            }
            QCOMPARE(p.opOfBlockOp.back(), -1); // the combining node has no op of its own
            ir::MemoryOptions weights;
            weights.countWeights = true; // the same weights, one bias
            QCOMPARE(sy::rewrittenBlockProblem(rw, dag, 0, weights).constantBytes,
                     ir::blockMemoryProblem(g, ir::buildBlockDag(g.blocks[0]), 0, weights)
                         .constantBytes);
            const int64_t expected = depthwise ? 24576 : 16384; // 32 768 B unrewritten
            QCOMPARE(bruteForcePeak(p), expected);
            QCOMPARE(plan(g, sy::RewriteMode::Best).plan.peak, expected);
            QVERIFY(rewriteError(g, rw, 3) <= kTolerance);
        }
    }

    // Channel-wise: member i gets W[:, c_i], member 1 the bias; kernel-wise: the filters and
    // biases of its channels.
    void memberWeightsByHand() {
        sy::RewriteMatch m;
        m.conv = conv("y", {}, 2, {1, 1});
        m.terms = {val("a", 0, 1), val("b", 0, 2)};
        m.members = {"y.part1", "y.part2"};
        const ref::ConvWeights w{{1, 2, 3, 4, 5, 6}, {0.5, -0.5}}; // [out 2][in 3]
        std::vector<ref::ConvWeights> p = sy::memberWeights(m, w);
        QCOMPARE(p[0].weights, (std::vector<double>{1, 4}));
        QCOMPARE(p[1].weights, (std::vector<double>{2, 3, 5, 6}));
        QCOMPARE(p[0].bias, (std::vector<double>{0.5, -0.5}));
        QCOMPARE(p[1].bias, (std::vector<double>{0, 0}));
        m.kind = sy::RewriteKind::KernelWise;
        m.conv = conv("y", {}, 3, {1, 1}, {1, 1}, {0, 0}, 3);
        p = sy::memberWeights(m, {{1, 2, 3}, {7, 8, 9}});
        QCOMPARE(p[0].weights, (std::vector<double>{1}));
        QCOMPARE(p[1].weights, (std::vector<double>{2, 3}));
        QCOMPARE(p[1].bias, (std::vector<double>{8, 9}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sy::memberWeights(m, {{1, 2}, {7, 8, 9}}));
    }

    void positiveForms_data() {
        QTest::addColumn<ir::Graph>("graph");
        QTest::addColumn<int>("kind");
        const ir::Graph base = fourBranchGraph();
        auto variant = [&](auto edit) {
            ir::Graph g = base;
            edit(g.blocks.front());
            for (Node& n : g.blocks.front().innerNodes)
                n.outputShape = {};
            g.blocks.front().exitNode.outputShape = {};
            ir::validateAndInferShapes(g);
            return g;
        };
        const int channel = static_cast<int>(sy::RewriteKind::ChannelWise);
        const int kernel = static_cast<int>(sy::RewriteKind::KernelWise);
        QTest::newRow("direct concat, exit") << base << channel;
        QTest::newRow("identity concat, one reader") << variant([](ir::Block& b) {
            b.innerNodes.push_back(node(NodeKind::Identity, "cat", b.exitNode.inputs));
            b.exitNode.inputs = concat({val("cat", 0, 64)});
        }) << channel;
        QTest::newRow("inner conv, stride 2, sigmoid, slices and the block input")
            << variant([](ir::Block& b) {
                   b.innerNodes.push_back(conv("m", concat({val("c0", 2, 9), val("x0", 0, 16)}), 5,
                                               {3, 3}, {2, 2}, {0, 0}, 1, ActType::Sigmoid));
                   b.exitNode.inputs.push_back({val("c1", 0, 16)});
               })
            << channel;
        QTest::newRow("identity activation")
            << variant([](ir::Block& b) { b.exitNode.conv.act = ActType::Identity; }) << channel;
        QTest::newRow("depthwise, tanh, same value twice") << variant([](ir::Block& b) {
            b.exitNode = conv("y", concat({val("c0", 0, 16), val("c0", 0, 16)}), 32, {3, 3}, {1, 1},
                              {1, 1}, 32, ActType::Tanh);
        }) << kernel;
    }
    void positiveForms() {
        QFETCH(ir::Graph, graph);
        QFETCH(int, kind);
        const std::vector<sy::RewriteMatch> matches = sy::findRewrites(graph);
        QVERIFY(!matches.empty());
        QCOMPARE(static_cast<int>(matches.back().kind), kind);
        QVERIFY(rewriteError(graph, sy::rewriteGraph(graph, matches), 11) <= kTolerance);
        const sy::RewrittenPlan best = plan(graph, sy::RewriteMode::Best);
        QVERIFY(best.plan.peak <= best.originalPeak);
    }

    void negativeCases_data() {
        QTest::addColumn<ir::Graph>("graph");
        auto with = [](Node y, std::vector<Node> extra = {}) {
            ir::Graph g;
            g.name = "negative";
            g.input = placeholder("x0", {8, 6, 6});
            std::vector<Node> inner{conv("a", concat({val("x0", 0, 8)}), 4, {1, 1}),
                                    conv("b", concat({val("x0", 0, 8)}), 4, {1, 1})};
            for (Node& n : extra)
                inner.push_back(std::move(n));
            g.blocks.push_back(block(g.input, std::move(inner), std::move(y)));
            ir::validateAndInferShapes(g);
            return g;
        };
        const std::vector<Term> ab = concat({val("a", 0, 4), val("b", 0, 4)});
        QTest::newRow("grouped, not depthwise")
            << with(conv("y", ab, 4, {1, 1}, {1, 1}, {0, 0}, 2));
        QTest::newRow("depthwise with a multiplier")
            << with(conv("y", ab, 16, {1, 1}, {1, 1}, {0, 0}, 8));
        QTest::newRow("single term") << with(conv("y", concat({val("a", 0, 4)}), 4, {3, 3}));
        QTest::newRow("a term that sums")
            << with(conv("y", sum({val("a", 0, 4), val("b", 0, 4)}), 4, {3, 3}));
        QTest::newRow("a summed term among several")
            << with(conv("y", {{val("a", 0, 4), val("b", 0, 4)}, {val("x0", 0, 4)}}, 4, {1, 1}));
        QTest::newRow("concat node with two readers")
            << with(conv("y", concat({val("cat", 0, 8)}), 4, {1, 1}),
                    {node(NodeKind::Identity, "cat", ab),
                     pool("p", concat({val("cat", 0, 8)}), ir::PoolType::Max, {1, 1})});
        QTest::newRow("conv reads a slice of the concat node")
            << with(conv("y", concat({val("cat", 0, 6)}), 4, {1, 1}),
                    {node(NodeKind::Identity, "cat", ab)});
        QTest::newRow("concat node of a single term")
            << with(conv("y", concat({val("cat", 0, 4)}), 4, {1, 1}),
                    {node(NodeKind::Identity, "cat", concat({val("a", 0, 4)}))});
        QTest::newRow("concat node that sums")
            << with(conv("y", concat({val("cat", 0, 4)}), 4, {1, 1}),
                    {node(NodeKind::Identity, "cat", sum({val("a", 0, 4), val("b", 0, 4)}))});
        QTest::newRow("pool over a concatenation")
            << with(pool("y", ab, ir::PoolType::Max, {3, 3}));
        QTest::newRow("a sequential's conv over a concatenation") << with(
            sequential("y", {conv("y.conv", ab, 4, {1, 1}),
                             node(NodeKind::Relu, "y.relu", concat({val("y.conv", 0, 4)}))}));
    }
    void negativeCases() {
        QFETCH(ir::Graph, graph);
        QVERIFY(sy::findRewrites(graph).empty());
        const sy::RewrittenPlan best = plan(graph, sy::RewriteMode::Best);
        QCOMPARE(best.plan.peak, best.originalPeak);
        QCOMPARE(best.rewrites, std::vector<int>{0});
    }

    // Per partition: the cut at y separates a rewrite that helps (20 480 → 16 384 B) from one
    // that hurts (16 896 B → 33 024 B with z's temporary); best keeps the first only. As one
    // partition (blocks), best is the better of none and all.
    void bestDecidesPerPartition() {
        const ir::Graph g = helpsThenHurts();
        QCOMPARE(sy::findRewrites(g).size(), size_t{2});
        const sy::RewrittenPlan none = plan(g, sy::RewriteMode::None);
        const sy::RewrittenPlan all = plan(g, sy::RewriteMode::All);
        const sy::RewrittenPlan best = plan(g, sy::RewriteMode::Best);
        QCOMPARE(none.plan.peak, int64_t{20480});
        QCOMPARE(all.plan.peak, int64_t{33024});
        QCOMPARE(best.plan.peak, int64_t{16896});
        QCOMPARE(best.rewrites, std::vector<int>{1});
        QCOMPARE(best.rewrite.applied.front().conv.name, std::string("y"));
        QCOMPARE(best.plan.blocks[0].partitions, (std::vector<int>{8, 3}));
        QCOMPARE(bruteForcePeak(best.problems[0]), int64_t{16896});
        const sy::RewrittenPlan whole = plan(g, sy::RewriteMode::Best, sy::Partition::Blocks);
        QCOMPARE(whole.plan.peak, int64_t{20480});
        QCOMPARE(whole.rewrites, std::vector<int>{0});
        QVERIFY(rewriteError(g, all.rewrite, 5) <= kTolerance);
        QVERIFY(rewriteError(g, best.rewrite, 5) <= kTolerance);
    }

    // Random graphs with concatenation-fed convs, depthwise convs and the negative forms: every
    // rewrite (all matches, and a random subset) computes the original outputs; the rewritten
    // problem's DP optimum is brute force's on small blocks; best never raises a block's peak
    // and, as one partition per block (or for the joined model), is the better of none and all.
    void randomGraphs() {
        std::mt19937 rng(1313);
        const int graphs = kFullModels ? 400 : 120;
        int channelWise = 0, kernelWise = 0, bruteChecked = 0;
        for (int trial = 0; trial < graphs; ++trial) {
            const ir::Graph g = randomConcatGraph(rng, 1 + trial % 3);
            const std::vector<sy::RewriteMatch> matches = sy::findRewrites(g);
            for (const sy::RewriteMatch& m : matches)
                ++(m.kind == sy::RewriteKind::ChannelWise ? channelWise : kernelWise);
            std::vector<sy::RewriteMatch> subset;
            for (const sy::RewriteMatch& m : matches)
                if (std::bernoulli_distribution(0.5)(rng))
                    subset.push_back(m);
            for (const auto& applied : {matches, subset}) {
                const double err = rewriteError(g, sy::rewriteGraph(g, applied), trial);
                QVERIFY2(err <= kTolerance,
                         qPrintable(QStringLiteral("trial %1: error %2").arg(trial).arg(err)));
            }
            const sy::RewrittenPlan all = plan(g, sy::RewriteMode::All, sy::Partition::Blocks);
            const sy::RewrittenPlan best = plan(g, sy::RewriteMode::Best, sy::Partition::Blocks);
            const sy::RewrittenPlan cuts = plan(g, sy::RewriteMode::Best);
            if (g.blocks.size() <= 2) { // the joined model: one partition
                const int64_t joinedNone =
                    plan(g, sy::RewriteMode::None, sy::Partition::None).plan.peak;
                const int64_t joinedAll =
                    plan(g, sy::RewriteMode::All, sy::Partition::None).plan.peak;
                QCOMPARE(plan(g, sy::RewriteMode::Best, sy::Partition::None).plan.peak,
                         std::min(joinedNone, joinedAll));
            }
            for (size_t b = 0; b < g.blocks.size(); ++b) {
                const int64_t none = all.originalPeaks[b];
                QCOMPARE(best.plan.blocks[b].peak, std::min(none, all.plan.blocks[b].peak));
                QVERIFY(cuts.plan.blocks[b].peak <= cuts.originalPeaks[b]);
                QCOMPARE(cuts.originalPeaks[b], none);
                const ir::MemoryProblem& p = all.problems[b];
                if (p.ops.size() <= 8) {
                    QCOMPARE(all.plan.blocks[b].peak, bruteForcePeak(p));
                    ++bruteChecked;
                }
            }
        }
        qInfo("%d graphs: %d channel-wise and %d kernel-wise matches, %d blocks brute-forced",
              graphs, channelWise, kernelWise, bruteChecked);
        QVERIFY(channelWise >= graphs && kernelWise >= graphs / 4 && bruteChecked >= graphs / 3);
    }

    // Issue 37 item 10: a conv over an identity concatenation whose terms are written in place
    // ("in_place" in a native file). The members read one value each, so none keeps the flag,
    // and the rewritten graph validates (before: "node 'y.part1': input 'c0' cannot be in
    // place"). The same on random graphs with every flag validation allows, set at random.
    void inPlaceTerms() {
        for (bool direct : {false, true}) {
            ir::Graph g = fourBranchGraph();
            ir::Block& b = g.blocks.front();
            if (!direct) { // y reads an identity node concatenating the branches
                b.innerNodes.push_back(node(NodeKind::Identity, "cat", b.exitNode.inputs));
                b.exitNode.inputs = concat({val("cat", 0, 64)});
            }
            for (Term& t : (direct ? b.exitNode : b.innerNodes.back()).inputs)
                t.front().inPlace = true;
            for (Node& n : b.innerNodes)
                n.outputShape = {};
            ir::validateAndInferShapes(g);
            const std::vector<sy::RewriteMatch> matches = sy::findRewrites(g);
            QCOMPARE(matches.size(), size_t{1});
            const sy::GraphRewrite rw = sy::rewriteGraph(g, matches);
            for (const Node& n : rw.graph.blocks.front().innerNodes)
                for (const Term& t : n.inputs)
                    for (const ValueRef& v : t)
                        QVERIFY2(!v.inPlace || n.inputs.size() >= 2, n.name.c_str());
            QVERIFY(rewriteError(g, rw, 3) <= kTolerance);
            QCOMPARE(plan(g, sy::RewriteMode::All).rewrite.applied.size(), size_t{1});
        }
        std::mt19937 rng(3737);
        int flagged = 0, matchTerms = 0;
        for (int trial = 0; trial < 60; ++trial) {
            ir::Graph g = randomConcatGraph(rng, 1 + trial % 2);
            markInPlace(g, rng, 0.7);
            for (const ir::Block& b : g.blocks)
                for (const Node* op : b.operators())
                    for (const Term& t : op->inputs)
                        flagged += t.front().inPlace ? 1 : 0;
            const std::vector<sy::RewriteMatch> matches = sy::findRewrites(g);
            for (const sy::RewriteMatch& m : matches)
                for (const ValueRef& v : m.terms)
                    matchTerms += v.inPlace ? 1 : 0;
            try {
                const double err = rewriteError(g, sy::rewriteGraph(g, matches), trial);
                QVERIFY2(err <= kTolerance, qPrintable(QStringLiteral("trial %1").arg(trial)));
                plan(g, sy::RewriteMode::Best);
            } catch (const std::exception& e) {
                QFAIL(qPrintable(QStringLiteral("trial %1: %2").arg(trial).arg(e.what())));
            }
        }
        qInfo("%d in-place terms, %d of them in a rewrite's concatenation", flagged, matchTerms);
        QVERIFY(matchTerms >= 20);
    }

    // The bundled models: their concatenations feed identity/pool/relu-led sequentials, have
    // several readers or sum several values per term, so none matches; every match, should a
    // model gain one, must compute the same.
    void bundledModels_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("matches");
        for (const char* m : {"inception_v3", "squeezenet", "nasnet_large", "randwire_large"})
            QTest::newRow(m) << QString(m) << 0;
    }
    void bundledModels() {
        QFETCH(QString, model);
        QFETCH(int, matches);
        const ir::Graph g = samples::loadModel(model.toStdString());
        const std::vector<sy::RewriteMatch> found = sy::findRewrites(g);
        QCOMPARE(static_cast<int>(found.size()), matches);
        if (!found.empty())
            QVERIFY(rewriteError(g, sy::rewriteGraph(g, found), 1) <= kTolerance);
        const sy::GraphRewrite unchanged = sy::rewriteGraph(g, {});
        QVERIFY(unchanged.graph == g);
    }

    void modeNames() {
        for (sy::RewriteMode m :
             {sy::RewriteMode::None, sy::RewriteMode::All, sy::RewriteMode::Best})
            QVERIFY(sy::rewriteModeFromString(sy::toString(m)) == m);
        QVERIFY(!sy::rewriteModeFromString("some"));
        QVERIFY(sy::toString(sy::RewriteKind::KernelWise) == "kernel-wise");
    }
};

QTEST_GUILESS_MAIN(TestSerenityRewrite)
#include "tst_serenity_rewrite.moc"
