// The Chrome trace layout shared by trace_export (writer) and trace_import (reader), so the
// two stay inverse of each other: track ids, event categories, counter names and arg keys.
#pragma once

namespace ios::io::trace {

inline constexpr int kPid = 0;
inline constexpr int kStageTid = 0; // stream i is tid i + 1

inline constexpr const char* kStageCategory = "stage";
inline constexpr const char* kKernelCategory = "kernel";
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

inline constexpr const char* kMeasuredSource = "measured";
// otherData of measured traces: the unit of the active-warps counter, and the run's mode.
inline constexpr const char* kActiveWarpsUnit = "% of peak sustained active warps per SM";
inline constexpr const char* kCudaGraphMode = "cuda-graph";
inline constexpr const char* kEagerMode = "eager";

} // namespace ios::io::trace
