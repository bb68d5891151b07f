// SPDX-License-Identifier: Apache-2.0
// Latency against peak memory (docs/memory.md "The latency–memory trade-off"): the budgeted
// IOS search at budgets from the unconstrained optimum's peak down to the least peak any
// schedule reaches, each point with its schedule.
#pragma once

#include "schedulers/scheduler.h"

#include <cstdint>
#include <vector>

namespace ios::schedulers {

struct ParetoPoint {
    int64_t budget = 0;    // the cap the search ran under (0: none, the first point)
    double latencyMs = 0;  // of the schedule found
    int64_t peakBytes = 0; // of the schedule found (≤ budget)
    // A later point is as fast with less memory (the DP breaks latency ties without looking
    // at memory, so the unconstrained optimum may use more than it needs).
    bool dominated = false;
    schedule::Schedule schedule;
};

struct ParetoFront {
    std::vector<ParetoPoint> points; // by falling budget; points with equal schedules merged
    int64_t unconstrainedPeak = 0;   // the peak of the unbudgeted optimum
    int64_t smallestPeak = 0;        // the least peak of any schedule (Serenity, part by part)
    double seconds = 0;
};

// `scheduler` must read Knob::MemoryBudget (the IOS strategies). `points` ≥ 2 budgets evenly
// spaced from the unconstrained peak down to the smallest; params.memoryBudget is ignored.
// Progress goes to control->progress as one count over all searches. Throws UserError for
// another scheduler or points outside [2, 1000]; Cancelled.
ParetoFront paretoFront(const ir::PreparedModel& model, const Scheduler& scheduler,
                        const Params& params, const cost::CostModel& cost, int points,
                        SearchControl* control = nullptr);

} // namespace ios::schedulers
