// SPDX-License-Identifier: Apache-2.0
// The counting pass of RAF-IOS (raf_ios_work.h). A chunk's candidates are the pairs (S, E) of
// a non-empty down-set S and a non-empty ending E of S (an up-set of S) of at most kMaxStageOps
// nodes. Per down-set S, the endings are counted by size as the coefficients of a polynomial
// U(S) (truncated after degree kMaxStageOps): nodes of S unrelated to the rest of S give a
// factor (1 + z) each, weakly connected parts multiply, and a connected set X splits at its
// lowest node v (minimal in X): U(X) = U(X \ {v}) + z^|↑v ∩ X| · U(X \ ↑v).
#include "schedulers/raf/raf_ios_work.h"

#include <algorithm>
#include <array>
#include <bit>
#include <string>
#include <unordered_map>

namespace ios::schedulers::raf {

std::vector<std::vector<int>> rafIosChunks(const RafGraph& g) {
    const size_t n = g.nodes.size();
    const NodeSets anc = ancestors(g);
    const NodeSets desc = descendants(g);
    std::vector<std::vector<int>> out;
    std::vector<int> current;
    auto flush = [&] {
        for (size_t i = 0; i < current.size(); i += kBlockMaxSize)
            out.emplace_back(current.begin() + static_cast<long>(i),
                             current.begin() +
                                 static_cast<long>(std::min(current.size(), i + kBlockMaxSize)));
        current.clear();
    };
    for (size_t v = 0; v < n; ++v) {
        current.push_back(static_cast<int>(v));
        if (anc.count(v) + desc.count(v) + 1 == n)
            flush();
    }
    flush();
    return out;
}

ChunkOrder chunkOrder(const RafGraph& g, std::vector<int> nodes) {
    ChunkOrder out;
    out.nodes = std::move(nodes);
    const size_t m = out.nodes.size();
    std::unordered_map<int, size_t> local;
    for (size_t i = 0; i < m; ++i)
        local.emplace(out.nodes[i], i);
    out.succ.assign(m, 0);
    out.adj.assign(m, 0);
    for (size_t i = 0; i < m; ++i)
        for (int c : g.nodes[static_cast<size_t>(out.nodes[i])].consumers)
            if (auto it = local.find(c); it != local.end()) {
                out.succ[i] |= uint32_t{1} << it->second;
                out.adj[i] |= uint32_t{1} << it->second;
                out.adj[it->second] |= uint32_t{1} << i;
            }
    return out;
}

namespace {

using Poly = std::array<uint64_t, kMaxStageOps + 1>; // coefficient k: endings of k nodes

Poly times(const Poly& a, const Poly& b) {
    Poly out{};
    for (int i = 0; i <= kMaxStageOps; ++i)
        if (a[static_cast<size_t>(i)] != 0)
            for (int j = 0; i + j <= kMaxStageOps; ++j)
                out[static_cast<size_t>(i + j)] +=
                    a[static_cast<size_t>(i)] * b[static_cast<size_t>(j)];
    return out;
}

class UpSetCounter {
public:
    explicit UpSetCounter(const std::vector<uint32_t>& succ) {
        const size_t m = succ.size();
        down_.assign(m, 0);
        related_.assign(m, 0);
        for (size_t i = m; i-- > 0;) { // successors have higher indices
            down_[i] = succ[i];
            for (uint32_t r = succ[i]; r != 0; r &= r - 1)
                down_[i] |= down_[static_cast<size_t>(std::countr_zero(r))];
        }
        for (size_t i = 0; i < m; ++i) {
            related_[i] |= down_[i];
            for (uint32_t r = down_[i]; r != 0; r &= r - 1)
                related_[static_cast<size_t>(std::countr_zero(r))] |= uint32_t{1} << i;
        }
        for (size_t k = 0; k < binomial_.size(); ++k)
            for (size_t j = 0; j <= k; ++j)
                binomial_[k][j] =
                    j == 0 || j == k ? 1 : binomial_[k - 1][j - 1] + binomial_[k - 1][j];
    }

    // Non-empty endings of 1 to kMaxStageOps nodes of the set s.
    uint64_t endings(uint32_t s) {
        uint32_t lone = 0;
        for (uint32_t r = s; r != 0; r &= r - 1) {
            const int v = std::countr_zero(r);
            if ((related_[static_cast<size_t>(v)] & s) == 0)
                lone |= uint32_t{1} << v;
        }
        const Poly rest = upSets(s & ~lone);
        const size_t a = static_cast<size_t>(std::popcount(lone));
        uint64_t total = 0;
        for (size_t k = 0; k <= static_cast<size_t>(kMaxStageOps); ++k)
            for (size_t j = 0; j <= std::min(k, a); ++j)
                total += binomial_[a][j] * rest[k - j];
        return total - 1; // the empty ending
    }

private:
    // U(x): x's up-sets (in the chunk's order restricted to x) by size.
    Poly upSets(uint32_t x) {
        if (x == 0) {
            Poly one{};
            one[0] = 1;
            return one;
        }
        if (auto it = memo_.find(x); it != memo_.end())
            return it->second;
        const int v = std::countr_zero(x);
        const uint32_t part = componentWithin(uint32_t{1} << v, x, related_);
        Poly out;
        if (part != x) {
            out = times(upSets(part), upSets(x & ~part));
        } else {
            out = upSets(x & ~(uint32_t{1} << v));
            const uint32_t up = (down_[static_cast<size_t>(v)] | uint32_t{1} << v) & x;
            const int k = std::popcount(up);
            if (k <= kMaxStageOps) {
                const Poly with = upSets(x & ~up);
                for (int i = 0; i + k <= kMaxStageOps; ++i)
                    out[static_cast<size_t>(i + k)] += with[static_cast<size_t>(i)];
            }
        }
        if (memo_.size() < kMemoEntries)
            memo_.emplace(x, out);
        return out;
    }

    static constexpr size_t kMemoEntries = size_t{1} << 16; // about 8 MB at most

    std::vector<uint32_t> down_;    // [i]: the nodes after i (transitively)
    std::vector<uint32_t> related_; // [i]: the nodes before or after i
    std::array<std::array<uint64_t, kBlockMaxSize + 1>, kBlockMaxSize + 1> binomial_{};
    std::unordered_map<uint32_t, Poly> memo_;
};

} // namespace

ChunkWork countChunk(const std::vector<uint32_t>& succ, uint64_t stateCap) {
    const size_t m = succ.size();
    std::vector<uint32_t> pred(m, 0);
    for (size_t i = 0; i < m; ++i)
        for (uint32_t r = succ[i]; r != 0; r &= r - 1)
            pred[static_cast<size_t>(std::countr_zero(r))] |= uint32_t{1} << i;
    UpSetCounter counter(succ);
    ChunkWork out;
    // Down-sets: decide nodes in order; a node may join when its producers in the chunk did.
    std::vector<uint32_t> stack{0};
    std::vector<size_t> next{0};
    while (!stack.empty() && out.states <= stateCap) {
        const uint32_t s = stack.back();
        const size_t i = next.back();
        stack.pop_back();
        next.pop_back();
        if (i == m) {
            if (s != 0) {
                ++out.states;
                out.candidates += counter.endings(s);
            }
            continue;
        }
        stack.push_back(s);
        next.push_back(i + 1);
        if ((pred[i] & ~s) == 0) {
            stack.push_back(s | uint32_t{1} << i);
            next.push_back(i + 1);
        }
    }
    return out;
}

ChunkWork RafIosCounter::count(const ChunkOrder& order, const SearchControl* control) {
    ChunkWork work;
    if (auto it = known_.find(order.succ); it != known_.end()) {
        work = it->second;
    } else {
        work = countChunk(order.succ, kMaxRafIosStates - std::min(states_, kMaxRafIosStates));
        if (work.states <= kMaxRafIosStates)
            known_.emplace(order.succ, work);
    }
    states_ += work.states;
    candidates_ += work.candidates;
    largest_ = std::max(largest_, work.candidates);
    std::string what;
    if (states_ > kMaxRafIosStates)
        what = "RAF-IOS would search more than " + std::to_string(kMaxRafIosStates) +
               " chunk states (its cap)";
    else if (candidates_ > kMaxRafIosCandidates)
        what = "RAF-IOS would try more than " + std::to_string(kMaxRafIosCandidates) +
               " candidate stages (its cap)";
    if (!what.empty()) {
        // No front-end words: raising the time limit does not lift a cap.
        what += ": its chunks of up to " + std::to_string(kBlockMaxSize) +
                " operators are fixed and independent operators make them exponential; "
                "schedule this model with another algorithm";
        if (control != nullptr && !control->task.empty())
            what = control->task + ": " + what;
        throw WorkLimitReached(what, WorkKnob::RafIos);
    }
    return work;
}

} // namespace ios::schedulers::raf
