// SPDX-License-Identifier: Apache-2.0
// Serenity's identity rewrite as rule S1 of the rewrite engine (docs/memory.md "Identity graph
// rewriting", docs/metaflow.md "Rules"): schedulers::serenity::rewriteGraph goes through
// rewrite::applyMatch, so its results are the engine's: the rewritten graphs and memory
// problems of the bundled models are those of Serenity's former own rewriter (digests recorded
// from it), the substitution log replays through rewrite::checkRewrite (the reference
// executor's proof and the graph hash), the provenance names what each match replaced and
// created, and MetaFlow's rule table does not offer S1.
#include "bundled_models.h"
#include "cost/stage_signature.h"
#include "io/native_json.h"
#include "ir/block_dag.h"
#include "ir/metrics.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "memory_fixtures.h"
#include "random_concat_graphs.h"
#include "rewrite/graph_hash.h"
#include "rewrite/rules.h"
#include "rewrite/verify_rewrite.h"
#include "schedulers/serenity/rewrite.h"
#include "util/error.h"

#include <QTest>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>

using namespace ios;
using namespace ios::testing;
namespace sy = ios::schedulers::serenity;

namespace {

// Every field of a memory problem as text (the digest's second half).
std::string problemText(const ir::MemoryProblem& p) {
    std::string s = p.name + " c" + std::to_string(p.constantBytes) + "\n";
    auto list = [&s](const std::vector<int>& v) {
        for (int i : v)
            s += " " + std::to_string(i);
        s += ";";
    };
    for (const auto& t : p.tensors) {
        s += "T " + t.name + " " + std::to_string(t.bytes) + (t.sink ? " sink" : "");
        list(t.producers);
        list(t.consumers);
        s += "\n";
    }
    for (const auto& o : p.ops) {
        s += "O " + o.name + " " + std::to_string(o.blockOp) + " " + std::to_string(o.output) +
             " " + std::to_string(o.transientBytes) + " " + std::to_string(o.accumulateBytes);
        list(o.inputs);
        s += "\n";
    }
    list(p.opOfBlockOp);
    list(p.assemblyOf);
    return s;
}

// The rewritten graph (native file text, names and attributes included), its hash and every
// block's rewritten memory problem (weights counted), as one 64-bit digest.
uint64_t digest(const sy::GraphRewrite& rw) {
    ir::MemoryOptions options;
    options.countWeights = true;
    // The digests were recorded before activation nodes carried "inplace" (written since the
    // IOS authors' loader requires it); a false one is the old meaning, so it is left out.
    std::string text = std::regex_replace(io::writeNativeJson(rw.graph),
                                          std::regex(R"(,\s*"inplace": false)"), "");
    text += std::to_string(rewrite::graphHash(rw.graph));
    for (const ir::MemoryProblem& p :
         sy::rewrittenMemoryProblems(rw, ir::buildDags(rw.graph), options))
        text += problemText(p);
    return cost::stableHash64(text);
}

// A graph and what Serenity's former own rewriter gave on it: the match count and the digests
// of the rewrite with every match and with every other match (0 when there is none, or when
// the matches look through element-wise chains, which the former rewriter did not: those are
// proved by the reference executor in proofThroughTheEngine and tst_serenity_rewrite_chain).
struct Case {
    std::string name;
    ir::Graph graph;
    size_t matches = 0;
    uint64_t all = 0, half = 0;
};

std::vector<Case> namedCases() {
    std::vector<Case> out = {
        {"four_branch", fourBranchGraph(false), 1, 0xacee38759ee3c297ULL, 0xacee38759ee3c297ULL},
        {"four_branch_depthwise", fourBranchGraph(true), 1, 0x044a343323e1689dULL,
         0x044a343323e1689dULL}};
    // No conv over a concat in the benchmark networks and demos; the NAS cell samples hold
    // ReLU-led ones (counted in tst_serenity_rewrite_chain).
    for (const samples::BundledModel& m : samples::bundledModels())
        if (m.benchmark || m.name.starts_with("demo_"))
            out.push_back({std::string(m.name), samples::loadBundledModel(m.name)});
#ifdef IOS_HAVE_ONNX
    // DenseNet-121: each dense layer's concat → batch norm and relu (one activation node) →
    // 1×1 conv, 54 of them; the other 4 concatenations end a block (the next reads them).
    for (const auto& [onnx, count] : {std::pair{"densenet121", 54},
                                      {"squeezenet1_1", 0},
                                      {"mobilenet_v2", 0},
                                      {"shufflenet_v2_x1_0", 0}})
        out.push_back({onnx,
                       samples::loadModel(IOS_SOURCE_DIR "/sample_models/onnx/" +
                                          std::string(onnx) + ".onnx"),
                       static_cast<size_t>(count)});
#endif
    return out;
}

// Random graphs: concatenation-fed and depthwise convs, the negative forms, in-place terms
// (the generator's distributions are libstdc++'s: the recorded digest is of this toolchain).
std::vector<ir::Graph> randomGraphs() {
    std::mt19937 rng(4242);
    std::vector<ir::Graph> out;
    for (int i = 0; i < 60; ++i) {
        ir::Graph g = randomConcatGraph(rng, 1 + i % 3);
        if (i % 2 == 1)
            markInPlace(g, rng, 0.5);
        out.push_back(std::move(g));
    }
    return out;
}

// What Serenity's own rewriter gave on randomGraphs()[i], recorded before it became S1
// (tests/data/serenity_rewrite_digests.txt).
struct Recorded {
    size_t matches = 0;
    uint64_t all = 0, half = 0;
};

std::vector<Recorded> recordedDigests() {
    std::ifstream in(IOS_TEST_DATA_DIR "/serenity_rewrite_digests.txt");
    std::vector<Recorded> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line.front() == '#')
            continue;
        std::istringstream fields(line);
        Recorded r;
        fields >> r.matches >> std::hex >> r.all >> r.half;
        out.push_back(r);
    }
    return out;
}

// Every other match (the first, third, …): a subset, as RewriteMode::Best applies.
std::vector<sy::RewriteMatch> everyOther(const std::vector<sy::RewriteMatch>& matches) {
    std::vector<sy::RewriteMatch> out;
    for (size_t i = 0; i < matches.size(); i += 2)
        out.push_back(matches[i]);
    return out;
}

// The substitution log of a rewrite, as the MetaFlow search records one.
std::vector<rewrite::Substitution> logOf(const sy::GraphRewrite& rw) {
    std::vector<rewrite::Substitution> log;
    for (const rewrite::Provenance& p : rw.provenance)
        log.push_back({p, 0.0});
    return log;
}

} // namespace

class TestSerenityRule : public QObject {
    Q_OBJECT

private slots:
    // The rewritten graphs (names, attributes, order, in-place flags), their hashes and the
    // rewritten memory problems are those Serenity's own rewriter gave before it became S1.
    void sameResultsAsBefore() {
        for (const Case& c : namedCases()) {
            const std::vector<sy::RewriteMatch> matches = sy::findRewrites(c.graph);
            QCOMPARE(matches.size(), c.matches);
            if (matches.empty() || c.all == 0)
                continue;
            QCOMPARE(digest(sy::rewriteGraph(c.graph, matches)), c.all);
            QCOMPARE(digest(sy::rewriteGraph(c.graph, everyOther(matches))), c.half);
        }
        const std::vector<ir::Graph> graphs = randomGraphs();
        const std::vector<Recorded> recorded = recordedDigests();
        QCOMPARE(recorded.size(), graphs.size());
        size_t total = 0;
        for (size_t i = 0; i < graphs.size(); ++i) {
            const std::vector<sy::RewriteMatch> matches = sy::findRewrites(graphs[i]);
            QCOMPARE(matches.size(), recorded[i].matches);
            total += matches.size();
            if (matches.empty())
                continue;
            QCOMPARE(digest(sy::rewriteGraph(graphs[i], matches)), recorded[i].all);
            QCOMPARE(digest(sy::rewriteGraph(graphs[i], everyOther(matches))), recorded[i].half);
        }
        QVERIFY(total > 200);
    }

    // The rewrite engine's proof of a Serenity rewrite: the log of S1 substitutions replays
    // (rewrite::checkRewrite: transformWeights and applyMatch from G0, the graph hash of the
    // replay equal to the rewrite's) and the reference executor finds the block exits equal.
    // Graphs whose convs read their concatenations through element-wise chains included
    // (the replay then also names the chain's per-term copies).
    void proofThroughTheEngine() {
        std::vector<ir::Graph> graphs = randomGraphs();
        graphs.push_back(fourBranchGraph(false));
        graphs.push_back(fourBranchGraph(true));
        std::mt19937 rng(99);
        for (int i = 0; i < 40; ++i) {
            ir::Graph g = randomConcatGraph(rng, 1 + i % 2);
            addElementWiseChains(g, rng, 0.8);
            graphs.push_back(std::move(g));
        }
        int proved = 0;
        for (size_t i = 0; i < graphs.size(); ++i) {
            const ir::Graph& g = graphs[i];
            const std::vector<sy::RewriteMatch> matches = sy::findRewrites(g);
            if (matches.empty())
                continue;
            for (const auto& applied : {matches, everyOther(matches)}) {
                const sy::GraphRewrite rw = sy::rewriteGraph(g, applied);
                QCOMPARE(rw.provenance.size(), applied.size());
                QVERIFY(rewrite::graphHash(rw.graph) != rewrite::graphHash(g));
                const rewrite::RewriteCheck check =
                    rewrite::checkRewrite(g, rw.graph, logOf(rw), i);
                QVERIFY2(check.maxRelError <= 1e-9, qPrintable(QString::number(check.maxRelError)));
                ++proved;
            }
            // A log that does not belong to the rewrite is refused by the hash.
            QVERIFY_THROWS_EXCEPTION(
                UserError, rewrite::checkRewrite(g, sy::rewriteGraph(g, matches).graph, {}));
        }
        QVERIFY(proved > 150);
    }

    // Provenance as MetaFlow's rules record it: sources y (and the concat node), created the
    // partial convs and y, nothing rewired; a stale match is refused.
    void provenanceAndStaleMatches() {
        const ir::Graph g = fourBranchGraph(false);
        const sy::GraphRewrite rw = sy::rewriteGraph(g, sy::findRewrites(g));
        QCOMPARE(rw.provenance.size(), size_t{1});
        const rewrite::Provenance& p = rw.provenance.front();
        QVERIFY(p.match.rule == rewrite::RuleId::S1);
        QCOMPARE(p.sources, std::vector<std::string>{"y"});
        QCOMPARE(p.created,
                 (std::vector<std::string>{"y.part1", "y.part2", "y.part3", "y.part4", "y"}));
        QVERIFY(p.rewired.empty());

        // y reading an identity node that concatenates: the node is a source and goes away.
        ir::Graph viaNode = g;
        ir::Block& b = viaNode.blocks.front();
        ir::Node cat = node(ir::NodeKind::Identity, "cat", b.exitNode.inputs);
        b.exitNode.inputs = concat({val("cat", 0, 64)});
        b.innerNodes.push_back(std::move(cat));
        ir::validateAndInferShapes(viaNode);
        const std::vector<sy::RewriteMatch> m = sy::findRewrites(viaNode);
        QCOMPARE(m.size(), size_t{1});
        QCOMPARE(m[0].concat, std::string("cat"));
        const rewrite::Rewritten r = rewrite::applyMatch(viaNode, m[0].ruleMatch());
        QCOMPARE(r.provenance.sources, (std::vector<std::string>{"y", "cat"}));
        QCOMPARE(r.provenance.created, p.created);
        QVERIFY(ir::NodeIndex(r.graph).find("cat") == nullptr);
        QCOMPARE(rewrite::graphHash(r.graph), rewrite::graphHash(rw.graph));

        QVERIFY_THROWS_EXCEPTION(UserError,
                                 rewrite::applyMatch(g, {rewrite::RuleId::S1, 0, {"c0"}}));
        QVERIFY_THROWS_EXCEPTION(UserError,
                                 rewrite::applyMatch(viaNode, {rewrite::RuleId::S1, 0, {"y"}}));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, sy::rewriteGraph(viaNode, sy::findRewrites(g)));
    }

    // S1 is the engine's rule but not MetaFlow's: the search's table, rule sets and names
    // (`--rules`) do not offer it, so MetaFlow's results are unchanged.
    void notOneOfMetaflowsRules() {
        QCOMPARE(rewrite::ruleName(rewrite::RuleId::S1), std::string_view("S1"));
        QVERIFY(!rewrite::ruleFromName("S1"));
        QVERIFY(std::find(rewrite::kAllRules.begin(), rewrite::kAllRules.end(),
                          rewrite::RuleId::S1) == rewrite::kAllRules.end());
        rewrite::RuleSet all;
        all.enabled.fill(true);
        QVERIFY(!all.on(rewrite::RuleId::S1));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, all.set(rewrite::RuleId::S1, true));
        const ir::Graph g = fourBranchGraph(false);
        for (const rewrite::Match& m : rewrite::findMatches(g, all))
            QVERIFY(m.rule != rewrite::RuleId::S1);
        QCOMPARE(rewrite::findMatches(g, 0, rewrite::RuleId::S1).size(), size_t{1});
    }
};

QTEST_GUILESS_MAIN(TestSerenityRule)
#include "tst_serenity_rule.moc"
