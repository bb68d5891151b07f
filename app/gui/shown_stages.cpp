// SPDX-License-Identifier: Apache-2.0
#include "shown_stages.h"

#include "cost/program_simulator.h"

#include <map>

namespace ios::gui {

schedule::Schedule segmentsAsStages(const schedule::Program& program) {
    schedule::Schedule out;
    for (const schedule::StreamProgram& block : program) {
        schedule::BlockSchedule& bs = out.blocks.emplace_back();
        for (const cost::ProgramSegment& seg : cost::programSegments(block)) {
            schedule::Stage stage;
            stage.kind = schedule::StageKind::Parallel;
            std::map<int, size_t> groupOf; // stream → group, in order of first launch
            for (int i = seg.firstInstruction; i < seg.endInstruction; ++i) {
                const schedule::Instruction& in = block.instructions[static_cast<size_t>(i)];
                if (in.kind != schedule::InstrKind::Launch || in.ops.empty())
                    continue;
                const auto [it, added] = groupOf.try_emplace(in.stream, stage.groups.size());
                if (added)
                    stage.groups.emplace_back();
                auto& group = stage.groups[it->second];
                group.insert(group.end(), in.ops.begin(), in.ops.end());
            }
            bs.stages.push_back(std::move(stage));
        }
    }
    return out;
}

} // namespace ios::gui
