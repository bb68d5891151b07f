// Timeline exporters: Chrome trace event JSON (opens in Perfetto and chrome://tracing) and
// CSV. Chrome trace conventions (docs/performance.md "GPU executor and profiling"): pid =
// device, tid = stream, "X" complete events for kernels and stages, "C" counters for SM
// utilisation, "M" metadata names; ts/dur in µs from 0.
#pragma once

#include "eval/timeline.h"

#include <filesystem>
#include <string>

namespace ios::io {

struct TraceInfo {
    std::string model;    // model name
    std::string strategy; // schedule name ("sequential", "both", ...)
    // "simulated", or "measured" for GPU traces (profiling/): their samples carry only the
    // measured active warps (warpOccupancy), exported as an "active warps" counter.
    std::string source = "simulated";
};

// Track layout: tid 0 = stages, tid i + 1 = stream i.
std::string chromeTraceJson(const eval::Timeline& timeline, const TraceInfo& info);

// One row per stage and per kernel: kind,block,stage,stream,op,kernel,ctas,start_us,end_us,
// active_sm_pct,warp_occupancy_pct,flop_utilisation_pct (the last three for stages).
std::string timelineCsv(const eval::Timeline& timeline);

// By extension: .csv → CSV, anything else → Chrome trace JSON: the text, or written atomically.
std::string timelineText(const std::filesystem::path& path, const eval::Timeline& timeline,
                         const TraceInfo& info);
void writeTimeline(const std::filesystem::path& path, const eval::Timeline& timeline,
                   const TraceInfo& info);

} // namespace ios::io
