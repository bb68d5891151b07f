// SPDX-License-Identifier: Apache-2.0
// The parameters of one search and their defaults, in one place (docs/architecture.md
// "Adding a scheduler"): the CLI's options, the GUI's settings and every scheduler (the IOS DP
// included, whose Options extend these) start from SearchParams{}.
#pragma once

#include "cost/cost_model.h"
#include "cost/device_profile.h"
#include "ir/block_dag.h"
#include "ir/memory.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace ios::schedulers {

// Reference: parallel endings whose components have one source each (the IOS authors'
// enumeration, default). All: every ending (docs/algorithms.md §2.2 "Parallel stages").
enum class Endings : uint8_t { Reference, All };

std::string_view toString(Endings e);
std::optional<Endings> endingsFromString(std::string_view s);

// The defaults of the settings that live outside SearchParams: the strategy (a registry key,
// scheduler.h), the cost model's batch and device (cost_model_factory.h).
inline constexpr std::string_view kDefaultStrategy = "ios-both";
inline constexpr int kDefaultBatch = 1;
inline constexpr std::string_view kDefaultDevice = cost::kDefaultDeviceName;

struct SearchParams {
    int r = 3; // max operators per group of a parallel stage (IOS's max_group_size)
    int s = 8; // max groups per parallel stage (IOS's max_num_groups)
    Endings endings = Endings::Reference;
    // The parts a block is cut into (ir::PreparedModel, built by the caller with it).
    int maxPartSize = ir::kDefaultMaxPartSize;
    bool recordStateSpace = false;               // fill Outcome::stateSpace where supported
    uint64_t maxRecordedTransitions = 2'000'000; // memory bound of the recording
    // RAF's stream policies: a synthetic tuple node before every concatenation (docs/raf.md).
    bool rafTuples = true;
    // Threads a scheduler may use (parallel_jobs.h); its outcome must not depend on it.
    int threads = 1;
    // Peak activation memory (docs/memory.md): the bytes per element of every tensor, and
    // the cap of the budgeted IOS search (0: none).
    int64_t bytesPerElement = 4;
    int64_t memoryBudget = 0;
};

// The name every scheduler takes them by.
using Params = SearchParams;

// The memory model a run is measured with: the cost model's batch, the params' precision.
ir::MemoryOptions memoryOptions(const SearchParams& params, const cost::CostModel& cost);

} // namespace ios::schedulers
