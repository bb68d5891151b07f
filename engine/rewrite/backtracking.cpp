// SPDX-License-Identifier: Apache-2.0
#include "rewrite/backtracking.h"

#include "ir/block_dag.h"
#include "rewrite/graph_hash.h"
#include "rewrite/graph_split.h"
#include "util/error.h"
#include "util/work_limit.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace ios::rewrite {

SearchOptions SearchOptions::paper() {
    return {};
}

SearchOptions SearchOptions::artifact() {
    SearchOptions o;
    o.alpha = 1.01;
    o.budget = 300;
    o.perBlock = false;
    o.splitThreshold = 0;
    return o;
}

namespace {

using Clock = std::chrono::steady_clock;

struct State {
    ir::Graph graph;
    OperatorCosts costs;
    std::vector<Substitution> history;
};

// What one search may rewrite: a block (or all: -1) and, within it, a set of operator names
// (empty: all).
struct Region {
    int block = -1;
    std::set<std::string> names;

    explicit Region(const SearchRegion& r)
        : block(r.block), names(r.names.begin(), r.names.end()) {}

    bool covers(const Match& m) const {
        if (block >= 0 && m.block != block)
            return false;
        return names.empty() || std::all_of(m.nodes.begin(), m.nodes.end(),
                                            [this](const auto& n) { return names.count(n) != 0; });
    }
    // Which operators of block b may take part in a match (null: all).
    std::optional<std::vector<bool>> allowed(const ir::Graph& g, size_t b) const {
        if (names.empty())
            return std::nullopt;
        std::vector<bool> mask;
        for (const ir::Node* n : g.blocks[b].operators())
            mask.push_back(names.count(n->name) != 0);
        return mask;
    }
};

size_t operatorCount(const OperatorCosts& costs) {
    size_t n = 0;
    for (const std::vector<double>& block : costs.ms)
        n += block.size();
    return n;
}

class Search {
public:
    Search(RewriteCost& cost, const SearchOptions& o, const SearchHooks& hooks, SearchStats& stats)
        : cost_(cost), o_(o), hooks_(hooks), stats_(stats) {}

    // The whole graph's cost under the search's objective.
    double total(const State& s) {
        if (!o_.blockObjective)
            return s.costs.total();
        double sum = 0;
        for (size_t b = 0; b < s.graph.blocks.size(); ++b)
            sum += blockCost(s, b);
        return sum;
    }

    // The cost of the operators `region` covers (with blockObjective: of its block, or all).
    double cost(const State& s, const Region& region) {
        if (region.block < 0)
            return total(s);
        const size_t b = static_cast<size_t>(region.block);
        if (o_.blockObjective)
            return blockCost(s, b);
        const std::vector<const ir::Node*> ops = s.graph.blocks[b].operators();
        double sum = 0;
        for (size_t i = 0; i < ops.size(); ++i)
            if (region.names.empty() || region.names.count(ops[i]->name) != 0)
                sum += s.costs.ms[b][i];
        return sum;
    }

    // Algorithm 1 over `region`, from `start`; returns the best state.
    State run(State start, const Region& region) {
        struct Entry {
            double cost;
            uint64_t seq;
            std::shared_ptr<State> state;
        };
        auto later = [](const Entry& a, const Entry& b) {
            return a.cost != b.cost ? a.cost > b.cost : a.seq > b.seq;
        };
        std::priority_queue<Entry, std::vector<Entry>, decltype(later)> queue(later);
        std::unordered_set<uint64_t> seen{graphHash(start.graph)};
        auto best = std::make_shared<State>(std::move(start));
        double bestCost = cost(*best, region);
        uint64_t seq = 0;
        queuedOps_ = 0;
        admit(operatorCount(best->costs), queue.size(), region);
        queue.push({bestCost, seq++, best});
        uint64_t counter = 0;
        while (!queue.empty()) {
            Entry e = queue.top();
            queue.pop();
            queuedOps_ -= operatorCount(e.state->costs);
            if (e.cost < bestCost) {
                best = e.state;
                bestCost = e.cost;
            }
            if (o_.pruneOnPop && e.cost > o_.alpha * bestCost) {
                ++stats_.pruned;
                continue;
            }
            if (counter > o_.budget)
                break;
            ++counter;
            ++stats_.expanded;
            poll(queue.size(), *best, bestCost, e.cost);
            const State& g = *e.state;
            // The region's operators (names: rewrites keep them) among its block's.
            const std::optional<std::vector<bool>> mask =
                region.block >= 0 ? region.allowed(g.graph, static_cast<size_t>(region.block))
                                  : std::nullopt;
            for (RuleId rule : kAllRules) {
                if (!o_.rules.on(rule))
                    continue;
                for (size_t b = 0; b < g.graph.blocks.size(); ++b) {
                    if (region.block >= 0 && static_cast<int>(b) != region.block)
                        continue;
                    for (const Match& m :
                         findMatches(g.graph, static_cast<int>(b), rule, mask ? &*mask : nullptr)) {
                        if (!region.covers(m))
                            continue;
                        Rewritten r = applyMatch(g.graph, m);
                        ++stats_.generated;
                        auto next = std::make_shared<State>();
                        next->costs = cost_.reprice(g.graph, g.costs, r.graph, r.provenance);
                        next->graph = std::move(r.graph);
                        const double c = cost(*next, region);
                        if (!(c < o_.alpha * bestCost)) {
                            ++stats_.pruned;
                            continue;
                        }
                        if (!seen.insert(graphHash(next->graph)).second) {
                            ++stats_.deduplicated;
                            continue;
                        }
                        next->history = g.history;
                        next->history.push_back({std::move(r.provenance), total(*next)});
                        if (hooks_.enqueued)
                            hooks_.enqueued(c, bestCost);
                        admit(operatorCount(next->costs), queue.size(), region);
                        queue.push({c, seq++, std::move(next)});
                    }
                }
            }
        }
        ++done_;
        report(queue.size(), *best, bestCost, bestCost);
        return *best;
    }

    void setTotal(uint64_t regions) { total_ = regions; }

private:
    // One more graph of `ops` operators for the queue, or the refusal at the memory bound.
    void admit(size_t ops, size_t queued, const Region& region) {
        if (queuedOps_ + ops > o_.maxQueuedOperators)
            throw WorkLimitReached("MetaFlow's search queue would hold more than " +
                                       std::to_string(o_.maxQueuedOperators) + " operators (" +
                                       std::to_string(queued + 1) + " graphs of " +
                                       std::to_string(ops) + " operators, searching " +
                                       (region.names.empty() ? std::string("the whole graph")
                                                             : std::to_string(region.names.size()) +
                                                                   " operators of block " +
                                                                   std::to_string(region.block)) +
                                       ")",
                                   WorkKnob::Metaflow);
        queuedOps_ += ops;
    }

    double blockCost(const State& s, size_t b) {
        const uint64_t key = blockHash(s.graph, b);
        auto it = objectiveMemo_.find(key);
        if (it == objectiveMemo_.end())
            it = objectiveMemo_.emplace(key, o_.blockObjective(s.graph, static_cast<int>(b))).first;
        return it->second;
    }

    void poll(size_t queued, const State& best, double bestMs, double poppedMs) {
        if (hooks_.cancelled && hooks_.cancelled())
            throw Cancelled();
        if (Clock::now() - lastProgress_ >= std::chrono::milliseconds(100))
            report(queued, best, bestMs, poppedMs);
    }
    void report(size_t queued, const State& best, double bestMs, double poppedMs) {
        lastProgress_ = Clock::now();
        if (hooks_.progress)
            hooks_.progress({stats_, done_, total_, queued, bestMs, poppedMs, total(best)});
    }

    RewriteCost& cost_;
    const SearchOptions& o_;
    const SearchHooks& hooks_;
    SearchStats& stats_;
    std::unordered_map<uint64_t, double> objectiveMemo_;
    Clock::time_point lastProgress_ = Clock::now();
    uint64_t queuedOps_ = 0; // operators of the graphs in the queue
    uint64_t done_ = 0;      // regions searched
    uint64_t total_ = 0;     // regions
};

// Cap(o) per operator of `names` (file order) in block b: matches with a pattern edge (one
// matched operator reading another) into o and one out of o. Only matches of three or more
// operators have both, so rules whose matches are smaller are not enumerated.
SplitProblem splitProblem(const ir::Graph& g, int b, const std::vector<std::string>& names,
                          const RuleSet& rules) {
    const ir::Block& block = g.blocks[static_cast<size_t>(b)];
    SplitProblem p;
    p.n = static_cast<int>(names.size());
    p.cap.assign(names.size(), 0);
    std::unordered_map<std::string, int> index;
    for (size_t i = 0; i < names.size(); ++i)
        index.emplace(names[i], static_cast<int>(i));
    auto indexOf = [&index, &p](const std::string& n) {
        const auto it = index.find(n);
        return it == index.end() ? p.n : it->second;
    };
    const ir::BlockDag dag = ir::buildBlockDag(block);
    std::set<std::pair<int, int>> edges;
    for (size_t v = 0; v < dag.ops.size(); ++v)
        for (int u : dag.preds[v]) {
            const int iu = indexOf(dag.ops[static_cast<size_t>(u)]->name);
            const int iv = indexOf(dag.ops[v]->name);
            if (iu < p.n && iv < p.n) {
                p.edges.emplace_back(iu, iv);
                edges.emplace(iu, iv);
            }
        }
    for (RuleId rule : kAllRules) {
        if (!rules.on(rule) || matchSize(rule) < 3)
            continue;
        for (const Match& m : findMatches(g, b, rule)) {
            std::set<int> idx;
            for (const std::string& n : m.nodes)
                idx.insert(indexOf(n));
            for (int o : idx) {
                bool in = false;
                bool out = false;
                for (int x : idx) {
                    in = in || edges.count({x, o}) != 0;
                    out = out || edges.count({o, x}) != 0;
                }
                if (o < p.n && in && out)
                    ++p.cap[static_cast<size_t>(o)];
            }
        }
    }
    return p;
}

// Algorithm 2 on block b (graph_split.h planSplit): the plan is made on the block as it is
// before its searches (as in G0: no rule spans blocks); regions are name sets, which rewrites
// keep valid (targets take the names of replaced operators).
void planBlockRegions(const ir::Graph& g0, int b, const SearchOptions& o,
                      std::vector<SearchRegion>& regions) {
    std::vector<std::string> names;
    for (const ir::Node* n : g0.blocks[static_cast<size_t>(b)].operators())
        names.push_back(n->name);
    const int threshold = o.splitThreshold > 0 && !o.blockObjective
                              ? o.splitThreshold
                              : static_cast<int>(names.size());
    for (const SplitStep& step : planSplit(splitProblem(g0, b, names, o.rules), threshold)) {
        if (step.ops.empty())
            continue;
        SearchRegion region{b, {}, 0};
        for (int i : step.ops)
            region.names.push_back(names[static_cast<size_t>(i)]);
        regions.push_back(std::move(region));
    }
}

// Counts the candidates of the regions [first, regions.size()) of block b: every match of
// the enabled rules in the block is enumerated once and counted in each region holding all
// its operators. Stops once the plan passes kMaxPlanCandidates (or 4× that many matches were
// enumerated: then the count says "more than").
void countBlockCandidates(const ir::Graph& g, int b, const RuleSet& rules, size_t first,
                          SearchPlan& plan) {
    const std::vector<const ir::Node*> ops = g.blocks[static_cast<size_t>(b)].operators();
    std::unordered_map<std::string, int> indexOf;
    for (size_t i = 0; i < ops.size(); ++i)
        indexOf.emplace(ops[i]->name, static_cast<int>(i));
    std::vector<std::vector<size_t>> regionsOf(ops.size()); // ascending region ids
    for (size_t r = first; r < plan.regions.size(); ++r)
        for (const std::string& n : plan.regions[r].names)
            regionsOf[static_cast<size_t>(indexOf.at(n))].push_back(r);
    uint64_t enumerated = 0;
    auto visit = [&](const std::vector<int>& m) {
        for (size_t r : regionsOf[static_cast<size_t>(m.front())]) {
            bool all = true;
            for (size_t k = 1; k < m.size() && all; ++k) {
                const std::vector<size_t>& rs = regionsOf[static_cast<size_t>(m[k])];
                all = std::binary_search(rs.begin(), rs.end(), r);
            }
            if (all) {
                ++plan.regions[r].candidates;
                ++plan.candidates;
            }
        }
        if (++enumerated > 4 * kMaxPlanCandidates)
            plan.candidates = std::max(plan.candidates, kMaxPlanCandidates + 1);
        return plan.candidates <= kMaxPlanCandidates;
    };
    for (RuleId rule : kAllRules)
        if (rules.on(rule) && plan.candidates <= kMaxPlanCandidates)
            visitMatches(g, b, rule, nullptr, visit);
}

} // namespace

SearchPlan planSearch(const ir::Graph& g0, const SearchOptions& options) {
    SearchPlan plan;
    for (const ir::Block& b : g0.blocks)
        plan.operators += b.operators().size();
    if (!options.perBlock) {
        plan.regions.push_back({});
        for (size_t b = 0; b < g0.blocks.size(); ++b)
            for (RuleId rule : kAllRules)
                if (options.rules.on(rule) && plan.candidates <= kMaxPlanCandidates)
                    plan.candidates += countMatches(g0, static_cast<int>(b), rule, nullptr,
                                                    kMaxPlanCandidates + 1 - plan.candidates);
        plan.regions.front().candidates = plan.candidates;
    } else {
        for (size_t b = 0; b < g0.blocks.size(); ++b) {
            const size_t first = plan.regions.size();
            planBlockRegions(g0, static_cast<int>(b), options, plan.regions);
            if (plan.candidates <= kMaxPlanCandidates) // past it the refusal needs no more
                countBlockCandidates(g0, static_cast<int>(b), options.rules, first, plan);
        }
    }
    for (const SearchRegion& region : plan.regions)
        plan.largestRegion = std::max<uint64_t>(
            plan.largestRegion, region.names.empty() ? plan.operators : region.names.size());
    return plan;
}

SearchResult metaflowSearch(const ir::Graph& g0, RewriteCost& cost, const SearchOptions& options,
                            const SearchHooks& hooks) {
    const auto started = Clock::now();
    const SearchPlan plan = planSearch(g0, options);
    if (hooks.planned)
        hooks.planned(plan);
    SearchResult result;
    Search search(cost, options, hooks, result.stats);
    search.setTotal(plan.regions.size());
    State state{g0, cost.price(g0), {}};
    result.costBeforeMs = search.total(state);
    for (const SearchRegion& region : plan.regions)
        state = search.run(std::move(state), Region(region));
    result.costAfterMs = search.total(state);
    result.graph = std::move(state.graph);
    result.history = std::move(state.history);
    result.stats.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return result;
}

} // namespace ios::rewrite
