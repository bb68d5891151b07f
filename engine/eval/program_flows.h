// SPDX-License-Identifier: Apache-2.0
// The cross-stream orderings of stream programs laid out in time: one flow per Wait
// instruction, from the Record of its event (the latest one issued before the wait) to the
// wait, at the times the program simulation gives them (cost/program_simulator.h,
// ProgramRun::instructionUs). Traces draw them as arrows between the streams' tracks
// (io/trace_export.h).
#pragma once

#include "cost/cost_model.h"
#include "ir/block_dag.h"
#include "schedule/stream_program.h"

#include <vector>

namespace ios::eval {

struct ProgramFlow {
    int block = 0;
    int event = 0;
    int recordInstruction = 0; // indices into the block's program
    int waitInstruction = 0;
    int fromStream = 0; // the recording stream; fromUs: when the captured work was done
    double fromUs = 0;
    int toStream = 0; // the waiting stream; toUs: when it was released
    double toUs = 0;
};

// Per block in order, per Wait in issue order. Times are µs from the start of the model, blocks
// one after another (a block starts when the one before ends, as in buildProgramTimeline), so
// they line up with the program's timeline. Verifies the program first (a UserError naming the
// block and the problem).
std::vector<ProgramFlow> programFlows(const std::vector<ir::BlockDag>& dags,
                                      const schedule::Program& program,
                                      const cost::CostModel& cost);

} // namespace ios::eval
