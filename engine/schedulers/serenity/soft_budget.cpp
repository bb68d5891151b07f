#include "schedulers/serenity/soft_budget.h"

#include "schedulers/serenity/segment_model.h"

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

int64_t segmentPeak(const ir::MemoryProblem& p, const Segment& segment,
                    const std::vector<int>& order) {
    const detail::SegmentModel m(p, segment);
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

SoftBudgetResult softBudget(const ir::MemoryProblem& p, const Segment& segment,
                            const DpLimits& limits, int64_t resolution, int escalations,
                            SearchControl* control) {
    SoftBudgetResult out;
    const std::vector<int> kahn = segmentKahnOrder(p, segment);
    const int64_t tauMax = segmentPeak(p, segment, kahn);
    auto [trace, solved] = bisectBudget(tauMax, resolution, [&](int64_t tau) {
        DpResult r = memoryDp(p, segment, tau, limits, control);
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
        DpResult r = memoryDp(p, segment, tau, more, control);
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
    const int64_t filePeak = segmentPeak(p, segment, segment.ops);
    out.order = filePeak < tauMax ? segment.ops : kahn;
    out.peak = std::min(filePeak, tauMax);
    return out;
}

} // namespace ios::schedulers::serenity
