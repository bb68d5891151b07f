// SPDX-License-Identifier: Apache-2.0
// Peak activation memory of a stage schedule (docs/memory.md "Stage schedules"): a stage
// allocates every output of its operators when it starts (conservative for a group's chain)
// and frees the inputs whose consumers are all done when it ends.
#pragma once

#include "ir/memory.h"
#include "schedule/schedule.h"

#include <cstdint>
#include <vector>

namespace ios::eval {

// The steps of one block's stages in the block's memory problem (assembly ops join their
// operator's stage).
ir::MemorySteps stageSteps(const ir::MemoryProblem& problem, const schedule::BlockSchedule& bs);

struct ScheduleMemory {
    int64_t peak = 0;               // the largest block peak
    std::vector<int64_t> blockPeak; // per block
};

// Throws UserError for a schedule that does not cover a block (see ir::walkMemory).
ScheduleMemory scheduleMemory(const std::vector<ir::MemoryProblem>& problems,
                              const schedule::Schedule& schedule);
ScheduleMemory scheduleMemory(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                              const schedule::Schedule& schedule, const ir::MemoryOptions& options);

} // namespace ios::eval
