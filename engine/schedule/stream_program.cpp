// SPDX-License-Identifier: Apache-2.0
#include "schedule/stream_program.h"

#include <set>

namespace ios::schedule {

StreamProgram lowerBlock(const BlockSchedule& bs) {
    StreamProgram p;
    for (size_t s = 0; s < bs.stages.size(); ++s) {
        const Stage& stage = bs.stages[s];
        if (s > 0)
            p.instructions.push_back(Instruction::barrier());
        if (stage.kind == StageKind::Merge && stage.operatorCount() > 1) {
            Instruction merged = Instruction::launchAll({}, 0);
            for (const Group& g : stage.groups)
                merged.ops.insert(merged.ops.end(), g.begin(), g.end());
            p.instructions.push_back(std::move(merged));
            continue;
        }
        if (stage.groups.size() > 1)
            p.instructions.push_back(Instruction::sync());
        for (size_t g = 0; g < stage.groups.size(); ++g)
            for (int op : stage.groups[g])
                p.instructions.push_back(Instruction::launch(op, laneStream(g)));
    }
    return p;
}

Program lower(const Schedule& schedule) {
    Program program;
    program.reserve(schedule.blocks.size());
    for (const BlockSchedule& bs : schedule.blocks)
        program.push_back(lowerBlock(bs));
    return program;
}

ProgramCounts counts(const StreamProgram& program) {
    ProgramCounts c;
    std::set<int> streams;
    std::set<int> events;
    for (const Instruction& in : program.instructions) {
        switch (in.kind) {
        case InstrKind::Launch:
            ++c.launches;
            streams.insert(in.stream);
            break;
        case InstrKind::Record:
            ++c.records;
            events.insert(in.event);
            break;
        case InstrKind::Wait:
            ++c.waits;
            break;
        case InstrKind::Barrier:
            ++c.barriers;
            break;
        case InstrKind::Sync:
            ++c.syncs;
            break;
        }
    }
    c.streams = static_cast<int>(streams.size());
    c.events = static_cast<int>(events.size());
    return c;
}

std::string programLimitProblem(const StreamProgram& program) {
    for (size_t i = 0; i < program.instructions.size(); ++i) {
        const Instruction& in = program.instructions[i];
        const std::string where = "instruction " + std::to_string(i);
        const bool onStream = in.kind == InstrKind::Launch || in.kind == InstrKind::Record ||
                              in.kind == InstrKind::Wait;
        if (onStream && (in.stream < 0 || in.stream >= kMaxProgramStreams))
            return where + " uses stream " + std::to_string(in.stream) + " (streams are 0.." +
                   std::to_string(kMaxProgramStreams - 1) + ")";
        const bool onEvent = in.kind == InstrKind::Record || in.kind == InstrKind::Wait;
        if (onEvent && (in.event < 0 || in.event > kMaxProgramEvent))
            return where + " uses event " + std::to_string(in.event) + " (events are 0.." +
                   std::to_string(kMaxProgramEvent) + ")";
    }
    return {};
}

std::string launchName(const ir::BlockDag& dag, const Instruction& launch) {
    if (launch.ops.empty())
        return launch.synthetic;
    std::string name;
    for (int op : launch.ops) {
        if (!name.empty())
            name += '+';
        name += op >= 0 && static_cast<size_t>(op) < dag.ops.size()
                    ? dag.ops[static_cast<size_t>(op)]->name
                    : "#" + std::to_string(op);
    }
    return name;
}

} // namespace ios::schedule
