// The paper's five schedules by name (IOS §6.1): sequential, greedy and the IOS DP with
// merge, parallel or both stages. Shared by compare, trace and specialize.
#pragma once

#include "cost/cost_model.h"
#include "ir/block_dag.h"
#include "ir/graph.h"
#include "schedule/schedule.h"
#include "schedulers/ios_dp.h"

#include <string>
#include <string_view>
#include <vector>

namespace ios::cli {

inline constexpr std::string_view kStrategyNames[] = {"sequential", "greedy", "merge", "parallel",
                                                      "both"};

struct StrategyRun {
    schedule::Schedule schedule;
    double latencyMs = 0;
    double searchSeconds = 0;
};

// Throws ios::UserError naming the valid strategies for an unknown name.
void checkStrategyName(const std::string& name);

// Schedules `graph` with the named strategy (r, s apply to parallel and both) under `cost`;
// latencyMs is the schedule's latency under the same model. The search reports to `control`
// when given (progress and cancel are then the caller's), else to a SearchProgress on stderr.
StrategyRun runStrategy(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                        const std::string& name, int r, int s, const cost::CostModel& cost,
                        schedulers::SearchControl* control = nullptr);

} // namespace ios::cli
