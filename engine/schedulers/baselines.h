// SPDX-License-Identifier: Apache-2.0
// Baseline schedules (docs/algorithms.md §4 "Baselines"), in the same Schedule type as the DP's.
#pragma once

#include "ir/block_dag.h"
#include "schedule/schedule.h"

#include <vector>

namespace ios::schedulers {

// One operator per stage, in file (topological) order.
schedule::BlockSchedule sequential(const ir::BlockDag& dag);
schedule::Schedule sequential(const std::vector<ir::BlockDag>& dags);

// Repeatedly one stage holding every operator whose predecessors are all scheduled, one
// group per operator (the "greedy" levels).
schedule::BlockSchedule greedy(const ir::BlockDag& dag);
schedule::Schedule greedy(const std::vector<ir::BlockDag>& dags);

} // namespace ios::schedulers
