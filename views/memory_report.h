// SPDX-License-Identifier: Apache-2.0
// What the Memory view shows of a model's activation memory (docs/memory.md): per block its
// memory problem, the walk of the file order and of Serenity's order (live tensors per step,
// TFLite's arena per step), the soft budget's DP runs per partition, and the distribution of
// peaks over every order of small windows. Plain values, built on the worker thread
// (app/gui/memory_jobs.cpp); the helpers here only walk and index, they search nothing.
#pragma once

#include "ir/memory.h"
#include "loaded_model.h"
#include "schedule/schedule.h"
#include "schedulers/serenity/memory_plan.h"
#include "schedulers/serenity/soft_budget.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ios::views {

// The Serenity plan's limits, the `serenity` scheduler's (memory_plan.h):
// expansions per DP run, escalations when every run times out.
inline constexpr uint64_t kSerenityExpansions = schedulers::serenity::kSchedulerExpansions;
inline constexpr int kSerenityEscalations = schedulers::serenity::kSchedulerEscalations;
// The peak distribution counts orders of windows of at most this many operators (the counting
// DP visits up to 2^n down-sets per distinct sample), sliding by kWindowStride in larger parts.
inline constexpr int kWindowOps = 20;
inline constexpr int kWindowStride = 10;

// One order or schedule walked through a block's problem.
struct MemorySeries {
    ir::MemorySteps steps;
    ir::MemoryWalk walk;             // liveAt kept
    std::vector<int64_t> arenaAfter; // TFLite arena's high-water mark after each step
};

// Walks `steps` (throws UserError for steps that are no schedule of the problem).
MemorySeries memorySeries(const ir::MemoryProblem& problem, ir::MemorySteps steps);

// A stage schedule's block through stageSteps: one step per stage.
MemorySeries scheduleSeries(const ir::MemoryProblem& problem, const schedule::BlockSchedule& bs);

// One partition (a segment between cut points) ordered by Serenity's soft budget.
struct DpPartition {
    std::vector<int> ops; // ascending
    int64_t peak = 0;     // of its order, with the earlier partitions' tensors live
    bool optimal = true;  // a DP run solved it (else the better of Kahn FIFO and file order)
    uint64_t expansions = 0;
    std::vector<schedulers::serenity::BudgetStep> trace; // its DP runs, in order
};

// The distribution of peaks over every topological order of a window of ops, run after
// `before` (every earlier op, in file order) — Serenity Fig. 3(b).
struct PeakWindow {
    std::vector<int> ops;                          // ascending (consecutive in file order)
    std::vector<std::pair<int64_t, double>> peaks; // peak → number of orders, ascending peak
    double orders = 0;                             // all orders of the window
    int64_t filePeak = 0;                          // the window's file order
    int64_t optimum() const { return peaks.empty() ? 0 : peaks.front().first; }
};

struct BlockMemory {
    ir::MemoryProblem problem;
    MemorySeries file;
    MemorySeries serenity;
    std::vector<DpPartition> partitions; // in order; their orders make `serenity`
    double seconds = 0;                  // the block's Serenity plan
    std::vector<PeakWindow> windows;     // candidates, in op order
    int defaultWindow = -1;              // the widest spread of peaks; -1: no window
    bool optimal() const;                // every partition solved by a DP run
};

struct MemoryReport {
    ir::MemoryOptions memory;
    uint64_t dpLimit = kSerenityExpansions;
    std::vector<BlockMemory> blocks; // the model's blocks, in order
    double seconds = 0;
    int64_t filePeak() const;     // the largest block peak in file order
    int64_t serenityPeak() const; // the largest block peak in Serenity's order
};

// One part of the stacked bar of a step: a live tensor's bytes, from `bottom` up to `top`;
// tensor -1 is what the sample holds beyond live tensors (transients, accumulation
// temporaries, counted weights).
struct StackSegment {
    int tensor = -1;
    int64_t bottom = 0;
    int64_t top = 0;
};

// The live tensors of step `step` stacked in tensor order (so a tensor keeps its place
// relative to the others while it lives); the top of the last segment is the step's sample.
std::vector<StackSegment> stackStep(const ir::MemoryProblem& problem, const ir::MemoryWalk& walk,
                                    int step);

// Flat operator indices of the operators producing `tensors` (the block input and inserted
// assembly ops have none), ascending.
std::vector<int> producerOperators(const LoadedModel& model, int block,
                                   const ir::MemoryProblem& problem,
                                   const std::vector<int>& tensors);

// Flat operator indices of the operators run by `ops` (problem ops), in step order.
std::vector<int> stepOperators(const LoadedModel& model, int block,
                               const ir::MemoryProblem& problem, const std::vector<int>& ops);

// The step of `series` that runs block operator `blockOp`, or -1.
int stepOfBlockOp(const ir::MemoryProblem& problem, const MemorySeries& series, int blockOp);

// For each distinct peak of `window`, the share of orders whose peak is at most it (0..1).
std::vector<double> cumulativeShare(const PeakWindow& window);

} // namespace ios::views
