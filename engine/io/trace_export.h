// Timeline exporters: Chrome trace event JSON (opens in Perfetto and chrome://tracing) and
// CSV. Chrome trace conventions (docs/performance.md "GPU executor and profiling"): pid =
// device, tid = stream, "X" complete events for kernels and stages, "C" counters for SM
// utilisation, "M" metadata names, "s"/"f" flow events for arrows between streams; ts/dur in
// µs from 0.
#pragma once

#include "eval/program_flows.h"
#include "eval/timeline.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ios::io {

struct TraceInfo {
    std::string model;    // model name
    std::string strategy; // schedule name ("sequential", "both", ...)
    // "simulated", or "measured" for GPU traces (profiling/): their samples carry only the
    // measured active warps (warpOccupancy), exported as an "active warps" counter.
    std::string source = "simulated";
    // Measured traces: how the run executed, "cuda-graph" (replayed) or "eager" (launched from
    // the host; host-bound on fast GPUs, docs/gpu.md); empty when unknown (older traces).
    std::string mode = {};
    // Measured traces: the active-warps counter's metric (the counter's unit is % of the peak).
    std::string warpMetric = {};
};

// An arrow between two streams' tracks: from `fromStream` at `fromUs` to `toStream` at `toUs`
// (µs on the timeline's clock), e.g. a stream program's event from its record to a wait.
struct TraceFlow {
    int fromStream = 0;
    double fromUs = 0;
    int toStream = 0;
    double toUs = 0;
    std::string name;
};

// A stream program's event orderings as trace arrows, named "e<event>" (eval/program_flows.h).
std::vector<TraceFlow> traceFlows(const std::vector<eval::ProgramFlow>& flows);

// Track layout: tid 0 = stages, tid i + 1 = stream i. Each flow is a pair of Chrome flow
// events with one id: "s" on the source stream's track, "f" with "bp": "e" (bound to the
// enclosing slice) on the target's; Perfetto draws an arrow between them.
std::string chromeTraceJson(const eval::Timeline& timeline, const TraceInfo& info);
std::string chromeTraceJson(const eval::Timeline& timeline, const TraceInfo& info,
                            const std::vector<TraceFlow>& flows);

// One row per stage and per kernel: kind,block,stage,stream,op,kernel,ctas,start_us,end_us,
// active_sm_pct,warp_occupancy_pct,flop_utilisation_pct (the last three for stages).
std::string timelineCsv(const eval::Timeline& timeline);

// By extension: .csv → CSV, anything else → Chrome trace JSON: the text, or written atomically.
std::string timelineText(const std::filesystem::path& path, const eval::Timeline& timeline,
                         const TraceInfo& info);
// The same with flow arrows in the Chrome trace (a CSV has no place for them).
std::string timelineText(const std::filesystem::path& path, const eval::Timeline& timeline,
                         const TraceInfo& info, const std::vector<TraceFlow>& flows);
void writeTimeline(const std::filesystem::path& path, const eval::Timeline& timeline,
                   const TraceInfo& info);

} // namespace ios::io
