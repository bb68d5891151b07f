// SPDX-License-Identifier: Apache-2.0
#include "rewrite/backtracking.h"

#include "ir/block_alone.h"
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

// What one search may rewrite: a set of blocks (empty: all) and, within them, a set of
// operator names (empty: all).
struct Region {
    std::set<int> blocks;
    std::set<std::string> names;

    explicit Region(const SearchRegion& r)
        : blocks(r.blocks.begin(), r.blocks.end()), names(r.names.begin(), r.names.end()) {}

    bool hasBlock(size_t b) const { return blocks.empty() || blocks.count(static_cast<int>(b)); }
    // The same region in a graph whose blocks start at block `first` of this one.
    Region shifted(int first) const {
        Region r = *this;
        r.blocks.clear();
        for (int b : blocks)
            r.blocks.insert(b - first);
        return r;
    }
    // The region's blocks of a graph of n blocks, ascending.
    std::vector<size_t> blocksOf(size_t n) const {
        std::vector<size_t> out;
        if (blocks.empty())
            for (size_t b = 0; b < n; ++b)
                out.push_back(b);
        for (int b : blocks)
            if (static_cast<size_t>(b) < n)
                out.push_back(static_cast<size_t>(b));
        return out;
    }
    bool covers(const Match& m) const {
        if (!hasBlock(static_cast<size_t>(m.block)))
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

// "the whole graph", "12 operators of block 3", "30 operators of blocks 3-7".
std::string regionText(const Region& region) {
    if (region.blocks.empty() && region.names.empty())
        return "the whole graph";
    std::string what = region.names.empty() ? std::string("every operator")
                                            : std::to_string(region.names.size()) + " operators";
    if (region.blocks.size() == 1)
        return what + " of block " + std::to_string(*region.blocks.begin());
    return what + " of blocks " + std::to_string(*region.blocks.begin()) + "-" +
           std::to_string(*region.blocks.rbegin());
}

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

    // The cost of the operators of the region's blocks (with blockObjective: of its blocks),
    // or, with `named`, of the operators it names alone.
    double cost(const State& s, const Region& region, bool named) {
        if (region.blocks.empty() && region.names.empty())
            return total(s);
        double sum = 0;
        for (size_t b : region.blocksOf(s.graph.blocks.size())) {
            if (o_.blockObjective) {
                sum += blockCost(s, b);
                continue;
            }
            const std::vector<const ir::Node*> ops = s.graph.blocks[b].operators();
            for (size_t i = 0; i < ops.size(); ++i)
                if (!named || region.names.empty() || region.names.count(ops[i]->name) != 0)
                    sum += s.costs.ms[b][i];
        }
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
        // A graph's cost is the region's at the start plus every change since, also to
        // operators outside the names whose inputs a rewrite re-ranged (R3 clears in-place
        // flags of the concatenation reading its outputs): the blocks' cost less the cost the
        // unnamed operators had at the start. α relaxes against the region's cost.
        const double outside = cost(*best, region, false) - cost(*best, region, true);
        auto regionCost = [&](const State& st) { return cost(st, region, false) - outside; };
        double bestCost = regionCost(*best);
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
            // The region's operators (names: rewrites keep them) among each block's.
            const std::vector<size_t> blocks = region.blocksOf(g.graph.blocks.size());
            std::vector<std::optional<std::vector<bool>>> masks;
            for (size_t b : blocks)
                masks.push_back(region.allowed(g.graph, b));
            for (RuleId rule : kAllRules) {
                if (!o_.rules.on(rule))
                    continue;
                for (size_t k = 0; k < blocks.size(); ++k) {
                    const size_t b = blocks[k];
                    const std::optional<std::vector<bool>>& mask = masks[k];
                    for (const Match& m :
                         findMatches(g.graph, static_cast<int>(b), rule, mask ? &*mask : nullptr)) {
                        if (!region.covers(m))
                            continue;
                        Rewritten r = applyMatch(g.graph, m);
                        ++stats_.generated;
                        auto next = std::make_shared<State>();
                        next->costs = cost_.reprice(g.graph, g.costs, r.graph, r.provenance);
                        next->graph = std::move(r.graph);
                        const double c = regionCost(*next);
                        if (!(c < o_.alpha * bestCost)) {
                            ++stats_.pruned;
                            continue;
                        }
                        if (!seen.insert(graphHash(next->graph)).second) {
                            ++stats_.deduplicated;
                            continue;
                        }
                        next->history = g.history;
                        next->history.push_back(
                            {std::move(r.provenance), total(*next) + graphOffset_});
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
    // What the rest of the graph costs while run() searches a subgraph cut out of it: added
    // to the costs the history records and progress reports, which are the whole graph's.
    void setGraphOffset(double ms) { graphOffset_ = ms; }

private:
    // One more graph of `ops` operators for the queue, or the refusal at the memory bound.
    void admit(size_t ops, size_t queued, const Region& region) {
        if (queuedOps_ + ops > o_.maxQueuedOperators)
            throw WorkLimitReached("MetaFlow's search queue would hold more than " +
                                       std::to_string(o_.maxQueuedOperators) + " operators (" +
                                       std::to_string(queued + 1) + " graphs of " +
                                       std::to_string(ops) + " operators, searching " +
                                       regionText(region) + ")",
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
            hooks_.progress(
                {stats_, done_, total_, queued, bestMs, poppedMs, total(best) + graphOffset_});
    }

    RewriteCost& cost_;
    const SearchOptions& o_;
    const SearchHooks& hooks_;
    SearchStats& stats_;
    std::unordered_map<uint64_t, double> objectiveMemo_;
    Clock::time_point lastProgress_ = Clock::now();
    uint64_t queuedOps_ = 0; // operators of the graphs in the queue
    double graphOffset_ = 0;
    uint64_t done_ = 0;  // regions searched
    uint64_t total_ = 0; // regions
};

// Block b of g as a graph of its own for matching (ir::blockAlone, kept in `storage`), or g
// itself when it has no other block: matching indexes the graph it is given, and no rule spans
// blocks (a pattern's inner operators are never an exit, read by the next block), so the
// matches are the same at the block's cost, not the graph's. The block is block 0 of it.
const ir::Graph& blockForMatching(const ir::Graph& g, size_t b, std::optional<ir::Graph>& storage) {
    if (g.blocks.size() == 1)
        return g;
    return storage.emplace(ir::blockAlone(g, static_cast<int>(b)));
}

// The whole graph as one split problem: operators in block order, then file order (names[i]
// is operator i, blockOf[i] its block); edges within blocks and from each block's exit to the
// operators of the next block that read it. Cap(o): matches with a pattern edge (one matched
// operator reading another) into o and one out of o; only matches of three or more operators
// have both, so rules whose matches are smaller are not enumerated. No rule spans two blocks,
// so a block boundary is a cut of capacity 1 (its exit operator).
struct GraphSplit {
    SplitProblem problem;
    std::vector<std::string> names;
    std::vector<int> blockOf;
};

GraphSplit graphSplitProblem(const ir::Graph& g, const RuleSet& rules) {
    GraphSplit s;
    SplitProblem& p = s.problem;
    int exitOfPrevious = -1;
    for (size_t b = 0; b < g.blocks.size(); ++b) {
        const int offset = static_cast<int>(s.names.size());
        const ir::BlockDag dag = ir::buildBlockDag(g.blocks[b]);
        for (const ir::Node* op : dag.ops) {
            s.names.push_back(op->name);
            s.blockOf.push_back(static_cast<int>(b));
        }
        std::set<std::pair<int, int>> edges; // the block's, local indices
        for (size_t v = 0; v < dag.ops.size(); ++v) {
            for (int u : dag.preds[v]) {
                p.edges.emplace_back(offset + u, offset + static_cast<int>(v));
                edges.emplace(u, static_cast<int>(v));
            }
            bool readsEnter = false;
            for (const ir::Term& t : dag.ops[v]->externalInputs())
                for (const ir::ValueRef& r : t)
                    readsEnter = readsEnter || r.node == g.blocks[b].enterName;
            if (exitOfPrevious >= 0 && readsEnter)
                p.edges.emplace_back(exitOfPrevious, offset + static_cast<int>(v));
        }
        p.cap.resize(s.names.size(), 0);
        std::unordered_map<std::string, int> local;
        for (size_t i = 0; i < dag.ops.size(); ++i)
            local.emplace(dag.ops[i]->name, static_cast<int>(i));
        std::optional<ir::Graph> storage;
        const ir::Graph* alone = nullptr; // made for the first rule that needs it
        for (RuleId rule : kAllRules) {
            if (!rules.on(rule) || matchSize(rule) < 3)
                continue;
            if (alone == nullptr)
                alone = &blockForMatching(g, b, storage);
            for (const Match& m : findMatches(*alone, 0, rule)) {
                std::set<int> idx;
                for (const std::string& n : m.nodes)
                    idx.insert(local.at(n));
                for (int o : idx) {
                    bool in = false;
                    bool out = false;
                    for (int x : idx) {
                        in = in || edges.count({x, o}) != 0;
                        out = out || edges.count({o, x}) != 0;
                    }
                    if (in && out)
                        ++p.cap[static_cast<size_t>(offset + o)];
                }
            }
        }
        exitOfPrevious = static_cast<int>(s.names.size()) - 1;
    }
    p.n = static_cast<int>(s.names.size());
    return s;
}

// Algorithm 2 on the whole graph (graph_split.h planSplit), planned on G0 as it is before the
// searches: regions are name sets, which rewrites keep valid (targets take the names of
// replaced operators), with the blocks they touch. A graph of at most T operators is one
// region, as in MetaFlow's §6.1 ("divides subgraphs with more than 30 operators").
void planSplitRegions(const ir::Graph& g0, const SearchOptions& o,
                      std::vector<SearchRegion>& regions) {
    const GraphSplit split = graphSplitProblem(g0, o.rules);
    for (const SplitStep& step : planSplit(split.problem, o.splitThreshold)) {
        if (step.ops.empty())
            continue;
        SearchRegion region;
        for (int i : step.ops) {
            region.names.push_back(split.names[static_cast<size_t>(i)]);
            const int b = split.blockOf[static_cast<size_t>(i)];
            if (region.blocks.empty() || region.blocks.back() != b)
                region.blocks.push_back(b);
        }
        regions.push_back(std::move(region));
    }
}

// Counts every region's candidates: each match of the enabled rules is enumerated once and
// counted in each region holding all its operators. Stops once the plan passes
// kMaxPlanCandidates (or 4× that many matches were enumerated: then the count says "more
// than").
void countCandidates(const ir::Graph& g, const RuleSet& rules, SearchPlan& plan) {
    std::unordered_map<std::string, std::vector<size_t>> named;   // ascending region ids
    std::vector<std::vector<size_t>> wholeBlock(g.blocks.size()); // regions without names
    for (size_t r = 0; r < plan.regions.size(); ++r) {
        const SearchRegion& region = plan.regions[r];
        for (const std::string& n : region.names)
            named[n].push_back(r);
        if (region.names.empty() && region.blocks.empty())
            for (std::vector<size_t>& rs : wholeBlock)
                rs.push_back(r);
        else if (region.names.empty())
            for (int b : region.blocks)
                wholeBlock[static_cast<size_t>(b)].push_back(r);
    }
    uint64_t enumerated = 0;
    for (size_t b = 0; b < g.blocks.size() && plan.candidates <= kMaxPlanCandidates; ++b) {
        const std::vector<const ir::Node*> ops = g.blocks[b].operators();
        std::vector<std::vector<size_t>> regionsOf(ops.size());
        for (size_t i = 0; i < ops.size(); ++i) {
            const auto it = named.find(ops[i]->name);
            std::vector<size_t>& rs = regionsOf[i];
            if (it != named.end())
                rs = it->second;
            rs.insert(rs.end(), wholeBlock[b].begin(), wholeBlock[b].end());
            std::sort(rs.begin(), rs.end());
        }
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
        std::optional<ir::Graph> storage;
        const ir::Graph& alone = blockForMatching(g, b, storage);
        for (RuleId rule : kAllRules)
            if (rules.on(rule) && plan.candidates <= kMaxPlanCandidates)
                visitMatches(alone, 0, rule, nullptr, visit);
    }
}

} // namespace

SearchPlan planSearch(const ir::Graph& g0, const SearchOptions& options) {
    SearchPlan plan;
    for (const ir::Block& b : g0.blocks)
        plan.operators += b.operators().size();
    if (options.splitThreshold <= 0)
        plan.regions.push_back({}); // one search over the whole graph
    else if (options.blockObjective)
        for (size_t b = 0; b < g0.blocks.size(); ++b) // additive over blocks only
            plan.regions.push_back({{static_cast<int>(b)}, {}, 0});
    else
        planSplitRegions(g0, options, plan.regions);
    countCandidates(g0, options.rules, plan);
    for (const SearchRegion& region : plan.regions) {
        uint64_t graphOps = region.blocks.empty() ? plan.operators : 0;
        for (int b : region.blocks)
            graphOps += g0.blocks[static_cast<size_t>(b)].operators().size();
        const uint64_t ops = region.names.empty() ? graphOps : region.names.size();
        plan.largestRegion = std::max(plan.largestRegion, ops);
        plan.largestGraph = std::max(plan.largestGraph, graphOps);
        const uint64_t copies = region.candidates > UINT64_MAX / std::max<uint64_t>(1, graphOps)
                                    ? UINT64_MAX
                                    : region.candidates * graphOps;
        plan.copies = copies > UINT64_MAX - plan.copies ? UINT64_MAX : plan.copies + copies;
    }
    return plan;
}

namespace {

// Algorithm 1 over one region: on the blocks it touches cut out of the graph (ir::blocksAlone;
// a whole-graph region on the graph itself), then put back. No rule spans blocks, so the
// search sees the same matches, costs and ties there as in the whole graph, and copies only
// those blocks per rewrite. The next block's entry keeps its copy of the old exit, as
// applyMatch on the whole graph leaves it (only its name and shape count). `graphMs`, the
// whole graph's cost, is kept up to date, so that no region prices the blocks outside it.
State searchRegion(Search& search, State state, const Region& region, double& graphMs) {
    const size_t n = state.graph.blocks.size();
    if (region.blocks.empty() || region.blocks.size() == n) {
        search.setGraphOffset(0);
        State best = search.run(std::move(state), region);
        graphMs = search.total(best);
        return best;
    }
    const auto first = static_cast<size_t>(*region.blocks.begin());
    const auto last = static_cast<size_t>(*region.blocks.rbegin());
    State part{
        ir::blocksAlone(state.graph, static_cast<int>(first), static_cast<int>(last)), {}, {}};
    part.costs.ms.assign(state.costs.ms.begin() + static_cast<std::ptrdiff_t>(first),
                         state.costs.ms.begin() + static_cast<std::ptrdiff_t>(last) + 1);
    const double outside = graphMs - search.total(part);
    search.setGraphOffset(outside);
    State best = search.run(std::move(part), region.shifted(static_cast<int>(first)));
    graphMs = outside + search.total(best);
    for (size_t b = first; b <= last; ++b) {
        ir::Block& block = state.graph.blocks[b];
        ir::Block& rewritten = best.graph.blocks[b - first];
        if (b == first)
            rewritten.enterNode = std::move(block.enterNode);
        block = std::move(rewritten);
        state.costs.ms[b] = std::move(best.costs.ms[b - first]);
    }
    for (Substitution& s : best.history) {
        s.provenance.match.block += static_cast<int>(first);
        state.history.push_back(std::move(s));
    }
    return state;
}

} // namespace

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
    double graphMs = result.costBeforeMs;
    for (const SearchRegion& region : plan.regions)
        state = searchRegion(search, std::move(state), Region(region), graphMs);
    result.costAfterMs = search.total(state);
    result.graph = std::move(state.graph);
    result.history = std::move(state.history);
    result.stats.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return result;
}

} // namespace ios::rewrite
