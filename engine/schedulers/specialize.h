// SPDX-License-Identifier: Apache-2.0
// Specialised schedules (IOS paper §7.2, Table 3): one schedule optimised per setting (a cost
// model: a device profile and a batch size), each executed under every setting.
#pragma once

#include "cost/cost_model.h"
#include "ir/block_dag.h"
#include "ir/prepared_model.h"
#include "schedule/schedule.h"
#include "schedulers/scheduler.h"

#include <vector>

namespace ios::schedulers {

struct SpecializationMatrix {
    std::vector<schedule::Schedule> schedules;  // [optimised for]
    std::vector<std::vector<double>> latencyMs; // [optimised for][executed at]
};

// Row i: `scheduler` run with `params` under settings[i], its schedule priced under every
// setting with eval::totalLatencyMs. Deterministic when the scheduler is, for every
// params.threads. The row whose setting prices stages fastest (settingCosts) runs first; the
// others then run as parallel jobs (parallel_jobs.h), unless their estimate (the stages that
// row's search priced, timed under every setting: rowEstimateSeconds) cannot end before
// control->deadline: then it throws
// TimeLimitReached (WorkKnob::Specialization) before starting them. Progress: 1000 units per
// row, each row's share from its search's reports.
// Throws ios::Cancelled when control->cancel is set.
SpecializationMatrix specialize(const ir::PreparedModel& model,
                                const std::vector<const cost::CostModel*>& settings,
                                const Scheduler& scheduler, const Params& params,
                                SearchControl* control = nullptr);

// Per setting, the seconds its cost model takes to price a stage (the model's operators alone,
// search_estimate.h operatorStages): the cheapest row runs first.
std::vector<double> settingCosts(const ir::PreparedModel& model,
                                 const std::vector<const cost::CostModel*>& settings,
                                 const SearchControl* control = nullptr);

// A row's estimate from the reference row's: its search less the pricing of its
// `stagesPriced` stages (`stageSeconds` each), plus their pricing under the row's setting
// (`settingStageSeconds` each, the same stages timed), plus the evaluation.
double rowEstimateSeconds(double searchSeconds, uint64_t stagesPriced, double stageSeconds,
                          double settingStageSeconds, double evalSeconds);

// The wall time of rows run as parallel jobs on `threads` threads (the longest at least).
double specializationEstimateSeconds(const std::vector<double>& rowSeconds, int threads);

} // namespace ios::schedulers
