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
#include <iterator>
#include <random>
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
    std::string text = io::writeNativeJson(rw.graph);
    text += std::to_string(rewrite::graphHash(rw.graph));
    for (const ir::MemoryProblem& p :
         sy::rewrittenMemoryProblems(rw, ir::buildDags(rw.graph), options))
        text += problemText(p);
    return cost::stableHash64(text);
}

// A graph and what Serenity's former own rewriter gave on it: the match count and the digests
// of the rewrite with every match and with every other match (0 when there is none).
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
    for (const samples::BundledModel& m : samples::bundledModels()) // no conv over a concat
        out.push_back({std::string(m.name), samples::loadBundledModel(m.name)});
#ifdef IOS_HAVE_ONNX
    for (const char* onnx : {"densenet121", "squeezenet1_1", "mobilenet_v2", "shufflenet_v2_x1_0"})
        out.push_back({onnx, samples::loadModel(IOS_SOURCE_DIR "/sample_models/onnx/" +
                                                std::string(onnx) + ".onnx")});
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

// What Serenity's own rewriter gave on randomGraphs()[i], recorded before it became S1.
struct Recorded {
    size_t matches;
    uint64_t all, half;
};
constexpr Recorded kRandomRecorded[] = {
    {3, 0xd44ef87f70cd3f98ULL, 0xa6882f5d90c670a5ULL},
    {3, 0xb1aa440a1a4665c5ULL, 0xa06ccd305150639cULL},
    {5, 0x6c91759b8daa24eaULL, 0x0bddc8532e4ef664ULL},
    {1, 0xbab37d71f59f2c89ULL, 0xbab37d71f59f2c89ULL},
    {2, 0x8e484dd9f23be511ULL, 0xd259ab1776ba216cULL},
    {7, 0x71409374f91e87d1ULL, 0xc2fde4e13e7d1bc3ULL},
    {2, 0x49b841486bc20d1dULL, 0x939aa0f12eb5a3a9ULL},
    {5, 0xcee147dc3e2a3944ULL, 0xb0b3f38f90490d13ULL},
    {8, 0xd5db25e664da4a81ULL, 0xbf6d2c22bf4f6fe5ULL},
    {1, 0x73266c41185fe1d9ULL, 0x73266c41185fe1d9ULL},
    {8, 0x2275d3f392a35bd8ULL, 0xc03f643ded25c9b4ULL},
    {8, 0x360717416922ca28ULL, 0x7575c5d181936b5cULL},
    {2, 0x41e8cace442bdf68ULL, 0x7354921725828ad1ULL},
    {4, 0x540ec4c9a1984a8cULL, 0x5ffef6996035a389ULL},
    {6, 0x0e023c7f4bdcac2fULL, 0xf6e6d0a5a8104329ULL},
    {2, 0xc0b1c835448046cbULL, 0x6526f3adab90c445ULL},
    {4, 0x6a2d8c57c986e0caULL, 0x867b67c0f80ba78fULL},
    {4, 0xc94120d6f3ccc9ccULL, 0x67f187cd1638902bULL},
    {2, 0xce29def1dadda188ULL, 0x006635be8d279f40ULL},
    {3, 0xe331e3c4e293d769ULL, 0xc3ae9294ff5dc524ULL},
    {8, 0x5a149065e44dac50ULL, 0x7483af84ee3c8458ULL},
    {2, 0x4bc27a2a0209e031ULL, 0x7c956a20f2fddec9ULL},
    {4, 0x301ceb8393c42c43ULL, 0xb5dc640a495cc8c1ULL},
    {6, 0x0d920d2441dd83d3ULL, 0x35986bd7ae500ae7ULL},
    {1, 0x2e27d34c967e6d84ULL, 0x2e27d34c967e6d84ULL},
    {5, 0x5ee723ca49940eb1ULL, 0x374ad0f60c9928b3ULL},
    {6, 0x0d40558de0a7c979ULL, 0xe5f3d424255aaba6ULL},
    {1, 0x04e4dab15014a965ULL, 0x04e4dab15014a965ULL},
    {3, 0x2d71b6b75ca28c1eULL, 0x8d7a955a58114400ULL},
    {6, 0xc7d8544ea6d30a15ULL, 0x1351be4d363fb44bULL},
    {0, 0, 0},
    {2, 0x00114be8a177b7d1ULL, 0xb8a3c0cdad67badcULL},
    {7, 0xc135f679fe1f40d9ULL, 0x4f11aec48605630bULL},
    {2, 0x3bee886ac5cb2988ULL, 0x5a8da461891afce2ULL},
    {2, 0xf79486282b242fecULL, 0xff6459cb1c1a4fdfULL},
    {9, 0xe0106b15aaaa2a87ULL, 0x639847fd3f922582ULL},
    {3, 0x38f8c660d0ca9d08ULL, 0x255359d7ecfc4361ULL},
    {3, 0xc286e035eedac00cULL, 0xc68b15c059feb4aaULL},
    {4, 0x4d8c28856a272ebdULL, 0xd8df9d3e9afc8ddaULL},
    {2, 0x4889aa5381214732ULL, 0xea83c860ef467516ULL},
    {2, 0x758f2bdb8f008433ULL, 0x8d8aa7da18c33c67ULL},
    {6, 0x7ac65db3e202a7e0ULL, 0x70a1d9e70500dcabULL},
    {0, 0, 0},
    {3, 0x3c7c6016b43a8dcfULL, 0x3b6b3115b6338e2dULL},
    {5, 0x7d76c4552eecd0acULL, 0xfdee710c97534b1eULL},
    {5, 0xb0b0134dc4e5607eULL, 0xa43d2359fe910461ULL},
    {5, 0xb3f297458f66852dULL, 0xd16e69589bd35083ULL},
    {7, 0x910abc7064ee8b6bULL, 0xf7a89527d397698eULL},
    {1, 0xbc9edbf9c722d1abULL, 0xbc9edbf9c722d1abULL},
    {7, 0x2bc380bed306bc0dULL, 0x48dd2720395ea2deULL},
    {4, 0xfbad055653cfb2cbULL, 0xb4da5ea1f4ec4561ULL},
    {1, 0x2e16539adec8df1eULL, 0x2e16539adec8df1eULL},
    {4, 0x8640e9fa3af58623ULL, 0x0fe9e8a602d1d8faULL},
    {6, 0xff531e7cce944d2bULL, 0x45afa59df6929dc7ULL},
    {1, 0xdbf35c669b45715cULL, 0xdbf35c669b45715cULL},
    {3, 0xf979e9b4a01414d5ULL, 0x4f93f51821383ed2ULL},
    {7, 0x8451323fe870e5e2ULL, 0xebe815a9224950b8ULL},
    {4, 0xc49422f077bc8c4dULL, 0x54ea9e20aa1bb4a2ULL},
    {2, 0xcb68687e08f1d56eULL, 0xb2bb6753fef905c2ULL},
    {7, 0x32059658d8847f8fULL, 0xf4e41934652f03abULL},
};

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
            if (matches.empty())
                continue;
            QCOMPARE(digest(sy::rewriteGraph(c.graph, matches)), c.all);
            QCOMPARE(digest(sy::rewriteGraph(c.graph, everyOther(matches))), c.half);
        }
        const std::vector<ir::Graph> graphs = randomGraphs();
        QCOMPARE(graphs.size(), std::size(kRandomRecorded));
        size_t total = 0;
        for (size_t i = 0; i < graphs.size(); ++i) {
            const std::vector<sy::RewriteMatch> matches = sy::findRewrites(graphs[i]);
            QCOMPARE(matches.size(), kRandomRecorded[i].matches);
            total += matches.size();
            if (matches.empty())
                continue;
            QCOMPARE(digest(sy::rewriteGraph(graphs[i], matches)), kRandomRecorded[i].all);
            QCOMPARE(digest(sy::rewriteGraph(graphs[i], everyOther(matches))),
                     kRandomRecorded[i].half);
        }
        QVERIFY(total > 200);
    }

    // The rewrite engine's proof of a Serenity rewrite: the log of S1 substitutions replays
    // (rewrite::checkRewrite: transformWeights and applyMatch from G0, the graph hash of the
    // replay equal to the rewrite's) and the reference executor finds the block exits equal.
    void proofThroughTheEngine() {
        std::vector<ir::Graph> graphs = randomGraphs();
        graphs.push_back(fourBranchGraph(false));
        graphs.push_back(fourBranchGraph(true));
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
        QVERIFY(proved > 100);
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
