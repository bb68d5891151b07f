// SPDX-License-Identifier: Apache-2.0
#include "schedulers/raf/program_scheduler.h"

#include "eval/program_eval.h"
#include "schedulers/parallel_jobs.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>

namespace ios::schedulers::raf {

void PolicyRun::poll(uint64_t done) {
    if (control_ == nullptr)
        return;
    if (control_->cancelled())
        throw Cancelled();
    control_->checkDeadline(done, total_);
    const auto now = SearchControl::Clock::now();
    if (control_->progress && now - reported_ >= std::chrono::milliseconds(50)) {
        reported_ = now;
        control_->progress(done, total_);
    }
}

std::vector<uint64_t> ProgramScheduler::blockWork(const ir::PreparedModel& model, const Params&,
                                                  SearchControl*) const {
    std::vector<uint64_t> work;
    for (const ir::BlockDag& dag : model.dags())
        work.push_back(std::max<uint64_t>(1, dag.ops.size()));
    return work;
}

Outcome ProgramScheduler::search(const ir::PreparedModel& model, const Params& params,
                                 const cost::CostModel& cost, SearchControl* control) const {
    const auto start = std::chrono::steady_clock::now();
    // Blocks are independent: jobs on params.threads threads, results in block order.
    const std::vector<ir::BlockDag>& dags = model.dags();
    std::vector<BlockProgram> blocks(dags.size());
    const std::vector<uint64_t> weights = blockWork(model, params, control);
    const int inner = innerThreads(params.threads, dags.size());
    runJobs(control, weights, params.threads, [&](size_t b, SearchControl& job) {
        PolicyRun policy(cost, &job, weights[b], inner);
        policy.poll();
        blocks[b] = schedule(dags[b], buildRafGraph(dags[b], params.rafTuples), policy);
    });
    Outcome out;
    for (BlockProgram& block : blocks) {
        out.schedule.blocks.push_back(block.stages ? std::move(*block.stages)
                                                   : issueOrder(block.program));
        out.programs.push_back(std::move(block.program));
    }
    out.searchSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.latencyMs = eval::programLatencyMs(dags, out.programs, cost);
    return out;
}

} // namespace ios::schedulers::raf
