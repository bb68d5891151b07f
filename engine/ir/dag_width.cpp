// SPDX-License-Identifier: Apache-2.0
#include "ir/dag_width.h"

#include "util/error.h"

#include <bit>
#include <cstdint>
#include <string>

namespace ios::ir {

namespace {

// A fixed-size set of vertices, one bit each (blocks have a few hundred operators).
class VertexSet {
public:
    explicit VertexSet(size_t n) : words_((n + 63) / 64, 0) {}
    void insert(int v) { words_[static_cast<size_t>(v) / 64] |= uint64_t{1} << (v % 64); }
    bool contains(int v) const { return (words_[static_cast<size_t>(v) / 64] >> (v % 64)) & 1U; }
    void unite(const VertexSet& o) {
        for (size_t i = 0; i < words_.size(); ++i)
            words_[i] |= o.words_[i];
    }
    // Calls f(v) for every v in this set and not in `excluded`, in increasing order, until f
    // returns true; returns whether it did.
    template <typename F> bool findExcluding(const VertexSet& excluded, F&& f) const {
        for (size_t i = 0; i < words_.size(); ++i) {
            uint64_t bits = words_[i] & ~excluded.words_[i];
            while (bits != 0) {
                const int v = static_cast<int>(i * 64) + std::countr_zero(bits);
                bits &= bits - 1;
                if (f(v))
                    return true;
            }
        }
        return false;
    }

private:
    std::vector<uint64_t> words_;
};

// Kahn's order; throws on a cycle (callers pass validated graphs, so this is a guard).
std::vector<int> topologicalOrder(const std::vector<std::vector<int>>& succs) {
    const int n = static_cast<int>(succs.size());
    std::vector<int> indeg(succs.size(), 0);
    for (const auto& out : succs)
        for (int v : out) {
            if (v < 0 || v >= n)
                throw UserError("successor index " + std::to_string(v) + " is out of range");
            ++indeg[static_cast<size_t>(v)];
        }
    std::vector<int> order;
    order.reserve(succs.size());
    for (int v = 0; v < n; ++v)
        if (indeg[static_cast<size_t>(v)] == 0)
            order.push_back(v);
    for (size_t head = 0; head < order.size(); ++head)
        for (int v : succs[static_cast<size_t>(order[head])])
            if (--indeg[static_cast<size_t>(v)] == 0)
                order.push_back(v);
    if (order.size() != succs.size())
        throw UserError("the operator graph has a cycle");
    return order;
}

// Maximum bipartite matching between a left and a right copy of the vertices, with an edge
// u → v whenever v is reachable from u (Kuhn's augmenting paths; the bitset scan keeps one
// search O(n²/64), so the whole matching is O(n³/64)).
class ClosureMatching {
public:
    explicit ClosureMatching(const std::vector<VertexSet>& reach)
        : reach_(reach), n_(reach.size()), matchOfRight_(n_, -1), matchOfLeft_(n_, -1),
          visitedRight_(n_) {
        for (size_t u = 0; u < n_; ++u) {
            visitedRight_ = VertexSet(n_);
            augment(static_cast<int>(u));
        }
    }

    // König: vertices reachable from the unmatched left vertices along alternating paths.
    // With Z that set, the minimum vertex cover is (L \ Z) ∪ (R ∩ Z), and x is in neither
    // copy of the cover exactly when x_L ∈ Z and x_R ∉ Z: those x form a maximum antichain.
    std::vector<int> antichain() const {
        VertexSet leftZ(n_), rightZ(n_);
        std::vector<int> queue;
        for (size_t u = 0; u < n_; ++u)
            if (matchOfLeft_[u] == -1) {
                leftZ.insert(static_cast<int>(u));
                queue.push_back(static_cast<int>(u));
            }
        for (size_t head = 0; head < queue.size(); ++head) {
            reach_[static_cast<size_t>(queue[head])].findExcluding(rightZ, [&](int v) {
                rightZ.insert(v);
                const int back = matchOfRight_[static_cast<size_t>(v)];
                if (back != -1 &&
                    !leftZ.contains(back)) { // always matched: the matching is maximum
                    leftZ.insert(back);
                    queue.push_back(back);
                }
                return false;
            });
        }
        std::vector<int> out;
        for (size_t x = 0; x < n_; ++x)
            if (leftZ.contains(static_cast<int>(x)) && !rightZ.contains(static_cast<int>(x)))
                out.push_back(static_cast<int>(x));
        return out;
    }

private:
    bool augment(int u) {
        return reach_[static_cast<size_t>(u)].findExcluding(visitedRight_, [&](int v) {
            visitedRight_.insert(v);
            const int other = matchOfRight_[static_cast<size_t>(v)];
            if (other != -1 && !augment(other))
                return false;
            matchOfRight_[static_cast<size_t>(v)] = u;
            matchOfLeft_[static_cast<size_t>(u)] = v;
            return true;
        });
    }

    const std::vector<VertexSet>& reach_;
    size_t n_;
    std::vector<int> matchOfRight_, matchOfLeft_;
    VertexSet visitedRight_;
};

} // namespace

// Dilworth: the largest antichain of a partial order equals the fewest chains covering it,
// and a chain cover of the transitive closure with k chains corresponds to a matching of
// n - k edges in the split bipartite graph (Fulkerson's construction).
std::vector<int> maximumAntichain(const std::vector<std::vector<int>>& succs) {
    if (succs.size() > kMaxAntichainVertices)
        throw UserError("the DAG width of " + std::to_string(succs.size()) +
                        " operators is not computed (at most " +
                        std::to_string(kMaxAntichainVertices) + ")");
    const std::vector<int> order = topologicalOrder(succs);
    const size_t n = succs.size();
    std::vector<VertexSet> reach(n, VertexSet(n)); // strict descendants
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        VertexSet& r = reach[static_cast<size_t>(*it)];
        for (int v : succs[static_cast<size_t>(*it)]) {
            r.insert(v);
            r.unite(reach[static_cast<size_t>(v)]);
        }
    }
    return ClosureMatching(reach).antichain();
}

int dagWidth(const BlockDag& dag) {
    return static_cast<int>(maximumAntichain(dag.succs).size());
}

} // namespace ios::ir
