// SPDX-License-Identifier: Apache-2.0
// Outcome helpers (scheduler.h): the program form of any outcome and its latency, on the model
// the outcome's schedule refers to (the rewritten one of a graph-rewriting scheduler).
#include "eval/evaluate.h"
#include "eval/memory_eval.h"
#include "eval/program_eval.h"
#include "schedulers/rewritten_model.h"
#include "schedulers/scheduler.h"
#include "util/error.h"

namespace ios::schedulers {

ir::MemoryOptions memoryOptions(const SearchParams& params, const cost::CostModel& cost) {
    ir::MemoryOptions m;
    m.batch = cost.batch();
    m.bytesPerElement = params.bytesPerElement;
    return m;
}

RewrittenModel::RewrittenModel(rewrite::SearchResult searchResult, int maxPartSize,
                               const cost::CostModel& original)
    : search(std::move(searchResult)), prepared(search.graph, maxPartSize),
      cost(costForRewrittenGraph(original, search.graph)) {}

std::unique_ptr<cost::CostModel> costForRewrittenGraph(const cost::CostModel& original,
                                                       const ir::Graph& graph) {
    std::unique_ptr<cost::CostModel> model = cost::forGraph(original, graph);
    if (model == nullptr)
        throw UserError("a rewritten graph can be priced by the simulated and analytic cost "
                        "models only (their operators are priced by attributes and shapes), not " +
                        original.describe() +
                        ", whose figures are keyed by the original operators' names");
    return model;
}

Outcome Scheduler::run(const ir::PreparedModel& model, const Params& params,
                       const cost::CostModel& cost, SearchControl* control) const {
    ir::checkMemoryOptions(memoryOptions(params, cost));
    Outcome out = search(model, params, cost, control);
    const ir::PreparedModel& scheduled = scheduledModel(model, out);
    out.peakBytes = eval::scheduleMemory(scheduled.graph(), scheduled.dags(), out.schedule,
                                         memoryOptions(params, cost))
                        .peak;
    return out;
}

const ir::PreparedModel& scheduledModel(const ir::PreparedModel& model, const Outcome& outcome) {
    return outcome.rewritten ? outcome.rewritten->prepared : model;
}

const cost::CostModel& scheduledCost(const Outcome& outcome, const cost::CostModel& cost,
                                     std::unique_ptr<cost::CostModel>& owned) {
    if (!outcome.rewritten)
        return cost;
    owned = costForRewrittenGraph(cost, outcome.rewritten->graph());
    return *owned;
}

schedule::Program programOf(const Outcome& outcome) {
    return outcome.programs.empty() ? schedule::lower(outcome.schedule) : outcome.programs;
}

double outcomeLatencyMs(const std::vector<ir::BlockDag>& dags, const Outcome& outcome,
                        const cost::CostModel& cost) {
    const std::vector<ir::BlockDag>& own =
        outcome.rewritten ? outcome.rewritten->prepared.dags() : dags;
    std::unique_ptr<cost::CostModel> owned;
    const cost::CostModel& priced = scheduledCost(outcome, cost, owned);
    return outcome.programs.empty() ? eval::totalLatencyMs(own, outcome.schedule, priced)
                                    : eval::programLatencyMs(own, outcome.programs, priced);
}

eval::Timeline outcomeTimeline(const std::vector<ir::BlockDag>& dags, const Outcome& outcome,
                               const cost::CostModel& cost) {
    const std::vector<ir::BlockDag>& own =
        outcome.rewritten ? outcome.rewritten->prepared.dags() : dags;
    std::unique_ptr<cost::CostModel> owned;
    const cost::CostModel& priced = scheduledCost(outcome, cost, owned);
    if (!outcome.programs.empty())
        return eval::buildProgramTimeline(own, outcome.programs, priced);
    const cost::KernelTimelineModel* kernels = priced.kernelTimeline();
    if (kernels == nullptr)
        throw UserError("a timeline needs a cost model that describes kernels (simulated or "
                        "analytic), not " +
                        priced.describe());
    return eval::buildTimeline(own, outcome.schedule, *kernels);
}

} // namespace ios::schedulers
