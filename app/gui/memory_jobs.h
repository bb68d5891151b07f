// SPDX-License-Identifier: Apache-2.0
// The Memory view's computations on the worker thread (docs/memory.md): the report of a
// model's activation memory (Serenity's soft-budgeted DP per partition, the walks of the file
// order and of Serenity's order, peak distributions of small windows) and the latency–memory
// trade-off of the budgeted IOS search.
#pragma once

#include "cost/cost_model.h"
#include "job.h"
#include "memory_report.h"
#include "schedulers/pareto.h"
#include "schedulers/serenity/memory_plan.h"

#include <vector>

namespace ios::gui {

// Budgets of the trade-off, evenly spaced from the unconstrained peak to the smallest.
inline constexpr int kParetoPoints = 12;

// The Memory view's Serenity: per cut segment, every run under `dpLimit` expansions (the
// default, 2^27, already lets the first run solve what the exact first run would; lowering it
// shows the bisection at work) and the view's escalations.
schedulers::serenity::PlanOptions memoryPlanOptions(const ir::MemoryOptions& memory,
                                                    uint64_t dpLimit);

// Every block of `model` under `memory`; Serenity's DP runs with `dpLimit` expansions per run.
// Progress goes to `control` (plan in [0, 0.9), windows after); throws Cancelled.
views::MemoryReport buildMemoryReport(const views::LoadedModel& model,
                                      const ir::MemoryOptions& memory, uint64_t dpLimit,
                                      JobControl& control);

// The windows of a block whose orders the peak distribution counts: each cut segment of 3 to
// kWindowOps ops whole, larger ones as windows of kWindowOps consecutive ops every
// kWindowStride (the last ending with the segment). Distributions filled; throws Cancelled.
std::vector<views::PeakWindow> peakWindows(const ir::MemoryProblem& problem,
                                           const JobControl& control);

// The scheduler the trade-off searches: `strategy` when it reads the memory budget, else
// IOS-Both.
const schedulers::Scheduler& paretoScheduler(const QString& strategy);

} // namespace ios::gui
