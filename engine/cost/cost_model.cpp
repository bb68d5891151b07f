// SPDX-License-Identifier: Apache-2.0
#include "cost/cost_model.h"

#include "cost/measurement_cache.h"
#include "cost/program_simulator.h"
#include "cost/stage_shortcuts.h"
#include "util/error.h"
#include "util/message_text.h"

namespace ios::cost {

namespace {

bool plausible(double ms) {
    return ms >= 0 && ms <= kMaxStageLatencyMs; // false for NaN
}

[[noreturn]] void refuse(const CostModel& cost, const std::string& what, double ms) {
    throw UserError(what + ": the cost model '" + cost.describe() + "' gives " +
                    util::formatNumber(ms) + " ms; a latency must be finite and in [0, " +
                    util::formatNumber(kMaxStageLatencyMs) +
                    "] ms (check the measurement cache, the device profile and the batch size)");
}

} // namespace

std::unique_ptr<CostModel> forGraph(const CostModel& cost, const ir::Graph& graph) {
    const GraphRetargeting* retargeting = cost.retargeting();
    return retargeting != nullptr ? retargeting->forGraph(graph) : nullptr;
}

double checkedStageLatencyMs(const CostModel& cost, const ir::BlockDag& dag,
                             const schedule::Stage& stage) {
    const double ms = cost.stageLatencyMs(dag, stage);
    if (!plausible(ms))
        refuse(cost, "stage " + stageKey(dag, stage), ms);
    return ms;
}

ProgramRun checkedProgramRun(const CostModel& cost, const ir::BlockDag& dag,
                             const schedule::StreamProgram& program, bool timeline) {
    ProgramRun run = simulateProgram(cost, dag, program, timeline);
    for (size_t s = 0; s < run.segmentMs.size(); ++s)
        if (!plausible(run.segmentMs[s]))
            refuse(cost, "program segment " + std::to_string(s), run.segmentMs[s]);
    return run;
}

bool checkedAdditiveParallelStages(const CostModel& cost, const ir::BlockDag& dag,
                                   std::vector<double>& opMs, double& overheadMs) {
    const StageShortcuts* shortcuts = cost.stageShortcuts();
    if (shortcuts == nullptr || !shortcuts->additiveParallelStages(dag, opMs, overheadMs))
        return false;
    for (size_t i = 0; i < opMs.size() && i < dag.ops.size(); ++i)
        if (!plausible(opMs[i]))
            refuse(cost, "operator '" + dag.ops[i]->name + "'", opMs[i]);
    if (!plausible(overheadMs))
        refuse(cost, "the stage overhead", overheadMs);
    return true;
}

} // namespace ios::cost
