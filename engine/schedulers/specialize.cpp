#include "specialize.h"

#include "schedulers/parallel_jobs.h"
#include "util/error.h"

#include <utility>

namespace ios::schedulers {

SpecializationMatrix specialize(const ir::PreparedModel& model,
                                const std::vector<const cost::CostModel*>& settings,
                                const Scheduler& scheduler, const Params& params,
                                SearchControl* control) {
    // One search per setting, each evaluated under every setting: independent jobs on
    // params.threads threads, kept in setting order.
    const size_t n = settings.size();
    SpecializationMatrix m;
    m.schedules.resize(n);
    m.latencyMs.resize(n);
    Params inner = params;
    inner.threads = innerThreads(params.threads, n);
    runJobs(control, std::vector<uint64_t>(n, 1000), params.threads,
            [&](size_t i, SearchControl& job) {
                const Outcome outcome = scheduler.run(model, inner, *settings[i], &job);
                for (const cost::CostModel* cost : settings)
                    m.latencyMs[i].push_back(outcomeLatencyMs(model.dags(), outcome, *cost));
                m.schedules[i] = outcome.schedule;
            });
    return m;
}

} // namespace ios::schedulers
