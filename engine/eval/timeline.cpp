// SPDX-License-Identifier: Apache-2.0
#include "eval/timeline.h"

#include "schedule/stream_program.h"
#include "util/error.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace ios::eval {

void appendSample(Timeline& timeline, const TimelineSample& sample) {
    if (!timeline.samples.empty() && timeline.samples.back().timeUs >= sample.timeUs)
        timeline.samples.back() = sample;
    else
        timeline.samples.push_back(sample);
}

Timeline buildTimeline(const std::vector<ir::BlockDag>& dags, const schedule::Schedule& sched,
                       const cost::KernelTimelineModel& model) {
    if (dags.size() != sched.blocks.size())
        throw UserError("the schedule has " + std::to_string(sched.blocks.size()) +
                        " blocks but the model has " + std::to_string(dags.size()));
    Timeline tl;
    tl.device = model.deviceName();
    tl.smCount = model.smCount();
    tl.batch = model.batch();
    double offset = 0;
    for (size_t b = 0; b < dags.size(); ++b) {
        const auto& stages = sched.blocks[b].stages;
        for (size_t s = 0; s < stages.size(); ++s) {
            const cost::StageRun run = model.simulate(dags[b], stages[s]);
            const int block = static_cast<int>(b);
            const int stage = static_cast<int>(s);
            // Group g runs on the stream stage lowering gives it (schedule::laneStream): past
            // kMaxProgramStreams groups, lanes share streams, as in the stage's program.
            tl.streams = std::max(tl.streams, std::min(static_cast<int>(stages[s].groups.size()),
                                                       schedule::kMaxProgramStreams));
            for (const cost::KernelRun& k : run.kernels)
                tl.kernels.push_back(
                    {block, stage, schedule::laneStream(static_cast<size_t>(k.group)), k.op,
                     k.label, k.kernel, k.ctas, offset + k.startUs, offset + k.endUs});
            for (const cost::UtilisationSample& u : run.samples)
                appendSample(tl,
                             {offset + u.timeUs, u.activeSms, u.warpOccupancy, u.flopUtilisation});
            tl.stages.push_back({block, stage, stages[s].kind,
                                 static_cast<int>(stages[s].groups.size()), offset,
                                 offset + run.latencyUs, run.meanActiveSmFraction,
                                 run.meanWarpOccupancy, run.meanFlopUtilisation});
            offset += run.latencyUs;
        }
    }
    // The device is idle after the last stage.
    if (!tl.samples.empty() && tl.samples.back().timeUs < offset)
        tl.samples.push_back({offset, 0, 0, 0});
    tl.latencyUs = offset;
    return tl;
}

size_t linkKernelsToOperators(Timeline& timeline, const std::vector<ir::BlockDag>& dags) {
    std::vector<std::unordered_map<std::string_view, int>> byName(dags.size());
    for (size_t b = 0; b < dags.size(); ++b)
        for (size_t i = 0; i < dags[b].ops.size(); ++i)
            byName[b].emplace(dags[b].ops[i]->name, static_cast<int>(i));
    size_t linked = 0;
    for (TimelineKernel& k : timeline.kernels) {
        k.op = -1;
        if (k.block < 0 || static_cast<size_t>(k.block) >= dags.size())
            continue;
        const auto& names = byName[static_cast<size_t>(k.block)];
        if (auto it = names.find(k.opName); it != names.end()) {
            k.op = it->second;
            ++linked;
        }
    }
    return linked;
}

} // namespace ios::eval
