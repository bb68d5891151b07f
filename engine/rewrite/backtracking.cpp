#include "rewrite/backtracking.h"

#include "ir/block_dag.h"
#include "rewrite/graph_hash.h"
#include "rewrite/graph_split.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <memory>
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

    bool covers(const Match& m) const {
        if (block >= 0 && m.block != block)
            return false;
        return names.empty() || std::all_of(m.nodes.begin(), m.nodes.end(),
                                            [this](const auto& n) { return names.count(n) != 0; });
    }
};
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
        queue.push({bestCost, seq++, best});
        uint64_t counter = 0;
        while (!queue.empty()) {
            Entry e = queue.top();
            queue.pop();
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
            for (RuleId rule : kAllRules) {
                if (!o_.rules.on(rule))
                    continue;
                for (size_t b = 0; b < g.graph.blocks.size(); ++b) {
                    if (region.block >= 0 && static_cast<int>(b) != region.block)
                        continue;
                    for (const Match& m : findMatches(g.graph, static_cast<int>(b), rule)) {
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
                        queue.push({c, seq++, std::move(next)});
                    }
                }
            }
        }
        report(queue.size(), *best, bestCost, bestCost);
        return *best;
    }

private:
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
            hooks_.progress({stats_, queued, bestMs, poppedMs, total(best)});
    }

    RewriteCost& cost_;
    const SearchOptions& o_;
    const SearchHooks& hooks_;
    SearchStats& stats_;
    std::unordered_map<uint64_t, double> objectiveMemo_;
    Clock::time_point lastProgress_ = Clock::now();
};

// Cap(o) per operator of `names` (file order) in block b: matches with a pattern edge (one
// matched operator reading another) into o and one out of o.
SplitProblem splitProblem(const ir::Graph& g, int b, const std::vector<std::string>& names,
                          const RuleSet& rules) {
    const ir::Block& block = g.blocks[static_cast<size_t>(b)];
    SplitProblem p;
    p.n = static_cast<int>(names.size());
    p.cap.assign(names.size(), 0);
    auto indexOf = [&names](const std::string& n) {
        return static_cast<int>(std::find(names.begin(), names.end(), n) - names.begin());
    };
    const ir::BlockDag dag = ir::buildBlockDag(block);
    for (size_t v = 0; v < dag.ops.size(); ++v)
        for (int u : dag.preds[v]) {
            const int iu = indexOf(dag.ops[static_cast<size_t>(u)]->name);
            const int iv = indexOf(dag.ops[v]->name);
            if (iu < p.n && iv < p.n)
                p.edges.emplace_back(iu, iv);
        }
    for (RuleId rule : kAllRules) {
        if (!rules.on(rule))
            continue;
        for (const Match& m : findMatches(g, b, rule)) {
            std::set<int> idx;
            for (const std::string& n : m.nodes)
                idx.insert(indexOf(n));
            for (int o : idx) {
                bool in = false;
                bool out = false;
                for (const auto& [u, v] : p.edges) {
                    in = in || (v == o && idx.count(u) != 0);
                    out = out || (u == o && idx.count(v) != 0);
                }
                if (o < p.n && in && out)
                    ++p.cap[static_cast<size_t>(o)];
            }
        }
    }
    return p;
}

// Algorithm 2 on block b (graph_split.h planSplit): the plan is made on the block as it is
// before its searches; regions are name sets, which rewrites keep valid (targets take the
// names of replaced operators).
void splitAndSearch(Search& search, State& state, int b, const SearchOptions& o) {
    std::vector<std::string> names;
    for (const ir::Node* n : state.graph.blocks[static_cast<size_t>(b)].operators())
        names.push_back(n->name);
    const int threshold = o.splitThreshold > 0 && !o.blockObjective
                              ? o.splitThreshold
                              : static_cast<int>(names.size());
    for (const SplitStep& step :
         planSplit(splitProblem(state.graph, b, names, o.rules), threshold)) {
        if (step.ops.empty())
            continue;
        Region region{b, {}};
        for (int i : step.ops)
            region.names.insert(names[static_cast<size_t>(i)]);
        state = search.run(std::move(state), region);
    }
}

} // namespace

SearchResult metaflowSearch(const ir::Graph& g0, RewriteCost& cost, const SearchOptions& options,
                            const SearchHooks& hooks) {
    const auto started = Clock::now();
    SearchResult result;
    Search search(cost, options, hooks, result.stats);
    State state{g0, cost.price(g0), {}};
    result.costBeforeMs = search.total(state);
    if (!options.perBlock) {
        state = search.run(std::move(state), {});
    } else {
        for (size_t b = 0; b < g0.blocks.size(); ++b)
            splitAndSearch(search, state, static_cast<int>(b), options);
    }
    result.costAfterMs = search.total(state);
    result.graph = std::move(state.graph);
    result.history = std::move(state.history);
    result.stats.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return result;
}

} // namespace ios::rewrite
