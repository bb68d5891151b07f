#include "schedulers/raf/program_scheduler.h"

#include "eval/program_eval.h"
#include "util/error.h"

#include <chrono>

namespace ios::schedulers::raf {

void PolicyRun::poll(uint64_t partial) {
    if (control_ == nullptr)
        return;
    if (control_->cancelled())
        throw Cancelled();
    control_->checkDeadline(done_ + partial, total_);
    const auto now = SearchControl::Clock::now();
    if (control_->progress && now - reported_ >= std::chrono::milliseconds(50)) {
        reported_ = now;
        control_->progress(done_ + partial, total_);
    }
}

void PolicyRun::finishBlock(uint64_t ops) {
    done_ += ops;
    reported_ = {};
    poll();
}

Outcome ProgramScheduler::run(const ir::PreparedModel& model, const Params& params,
                              const cost::CostModel& cost, SearchControl* control) const {
    const auto start = std::chrono::steady_clock::now();
    Outcome out;
    uint64_t ops = 0;
    for (const ir::BlockDag& dag : model.dags())
        ops += dag.ops.size();
    PolicyRun policy(cost, control, ops);
    policy.poll();
    for (const ir::BlockDag& dag : model.dags()) {
        BlockProgram block = schedule(dag, buildRafGraph(dag, params.rafTuples), policy);
        policy.finishBlock(dag.ops.size());
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
