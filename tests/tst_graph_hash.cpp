// SPDX-License-Identifier: Apache-2.0
// The structural graph hash (engine/rewrite/graph_hash.h; docs/metaflow.md §7 property 3):
// invariant under renaming and under file-order permutations of independent nodes, and
// different for graphs that compute differently (attributes, ranges, concat order, sums).
#include "bundled_models.h"
#include "random_concat_graphs.h"
#include "rewrite/graph_hash.h"
#include "rewrite_test_support.h"

#include <QtTest>
#include <map>
#include <set>

using namespace ios;
using namespace ios::testing;

namespace {

void renameRefs(ir::Node& n, const std::map<std::string, std::string>& to) {
    for (ir::Term& t : n.inputs)
        for (ir::ValueRef& v : t)
            v.node = to.at(v.node);
    for (ir::Node& inner : n.nodes)
        renameRefs(inner, to);
}

void collect(const ir::Node& n, std::map<std::string, std::string>& to) {
    to.emplace(n.name, "v" + std::to_string(to.size() * 7919 % 100003));
    for (const ir::Node& inner : n.nodes)
        collect(inner, to);
}

void renameNode(ir::Node& n, const std::map<std::string, std::string>& to) {
    n.name = to.at(n.name);
    for (ir::Node& inner : n.nodes)
        renameNode(inner, to);
}

// Every node renamed, every reference with it.
ir::Graph renamed(ir::Graph g) {
    std::map<std::string, std::string> to;
    collect(g.input, to);
    for (const ir::Block& b : g.blocks)
        for (const ir::Node* n : b.operators())
            collect(*n, to);
    renameNode(g.input, to);
    for (ir::Block& b : g.blocks) {
        b.enterName = to.at(b.enterName);
        renameNode(b.enterNode, to);
        for (ir::Node& n : b.innerNodes) {
            renameNode(n, to);
            renameRefs(n, to);
        }
        renameNode(b.exitNode, to);
        renameRefs(b.exitNode, to);
        b.stages.clear();
        b.parts.clear();
    }
    ir::validateAndInferShapes(g);
    return g;
}

// Inner nodes shuffled, then put back in a dependency order by validation (ties by the
// shuffled position): another topological order of the same graph.
ir::Graph permuted(ir::Graph g, std::mt19937& rng) {
    for (ir::Block& b : g.blocks) {
        std::shuffle(b.innerNodes.begin(), b.innerNodes.end(), rng);
        b.stages.clear();
        b.parts.clear();
    }
    ir::validateAndInferShapes(g);
    return g;
}

} // namespace

class TestGraphHash : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void invariantUnderRenamingAndReordering() {
        std::mt19937 rng(5);
        for (int i = 0; i < 300; ++i) {
            const ir::Graph g =
                i % 2 == 0 ? RandomRewriteGraph(rng).build() : RandomConcatGraph(rng).build(2);
            const uint64_t h = rewrite::graphHash(g);
            QCOMPARE(rewrite::graphHash(renamed(g)), h);
            const ir::Graph p = permuted(g, rng);
            QCOMPARE(rewrite::graphHash(p), h);
            QCOMPARE(rewrite::graphHash(renamed(p)), h);
        }
        for (const char* model : {"squeezenet", "inception_v3", "nasnet_large"}) {
            const ir::Graph g = samples::loadBundledModel(model);
            QCOMPARE(rewrite::graphHash(permuted(renamed(g), rng)), rewrite::graphHash(g));
        }
    }

    // Block hashes: renaming and reordering keep them; InceptionV3's two InceptionC blocks with
    // 160 channels (blocks 6 and 7) compute alike from equal shapes, the 128 and 192 ones not.
    void blockHashes() {
        std::mt19937 rng(6);
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const ir::Graph other = permuted(renamed(g), rng);
        for (size_t b = 0; b < g.blocks.size(); ++b)
            QCOMPARE(rewrite::blockHash(other, b), rewrite::blockHash(g, b));
        QCOMPARE(rewrite::blockHash(g, 6), rewrite::blockHash(g, 7));
        QVERIFY(rewrite::blockHash(g, 5) != rewrite::blockHash(g, 6));
        QVERIFY(rewrite::blockHash(g, 8) != rewrite::blockHash(g, 6));
    }

    void distinguishesDifferentGraphs() {
        auto graph = [](std::vector<ir::Node> inner, ir::Node exit) {
            ir::Graph g;
            g.input = placeholder("in", {4, 6, 6});
            g.blocks.push_back(block(g.input, std::move(inner), std::move(exit)));
            ir::validateAndInferShapes(g);
            return rewrite::graphHash(g);
        };
        auto c = [](const char* name, int64_t out, ir::Hw k, ir::Hw p) {
            return conv(name, concat({val("in", 0, 4)}), out, k, {1, 1}, p);
        };
        const ir::Node a = c("a", 3, {1, 1}, {0, 0});
        const ir::Node b = c("b", 3, {3, 3}, {1, 1});
        const uint64_t base = graph(
            {a, b}, node(ir::NodeKind::Identity, "o", concat({val("a", 0, 3), val("b", 0, 3)})));
        // Concat order, a sum instead of a concat, a channel range, an attribute.
        QVERIFY(base != graph({a, b}, node(ir::NodeKind::Identity, "o",
                                           concat({val("b", 0, 3), val("a", 0, 3)}))));
        QVERIFY(base != graph({a, b}, node(ir::NodeKind::Identity, "o",
                                           sum({val("a", 0, 3), val("b", 0, 3)}))));
        QVERIFY(base != graph({a, b}, node(ir::NodeKind::Identity, "o",
                                           concat({val("a", 0, 2), val("b", 0, 3)}))));
        QVERIFY(base !=
                graph({a, c("b", 3, {5, 5}, {2, 2})},
                      node(ir::NodeKind::Identity, "o", concat({val("a", 0, 3), val("b", 0, 3)}))));
        ir::Node relu = b;
        relu.conv.act = ir::ActType::Identity;
        QVERIFY(base != graph({a, relu}, node(ir::NodeKind::Identity, "o",
                                              concat({val("a", 0, 3), val("b", 0, 3)}))));
        // An in-place term (rule R5) against the same term copied.
        ir::Node exitInPlace =
            node(ir::NodeKind::Identity, "o", concat({val("a", 0, 3), val("b", 0, 3)}));
        exitInPlace.inputs[1].front().inPlace = true;
        QVERIFY(base != graph({a, b}, exitInPlace));
        ir::Node otherInPlace = exitInPlace;
        otherInPlace.inputs[0].front().inPlace = true;
        otherInPlace.inputs[1].front().inPlace = false;
        QVERIFY(graph({a, b}, otherInPlace) != graph({a, b}, exitInPlace));
        // Every rewrite of the bundled SqueezeNet changes the hash, and distinct rewrites
        // give distinct hashes.
        const ir::Graph sq = samples::loadBundledModel("squeezenet");
        std::set<uint64_t> hashes{rewrite::graphHash(sq)};
        const auto matches = rewrite::findMatches(sq, rewrite::RuleSet());
        for (const rewrite::Match& m : matches)
            hashes.insert(rewrite::graphHash(rewrite::applyMatch(sq, m).graph));
        QCOMPARE(hashes.size(), matches.size() + 1);
    }
};

QTEST_GUILESS_MAIN(TestGraphHash)
#include "tst_graph_hash.moc"
