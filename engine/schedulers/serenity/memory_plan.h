// SPDX-License-Identifier: Apache-2.0
// Memory-aware ordering of a whole model (Serenity, MLSys 2020, Fig. 4; docs/memory.md): per
// block (or the whole model), partitions, an order per partition — file order, Kahn FIFO,
// Serenity's soft-budgeted DP, or brute force — and the peak of the result.
#pragma once

#include "ir/memory.h"
#include "schedulers/serenity/memory_dp.h"
#include "schedulers/serenity/soft_budget.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::schedulers::serenity {

enum class OrderKind : uint8_t { File, Kahn, Serenity, Brute };
enum class Partition : uint8_t { Cuts, Blocks, None };

std::string_view toString(OrderKind k);
std::string_view toString(Partition p);
std::optional<OrderKind> orderKindFromString(std::string_view s); // "tflite" = file
std::optional<Partition> partitionFromString(std::string_view s);

// What the `serenity` scheduler plans with (and the explorer's Serenity order by default): 2^27
// expansions per soft-budget run — its first run, at Kahn FIFO's peak, solves NasNet-A's
// 374-operator block exactly — and two escalations.
inline constexpr uint64_t kSchedulerExpansions = uint64_t{1} << 27;
inline constexpr int kSchedulerEscalations = 2;

// How large an exact DP the soft budget's first run may be by default (firstRunExpansions,
// docs/memory.md "Exact first"): NasNet-A's 374-operator block, solved exactly, makes 69 M
// expansions; this is about twice that.
inline constexpr uint64_t kExactExpansions = uint64_t{1} << 27;

struct PlanOptions {
    OrderKind order = OrderKind::Serenity;
    Partition partition = Partition::Cuts;
    DpLimits limits;
    int64_t resolution = 4; // the bisection stops when hi − lo ≤ this (bytes per element)
    int escalations = 0;    // softBudget's retries with doubled limits
    // The exact first run's expansions (firstRunExpansions); 0 or at most limits.maxExpansions:
    // the paper's soft budget, every run under limits.
    uint64_t exactExpansions = kExactExpansions;
};

struct BlockPlan {
    std::string name;
    int64_t peak = 0;
    std::vector<int> order;           // problem ops
    std::vector<int> partitions;      // segment sizes, in order (sum = ops)
    std::vector<BudgetStep> tauTrace; // every partition's bisection, in order (Serenity)
    uint64_t entries = 0;
    uint64_t expansions = 0;
    bool optimal = true; // every partition solved exactly (file/Kahn orders: false)
    double seconds = 0;
};

// One segment ordered by `options.order`: its order, peak (with `before` live) and the DP's
// statistics. Throws Cancelled, and UserError for a brute-force segment over 10 operators.
struct SegmentPlan {
    std::vector<int> order;
    int64_t peak = 0;
    std::vector<BudgetStep> tauTrace;
    uint64_t entries = 0;
    uint64_t expansions = 0;
    bool optimal = true;
};
SegmentPlan planSegment(const ir::MemoryProblem& problem, const Segment& segment,
                        const PlanOptions& options, SearchControl* control = nullptr);

// Adds a segment's plan to a block's: order appended, its size recorded, statistics added.
void appendSegment(BlockPlan& block, const SegmentPlan& segment);
// Adds only the statistics of a search (entries, expansions, τ trace, optimality).
void addSearchStatistics(BlockPlan& block, const SegmentPlan& segment);

struct MemoryPlan {
    std::vector<BlockPlan> blocks;
    int64_t peak = 0; // the largest block peak
    double seconds = 0;
};

// Makes `child` a child of `control` (nullptr: a control of its own) whose progress (done, total)
// of one part of the work — `size` units from `base` of `whole` — reaches control->progress as
// base + size · done / total of `whole`.
void sliceProgress(SearchControl* control, SearchControl& child, uint64_t base, uint64_t size,
                   uint64_t whole);

// Plans every problem (blocks; Partition::None joins them first); control->progress gets
// operators of all problems' ops: those of the segments planned, and within a segment the
// share of its soft budget's runs done (softBudget). Each block's order is
// checked by walking it (its peak is the walk's). Throws Cancelled, and UserError for a
// brute-force segment over 10 operators.
MemoryPlan planMemory(const std::vector<ir::MemoryProblem>& blocks, const PlanOptions& options,
                      SearchControl* control = nullptr);

// One problem (Partition::None is treated as Blocks).
BlockPlan planBlock(const ir::MemoryProblem& problem, const PlanOptions& options,
                    SearchControl* control = nullptr);

} // namespace ios::schedulers::serenity
