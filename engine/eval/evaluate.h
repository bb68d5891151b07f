// SPDX-License-Identifier: Apache-2.0
// Latency of a schedule under a cost model: the sum of its stages' latencies (IOS paper §3).
#pragma once

#include "cost/cost_model.h"
#include "ir/block_dag.h"
#include "schedule/schedule.h"

#include <vector>

namespace ios::eval {

double blockLatencyMs(const ir::BlockDag& dag, const schedule::BlockSchedule& bs,
                      const cost::CostModel& cost);
double totalLatencyMs(const std::vector<ir::BlockDag>& dags, const schedule::Schedule& sched,
                      const cost::CostModel& cost);

} // namespace ios::eval
