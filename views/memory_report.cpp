// SPDX-License-Identifier: Apache-2.0
#include "memory_report.h"

#include "eval/memory_eval.h"

#include <algorithm>

namespace ios::views {

MemorySeries memorySeries(const ir::MemoryProblem& problem, ir::MemorySteps steps) {
    MemorySeries s;
    s.walk = ir::walkMemory(problem, steps, true); // checks the steps before the arena runs
    s.arenaAfter = ir::arenaSteps(problem, steps);
    s.steps = std::move(steps);
    return s;
}

MemorySeries scheduleSeries(const ir::MemoryProblem& problem, const schedule::BlockSchedule& bs) {
    return memorySeries(problem, eval::stageSteps(problem, bs));
}

bool BlockMemory::optimal() const {
    return std::all_of(partitions.begin(), partitions.end(),
                       [](const DpPartition& p) { return p.optimal; });
}

int64_t MemoryReport::filePeak() const {
    int64_t peak = 0;
    for (const BlockMemory& b : blocks)
        peak = std::max(peak, b.file.walk.peak);
    return peak;
}

int64_t MemoryReport::serenityPeak() const {
    int64_t peak = 0;
    for (const BlockMemory& b : blocks)
        peak = std::max(peak, b.serenity.walk.peak);
    return peak;
}

std::vector<StackSegment> stackStep(const ir::MemoryProblem& problem, const ir::MemoryWalk& walk,
                                    int step) {
    std::vector<StackSegment> out;
    if (step < 0 || static_cast<size_t>(step) >= walk.liveAt.size())
        return out;
    int64_t top = 0;
    for (int t : walk.liveAt[static_cast<size_t>(step)]) {
        const int64_t bytes = problem.tensors[static_cast<size_t>(t)].bytes;
        out.push_back({t, top, top + bytes});
        top += bytes;
    }
    if (const int64_t rest = walk.stepPeak[static_cast<size_t>(step)] - top; rest > 0)
        out.push_back({-1, top, top + rest});
    return out;
}

std::vector<int> producerOperators(const LoadedModel& model, int block,
                                   const ir::MemoryProblem& problem,
                                   const std::vector<int>& tensors) {
    std::vector<int> out;
    for (int t : tensors)
        for (int op : problem.tensors[static_cast<size_t>(t)].producers)
            if (const int blockOp = problem.ops[static_cast<size_t>(op)].blockOp; blockOp >= 0)
                out.push_back(model.flatIndex({block, blockOp}));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<int> stepOperators(const LoadedModel& model, int block,
                               const ir::MemoryProblem& problem, const std::vector<int>& ops) {
    std::vector<int> out;
    for (int op : ops)
        if (const int blockOp = problem.ops[static_cast<size_t>(op)].blockOp; blockOp >= 0)
            out.push_back(model.flatIndex({block, blockOp}));
    return out;
}

int stepOfBlockOp(const ir::MemoryProblem& problem, const MemorySeries& series, int blockOp) {
    if (blockOp < 0 || static_cast<size_t>(blockOp) >= problem.opOfBlockOp.size())
        return -1;
    const int op = problem.opOfBlockOp[static_cast<size_t>(blockOp)];
    for (size_t i = 0; i < series.steps.size(); ++i)
        if (std::find(series.steps[i].begin(), series.steps[i].end(), op) != series.steps[i].end())
            return static_cast<int>(i);
    return -1;
}

std::vector<double> cumulativeShare(const PeakWindow& window) {
    std::vector<double> out;
    double sum = 0;
    for (const auto& [peak, orders] : window.peaks) {
        sum += orders;
        out.push_back(window.orders > 0 ? sum / window.orders : 0.0);
    }
    return out;
}

} // namespace ios::views
