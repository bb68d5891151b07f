// SPDX-License-Identifier: Apache-2.0
// Adaptive soft budgeting (Serenity §3.2, Algorithm 2, with the bisection corrected so that it
// terminates; docs/memory.md "Soft budgeting").
#pragma once

#include "ir/memory.h"
#include "schedulers/serenity/memory_dp.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace ios::schedulers::serenity {

// One DP run of the bisection: its budget and outcome.
struct BudgetStep {
    int64_t tau = 0;
    DpStatus status = DpStatus::NoSolution;
    bool memoryBound = false; // a timeout at DpLimits::maxBytes
};

// The bisection gives up after this many runs ended by the memory bound: each such run fills
// the bound (its time is the bound's), and on graphs that wide a lower budget rarely helps.
inline constexpr int kMaxMemoryBoundRuns = 2;

struct SoftBudgetResult {
    std::vector<int> order; // the segment's ops
    int64_t peak = 0;
    bool optimal = false; // a DP run found a solution (then `peak` is the minimum)
    std::vector<BudgetStep> trace;
    uint64_t entries = 0;    // summed over the DP runs
    uint64_t expansions = 0; // summed over the DP runs
};

// The DP behind the bisection: (budget) → result. Lets tests replay the trace with an oracle.
using BudgetedDp = std::function<DpResult(int64_t budget)>;

// The bisection on its own: τ starts at tauMax (lo 0, hi tauMax); timeout → hi = τ (or the
// run's maxKept when lower: every budget from there up to τ times out the same way),
// τ = ⌊(lo + hi) / 2⌋; no solution → lo = τ, τ = ⌈(τ + hi) / 2⌉; stops at a solution, when
// hi − lo ≤ `resolution`, after 40 runs, or after kMaxMemoryBoundRuns runs ended by the
// memory bound. Returns the trace and the solving run, if any.
std::pair<std::vector<BudgetStep>, std::optional<DpResult>>
bisectBudget(int64_t tauMax, int64_t resolution, const BudgetedDp& dp);

// The most runs bisectBudget makes from tauMax down to `resolution` (each run at least halves
// hi − lo, rounding up; at most 40): the bound the soft budget's progress counts runs against.
uint64_t maxBisectionRuns(int64_t tauMax, int64_t resolution);

// Kahn-FIFO order of a segment (ready ops in file order, successors appended in file order).
std::vector<int> segmentKahnOrder(const ir::MemoryProblem& problem, const Segment& segment);

// Peak of an order of the segment's ops, `before` live as the walk leaves it.
int64_t segmentPeak(const ir::MemoryProblem& problem, const Segment& segment,
                    const std::vector<int>& order);

// A lower bound on the down-sets of a segment, cheap to compute (linear): with ops levelled by
// their longest path from the segment's start, every subset of level k added to all ops below
// it is a down-set, so there are at least 1 + Σ_k (2^|level k| − 1). Saturates at UINT64_MAX.
// `breakSymmetry`: of the DP that waits for twins (symmetry.h), whose paths are longer.
uint64_t leastDownSets(const ir::MemoryProblem& problem, const Segment& segment,
                       bool breakSymmetry = true);

// The adaptive choice (docs/memory.md "Exact first"): the first run, at τmax = Kahn FIFO's peak,
// is the exact DP (the optimum is never above τmax), so it may take up to `exactExpansions`
// expansions instead of limits.maxExpansions unless leastDownSets already shows that it would
// not fit them or limits.maxBytes (6 bytes of back-pointer per down-set). The expansion limit
// of the first run: exactExpansions when that applies, else limits.maxExpansions.
uint64_t firstRunExpansions(const ir::MemoryProblem& problem, const Segment& segment,
                            const DpLimits& limits, uint64_t exactExpansions);

// Serenity on one segment: τmax = peak of Kahn FIFO, the bisection with the exact DP under
// `limits` (its first run under firstRunExpansions); when no run solves, up to `escalations` more
// runs at the lowest budget that timed out, each with twice the previous expansion limit (not when
// that run was ended by the memory bound, which a higher expansion limit does not lift); then the
// better of Kahn FIFO and file order (optimal = false). control->progress gets runs made of
// maxBisectionRuns + escalations, the first run counted as half the work (it keeps the most), a
// run's share by the bounds used.
SoftBudgetResult softBudget(const ir::MemoryProblem& problem, const Segment& segment,
                            const DpLimits& limits, int64_t resolution, int escalations = 0,
                            uint64_t exactExpansions = 0, SearchControl* control = nullptr);

} // namespace ios::schedulers::serenity
