// SPDX-License-Identifier: Apache-2.0
// MetaFlow's relaxed search (docs/metaflow.md "Backtracking search"; [MF] Algorithm 1 as its
// code runs it): a queue of graphs ordered by cost, the cheapest expanded by every match of
// every enabled rule; a rewritten graph is kept while it costs less than α times the best so
// far, so the search passes through temporarily worse graphs (α > 1). Deduplicated by
// graphHash, bounded by a budget of expansions, deterministic (ties: earlier insertion first).
#pragma once

#include "ir/graph.h"
#include "rewrite/rewrite_cost.h"
#include "rewrite/rules.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace ios::rewrite {

struct SearchOptions {
    double alpha = 1.05;
    uint64_t budget = 100000; // expansions after the first: budget B expands at most B + 1 graphs
    bool pruneOnPop = true;   // drop a popped graph dearer than α·best (MetaFlow's code)
    RuleSet rules;
    // MetaFlow's Algorithm 2 over the whole graph: a (sub)graph of more than splitThreshold
    // operators is cut at a minimum vertex cut and each part searched on its own, then a window
    // around the cut ([MF] §4.3, §6.1: T = 30). Block boundaries are natural cuts (no rule
    // spans them), so a region holds several small blocks or part of a large one. 0: never
    // split, one search over the whole graph, as MetaFlow's code.
    int splitThreshold = 30;
    // The optional objective `ios` (docs/metaflow.md §2): when set, graphs are compared by the
    // sum over blocks of this latency of one block (the metaflow scheduler passes IOS-both's),
    // memoised per blockHash, instead of the sum of operator latencies. It is additive over
    // blocks only, so with a split threshold each block is searched whole on its own. Must be
    // deterministic.
    std::function<double(const ir::Graph& graph, int block)> blockObjective;
    // The memory bound: the graphs waiting in the queue hold at most this many operators
    // (copies of the whole graph each); one more is refused (WorkLimitReached, knob Metaflow)
    // instead of growing past it.
    uint64_t maxQueuedOperators = uint64_t{1} << 21;

    // [MF] §6.1: α 1.05, split above 30 operators; budget per searched subgraph.
    static SearchOptions paper();
    // [mf-code] @22cc767: α 1.01, budget 300, one search over the whole graph.
    static SearchOptions artifact();
};

struct SearchStats {
    uint64_t expanded = 0;     // graphs popped and rewritten
    uint64_t generated = 0;    // rewritten graphs built
    uint64_t deduplicated = 0; // generated graphs already seen
    uint64_t pruned = 0;       // generated graphs not below α·best, popped graphs above it
    double seconds = 0;
};

// The counting pass before a search: the regions it searches, in run order (the leaves and
// windows of the split plan, each block with the `ios` objective, or one region: all), and
// the candidate matches of the enabled rules in each on G0 — what the first expansion of a
// region builds, so `candidates` graphs of `operators` operators are a lower bound of the
// search's work.
struct SearchRegion {
    std::vector<int> blocks;        // ascending; empty: every block
    std::vector<std::string> names; // empty: every operator of the blocks
    uint64_t candidates = 0;
};
struct SearchPlan {
    std::vector<SearchRegion> regions;
    uint64_t candidates = 0;    // Σ over regions; counting stops past kMaxPlanCandidates
    uint64_t operators = 0;     // G0's
    uint64_t largestRegion = 0; // operators
    // The graph each region's search copies per rewrite holds the blocks it touches (the whole
    // graph for a whole-graph region): the largest such graph, in operators, and Σ over
    // regions of candidates × that graph's operators (saturating), the first expansions' copies.
    uint64_t largestGraph = 0;
    uint64_t copies = 0;
};
inline constexpr uint64_t kMaxPlanCandidates = uint64_t{1} << 20;
SearchPlan planSearch(const ir::Graph& g0, const SearchOptions& options);

struct SearchProgress {
    SearchStats stats;
    // Regions searched, of SearchPlan::regions (each at most the budget's expansions; most
    // end long before it).
    uint64_t done = 0;
    uint64_t total = 0;
    uint64_t queued = 0;
    double bestMs = 0;   // cost of the searched region's best graph
    double poppedMs = 0; // cost of the graph just popped
    // The whole graph's cost with the region's best in place: it only falls over the search
    // (regions are searched one after another), so front ends plot it; the whole graph with
    // the popped graph in place costs graphBestMs − bestMs + poppedMs.
    double graphBestMs = 0;
};

// Progress at most every 100 ms and on completion of each region; `cancelled` polled once per
// expansion (a true answer throws ios::Cancelled); `enqueued(cost, bestCost)` for every graph
// put on the queue (tests check α's rule with it); `planned` gets the counting pass's plan
// before the search starts (it may throw to refuse the search).
struct SearchHooks {
    std::function<void(const SearchPlan&)> planned;
    std::function<void(const SearchProgress&)> progress;
    std::function<bool()> cancelled;
    std::function<void(double costMs, double bestMs)> enqueued;
};

struct Substitution {
    Provenance provenance;
    double costAfterMs = 0; // of the whole graph, under the search's objective
};

struct SearchResult {
    ir::Graph graph; // the best graph found (G*)
    // Under the search's objective (the operator sum, or blockObjective's sum when set).
    double costBeforeMs = 0;
    double costAfterMs = 0;
    std::vector<Substitution> history; // how G0 became G* (replayable with applyMatch)
    SearchStats stats;
};

// Searches from the validated graph `g0` under `cost`.
SearchResult metaflowSearch(const ir::Graph& g0, RewriteCost& cost, const SearchOptions& options,
                            const SearchHooks& hooks = {});

} // namespace ios::rewrite
