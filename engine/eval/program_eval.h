// SPDX-License-Identifier: Apache-2.0
// Latency and timeline of stream programs (schedule/stream_program.h) under a cost model: per
// block the sum of its segments (cost/program_simulator.h), blocks one after another. A lowered
// stage schedule evaluates to exactly totalLatencyMs of the schedule (bit for bit).
#pragma once

#include "cost/cost_model.h"
#include "eval/timeline.h"
#include "ir/block_dag.h"
#include "schedule/stream_program.h"

#include <vector>

namespace ios::eval {

// Verifies the program first (a UserError naming the block and the unordered dependency).
double programLatencyMs(const std::vector<ir::BlockDag>& dags, const schedule::Program& program,
                        const cost::CostModel& cost);

// Kernels with stage = segment index within the block and stream = the program's stream
// number; stages = the segments (kind Parallel, groups = streams launched on).
Timeline buildProgramTimeline(const std::vector<ir::BlockDag>& dags,
                              const schedule::Program& program, const cost::CostModel& cost);

} // namespace ios::eval
