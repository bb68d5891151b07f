// SPDX-License-Identifier: Apache-2.0
// The IOS dynamic-programming scheduler (IOS paper §4, Algorithm 1; docs/algorithms.md §2-§3).
#pragma once

#include "cost/cost_model.h"
#include "ir/memory.h"
#include "ir/prepared_model.h"
#include "schedule/schedule.h"
#include "schedulers/search_control.h"
#include "schedulers/search_params.h"
#include "schedulers/search_statistics.h"
#include "util/big_uint.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::schedulers {

enum class Strategy : uint8_t { Parallel, Merge, Both };

std::string_view toString(Strategy s);
std::optional<Strategy> strategyFromString(std::string_view s);

// The DP's options: the search's parameters (search_params.h: r, s, endings, the threads, the
// state-space recording, the memory budget; maxPartSize is the prepared model's, rafTuples and
// bytesPerElement are not read) and what the DP adds.
struct Options : SearchParams {
    Strategy strategy = Strategy::Both;
    // Tensors are sized by `memory` for the memory budget (docs/memory.md "IOS under a memory
    // budget": transitions whose stage would exceed it are dropped).
    ir::MemoryOptions memory;
    // Skip pricing candidate stages that cannot beat a state's best one, when the cost model
    // gives lower bounds (StageShortcuts::stageLowerBoundMs): the same schedules and costs, bit
    // for bit, fewer simulations. Off: every candidate is priced (the tests compare both).
    bool boundStages = true;
};

// The DP's options for a search with `params` under `cost` (the one place they are made from
// a search's parameters: the IOS schedulers and their estimate).
Options dpOptions(const SearchParams& params, Strategy strategy, const cost::CostModel& cost);

// No stage schedule fits the memory budget; smallestPeak() is the least peak any schedule of
// the model reaches (its operators in Serenity's order, part by part).
class MemoryBudgetTooSmall : public UserError {
public:
    MemoryBudgetTooSmall(int64_t budget, int64_t smallestPeak);
    int64_t budget() const { return budget_; }
    int64_t smallestPeak() const { return smallestPeak_; }

private:
    int64_t budget_;
    int64_t smallestPeak_;
};

struct Result {
    schedule::Schedule schedule;
    Statistics stats;
    double latencyMs = 0; // sum of the chosen stages' latencies (= cost of the whole graph)
    std::optional<StateSpace> stateSpace;
};

// Runs the DP on every part of every block of a prepared model (its DAGs and parts are used
// as they are). Deterministic: same model, options and cost model give the same schedule and
// counts. Throws ios::UserError for bad options (r, s < 1, a part over 128 operators, more
// than kMaxStates states) and ios::Cancelled when cancelled.
Result optimize(const ir::PreparedModel& model, const Options& options, const cost::CostModel& cost,
                SearchControl* control = nullptr);

// The most DP states optimize() takes on, all parts together (the bundled models need at
// most 42 966): beyond it, memory and time run out long before the search ends.
inline constexpr uint64_t kMaxStates = uint64_t{1} << 22;

// The least peak of any stage schedule of the model: per block, its parts in order, each
// ordered by Serenity's exact DP (a one-operator stage per step reaches it; a larger stage
// only allocates more at once).
int64_t smallestSchedulePeak(const ir::PreparedModel& model, const ir::MemoryOptions& memory,
                             SearchControl* control = nullptr);

// Number of non-empty down-sets of every part (the total of the progress reports). Throws
// UserError when it passes kMaxStates.
uint64_t countStates(const ir::PreparedModel& model);

} // namespace ios::schedulers
