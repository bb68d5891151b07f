// SPDX-License-Identifier: Apache-2.0
#include "eval/program_flows.h"

#include "cost/program_simulator.h"
#include "schedule/program_verify.h"

#include <map>

namespace ios::eval {

std::vector<ProgramFlow> programFlows(const std::vector<ir::BlockDag>& dags,
                                      const schedule::Program& program,
                                      const cost::CostModel& cost) {
    schedule::verifyProgram(dags, program);
    std::vector<ProgramFlow> flows;
    double offsetUs = 0;
    for (size_t b = 0; b < dags.size(); ++b) {
        const std::vector<schedule::Instruction>& code = program[b].instructions;
        bool waits = false;
        for (const schedule::Instruction& in : code)
            waits |= in.kind == schedule::InstrKind::Wait;
        const cost::ProgramRun run = cost::simulateProgram(cost, dags[b], program[b], false);
        // A wait observes the latest record of its event issued before it (CUDA semantics; the
        // verifier checked that there is one).
        std::map<int, size_t> lastRecord;
        for (size_t i = 0; waits && i < code.size(); ++i) {
            const schedule::Instruction& in = code[i];
            if (in.kind == schedule::InstrKind::Record) {
                lastRecord[in.event] = i;
            } else if (in.kind == schedule::InstrKind::Wait) {
                const size_t r = lastRecord.at(in.event);
                flows.push_back({static_cast<int>(b), in.event, static_cast<int>(r),
                                 static_cast<int>(i), code[r].stream,
                                 offsetUs + run.instructionUs[r], in.stream,
                                 offsetUs + run.instructionUs[i]});
            }
        }
        offsetUs += run.latencyUs;
    }
    return flows;
}

} // namespace ios::eval
