// Specialised schedules (IOS paper §7.2, Table 3): one schedule optimised per setting (a cost
// model: a device profile and a batch size), each executed under every setting.
#pragma once

#include "cost/cost_model.h"
#include "ir/block_dag.h"
#include "schedule/schedule.h"
#include "schedulers/ios_dp.h"

#include <functional>
#include <vector>

namespace ios::schedulers {

// Schedules the graph for one cost model. A search honours `control` (progress and cancel;
// nullptr: none), as optimize() does.
using Scheduler =
    std::function<schedule::Schedule(const cost::CostModel& cost, SearchControl* control)>;

// The scheduler that runs the IOS DP on `graph` (which must outlive it) with `options`.
Scheduler dpScheduler(const ir::Graph& graph, const Options& options);

struct SpecializationMatrix {
    std::vector<schedule::Schedule> schedules;  // [optimised for]
    std::vector<std::vector<double>> latencyMs; // [optimised for][executed at]
};

// Row i: `scheduler` run under settings[i], its schedule priced under every setting with
// schedule::totalLatencyMs. Deterministic when the scheduler is. Progress: the searches'
// reports, row i mapped to (i * total + done, n * total) for n settings; the caller's
// callback is restored on return. Throws ios::Cancelled when control->cancel is set (checked
// before every row, and by the searches).
SpecializationMatrix specialize(const std::vector<ir::BlockDag>& dags,
                                const std::vector<const cost::CostModel*>& settings,
                                const Scheduler& scheduler, SearchControl* control = nullptr);

} // namespace ios::schedulers
