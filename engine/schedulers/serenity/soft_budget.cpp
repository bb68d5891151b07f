// SPDX-License-Identifier: Apache-2.0
#include "schedulers/serenity/soft_budget.h"

#include "schedulers/serenity/segment_model.h"
#include "schedulers/serenity/symmetry.h"

#include <algorithm>
#include <cstdint>

namespace ios::schedulers::serenity {

std::pair<std::vector<BudgetStep>, std::optional<DpResult>>
bisectBudget(int64_t tauMax, int64_t resolution, const BudgetedDp& dp) {
    std::vector<BudgetStep> trace;
    int64_t lo = 0;
    int64_t hi = tauMax;
    int64_t tau = tauMax;
    int memoryBound = 0;
    for (int round = 0; round < 40; ++round) {
        DpResult r = dp(tau);
        trace.push_back({tau, r.status, r.memoryBound});
        if (r.memoryBound && ++memoryBound >= kMaxMemoryBoundRuns)
            break;
        if (r.status == DpStatus::Solution)
            return {std::move(trace), std::move(r)};
        if (r.status == DpStatus::Timeout) {
            // Every budget from maxKept up to τ keeps the same transitions: it times out too.
            hi = std::max(lo, std::min(tau, r.maxKept));
            tau = lo + (hi - lo) / 2; // ⌊(lo + hi) / 2⌋ without overflow
        } else {
            lo = tau;
            tau = tau + (hi - tau + 1) / 2; // ⌈(τ + hi) / 2⌉
        }
        if (hi - lo <= resolution)
            break;
    }
    return {std::move(trace), std::nullopt};
}

std::vector<int> segmentKahnOrder(const ir::MemoryProblem& p, const Segment& segment) {
    std::vector<int> localOf(p.ops.size(), -1);
    for (size_t i = 0; i < segment.ops.size(); ++i)
        localOf[static_cast<size_t>(segment.ops[i])] = static_cast<int>(i);
    std::vector<int> missing(segment.ops.size(), 0);
    std::vector<int> queue;
    for (size_t i = 0; i < segment.ops.size(); ++i) {
        for (int q : p.preds[static_cast<size_t>(segment.ops[i])])
            if (localOf[static_cast<size_t>(q)] >= 0)
                ++missing[i];
        if (missing[i] == 0)
            queue.push_back(segment.ops[i]);
    }
    for (size_t head = 0; head < queue.size(); ++head)
        for (int s : p.succs[static_cast<size_t>(queue[head])]) {
            const int l = localOf[static_cast<size_t>(s)];
            if (l >= 0 && --missing[static_cast<size_t>(l)] == 0)
                queue.push_back(s);
        }
    return queue;
}

uint64_t leastDownSets(const ir::MemoryProblem& p, const Segment& segment, bool breakSymmetry) {
    std::vector<int> level(p.ops.size(), -1); // longest path from the segment's start
    std::vector<int> twin(p.ops.size(), -1);  // the twin an op waits for (symmetry.h)
    if (breakSymmetry) {
        const std::vector<int> before = twinBefore(p, segment);
        for (size_t i = 0; i < before.size(); ++i)
            if (before[i] >= 0)
                twin[static_cast<size_t>(segment.ops[i])] =
                    segment.ops[static_cast<size_t>(before[i])];
    }
    std::vector<uint64_t> width;
    for (int op : segmentKahnOrder(p, segment)) { // a twin comes earlier in it: lower index
        int l = 0;
        for (int q : p.preds[static_cast<size_t>(op)])
            if (level[static_cast<size_t>(q)] >= 0)
                l = std::max(l, level[static_cast<size_t>(q)] + 1);
        if (const int t = twin[static_cast<size_t>(op)]; t >= 0)
            l = std::max(l, level[static_cast<size_t>(t)] + 1);
        level[static_cast<size_t>(op)] = l;
        if (width.size() <= static_cast<size_t>(l))
            width.resize(static_cast<size_t>(l) + 1, 0);
        ++width[static_cast<size_t>(l)];
    }
    uint64_t least = 1;
    for (uint64_t w : width) {
        const uint64_t subsets = w >= 64 ? UINT64_MAX : (uint64_t{1} << w) - 1;
        least = subsets > UINT64_MAX - least ? UINT64_MAX : least + subsets;
    }
    return least;
}

uint64_t firstRunExpansions(const ir::MemoryProblem& p, const Segment& segment,
                            const DpLimits& limits, uint64_t exactExpansions) {
    if (limits.maxExpansions == 0 || exactExpansions <= limits.maxExpansions)
        return limits.maxExpansions;
    // Every down-set but the whole segment has a ready op: expansions ≥ down-sets − 1.
    const uint64_t least = leastDownSets(p, segment, limits.breakSymmetry);
    const bool fits =
        least - 1 <= exactExpansions && (limits.maxBytes == 0 || least <= limits.maxBytes / 6);
    return fits ? exactExpansions : limits.maxExpansions;
}

int64_t segmentPeak(const ir::MemoryProblem& p, const Segment& segment,
                    const std::vector<int>& order) {
    return detail::orderPeak(detail::SegmentModel(p, segment), p, order);
}

int64_t detail::orderPeak(const SegmentModel& m, const ir::MemoryProblem& p,
                          const std::vector<int>& order) {
    std::vector<int> localOf(p.ops.size(), -1);
    for (int i = 0; i < m.size(); ++i)
        localOf[static_cast<size_t>(m.op(i))] = i;
    const auto w = static_cast<size_t>(m.words());
    std::vector<uint64_t> set(w, 0), prev(w, 0);
    int64_t mu = m.startBytes();
    int64_t peak = mu;
    for (int op : order) {
        const int u = localOf[static_cast<size_t>(op)];
        peak = std::max(peak, mu + m.stepBytes(set.data(), u));
        prev = set;
        detail::SegmentModel::set(set.data(), u);
        mu = m.muAfter(set.data(), u, mu, prev.data());
    }
    return peak;
}

namespace {

// The earlier run that a run at `tau` would repeat (a Timeout with no entries: none). Not under
// a time limit, where a run's end depends on the machine.
DpResult repeatedRun(const std::vector<DpResult>& runs, int64_t tau, const DpLimits& limits) {
    DpResult none;
    none.status = DpStatus::Timeout;
    if (limits.timeLimitSeconds > 0)
        return none;
    for (const DpResult& r : runs)
        if (r.sameFrom <= tau && tau <= r.sameTo)
            return r;
    return none;
}

} // namespace

uint64_t maxBisectionRuns(int64_t tauMax, int64_t resolution) {
    uint64_t runs = 1;
    for (int64_t span = tauMax; span > std::max<int64_t>(resolution, 0) && runs < 40; ++runs)
        span -= span / 2; // ⌈span / 2⌉: each run leaves at most half the interval
    return runs;
}

SoftBudgetResult softBudget(const ir::MemoryProblem& p, const Segment& segment,
                            const DpLimits& limits, int64_t resolution, int escalations,
                            uint64_t exactExpansions, SearchControl* control) {
    SoftBudgetResult out;
    const detail::SegmentModel model(p, segment, limits.breakSymmetry);
    const std::vector<int> kahn = segmentKahnOrder(p, segment);
    const int64_t tauMax = detail::orderPeak(model, p, kahn);
    // Progress: runs made of the most the bisection and escalations can make (the first half
    // the work), a run's share by the bounds it used (memoryDp's progress, in the run's slot).
    const uint64_t maxRuns =
        maxBisectionRuns(tauMax, resolution) + static_cast<uint64_t>(escalations);
    uint64_t run = 0;
    SearchControl runs;
    if (control != nullptr) {
        control->inheritInto(runs);
        if (control->progress)
            runs.progress = [&](uint64_t used, uint64_t whole) {
                // The first run, at Kahn's peak, keeps the most transitions: half the work;
                // every later run an equal share of the other half.
                const uint64_t later = maxRuns - 1;
                used = std::min(used, whole);
                if (later == 0)
                    return control->progress(std::min<uint64_t>(run, 1) * whole + used, whole);
                const uint64_t at =
                    run == 0 ? later * used : later * whole + (run - 1) * whole + used;
                control->progress(std::min(at, 2 * later * whole), 2 * later * whole);
            };
    }
    SearchControl* runControl = control != nullptr ? &runs : nullptr;
    auto runMade = [&] { // after each run, also one whose layers reported nothing
        ++run;
        if (runs.progress)
            runs.progress(0, 1);
    };
    // The first run, at τmax, is the exact DP: where the bound allows, it may take more.
    DpLimits first = limits;
    first.maxExpansions = firstRunExpansions(p, segment, limits, exactExpansions);
    std::vector<DpResult> made; // a run is made once: a budget within its range repeats it
    auto [trace, solved] = bisectBudget(tauMax, resolution, [&](int64_t tau) {
        DpResult r = repeatedRun(made, tau, limits);
        if (r.status == DpStatus::Timeout && r.entries == 0) {
            r = detail::memoryDp(model, tau, run == 0 ? first : limits, runControl);
            made.push_back(r);
        }
        runMade();
        out.entries += r.entries;
        out.expansions += r.expansions;
        return r;
    });
    out.trace = std::move(trace);
    // Escalation: the lowest budget that timed out above every budget without a solution,
    // with a doubled limit after each timeout.
    DpLimits more = limits;
    for (int k = 0; k < escalations && !solved && more.maxExpansions != 0; ++k) {
        int64_t lo = 0;
        for (const BudgetStep& step : out.trace)
            if (step.status == DpStatus::NoSolution)
                lo = std::max(lo, step.tau);
        int64_t tau = INT64_MAX;
        bool memoryBound = false;
        for (const BudgetStep& step : out.trace)
            if (step.status == DpStatus::Timeout && step.tau > lo && step.tau <= tau) {
                memoryBound = step.tau < tau ? step.memoryBound : memoryBound || step.memoryBound;
                tau = step.tau;
            }
        if (tau == INT64_MAX || memoryBound)
            break;
        more.maxExpansions *= 2;
        more.timeLimitSeconds *= 2;
        DpResult r = detail::memoryDp(model, tau, more, runControl);
        runMade();
        out.entries += r.entries;
        out.expansions += r.expansions;
        out.trace.push_back({tau, r.status, r.memoryBound});
        if (r.status == DpStatus::Solution)
            solved = std::move(r);
    }
    if (solved) {
        out.order = std::move(solved->order);
        out.peak = solved->peak;
        out.optimal = true;
        return out;
    }
    const int64_t filePeak = detail::orderPeak(model, p, segment.ops);
    out.order = filePeak < tauMax ? segment.ops : kahn;
    out.peak = std::min(filePeak, tauMax);
    return out;
}

} // namespace ios::schedulers::serenity
