// SPDX-License-Identifier: Apache-2.0
#include "eval/memory_eval.h"

#include "util/error.h"

#include <algorithm>

namespace ios::eval {

ir::MemorySteps stageSteps(const ir::MemoryProblem& problem, const schedule::BlockSchedule& bs) {
    ir::MemorySteps steps;
    steps.reserve(bs.stages.size());
    std::vector<int> blockOps;
    for (const schedule::Stage& stage : bs.stages) {
        blockOps.clear();
        for (const schedule::Group& g : stage.groups)
            for (int op : g) {
                if (op < 0 || static_cast<size_t>(op) >= problem.opOfBlockOp.size())
                    throw UserError("schedule names operator index " + std::to_string(op) +
                                        ", which the block does not have",
                                    {}, problem.name);
                blockOps.push_back(op);
            }
        steps.push_back(ir::stepOfBlockOps(problem, blockOps));
    }
    return steps;
}

ScheduleMemory scheduleMemory(const std::vector<ir::MemoryProblem>& problems,
                              const schedule::Schedule& schedule) {
    if (schedule.blocks.size() != problems.size())
        throw UserError("the schedule has " + std::to_string(schedule.blocks.size()) +
                        " blocks, the model " + std::to_string(problems.size()));
    ScheduleMemory out;
    for (size_t b = 0; b < problems.size(); ++b) {
        const int64_t peak =
            ir::walkMemory(problems[b], stageSteps(problems[b], schedule.blocks[b])).peak;
        out.blockPeak.push_back(peak);
        out.peak = std::max(out.peak, peak);
    }
    return out;
}

ScheduleMemory scheduleMemory(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                              const schedule::Schedule& schedule,
                              const ir::MemoryOptions& options) {
    return scheduleMemory(ir::modelMemoryProblems(graph, dags, options), schedule);
}

} // namespace ios::eval
