// SPDX-License-Identifier: Apache-2.0
#include "rewrite/graph_split.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace ios::rewrite {

namespace {

constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;

class Dinic {
public:
    explicit Dinic(int nodes) : adj_(static_cast<size_t>(nodes)) {}

    void add(int u, int v, int64_t c) {
        adj_[static_cast<size_t>(u)].push_back(static_cast<int>(edges_.size()));
        edges_.push_back({v, c});
        adj_[static_cast<size_t>(v)].push_back(static_cast<int>(edges_.size()));
        edges_.push_back({u, 0});
    }

    int64_t maxFlow(int s, int t) {
        int64_t flow = 0;
        while (levels(s, t)) {
            next_.assign(adj_.size(), 0);
            while (int64_t f = push(s, t, kInf))
                flow += f;
        }
        return flow;
    }

    // Nodes reachable from s in the residual network (after maxFlow).
    std::vector<bool> reachable(int s) const {
        std::vector<bool> seen(adj_.size(), false);
        std::vector<int> stack{s};
        seen[static_cast<size_t>(s)] = true;
        while (!stack.empty()) {
            const int u = stack.back();
            stack.pop_back();
            for (int e : adj_[static_cast<size_t>(u)]) {
                const Edge& ed = edges_[static_cast<size_t>(e)];
                if (ed.cap > 0 && !seen[static_cast<size_t>(ed.to)]) {
                    seen[static_cast<size_t>(ed.to)] = true;
                    stack.push_back(ed.to);
                }
            }
        }
        return seen;
    }

private:
    struct Edge {
        int to;
        int64_t cap;
    };

    bool levels(int s, int t) {
        level_.assign(adj_.size(), -1);
        std::queue<int> q;
        q.push(s);
        level_[static_cast<size_t>(s)] = 0;
        while (!q.empty()) {
            const int u = q.front();
            q.pop();
            for (int e : adj_[static_cast<size_t>(u)]) {
                const Edge& ed = edges_[static_cast<size_t>(e)];
                if (ed.cap > 0 && level_[static_cast<size_t>(ed.to)] < 0) {
                    level_[static_cast<size_t>(ed.to)] = level_[static_cast<size_t>(u)] + 1;
                    q.push(ed.to);
                }
            }
        }
        return level_[static_cast<size_t>(t)] >= 0;
    }

    int64_t push(int u, int t, int64_t f) {
        if (u == t)
            return f;
        const size_t su = static_cast<size_t>(u);
        for (; next_[su] < adj_[su].size(); ++next_[su]) {
            const int e = adj_[su][next_[su]];
            Edge& ed = edges_[static_cast<size_t>(e)];
            if (ed.cap <= 0 || level_[static_cast<size_t>(ed.to)] != level_[su] + 1)
                continue;
            if (const int64_t d = push(ed.to, t, std::min(f, ed.cap))) {
                ed.cap -= d;
                edges_[static_cast<size_t>(e ^ 1)].cap += d;
                return d;
            }
        }
        return 0;
    }

    std::vector<std::vector<int>> adj_;
    std::vector<Edge> edges_;
    std::vector<int> level_;
    std::vector<size_t> next_;
};

} // namespace

SplitNetwork splitNetwork(const SplitProblem& p) {
    const int n = p.n;
    const int quarter = (n + 3) / 4;
    int64_t capSum = 0;
    for (int64_t c : p.cap)
        capSum += c;
    const int64_t big = (n + 1) * (capSum + n) + 1;
    SplitNetwork net;
    for (int o = 0; o < n; ++o) {
        const bool middle = o >= quarter && o < n - quarter;
        net.weight.push_back(middle ? (n + 1) * p.cap[static_cast<size_t>(o)] + 1 : big);
        net.fromSource.push_back(o < quarter);
        net.toSink.push_back(o >= n - quarter);
    }
    return net;
}

SplitResult splitOperators(const SplitProblem& p) {
    const int n = p.n;
    const SplitNetwork net = splitNetwork(p);
    // o_in = 2o, o_out = 2o + 1, s = 2n, t = 2n + 1.
    const int s = 2 * n;
    const int t = 2 * n + 1;
    Dinic d(2 * n + 2);
    for (int o = 0; o < n; ++o) {
        d.add(2 * o, 2 * o + 1, net.weight[static_cast<size_t>(o)]);
        if (net.fromSource[static_cast<size_t>(o)])
            d.add(s, 2 * o, kInf);
        if (net.toSink[static_cast<size_t>(o)])
            d.add(2 * o + 1, t, kInf);
    }
    for (const auto& [u, v] : p.edges)
        d.add(2 * u + 1, 2 * v, kInf);
    SplitResult r;
    r.capacity = d.maxFlow(s, t);
    const std::vector<bool> seen = d.reachable(s);
    std::vector<bool> second(static_cast<size_t>(n), false);
    for (int o = 0; o < n; ++o)
        if (seen[static_cast<size_t>(2 * o)] && !seen[static_cast<size_t>(2 * o + 1)]) {
            r.cut.push_back(o);
            second[static_cast<size_t>(o)] = true;
        }
    // Descendants of C: edges go forward in file order (a validated block).
    std::vector<std::pair<int, int>> edges = p.edges;
    std::sort(edges.begin(), edges.end());
    for (const auto& [u, v] : edges)
        if (second[static_cast<size_t>(u)])
            second[static_cast<size_t>(v)] = true;
    for (int o = 0; o < n; ++o)
        (second[static_cast<size_t>(o)] ? r.second : r.first).push_back(o);
    if (r.first.empty() || r.second.empty()) {
        r.fileOrder = true;
        r.first.clear();
        r.second.clear();
        for (int o = 0; o < n; ++o)
            (o < n / 2 ? r.first : r.second).push_back(o);
    }
    return r;
}

namespace {

void plan(const SplitProblem& p, const std::vector<int>& ops, int threshold,
          std::vector<SplitStep>& steps) {
    if (static_cast<int>(ops.size()) <= threshold || ops.size() < 2) {
        steps.push_back({ops, false});
        return;
    }
    // The sub-problem on `ops` (local indices in the same order).
    std::vector<int> local(static_cast<size_t>(p.n), -1);
    SplitProblem sub;
    sub.n = static_cast<int>(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
        local[static_cast<size_t>(ops[i])] = static_cast<int>(i);
        sub.cap.push_back(p.cap[static_cast<size_t>(ops[i])]);
    }
    for (const auto& [u, v] : p.edges)
        if (local[static_cast<size_t>(u)] >= 0 && local[static_cast<size_t>(v)] >= 0)
            sub.edges.emplace_back(local[static_cast<size_t>(u)], local[static_cast<size_t>(v)]);
    const SplitResult cut = splitOperators(sub);
    auto global = [&ops](const std::vector<int>& xs) {
        std::vector<int> g;
        for (int x : xs)
            g.push_back(ops[static_cast<size_t>(x)]);
        return g;
    };
    plan(p, global(cut.first), threshold, steps);
    plan(p, global(cut.second), threshold, steps);
    // The window: the cut (or, for the file-order fallback, the boundary) and two hops.
    std::vector<bool> in(static_cast<size_t>(sub.n), false);
    if (cut.fileOrder) // the boundary: G1's operators that read G2
        for (const auto& [u, v] : sub.edges)
            in[static_cast<size_t>(v)] =
                in[static_cast<size_t>(v)] || (u < sub.n / 2 && v >= sub.n / 2);
    else
        for (int c : cut.cut)
            in[static_cast<size_t>(c)] = true;
    for (int hop = 0; hop < 2; ++hop) {
        std::vector<bool> grown = in;
        for (const auto& [u, v] : sub.edges) {
            grown[static_cast<size_t>(v)] =
                grown[static_cast<size_t>(v)] || in[static_cast<size_t>(u)];
            grown[static_cast<size_t>(u)] =
                grown[static_cast<size_t>(u)] || in[static_cast<size_t>(v)];
        }
        in = std::move(grown);
    }
    std::vector<int> window;
    for (int i = 0; i < sub.n; ++i)
        if (in[static_cast<size_t>(i)])
            window.push_back(i);
    if (!window.empty())
        steps.push_back({global(window), true});
}

} // namespace

std::vector<SplitStep> planSplit(const SplitProblem& problem, int threshold) {
    std::vector<int> all(static_cast<size_t>(problem.n));
    for (int i = 0; i < problem.n; ++i)
        all[static_cast<size_t>(i)] = i;
    std::vector<SplitStep> steps;
    if (problem.n > 0)
        plan(problem, all, threshold, steps);
    return steps;
}

} // namespace ios::rewrite
