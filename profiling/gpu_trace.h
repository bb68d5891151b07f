// SPDX-License-Identifier: Apache-2.0
// Measured activity → the engine's eval::Timeline, so measured traces use the same views
// and exporters (Chrome trace, CSV) as simulated ones. Pure functions of the records: tested
// with synthetic CUPTI records.
#pragma once

#include "eval/timeline.h"
#include "kernel_records.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ios::profiling {

// Trace tags the executor attaches to kernels: stage ordinal (1-based, over the whole
// schedule) and the operator's index in its block's dag (1-based).
inline uint64_t makeTraceTag(int stageOrdinal, int op) {
    return (static_cast<uint64_t>(stageOrdinal) << 20) | static_cast<uint64_t>(op + 1);
}
inline int tagStage(uint64_t tag) {
    return static_cast<int>(tag >> 20) - 1;
}
inline int tagOp(uint64_t tag) {
    return static_cast<int>(tag & 0xfffff) - 1;
}

struct TracedStage { // what the k-th issued stage was
    int block = 0;
    int stage = 0;
    schedule::StageKind kind = schedule::StageKind::Parallel;
    int groups = 0;
    std::vector<std::string> opNames; // the block's dag ops (for op names of kernels)
};

struct MeasuredTraceInput {
    std::string device;
    int batch = 1;
    std::vector<KernelRecord> kernels;
    WarpSamples warps;
    std::vector<uint64_t> streamIds; // trace id of executor stream i → track i
    std::vector<TracedStage> stages; // indexed by tagStage
};

// "void cudnn::cnn::conv2d_grouped_direct_kernel<float, ...>(...)" → its short name (no
// return type, template arguments or parameters); unmangles C++ names first.
std::string shortKernelName(const std::string& name);

// Kernels: times relative to the first kernel's start, tracks by executor stream (unknown
// streams after them). Stages: span of their kernels. Samples: warp occupancy as a fraction of
// the peak (pct metrics / 100), aligned to the kernels' clock: CUPTI activity and PM sampling
// timestamps are both GPU nanoseconds; when the sample range does not cover the first kernel
// the clocks differ and the sample range is shifted to start at the first kernel.
eval::Timeline buildMeasuredTimeline(const MeasuredTraceInput& in);

// Time-weighted mean warp occupancy (fraction) of the samples over [fromUs, toUs); -1 if none.
double meanWarpOccupancy(const eval::Timeline& timeline, double fromUs, double toUs);
// The same over the run's busy time only: the union of its kernels' intervals (time when at
// least one kernel runs), so host gaps between launches do not dilute it (the paper's §6
// "active warps" is a property of the device while it computes); -1 without samples there.
double busyWarpOccupancy(const eval::Timeline& timeline);

} // namespace ios::profiling
