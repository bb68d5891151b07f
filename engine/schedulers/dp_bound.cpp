// SPDX-License-Identifier: Apache-2.0
// Branch and bound over a state's candidate stages (docs/search-speed.md "Fifth pass"):
// cost(S) = min over E of cost(S \ E) + latency(E), and a stage whose lower bound already
// makes cost(S \ E) + bound(E) exceed a total found cannot be S's choice, so it is not
// priced. The choice is then made exactly as solveNew makes it, over the priced stages: the
// same cost and stage, bit for bit.
#include "schedulers/dp_part.h"

#include <limits>

namespace ios::schedulers::detail {

template <class Set> double PartSearch<Set>::knownLatency(Set e, bool merge, double& bound) {
    BitsMap<double, Set>& memo = merge ? mergeLatency_ : parallelLatency_;
    if (const double* v = memo.find(e)) {
        if (*v >= 0)
            return *v;
        bound = -1 - *v; // not priced yet
        return -1;
    }
    makeStage(g_, e, merge, scratchStage_);
    double ms = 0;
    if (pricer_.find(scratchStage_, ms)) {
        memo.insert(e, ms);
        return ms;
    }
    // Kept as -1 - bound: rounding may raise it by an ulp of 1, far inside the bound's margin.
    bound = pricer_.lowerBoundMs(scratchStage_);
    memo.insert(e, -1 - bound);
    return -1;
}

template <class Set>
void PartSearch<Set>::chooseBounded(Set s, Set sinks, int depth, Value& best, Choice& choice) {
    constexpr UInt128 kMax = ~UInt128{0};
    constexpr double kInf = std::numeric_limits<double>::infinity();
    Candidates& cands = candidates_[static_cast<size_t>(depth)];
    Candidate* const first = cands.begin();
    const size_t n = cands.size();
    // [2i]: cost(S \ E), [2i + 1]: that plus bound(E) while E is not priced. Per depth: the
    // sub-states below use deeper entries, as they use deeper candidates_.
    std::vector<double>& totals = totals_[static_cast<size_t>(depth)];
    totals.resize(2 * n);
    clock_.tick(n);
    // The sub-states first: their costs decide which stages can win; latencies already
    // known (this part's memo, the canonical memo) give a first best total.
    double bestTotal = kInf;
    size_t promising = n; // the unpriced stage of least cost(S \ E) + bound(E)
    for (size_t i = 0; i < n; ++i) {
        Candidate& c = first[i];
        ++stats.transitions;
        const Value sub = subValue(s, sinks, c.ops, depth);
        if (__builtin_add_overflow(best.count, sub.count, &best.count)) {
            best.count = kMax;
            best.saturated = true;
        }
        best.saturated |= sub.saturated;
        const double subCost = sub.cost;
        totals[2 * i] = subCost;
        double bound = 0;
        c.latencyMs = knownLatency(c.ops, c.merge, bound);
        if (c.latencyMs >= 0) {
            bestTotal = std::min(bestTotal, subCost + c.latencyMs);
            continue;
        }
        totals[2 * i + 1] = subCost + bound;
        if (promising == n || totals[2 * i + 1] < totals[2 * promising + 1])
            promising = i;
    }
    const auto price = [&](size_t i) {
        clock_.tick(); // a state's candidates may be thousands of simulations
        first[i].latencyMs = latency(first[i].ops, first[i].merge);
        bestTotal = std::min(bestTotal, totals[2 * i] + first[i].latencyMs);
    };
    // None known: the most promising stage first, to prune the others by.
    if (bestTotal == kInf && promising < n)
        price(promising);
    // The rest in enumeration order, which keeps a stage's extensions by one group after it
    // (PrefixStageSimulator resumes them). A latency is never below its bound and rounding is
    // monotonic, so a skipped stage's total would exceed bestTotal.
    for (size_t i = 0; i < n; ++i)
        if (first[i].latencyMs < 0 && !(totals[2 * i + 1] > bestTotal))
            price(i);
    // solveNew's choice over the priced stages: the first best in enumeration order.
    for (size_t i = 0; i < n; ++i) {
        const Candidate& c = first[i];
        if (c.latencyMs < 0)
            continue;
        const double total = totals[2 * i] + c.latencyMs;
        if (total < best.cost) {
            best.cost = total;
            choice.stage = c.ops;
            choice.merge = c.merge;
        }
    }
}

template double PartSearch<uint64_t>::knownLatency(uint64_t, bool, double&);
template double PartSearch<Bits>::knownLatency(Bits, bool, double&);
template void PartSearch<uint64_t>::chooseBounded(uint64_t, uint64_t, int, Value&, Choice&);
template void PartSearch<Bits>::chooseBounded(Bits, Bits, int, Value&, Choice&);

} // namespace ios::schedulers::detail
