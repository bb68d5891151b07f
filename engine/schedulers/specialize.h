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
// params.threads (rows run as parallel jobs, parallel_jobs.h). Progress: 1000 units per row,
// each row's share from its search's reports. Throws ios::Cancelled when control->cancel is set.
SpecializationMatrix specialize(const ir::PreparedModel& model,
                                const std::vector<const cost::CostModel*>& settings,
                                const Scheduler& scheduler, const Params& params,
                                SearchControl* control = nullptr);

} // namespace ios::schedulers
