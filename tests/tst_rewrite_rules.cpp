// SPDX-License-Identifier: Apache-2.0
// The graph substitutions (engine/rewrite/rules.h; docs/metaflow.md §7 properties 1 and 2):
// every match of every rule on random graphs and on the bundled models computes the same
// outputs under the reference executor with weights carried through the rule's transform; the
// near misses never match; R3 agrees with schedule::mergeable; provenance names what changed.
#include "build_flavour.h"
#include "bundled_models.h"
#include "io/onnx_import.h"
#include "ir/block_dag.h"
#include "ir/metrics.h"
#include "rewrite_test_support.h"
#include "schedule/merge.h"
#include "util/error.h"

#include <QtTest>

using namespace ios;
using namespace ios::testing;
using rewrite::RuleId;

namespace {

constexpr double kTolerance = 1e-4;

ir::Graph oneBlock(ir::TensorShape input, std::vector<ir::Node> inner, ir::Node exit) {
    ir::Graph g;
    g.name = "t";
    g.input = placeholder("in", input);
    g.blocks.push_back(block(g.input, std::move(inner), std::move(exit)));
    ir::validateAndInferShapes(g);
    return g;
}

size_t count(const ir::Graph& g, RuleId rule) {
    size_t n = 0;
    for (size_t b = 0; b < g.blocks.size(); ++b)
        n += rewrite::findMatches(g, static_cast<int>(b), rule).size();
    return n;
}

ir::Node concatExit(std::vector<ir::ValueRef> vs) {
    return node(ir::NodeKind::Identity, "out", concat(std::move(vs)));
}

} // namespace

class TestRewriteRules : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void randomGraphsPreserveOutputs() {
        std::mt19937 rng(15);
        const int graphs = kFullModels ? 600 : 120;
        std::array<size_t, rewrite::kAllRules.size()> matched{};
        for (int i = 0; i < graphs; ++i) {
            const ir::Graph g = RandomRewriteGraph(rng).build();
            for (RuleId rule : rewrite::kAllRules)
                for (const rewrite::Match& m : rewrite::findMatches(g, 0, rule)) {
                    ++matched[static_cast<size_t>(rule)];
                    for (uint64_t seed = 1; seed <= 3; ++seed) {
                        const double err = substitutionError(g, m, seed);
                        QVERIFY2(err <= kTolerance,
                                 qPrintable(QStringLiteral("graph %1, %2 on %3: error %4")
                                                .arg(i)
                                                .arg(QString::fromUtf8(rewrite::ruleName(rule)))
                                                .arg(QString::fromStdString(m.nodes.front()))
                                                .arg(err)));
                    }
                }
        }
        // The generator reaches every rule, many times.
        for (RuleId rule : rewrite::kAllRules) {
            qInfo("%s: %zu matches checked", rewrite::ruleName(rule).data(),
                  matched[static_cast<size_t>(rule)]);
            QVERIFY2(matched[static_cast<size_t>(rule)] >= 20, rewrite::ruleName(rule).data());
        }
    }

    void bundledModelsPreserveOutputs_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("squeezenet") << QStringLiteral("squeezenet");
        if (kFullModels)
            QTest::newRow("inception_v3") << QStringLiteral("inception_v3");
    }
    // Each block alone with a random input (the matched region), every match of every rule.
    void bundledModelsPreserveOutputs() {
        QFETCH(QString, model);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        size_t checked = 0;
        const bool inception = model == QStringLiteral("inception_v3");
        // Naive double convolutions are slow: all of SqueezeNet's blocks, one InceptionV3 block
        // of each kind (A, B, C, D, E).
        const std::vector<size_t> inceptionBlocks = {1, 4, 5, 9, 10};
        for (size_t b = 0; b < g.blocks.size(); ++b) {
            if (inception && std::find(inceptionBlocks.begin(), inceptionBlocks.end(), b) ==
                                 inceptionBlocks.end())
                continue;
            const ir::Graph sub = blockAlone(g, b);
            const auto baseline = exitOutputs(sub, rewrite::initialWeights(sub, 1), 1);
            for (RuleId rule : rewrite::kAllRules) {
                const std::vector<rewrite::Match> matches = rewrite::findMatches(sub, 0, rule);
                for (const rewrite::Match& m : matches) {
                    // Every match of SqueezeNet's (optimised builds) and every R3 merge of
                    // InceptionV3's, else the first match of a rule.
                    const bool every = kFullModels && (!inception || rule == RuleId::R3);
                    if (!every && m != matches.front())
                        continue;
                    const double err = substitutionError(sub, m, 1, &baseline);
                    QVERIFY2(err <= kTolerance, qPrintable(QString::number(err)));
                    ++checked;
                }
            }
        }
        QVERIFY(checked > 0);
    }

    // docs/metaflow.md §1.5: R5's concatenations and the terms it writes in place.
    void bundledInPlaceCounts_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("concats");
        QTest::addColumn<int>("terms");
        QTest::newRow("inception_v3") << QStringLiteral("inception_v3") << 11 << 46;
        QTest::newRow("squeezenet") << QStringLiteral("squeezenet") << 8 << 16;
        QTest::newRow("nasnet_large") << QStringLiteral("nasnet_large") << 4 << 7;
        QTest::newRow("randwire_large") << QStringLiteral("randwire_large") << 0 << 0;
    }
    void bundledInPlaceCounts() {
        QFETCH(QString, model);
        QFETCH(int, concats);
        QFETCH(int, terms);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        int foundConcats = 0;
        int foundTerms = 0;
        for (size_t b = 0; b < g.blocks.size(); ++b)
            for (const rewrite::Match& m :
                 rewrite::findMatches(g, static_cast<int>(b), RuleId::R5)) {
                const ir::Node* n = ir::NodeIndex(g).find(m.nodes.front());
                QVERIFY(n != nullptr);
                ++foundConcats;
                foundTerms +=
                    static_cast<int>(rewrite::inPlaceTerms(g, static_cast<int>(b), *n).size());
            }
        QCOMPARE(foundConcats, concats);
        QCOMPARE(foundTerms, terms);
    }

    // R5 flags every qualifying term of one concatenation at once; provenance names the node;
    // a second R5 finds nothing; the outputs are unchanged.
    void inPlaceConcatenation() {
        const ir::Node a = conv("a", concat({val("in", 0, 4)}), 3, {1, 1});
        const ir::Node b = conv("b", concat({val("in", 0, 4)}), 5, {3, 3}, {1, 1}, {1, 1});
        const ir::Node p =
            pool("p", concat({val("b", 0, 5)}), ir::PoolType::Max, {3, 3}, {1, 1}, {1, 1});
        // a whole and read once: qualifies; b also read by p: not; the slice of p: not.
        const ir::Graph g = oneBlock({4, 6, 6}, {a, b, p},
                                     concatExit({val("a", 0, 3), val("b", 0, 5), val("p", 1, 4)}));
        const auto matches = rewrite::findMatches(g, 0, RuleId::R5);
        QCOMPARE(matches.size(), size_t{1});
        QCOMPARE(matches.front().nodes, (std::vector<std::string>{"out"}));
        const rewrite::Rewritten r = rewrite::applyMatch(g, matches.front());
        QCOMPARE(r.provenance.sources, (std::vector<std::string>{"out"}));
        QCOMPARE(r.provenance.created, (std::vector<std::string>{"out"}));
        const std::vector<ir::Term>& terms = r.graph.blocks[0].exitNode.inputs;
        QVERIFY(terms[0][0].inPlace);
        QVERIFY(!terms[1][0].inPlace);
        QVERIFY(!terms[2][0].inPlace);
        QCOMPARE(count(r.graph, RuleId::R5), size_t{0});
        QVERIFY(rewrite::graphHash(r.graph) != rewrite::graphHash(g));
        QCOMPARE(substitutionError(g, matches.front(), 1), 0.0);
        // One cost memo for both graphs: the flagged concatenation is priced anew, cheaper.
        rewrite::RewriteCost cost(simulatedFactory());
        const double before = cost.price(g).total();
        QVERIFY(cost.price(r.graph).total() < before);
        QVERIFY_THROWS_EXCEPTION(UserError, rewrite::applyMatch(r.graph, matches.front()));
    }

    // A merge (R3) of convs written in place turns their terms into slices of the merged
    // output: the flags go, the graph validates, the values stay.
    void mergeClearsInPlaceTerms() {
        const ir::Graph g =
            oneBlock({4, 6, 6},
                     {conv("a", concat({val("in", 0, 4)}), 3, {1, 1}),
                      conv("b", concat({val("in", 0, 4)}), 5, {3, 3}, {1, 1}, {1, 1})},
                     concatExit({val("a", 0, 3), val("b", 0, 5)}));
        const ir::Graph flagged =
            rewrite::applyMatch(g, rewrite::findMatches(g, 0, RuleId::R5).front()).graph;
        const auto merges = rewrite::findMatches(flagged, 0, RuleId::R3);
        QCOMPARE(merges.size(), size_t{1});
        const rewrite::Rewritten r = rewrite::applyMatch(flagged, merges.front());
        const std::vector<ir::Term>& terms = r.graph.blocks[0].exitNode.inputs;
        QCOMPARE(terms[0][0], val("a", 0, 3));
        QCOMPARE(terms[1][0], val("a", 3, 8));
        QCOMPARE(count(r.graph, RuleId::R5), size_t{0});
        QVERIFY(substitutionError(flagged, merges.front(), 2) <= kTolerance);
    }

    // R5 near misses: an extra consumer, a slice, the placeholder, one term, a sum term; and
    // the producer in another block (blocks are hard boundaries).
    void inPlaceNegativeCases() {
        const ir::TensorShape in8{4, 8, 8};
        const ir::Node a = conv("a", concat({val("in", 0, 4)}), 4, {1, 1});
        const ir::Node b = conv("b", concat({val("in", 0, 4)}), 4, {1, 1});
        const ir::Node readsA = node(ir::NodeKind::Relu, "ra", concat({val("a", 0, 4)}));
        QCOMPARE(count(oneBlock(in8, {a, readsA}, concatExit({val("a", 0, 4), val("ra", 0, 4)})),
                       RuleId::R5),
                 size_t{1}); // ra qualifies, a (read twice) does not
        QCOMPARE(
            count(oneBlock(in8, {a, b}, concatExit({val("a", 0, 2), val("b", 1, 3)})), RuleId::R5),
            size_t{0});
        QCOMPARE(
            count(oneBlock(in8, {}, concatExit({val("in", 0, 4), val("in", 0, 2)})), RuleId::R5),
            size_t{0});
        QCOMPARE(count(oneBlock(in8, {a}, concatExit({val("a", 0, 4)})), RuleId::R5), size_t{0});
        QCOMPARE(count(oneBlock(in8, {a, b},
                                node(ir::NodeKind::Identity, "out",
                                     {{val("a", 0, 4), val("b", 0, 4)}, {val("in", 0, 4)}})),
                       RuleId::R5),
                 size_t{0});
        // [a, a]: a has two readers.
        QCOMPARE(
            count(oneBlock(in8, {a}, concatExit({val("a", 0, 4), val("a", 0, 4)})), RuleId::R5),
            size_t{0});
        // The second block's concatenation of the first block's exit.
        ir::Graph two = oneBlock(in8, {}, conv("x", concat({val("in", 0, 4)}), 4, {1, 1}));
        two.blocks.push_back(
            block(two.blocks[0].exitNode, {conv("c", concat({val("x", 0, 4)}), 4, {1, 1})},
                  node(ir::NodeKind::Identity, "y", concat({val("x", 0, 4), val("c", 0, 4)}))));
        ir::validateAndInferShapes(two);
        const auto m = rewrite::findMatches(two, 1, RuleId::R5);
        QCOMPARE(m.size(), size_t{1});
        QCOMPARE(rewrite::inPlaceTerms(two, 1, two.blocks[1].exitNode), (std::vector<size_t>{1}));
    }

    // docs/metaflow.md §1.5: R3 pairs in the bundled models; R1/R6/R7 never match there.
    void bundledMatchCounts() {
        const ir::Graph squeeze = samples::loadBundledModel("squeezenet");
        const ir::Graph inception = samples::loadBundledModel("inception_v3");
        QCOMPARE(count(squeeze, RuleId::R3), size_t{12});
        QCOMPARE(count(inception, RuleId::R3), size_t{32});
        for (RuleId r : {RuleId::R1, RuleId::R6, RuleId::R7}) {
            QCOMPARE(count(squeeze, r), size_t{0});
            QCOMPARE(count(inception, r), size_t{0});
        }
    }

    // R3 matches exactly the pairs schedule::mergeable accepts (same input terms, no exit).
    void mergeRuleAgreesWithMergeable() {
        std::mt19937 rng(3);
        size_t pairs = 0;
        for (int i = 0; i < 200; ++i) {
            const ir::Graph g = RandomRewriteGraph(rng).build();
            const auto ops = g.blocks[0].operators();
            const auto matches = rewrite::findMatches(g, 0, RuleId::R3);
            for (size_t a = 0; a < ops.size(); ++a)
                for (size_t b = a + 1; b < ops.size(); ++b) {
                    if (ops[a]->kind != ir::NodeKind::Conv || ops[b]->kind != ir::NodeKind::Conv)
                        continue;
                    const bool expect = ops[a]->inputs == ops[b]->inputs &&
                                        schedule::mergeable({ops[a], ops[b]}) &&
                                        b + 1 != ops.size();
                    const rewrite::Match m{RuleId::R3, 0, {ops[a]->name, ops[b]->name}};
                    const bool found =
                        std::find(matches.begin(), matches.end(), m) != matches.end();
                    QCOMPARE(found, expect);
                    pairs += expect;
                }
        }
        QVERIFY(pairs > 50);
    }

    void negativeCasesDoNotMatch() {
        const ir::TensorShape in8{4, 8, 8};
        auto c = [](const char* name, ir::Hw k, ir::Hw s, ir::Hw p, int64_t groups = 1,
                    ir::ActType act = ir::ActType::Relu) {
            return conv(name, concat({val("in", 0, 4)}), 4, k, s, p, groups, act);
        };
        // R3: equal output sizes at stride 2 on H = 8 but unequal k − 2p (2×2/p0 vs 3×3/p1).
        QCOMPARE(
            count(oneBlock(in8, {c("a", {2, 2}, {2, 2}, {0, 0}), c("b", {3, 3}, {2, 2}, {1, 1})},
                           concatExit({val("a", 0, 4), val("b", 0, 4)})),
                  RuleId::R3),
            size_t{0});
        // R3: other activation, stride, groups.
        QCOMPARE(count(oneBlock(in8,
                                {c("a", {3, 3}, {1, 1}, {1, 1}),
                                 c("b", {1, 1}, {1, 1}, {0, 0}, 1, ir::ActType::Identity)},
                                concatExit({val("a", 0, 4), val("b", 0, 4)})),
                       RuleId::R3),
                 size_t{0});
        QCOMPARE(
            count(oneBlock(in8, {c("a", {1, 1}, {1, 1}, {0, 0}), c("b", {1, 1}, {1, 1}, {0, 0}, 2)},
                           concatExit({val("a", 0, 4), val("b", 0, 4)})),
                  RuleId::R3),
            size_t{0});
        // R3: a member is the block exit.
        QCOMPARE(
            count(oneBlock(in8, {c("a", {1, 1}, {1, 1}, {0, 0})}, c("out", {3, 3}, {1, 1}, {1, 1})),
                  RuleId::R3),
            size_t{0});
        // The positive control of the same shapes.
        QCOMPARE(
            count(oneBlock(in8, {c("a", {1, 1}, {1, 1}, {0, 0}), c("b", {3, 3}, {1, 1}, {1, 1})},
                           concatExit({val("a", 0, 4), val("b", 0, 4)})),
                  RuleId::R3),
            size_t{1});

        // R6 / R7 with a relu conv, and with an extra consumer of the conv.
        const ir::Node reluConv = c("c", {3, 3}, {1, 1}, {1, 1});
        const ir::Node idConv = c("c", {3, 3}, {1, 1}, {1, 1}, 1, ir::ActType::Identity);
        const ir::Node add =
            node(ir::NodeKind::Identity, "add", sum({val("c", 0, 4), val("in", 0, 4)}));
        const ir::Node addExit =
            node(ir::NodeKind::Identity, "out", sum({val("c", 0, 4), val("in", 0, 4)}));
        for (RuleId r : {RuleId::R6, RuleId::R7}) {
            QCOMPARE(count(oneBlock(in8, {reluConv}, addExit), r), size_t{0});
            QCOMPARE(count(oneBlock(in8, {idConv}, addExit), r), size_t{1});
            QCOMPARE(
                count(oneBlock(in8, {idConv, add}, concatExit({val("add", 0, 4), val("c", 0, 4)})),
                      r),
                size_t{0});
        }
        // R1 with an extra consumer of the conv, and with a relu that reads a slice.
        const ir::Node relu = node(ir::NodeKind::Relu, "r", concat({val("c", 0, 4)}));
        QCOMPARE(count(oneBlock(in8, {idConv},
                                node(ir::NodeKind::Relu, "out", concat({val("c", 0, 4)}))),
                       RuleId::R1),
                 size_t{1});
        QCOMPARE(count(oneBlock(in8, {idConv, relu}, concatExit({val("r", 0, 4), val("c", 0, 4)})),
                       RuleId::R1),
                 size_t{0});
        QCOMPARE(count(oneBlock(in8, {idConv},
                                node(ir::NodeKind::Relu, "out", concat({val("c", 0, 2)}))),
                       RuleId::R1),
                 size_t{0});
    }

    // The ONNX importer lowers a residual Add followed by Relu into one relu node over a
    // two-value sum term (io/onnx/onnx_lowering.cpp): R7 (and R6 for x + conv(x)) match it,
    // the target conv takes the relu, and the outputs are unchanged.
    void residualReluSumFuses() {
        const ir::TensorShape in{8, 6, 6};
        auto c = [](const char* name, const char* from, int64_t cin, int64_t out, ir::Hw k,
                    ir::ActType act) {
            const ir::Hw pad{k.h / 2, k.w / 2};
            return conv(name, concat({val(from, 0, cin)}), out, k, {1, 1}, pad, 1, act);
        };
        const auto relu = ir::ActType::Relu;
        const auto id = ir::ActType::Identity;
        // A bottleneck with a projection shortcut and one with the identity shortcut.
        const ir::Graph projection =
            oneBlock(in,
                     {c("c1", "in", 8, 4, {1, 1}, relu), c("c2", "c1", 4, 4, {3, 3}, relu),
                      c("c3", "c2", 4, 8, {1, 1}, id), c("down", "in", 8, 8, {1, 1}, id)},
                     node(ir::NodeKind::Relu, "add", sum({val("c3", 0, 8), val("down", 0, 8)})));
        const ir::Graph identity =
            oneBlock(in,
                     {c("c1", "in", 8, 4, {1, 1}, relu), c("c2", "c1", 4, 4, {3, 3}, relu),
                      c("c3", "c2", 4, 8, {1, 1}, id)},
                     node(ir::NodeKind::Relu, "add", sum({val("in", 0, 8), val("c3", 0, 8)})));
        for (const ir::Graph* g : {&projection, &identity}) {
            QCOMPARE(count(*g, RuleId::R6), size_t{0});
            const std::vector<rewrite::Match> m7 = rewrite::findMatches(*g, 0, RuleId::R7);
            // The projection sum matches twice: c3 + down and down + c3.
            QCOMPARE(m7.size(), g == &projection ? size_t{2} : size_t{1});
            QCOMPARE(m7.front().nodes, (std::vector<std::string>{"c3", "add"}));
            for (const rewrite::Match& m : m7) {
                const rewrite::Rewritten r = rewrite::applyMatch(*g, m);
                const ir::Node& fused = r.graph.blocks[0].exitNode;
                QVERIFY(fused.kind == ir::NodeKind::Conv);
                QVERIFY(fused.conv.act == ir::ActType::Relu);
                QCOMPARE(fused.inputs.size(), size_t{2});
                for (uint64_t seed = 1; seed <= 2; ++seed)
                    QVERIFY(substitutionError(*g, m, seed) <= kTolerance);
            }
        }
        // relu(x + conv(x)): R6 folds δ into W and keeps the relu.
        const ir::Graph folded =
            oneBlock(in, {c("c", "in", 8, 8, {3, 3}, id)},
                     node(ir::NodeKind::Relu, "add", sum({val("c", 0, 8), val("in", 0, 8)})));
        const std::vector<rewrite::Match> m6 = rewrite::findMatches(folded, 0, RuleId::R6);
        QCOMPARE(m6.size(), size_t{1});
        QVERIFY(rewrite::applyMatch(folded, m6.front()).graph.blocks[0].exitNode.conv.act ==
                ir::ActType::Relu);
        QVERIFY(substitutionError(folded, m6.front(), 1) <= kTolerance);
        // Not taken: an activation node over a sum (the importer also uses it for a standalone
        // batch norm's affine map, which δ would not reproduce).
        ir::Node act =
            node(ir::NodeKind::Activation, "add", sum({val("c", 0, 8), val("in", 0, 8)}));
        act.activation = ir::ActType::Relu;
        QCOMPARE(count(oneBlock(in, {c("c", "in", 8, 8, {3, 3}, id)}, act), RuleId::R6), size_t{0});
        QCOMPARE(count(oneBlock(in, {c("c", "in", 8, 8, {3, 3}, id)}, act), RuleId::R7), size_t{0});
    }

    // The imported ResNet-50 (sample_models/onnx): every one of its 16 residual sums is a
    // relu over conv3 + shortcut, and R7 finds each.
    void resnet50ResidualSums() {
        if (!io::onnxSupportAvailable())
            QSKIP("built without ONNX support");
        const ir::Graph g = samples::loadModel(IOS_SOURCE_DIR "/sample_models/onnx/resnet50.onnx");
        size_t convFirst = 0;
        for (size_t b = 0; b < g.blocks.size(); ++b)
            for (const rewrite::Match& m : rewrite::findMatches(g, static_cast<int>(b), RuleId::R7))
                convFirst += m.nodes.front().ends_with("conv3/Conv") ? 1 : 0;
        QCOMPARE(convFirst, size_t{16});
        QCOMPARE(count(g, RuleId::R6), size_t{0});
    }

    // R3's provenance and rewiring: b's readers read the merged conv's upper channels.
    void mergeProvenanceAndRewiring() {
        ir::Graph g = oneBlock(
            {4, 6, 6},
            {conv("a", concat({val("in", 0, 4)}), 3, {1, 1}),
             conv("b", concat({val("in", 0, 4)}), 5, {3, 3}, {1, 1}, {1, 1}),
             pool("p", concat({val("b", 1, 4)}), ir::PoolType::Max, {3, 3}, {1, 1}, {1, 1})},
            concatExit({val("a", 0, 3), val("p", 0, 3)}));
        g.blocks[0].parts = {{"a", "b"}, {"p", "out"}};
        g.blocks[0].stages = {{{"a", "b"}}, {{"p"}}, {{"out"}}};
        const auto matches = rewrite::findMatches(g, 0, RuleId::R3);
        QCOMPARE(matches.size(), size_t{1});
        const rewrite::Rewritten r = rewrite::applyMatch(g, matches.front());
        QCOMPARE(r.provenance.sources, (std::vector<std::string>{"a", "b"}));
        QCOMPARE(r.provenance.created, (std::vector<std::string>{"a"}));
        QCOMPARE(r.provenance.rewired, (std::vector<std::string>{"p"}));
        // The removed conv leaves the block's explicit parts; the old schedule is dropped.
        QCOMPARE(r.graph.blocks[0].parts,
                 (std::vector<std::vector<std::string>>{{"a"}, {"p", "out"}}));
        QVERIFY(r.graph.blocks[0].stages.empty());
        QCOMPARE(ir::buildBlockDag(r.graph.blocks[0]).parts.size(), size_t{2});
        const auto ops = r.graph.blocks[0].operators();
        QCOMPARE(ops.size(), size_t{3});
        QCOMPARE(ops[0]->conv.outChannels, int64_t{8});
        QCOMPARE(ops[0]->conv.kernel, (ir::Hw{3, 3}));
        QCOMPARE(ops[1]->inputs[0][0], val("a", 4, 7));
        QVERIFY(substitutionError(g, matches.front(), 1) <= kTolerance);
        // The check has teeth: the rewritten graph with name-derived weights differs.
        const auto before = exitOutputs(g, rewrite::initialWeights(g, 1), 1);
        const auto untransformed = exitOutputs(r.graph, rewrite::initialWeights(r.graph, 1), 1);
        QVERIFY(relativeError(before, untransformed) > 1e-2);
    }

    void staleMatchIsRefused() {
        const ir::Graph g =
            oneBlock({2, 4, 4}, {}, conv("out", concat({val("in", 0, 2)}), 2, {1, 1}));
        QVERIFY_THROWS_EXCEPTION(UserError, rewrite::applyMatch(g, {RuleId::R4, 0, {"missing"}}));
    }

    void ruleNames() {
        for (RuleId r : rewrite::kAllRules)
            QCOMPARE(rewrite::ruleFromName(rewrite::ruleName(r)), std::optional<RuleId>(r));
        QCOMPARE(rewrite::ruleFromName("r3"), std::optional<RuleId>(RuleId::R3));
        QCOMPARE(rewrite::ruleFromName("r5"), std::optional<RuleId>(RuleId::R5));
        QVERIFY(!rewrite::ruleFromName("R2"));
        QVERIFY(rewrite::RuleSet().on(RuleId::R5));
        QVERIFY(!rewrite::RuleSet().on(RuleId::R4));
        QVERIFY(rewrite::RuleSet::only({RuleId::R4}).on(RuleId::R4));
    }
};

QTEST_GUILESS_MAIN(TestRewriteRules)
#include "tst_rewrite_rules.moc"
