// SPDX-License-Identifier: Apache-2.0
// A schedule's simulated execution laid out in time (docs/architecture.md "Data flow":
// evaluate → Timeline → views and exporters): kernels per stream, device utilisation, stage
// boundaries.
#pragma once

#include "cost/kernel_timeline.h"
#include "ir/block_dag.h"
#include "schedule/schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ios::eval {

struct TimelineKernel {
    int block = 0;
    int stage = 0;  // index within the block
    int stream = 0; // the group's stream: schedule::laneStream(group index within the stage)
    int op = 0;     // index into the block's ir::BlockDag::ops
    std::string opName;
    std::string kernel;
    int64_t ctas = 0;
    double startUs = 0;
    double endUs = 0;
};

struct TimelineStage {
    int block = 0;
    int stage = 0;
    schedule::StageKind kind = schedule::StageKind::Parallel;
    int groups = 0;
    double startUs = 0;
    double endUs = 0;
    double meanActiveSmFraction = 0;
    double meanWarpOccupancy = 0;
    double meanFlopUtilisation = 0;
};

struct TimelineSample {
    double timeUs = 0;
    int activeSms = 0;
    double warpOccupancy = 0;
    double flopUtilisation = 0;
};

struct Timeline {
    std::string device; // profile name
    int smCount = 0;
    int batch = 1;
    int streams = 0; // most groups of any stage, at most schedule::kMaxProgramStreams
    std::vector<TimelineKernel> kernels; // stage by stage, in issue order within a stage
    std::vector<TimelineStage> stages;   // in execution order
    std::vector<TimelineSample> samples; // piecewise constant, times increasing
    double latencyUs = 0;                // = sum of the stages' latencies
};

// Appends a sample at or after the last one; a sample at the last one's time replaces it
// (consecutive stages' or segments' samples meet at the boundary: the later one wins).
void appendSample(Timeline& timeline, const TimelineSample& sample);

// Stages run one after another; each stage is simulated as the cost model prices it, so
// latencyUs equals totalLatencyMs(dags, schedule, model) × 1000.
Timeline buildTimeline(const std::vector<ir::BlockDag>& dags, const schedule::Schedule& sched,
                       const cost::KernelTimelineModel& model);

// Links kernels read from a trace (op = -1, opName set; io/trace_import.h) to the operators of
// `dags`: a kernel whose block exists and holds an operator named opName gets that operator's
// index. Kernels that match nothing (another model, a merged convolution "a+b") keep op = -1.
// Returns the number of kernels linked.
size_t linkKernelsToOperators(Timeline& timeline, const std::vector<ir::BlockDag>& dags);

} // namespace ios::eval
