// SPDX-License-Identifier: Apache-2.0
// Serenity's identity rewrite through element-wise chains (docs/memory.md "Identity graph
// rewriting"): a conv that reads a concatenation through relu, activation (a batch norm, an
// affine map per channel, is an activation node here) and identity nodes is split into
// partial convs over per-term copies of the chain. The CPU reference executor (double
// precision) proves every rewrite on hand-built and random graphs; y's own activation stays
// after the sum (pushing it into the partial sums computes something else, shown below); the
// rewritten problems' DP optimum is brute force's; and the bundled NAS cells gain from it.
#include "bundled_models.h"
#include "ir/metrics.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "memory_fixtures.h"
#include "memory_test_support.h"
#include "random_concat_graphs.h"
#include "schedulers/serenity/rewrite.h"
#include "schedulers/serenity/rewrite_plan.h"
#include "serenity_rewrite_error.h"

#include <QTest>
#include <algorithm>
#include <random>

using namespace ios;
using namespace ios::testing;
namespace sy = ios::schedulers::serenity;
using ir::ActType;

Q_DECLARE_METATYPE(ios::ir::Graph)

namespace {

constexpr double kTolerance = 1e-9;   // double precision gives ~1e-15
constexpr size_t kBruteForceOps = 11; // enumerating every order of larger problems is slow

sy::RewrittenPlan plan(const ir::Graph& g, sy::RewriteMode mode,
                       sy::Partition partition = sy::Partition::Cuts) {
    sy::PlanOptions options;
    options.partition = partition;
    options.limits.maxExpansions = 0;
    return sy::planRewrittenMemory(g, ir::MemoryOptions{}, options, mode);
}

int64_t bruteForcePeak(const ir::MemoryProblem& p) {
    return OrderOracle(p, sy::wholeSegment(p).ops).best;
}

// The four-branch example (memory_fixtures.h) with y reading its concatenation through
// `chain` (built bottom-up over the value below, the first over the identity concat "cat").
ir::Graph fourBranchThrough(const std::vector<Node>& chain, bool depthwise = false) {
    ir::Graph g = fourBranchGraph(depthwise);
    ir::Block& b = g.blocks.front();
    b.innerNodes.push_back(node(NodeKind::Identity, "cat", b.exitNode.inputs));
    std::string below = "cat";
    for (Node f : chain) {
        f.inputs = concat({val(below, 0, 64)});
        below = f.name;
        b.innerNodes.push_back(std::move(f));
    }
    b.exitNode.inputs = concat({val(below, 0, 64)});
    for (Node& n : b.innerNodes)
        n.outputShape = {};
    ir::validateAndInferShapes(g);
    return g;
}

Node relu(const std::string& name) {
    return node(NodeKind::Relu, name, {});
}
Node batchNorm(const std::string& name) { // an affine map per channel: act identity
    return activation(name, {}, ActType::Identity);
}

} // namespace

class TestSerenityRewriteChain : public QObject {
    Q_OBJECT

private slots:
    void chainForms_data() {
        QTest::addColumn<ir::Graph>("graph");
        QTest::addColumn<int>("chain");  // nodes between concat and y
        QTest::addColumn<int>("copies"); // per-term copies made
        QTest::newRow("relu") << fourBranchThrough({relu("r")}) << 1 << 4;
        QTest::newRow("batch norm, relu")
            << fourBranchThrough({batchNorm("bn"), relu("r")}) << 2 << 8;
        QTest::newRow("identity, tanh, sigmoid")
            << fourBranchThrough({node(NodeKind::Identity, "i", {}),
                                  activation("t", {}, ActType::Tanh),
                                  activation("s", {}, ActType::Sigmoid)})
            << 3 << 8;
        QTest::newRow("depthwise over relu") << fourBranchThrough({relu("r")}, true) << 1 << 4;
        // The concatenating node is itself a relu over the branches.
        ir::Graph g = fourBranchGraph();
        ir::Block& b = g.blocks.front();
        b.innerNodes.push_back(node(NodeKind::Relu, "rcat", b.exitNode.inputs));
        b.exitNode.inputs = concat({val("rcat", 0, 64)});
        for (Node& n : b.innerNodes)
            n.outputShape = {};
        ir::validateAndInferShapes(g);
        QTest::newRow("relu that concatenates") << g << 0 << 4;
    }
    void chainForms() {
        QFETCH(ir::Graph, graph);
        QFETCH(int, chain);
        QFETCH(int, copies);
        const std::vector<sy::RewriteMatch> matches = sy::findRewrites(graph);
        QCOMPARE(matches.size(), size_t{1});
        QCOMPARE(static_cast<int>(matches[0].through.size()), chain);
        QCOMPARE(static_cast<int>(matches[0].copies.size()), copies);
        const sy::GraphRewrite rw = sy::rewriteGraph(graph, matches);
        QCOMPARE(rw.applied[0].copies, matches[0].copies);
        QVERIFY(rewriteError(graph, rw, 17) <= kTolerance);
        // The chain's nodes and the concat are gone; every copy reads one term's value.
        const ir::NodeIndex index(rw.graph);
        for (const std::string& removed : matches[0].through)
            QVERIFY(index.find(removed) == nullptr);
        for (const std::string& copy : rw.applied[0].copies)
            QCOMPARE(index.find(copy)->inputs.size(), size_t{1});
        const sy::RewrittenPlan none = plan(graph, sy::RewriteMode::None);
        const sy::RewrittenPlan all = plan(graph, sy::RewriteMode::All);
        QVERIFY(all.plan.peak < none.plan.peak);
        QCOMPARE(bruteForcePeak(none.problems[0]), none.plan.peak);
        if (all.problems[0].ops.size() <= kBruteForceOps) // 12 and more: minutes
            QCOMPARE(bruteForcePeak(all.problems[0]), all.plan.peak);
    }

    // y's own activation (relu here) follows the sum of the partial convs and is never pushed
    // into them: the members carry act identity and the node named y applies the relu. The
    // rewrite that pushed it (relu on every member, none after the sum) computes something
    // else, which the reference executor tells apart — relu(a + b) ≠ relu(a) + relu(b).
    void activationAfterTheConvStaysAfterTheSum() {
        ir::Graph g = fourBranchThrough({relu("r")});
        g.blocks.front().exitNode.conv.act = ActType::Relu;
        const std::vector<sy::RewriteMatch> matches = sy::findRewrites(g);
        sy::GraphRewrite rw = sy::rewriteGraph(g, matches);
        const ir::NodeIndex index(rw.graph);
        for (const std::string& member : rw.applied[0].members)
            QVERIFY(index.find(member)->conv.act == ActType::Identity);
        const Node& y = rw.graph.blocks.front().exitNode;
        QVERIFY(y.kind == NodeKind::Activation && y.activation == ActType::Relu);
        QVERIFY(rewriteError(g, rw, 23) <= kTolerance);
        ir::Block& b = rw.graph.blocks.front();
        for (Node& n : b.innerNodes)
            if (n.kind == NodeKind::Conv)
                n.conv.act = ActType::Relu;
        b.exitNode.kind = NodeKind::Identity;
        QVERIFY(rewriteError(g, rw, 23) > 1e-3);
    }

    void negativeChains_data() {
        QTest::addColumn<ir::Graph>("graph");
        ir::Graph twoReaders = fourBranchThrough({relu("r")});
        twoReaders.blocks.front().innerNodes.push_back(
            pool("p", concat({val("r", 0, 64)}), ir::PoolType::Max, {1, 1}));
        ir::validateAndInferShapes(twoReaders);
        QTest::newRow("a link with a second reader") << twoReaders;
        ir::Graph slice = fourBranchThrough({relu("r")});
        slice.blocks.front().exitNode.inputs = concat({val("r", 0, 48)});
        slice.blocks.front().exitNode.outputShape = {};
        ir::validateAndInferShapes(slice);
        QTest::newRow("y reads a slice of the chain") << slice;
        ir::Graph summed = fourBranchThrough({relu("r"), relu("r2")});
        summed.blocks.front().innerNodes.back().inputs.front().push_back(val("r", 0, 64));
        ir::validateAndInferShapes(summed);
        QTest::newRow("a link that sums its value with itself") << summed;
        QTest::newRow("a pool in the chain")
            << fourBranchThrough({relu("r"), pool("p", {}, ir::PoolType::Max, {1, 1})});
        QTest::newRow("an element-wise product in the chain")
            << fourBranchThrough({relu("r"), element("m", {}, ir::ElementOp::Mul)});
        QTest::newRow("a conv in the chain")
            << fourBranchThrough({relu("r"), conv("c", {}, 64, {1, 1})});
    }
    void negativeChains() {
        QFETCH(ir::Graph, graph);
        for (const sy::RewriteMatch& m : sy::findRewrites(graph)) // the chain's conv may match
            QVERIFY(m.conv.name != "y");
    }

    // Random graphs whose concatenation-fed convs read ReLU-led chains (and the negative
    // forms): every rewrite (all matches, a random subset) computes the original outputs; the
    // DP's optimum of every rewritten block problem small enough is brute force's over the
    // rewritten graph's orders; best is the better of none and all per block and never raises
    // a cut partition's optimum.
    void randomChains() {
        std::mt19937 rng(2718);
        const int graphs = 150;
        int chained = 0, plain = 0, bruteChecked = 0;
        for (int trial = 0; trial < graphs; ++trial) {
            ir::Graph g = randomConcatGraph(rng, 1 + trial % 2);
            addElementWiseChains(g, rng, 0.7);
            const std::vector<sy::RewriteMatch> matches = sy::findRewrites(g);
            std::vector<sy::RewriteMatch> subset;
            for (const sy::RewriteMatch& m : matches) {
                ++(m.copies.empty() && m.through.empty() ? plain : chained);
                if (std::bernoulli_distribution(0.5)(rng))
                    subset.push_back(m);
            }
            for (const auto& applied : {matches, subset}) {
                const double err = rewriteError(g, sy::rewriteGraph(g, applied), trial);
                QVERIFY2(err <= kTolerance,
                         qPrintable(QStringLiteral("trial %1: error %2").arg(trial).arg(err)));
            }
            const sy::RewrittenPlan all = plan(g, sy::RewriteMode::All, sy::Partition::Blocks);
            const sy::RewrittenPlan best = plan(g, sy::RewriteMode::Best, sy::Partition::Blocks);
            const sy::RewrittenPlan cuts = plan(g, sy::RewriteMode::Best);
            for (size_t b = 0; b < g.blocks.size(); ++b) {
                QCOMPARE(best.plan.blocks[b].peak,
                         std::min(all.originalPeaks[b], all.plan.blocks[b].peak));
                QVERIFY(cuts.plan.blocks[b].peak <= cuts.originalPeaks[b]);
                const ir::MemoryProblem& p = all.problems[b];
                if (p.ops.size() <= kBruteForceOps) {
                    QCOMPARE(all.plan.blocks[b].peak, bruteForcePeak(p));
                    ++bruteChecked;
                }
            }
        }
        qInfo("%d graphs: %d matches through chains, %d direct, %d blocks brute-forced", graphs,
              chained, plain, bruteChecked);
        QVERIFY(chained >= graphs && bruteChecked >= graphs / 6);
    }

    // Small random cells whose rewritten problems brute force enumerates: k = 2 or 3
    // branches (convs of the input, one maybe also read by a sink conv), their concatenation,
    // a chain of one or two relu/activation/identity nodes, and y (channel-wise, or depthwise).
    // The DP's optimum over the rewritten graph is brute force's, rewriting or not.
    void smallChainsAgainstBruteForce() {
        std::mt19937 rng(577);
        auto pick = [&rng](int lo, int hi) {
            return std::uniform_int_distribution<int>(lo, hi)(rng);
        };
        int rewritten = 0;
        for (int trial = 0; trial < 200; ++trial) {
            ir::Graph g;
            g.name = "small_chain";
            g.input = placeholder("x", {pick(1, 4), 4, 4});
            const int k = pick(2, 3);
            std::vector<Node> inner;
            std::vector<ValueRef> branches;
            int64_t c = 0;
            for (int i = 0; i < k; ++i) {
                const int64_t ci = pick(1, 8);
                inner.push_back(conv("b" + std::to_string(i),
                                     concat({val("x", 0, g.input.outputShape.c)}), ci, {1, 1}));
                branches.push_back(val(inner.back().name, 0, ci));
                c += ci;
            }
            if (pick(0, 3) == 0) // a second reader of branch 0: it stays live
                inner.push_back(conv("side", concat({branches[0]}), pick(1, 8), {1, 1}));
            inner.push_back(node(NodeKind::Identity, "cat", concat(branches)));
            std::string below = "cat";
            for (int j = 0, links = k == 3 ? 1 : pick(1, 2); j < links; ++j) {
                const std::string name = "f" + std::to_string(j);
                const int kind = pick(0, 2);
                inner.push_back(kind == 0 ? node(NodeKind::Relu, name, concat({val(below, 0, c)}))
                                : kind == 1
                                    ? activation(name, concat({val(below, 0, c)}),
                                                 static_cast<ActType>(pick(0, 3)))
                                    : node(NodeKind::Identity, name, concat({val(below, 0, c)})));
                below = name;
            }
            const bool depthwise = pick(0, 3) == 0;
            Node y = conv("y", concat({val(below, 0, c)}), depthwise ? c : pick(1, 12), {3, 3},
                          {1, 1}, {1, 1}, depthwise ? c : 1, static_cast<ActType>(pick(0, 3)));
            g.blocks.push_back(block(g.input, std::move(inner), std::move(y)));
            ir::validateAndInferShapes(g);
            const std::vector<sy::RewriteMatch> matches = sy::findRewrites(g);
            QCOMPARE(matches.size(), size_t{1});
            QVERIFY(rewriteError(g, sy::rewriteGraph(g, matches), trial) <= kTolerance);
            for (sy::RewriteMode mode : {sy::RewriteMode::None, sy::RewriteMode::All}) {
                const sy::RewrittenPlan r = plan(g, mode, sy::Partition::Blocks);
                QCOMPARE(r.plan.peak, bruteForcePeak(r.problems[0]));
                rewritten += r.rewrites[0];
            }
        }
        QCOMPARE(rewritten, 200);
    }

    // The bundled NAS cells: DARTS V2's reduction cell reads the normal cell's concatenation
    // through ReLU → 1×1 conv; the SwiftNet-like cell has seven such convs (one depthwise).
    // Rewriting lowers both peaks (docs/memory.md "Results on the NAS cells") and computes
    // the same outputs.
    void nasCells_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("matches");
        QTest::addColumn<double>("atLeast"); // the peak's reduction by rewriting
        QTest::newRow("darts_v2_cells") << "darts_v2_cells" << 1 << 1.1;
        QTest::newRow("swiftnet_cell") << "swiftnet_cell" << 7 << 1.4;
    }
    void nasCells() {
        QFETCH(QString, model);
        QFETCH(int, matches);
        QFETCH(double, atLeast);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const std::vector<sy::RewriteMatch> found = sy::findRewrites(g);
        QCOMPARE(static_cast<int>(found.size()), matches);
        QVERIFY(std::all_of(found.begin(), found.end(),
                            [](const sy::RewriteMatch& m) { return !m.copies.empty(); }));
        QVERIFY(rewriteError(g, sy::rewriteGraph(g, found), 5) <= kTolerance);
        const sy::RewrittenPlan best = plan(g, sy::RewriteMode::Best);
        const double reduction =
            static_cast<double>(best.originalPeak) / static_cast<double>(best.plan.peak);
        qInfo("%s: %lld -> %lld B (%.3fx)", qPrintable(model),
              static_cast<long long>(best.originalPeak), static_cast<long long>(best.plan.peak),
              reduction);
        QVERIFY(reduction >= atLeast);
    }
};

QTEST_GUILESS_MAIN(TestSerenityRewriteChain)
#include "tst_serenity_rewrite_chain.moc"
