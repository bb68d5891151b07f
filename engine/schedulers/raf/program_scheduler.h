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

class ProgramScheduler : public Scheduler {
public:
    std::vector<Knob> knobs() const override { return {Knob::Batch, Knob::Device}; }
    Outcome run(const ir::PreparedModel& model, const Params& params, const cost::CostModel& cost,
                SearchControl* control) const override;

protected:
    virtual BlockProgram schedule(const ir::BlockDag& dag, const RafGraph& graph,
                                  const cost::CostModel& cost, SearchControl* control) const = 0;
};

} // namespace ios::schedulers::raf
