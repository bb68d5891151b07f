// SPDX-License-Identifier: Apache-2.0
// The Chrome trace layout shared by trace_export (writer) and trace_import (reader), so the
// two stay inverse of each other: track ids, event categories, counter names and arg keys.
#pragma once

#include "schedule/stream_program.h"

namespace ios::io::trace {

// One process per device (pid 1: trace viewers treat pid 0 as the idle task), named
// "<device> (simulated|measured)". Stream i is thread i + 1 (as Kineto names a GPU stream's
// track); the stages have their own thread past the last stream. Traces written before this
// layout used pid 0 and tid 0 for the stages: the reader tells stages from kernels by category,
// so both layouts load.
inline constexpr int kPid = 1;
inline constexpr int kStageTid = schedule::kMaxProgramStreams + 1;
inline constexpr int streamTid(int stream) {
    return stream + 1;
}

inline constexpr const char* kStageCategory = "stage";
inline constexpr const char* kKernelCategory = "kernel";
// Flow events carry the kernel category: Chrome DevTools binds a flow event to the slice with the
// same pid, tid, ts and category, Perfetto and catapult to the slice enclosing it on its track.
inline constexpr const char* kFlowCategory = kKernelCategory;
// Per-stream counters ("stream 0", ...; the reader skips them): CTAs of the running kernel.
inline constexpr const char* kStreamCtas = "ctas";
// Suffix of a merge stage's event name ("block 1 stage 0 (merge)").
inline constexpr const char* kMergeSuffix = " (merge)";

// Counters: simulated traces carry the three utilisation curves, measured ones (PM sampling
// on the GPU) only active warps as a percentage of the per-SM peak.
inline constexpr const char* kSimulatedCounter = "SM utilisation";
inline constexpr const char* kMeasuredCounter = "active warps";
inline constexpr const char* kActiveSmPct = "active_sm_pct";
inline constexpr const char* kWarpOccupancyPct = "warp_occupancy_pct";
inline constexpr const char* kFlopUtilisationPct = "flop_utilisation_pct";
inline constexpr const char* kActiveWarpsPct = "active_warps_pct";

// otherData of simulated traces: the device's SM count, so the active-SM percentages read
// back as SMs (a re-opened V100 trace says "80 = 100 %"). Older traces lack it: SMs are then
// counted in 0.1 % steps of the device (1000 = 100 %).
inline constexpr const char* kSmCount = "sm_count";
inline constexpr int kMaxSmCount = 1 << 20;

inline constexpr const char* kMeasuredSource = "measured";
// otherData of measured traces: the unit of the active-warps counter, and the run's mode.
inline constexpr const char* kActiveWarpsUnit = "% of peak sustained active warps per SM";
inline constexpr const char* kCudaGraphMode = "cuda-graph";
inline constexpr const char* kEagerMode = "eager";

} // namespace ios::io::trace
