// SPDX-License-Identifier: Apache-2.0
#include "eval/program_eval.h"

#include "cost/program_simulator.h"
#include "schedule/program_verify.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>

namespace ios::eval {

double programLatencyMs(const std::vector<ir::BlockDag>& dags, const schedule::Program& program,
                        const cost::CostModel& cost) {
    schedule::verifyProgram(dags, program);
    double ms = 0;
    for (size_t b = 0; b < dags.size(); ++b) {
        // Summed per block, then over blocks, as totalLatencyMs sums a stage schedule.
        double block = 0;
        for (double segment : cost::checkedProgramRun(cost, dags[b], program[b], false).segmentMs)
            block += segment;
        ms += block;
    }
    return ms;
}

Timeline buildProgramTimeline(const std::vector<ir::BlockDag>& dags,
                              const schedule::Program& program, const cost::CostModel& cost) {
    schedule::verifyProgram(dags, program);
    Timeline tl;
    if (const cost::KernelTimelineModel* k = cost.kernelTimeline()) {
        tl.device = k->deviceName();
        tl.smCount = k->smCount();
        tl.batch = k->batch();
    } else {
        tl.device = cost.describe();
    }
    double offset = 0;
    for (size_t b = 0; b < dags.size(); ++b) {
        const cost::ProgramRun run = cost::checkedProgramRun(cost, dags[b], program[b], true);
        const int block = static_cast<int>(b);
        for (const cost::KernelRun& k : run.kernels) {
            int segment = 0;
            while (static_cast<size_t>(segment) + 1 < run.segments.size() &&
                   run.segments[static_cast<size_t>(segment)].endUs <= k.startUs)
                ++segment;
            tl.streams = std::max(tl.streams, k.group + 1);
            tl.kernels.push_back({block, segment, k.group, k.op, k.label, k.kernel, k.ctas,
                                  offset + k.startUs, offset + k.endUs});
        }
        for (size_t s = 0; s < run.segments.size(); ++s) {
            const cost::ProgramSegment& seg = run.segments[s];
            tl.stages.push_back({block, static_cast<int>(s), schedule::StageKind::Parallel,
                                 seg.streams, offset + seg.startUs, offset + seg.endUs, 0, 0, 0});
        }
        for (const cost::UtilisationSample& u : run.samples)
            appendSample(tl, {offset + u.timeUs, u.activeSms, u.warpOccupancy, u.flopUtilisation});
        offset += run.latencyUs;
    }
    if (!tl.samples.empty() && tl.samples.back().timeUs < offset)
        tl.samples.push_back({offset, 0, 0, 0});
    tl.latencyUs = offset;
    return tl;
}

} // namespace ios::eval
