// SPDX-License-Identifier: Apache-2.0
// The flow-based graph split (engine/rewrite/graph_split.h; docs/metaflow.md §4 and §7
// property 5): the max-flow cut is a minimum vertex cut (brute force over vertex subsets of the
// same network), G2 is a down-set, the plan's leaves stay within the threshold and cover every
// operator once; searches with splits never end worse and keep the outputs.
#include "build_flavour.h"
#include "bundled_models.h"
#include "rewrite/backtracking.h"
#include "rewrite/graph_split.h"
#include "rewrite_test_support.h"

#include <QtTest>
#include <map>
#include <set>

using namespace ios;
using namespace ios::testing;

namespace {

rewrite::SplitProblem randomProblem(std::mt19937& rng, int n) {
    rewrite::SplitProblem p;
    p.n = n;
    std::bernoulli_distribution edge(0.3);
    std::uniform_int_distribution<int> cap(0, 3);
    for (int v = 0; v < n; ++v) {
        p.cap.push_back(cap(rng));
        for (int u = 0; u < v; ++u)
            if (edge(rng))
                p.edges.emplace_back(u, v);
    }
    return p;
}

// Whether removing `cut` (a bitmask) leaves no path from a source operator to a sink operator.
bool separates(const rewrite::SplitProblem& p, const rewrite::SplitNetwork& net, uint32_t cut) {
    std::vector<bool> reached(static_cast<size_t>(p.n), false);
    for (int o = 0; o < p.n; ++o) // edges go forward: one pass in file order
        if (!(cut >> o & 1u)) {
            bool r = net.fromSource[static_cast<size_t>(o)];
            for (const auto& [u, v] : p.edges)
                r = r || (v == o && reached[static_cast<size_t>(u)]);
            reached[static_cast<size_t>(o)] = r;
            if (r && net.toSink[static_cast<size_t>(o)])
                return false;
        }
    return true;
}

} // namespace

class TestGraphSplit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void minCutEqualsBruteForce() {
        std::mt19937 rng(21);
        for (int i = 0; i < 400; ++i) {
            const int n = 2 + i % 11;
            const rewrite::SplitProblem p = randomProblem(rng, n);
            const rewrite::SplitNetwork net = rewrite::splitNetwork(p);
            int64_t best = INT64_MAX;
            for (uint32_t cut = 0; cut < (1u << n); ++cut) {
                if (!separates(p, net, cut))
                    continue;
                int64_t w = 0;
                for (int o = 0; o < n; ++o)
                    if (cut >> o & 1u)
                        w += net.weight[static_cast<size_t>(o)];
                best = std::min(best, w);
            }
            const rewrite::SplitResult r = rewrite::splitOperators(p);
            QCOMPARE(r.capacity, best);
            uint32_t mask = 0;
            int64_t w = 0;
            for (int o : r.cut) {
                mask |= 1u << o;
                w += net.weight[static_cast<size_t>(o)];
            }
            QCOMPARE(w, best);
            QVERIFY(separates(p, net, mask));
            // G2 (first) and G1 (second) partition the operators; no edge leads from G1 back
            // into G2.
            QVERIFY(!r.first.empty() && !r.second.empty());
            QCOMPARE(static_cast<int>(r.first.size() + r.second.size()), n);
            std::vector<bool> inFirst(static_cast<size_t>(n), false);
            for (int o : r.first)
                inFirst[static_cast<size_t>(o)] = true;
            for (const auto& [u, v] : p.edges)
                QVERIFY(!(inFirst[static_cast<size_t>(v)] && !inFirst[static_cast<size_t>(u)]));
        }
    }

    void planLeavesCoverEveryOperator() {
        std::mt19937 rng(22);
        for (int i = 0; i < 200; ++i) {
            const int n = 1 + i % 40;
            const rewrite::SplitProblem p = randomProblem(rng, n);
            for (int threshold : {1, 3, 8, 30}) {
                std::vector<int> seen(static_cast<size_t>(n), 0);
                for (const rewrite::SplitStep& s : rewrite::planSplit(p, threshold)) {
                    QVERIFY(!s.ops.empty());
                    QVERIFY(std::is_sorted(s.ops.begin(), s.ops.end()));
                    if (s.window)
                        continue;
                    QVERIFY(static_cast<int>(s.ops.size()) <= std::max(threshold, 1));
                    for (int o : s.ops)
                        ++seen[static_cast<size_t>(o)];
                }
                QCOMPARE(seen, std::vector<int>(static_cast<size_t>(n), 1));
            }
        }
    }

    // Algorithm 2 runs over the whole graph, not block by block ([MF] §6.1 divides subgraphs
    // of more than 30 operators): the leaves partition every operator of the bundled models,
    // hold at most T, name the blocks of their operators, and small blocks share a leaf, so
    // α relaxes against the cost of a subgraph of up to T operators, not of one block.
    void planGroupsSmallBlocks() {
        for (const char* name : {"squeezenet", "inception_v3", "nasnet_large", "randwire_large"}) {
            const ir::Graph g = samples::loadBundledModel(name);
            const rewrite::SearchPlan plan =
                rewrite::planSearch(g, rewrite::SearchOptions::paper());
            std::map<std::string, int> blockOf;
            for (size_t b = 0; b < g.blocks.size(); ++b)
                for (const ir::Node* n : g.blocks[b].operators())
                    blockOf[n->name] = static_cast<int>(b);
            std::map<std::string, int> seen;
            size_t leaves = 0;
            bool shared = false;
            for (const rewrite::SearchRegion& r : plan.regions) {
                std::set<int> blocks;
                for (const std::string& n : r.names)
                    blocks.insert(blockOf.at(n));
                QCOMPARE(r.blocks, std::vector<int>(blocks.begin(), blocks.end()));
                QVERIFY(!r.names.empty());
                bool window = false;
                for (const std::string& n : r.names)
                    window = window || seen.count(n) != 0;
                if (window)
                    continue;
                ++leaves;
                QVERIFY2(r.names.size() <= 30, name);
                shared = shared || blocks.size() > 1;
                for (const std::string& n : r.names)
                    ++seen[n];
            }
            QCOMPARE(seen.size(), blockOf.size());
            for (const auto& [n, times] : seen)
                QCOMPARE(times, 1);
            QVERIFY(leaves >= plan.operators / 30);
            if (g.blocks.size() > 1)
                QVERIFY2(shared, name);
        }
    }

    // Searches with splits (threshold 3 on blocks of up to 12 operators): never worse, the
    // log replays to G*, G* computes the input's outputs, and the cost is additive: G*'s cost
    // is its full price.
    void searchWithSplits() {
        std::mt19937 rng(23);
        rewrite::RewriteCost cost(simulatedFactory());
        rewrite::SearchOptions o;
        o.splitThreshold = 3;
        o.rules.set(rewrite::RuleId::R4, true);
        int split = 0;
        const int graphs = kFullModels ? 150 : 40;
        for (int i = 0; i < graphs; ++i) {
            const ir::Graph g = RandomRewriteGraph(rng).build();
            split += g.blocks[0].operators().size() > 3;
            const rewrite::SearchResult r = rewrite::metaflowSearch(g, cost, o);
            QVERIFY(r.costAfterMs <= r.costBeforeMs);
            QCOMPARE(cost.price(r.graph).total(), r.costAfterMs);
            ir::Graph replay = g;
            rewrite::WeightMap w = rewrite::initialWeights(g, 3);
            for (const rewrite::Substitution& s : r.history) {
                rewrite::transformWeights(replay, s.provenance.match, w);
                replay = rewrite::applyMatch(replay, s.provenance.match).graph;
            }
            QVERIFY(replay == r.graph);
            QVERIFY(relativeError(exitOutputs(g, rewrite::initialWeights(g, 3), 3),
                                  exitOutputs(replay, w, 3)) <= 1e-4);
        }
        QVERIFY(split > graphs * 2 / 3);
    }
};

QTEST_GUILESS_MAIN(TestGraphSplit)
#include "tst_graph_split.moc"
