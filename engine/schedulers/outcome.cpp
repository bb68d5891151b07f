// Outcome helpers (scheduler.h): the program form of any outcome and its latency.
#include "eval/evaluate.h"
#include "eval/memory_eval.h"
#include "eval/program_eval.h"
#include "schedulers/scheduler.h"
#include "util/error.h"

namespace ios::schedulers {

ir::MemoryOptions memoryOptions(const Params& params, const cost::CostModel& cost) {
    ir::MemoryOptions m;
    m.batch = cost.batch();
    m.bytesPerElement = params.bytesPerElement;
    return m;
}

Outcome Scheduler::run(const ir::PreparedModel& model, const Params& params,
                       const cost::CostModel& cost, SearchControl* control) const {
    ir::checkMemoryOptions(memoryOptions(params, cost));
    Outcome out = search(model, params, cost, control);
    out.peakBytes =
        eval::scheduleMemory(model.graph(), model.dags(), out.schedule, memoryOptions(params, cost))
            .peak;
    return out;
}

schedule::Program programOf(const Outcome& outcome) {
    return outcome.programs.empty() ? schedule::lower(outcome.schedule) : outcome.programs;
}

double outcomeLatencyMs(const std::vector<ir::BlockDag>& dags, const Outcome& outcome,
                        const cost::CostModel& cost) {
    return outcome.programs.empty() ? eval::totalLatencyMs(dags, outcome.schedule, cost)
                                    : eval::programLatencyMs(dags, outcome.programs, cost);
}

eval::Timeline outcomeTimeline(const std::vector<ir::BlockDag>& dags, const Outcome& outcome,
                               const cost::CostModel& cost) {
    if (!outcome.programs.empty())
        return eval::buildProgramTimeline(dags, outcome.programs, cost);
    const cost::KernelTimelineModel* kernels = cost.kernelTimeline();
    if (kernels == nullptr)
        throw UserError("a timeline needs a cost model that describes kernels (simulated or "
                        "analytic), not " +
                        cost.describe());
    return eval::buildTimeline(dags, outcome.schedule, *kernels);
}

} // namespace ios::schedulers
