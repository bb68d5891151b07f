#include "specialize.h"

#include "eval/evaluate.h"
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
    runJobs(
        control, std::vector<uint64_t>(n, 1000), params.threads, [&](size_t i, SearchControl& job) {
            m.schedules[i] = scheduler.run(model, inner, *settings[i], &job).schedule;
            for (const cost::CostModel* cost : settings)
                m.latencyMs[i].push_back(eval::totalLatencyMs(model.dags(), m.schedules[i], *cost));
        });
    return m;
}

} // namespace ios::schedulers
