// SPDX-License-Identifier: Apache-2.0
// The common part of RAF's stream policies (docs/raf.md): per block, build RAF's dependency
// graph and let the policy write the block's stream program (and its stage form where it has
// one); the outcome's latency is the programs' under the cost model.
#pragma once

#include "schedulers/raf/raf_graph.h"
#include "schedulers/scheduler.h"

#include <optional>

namespace ios::schedulers::raf {

struct BlockProgram {
    schedule::StreamProgram program;
    std::optional<schedule::BlockSchedule> stages; // none: the program has no stage form
};

// What a policy uses while it schedules a block (a job of its own: blocks run on
// Params::threads threads): the cost model, the threads it may use inside (runJobs with
// control()), and poll(), to call often (at least every few ms of work): it throws Cancelled
// and reports progress (`done` of the `total` given here) at most every 50 ms.
class PolicyRun {
public:
    PolicyRun(const cost::CostModel& cost, SearchControl* control, uint64_t total, int threads)
        : cost_(cost), control_(control), total_(total), threads_(threads) {}
    const cost::CostModel& cost() const { return cost_; }
    SearchControl* control() const { return control_; }
    int threads() const { return threads_; }
    void poll(uint64_t done = 0);

private:
    const cost::CostModel& cost_;
    SearchControl* control_;
    uint64_t total_;
    int threads_;
    SearchControl::Clock::time_point reported_{};
};

class ProgramScheduler : public Scheduler {
public:
    std::vector<Knob> knobs() const override { return {Knob::Batch, Knob::Device}; }
    Outcome search(const ir::PreparedModel& model, const Params& params,
                   const cost::CostModel& cost, SearchControl* control) const override;

protected:
    // Each block's work in the policy's progress units, before any block is scheduled (it may
    // refuse the search up front): the block's operators unless the policy counts otherwise.
    virtual std::vector<uint64_t> blockWork(const ir::PreparedModel& model, const Params& params,
                                            SearchControl* control) const;
    // `run`'s progress total is the block's blockWork.
    virtual BlockProgram schedule(const ir::BlockDag& dag, const RafGraph& graph,
                                  PolicyRun& run) const = 0;
};

} // namespace ios::schedulers::raf
