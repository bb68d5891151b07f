#include "schedulers/raf/program_scheduler.h"

#include "eval/program_eval.h"
#include "util/error.h"

#include <chrono>

namespace ios::schedulers::raf {

Outcome ProgramScheduler::run(const ir::PreparedModel& model, const Params& params,
                              const cost::CostModel& cost, SearchControl* control) const {
    const auto start = std::chrono::steady_clock::now();
    Outcome out;
    for (const ir::BlockDag& dag : model.dags()) {
        if (control != nullptr) {
            if (control->cancelled())
                throw Cancelled();
            control->checkDeadline();
        }
        BlockProgram block = schedule(dag, buildRafGraph(dag, params.rafTuples), cost, control);
        out.schedule.blocks.push_back(block.stages ? std::move(*block.stages)
                                                   : issueOrder(block.program));
        out.programs.push_back(std::move(block.program));
    }
    out.searchSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.latencyMs = eval::programLatencyMs(model.dags(), out.programs, cost);
    return out;
}

} // namespace ios::schedulers::raf
