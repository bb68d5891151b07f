// SPDX-License-Identifier: Apache-2.0
// Timeline exporters: Chrome trace event JSON (opens in Perfetto, chrome://tracing and Chrome
// DevTools) and CSV. Layout (io/trace_format.h, docs/formats.md "Chrome traces"): pid 1 = the
// device, tid i + 1 = stream i, the stages on a thread of their own, "X" complete events for
// kernels and stages, "C" counters for the device's utilisation and per stream, "M" metadata
// names and sort indices, "s"/"f" flow events for arrows between kernels; ts/dur in µs from 0.
#pragma once

#include "eval/program_flows.h"
#include "eval/timeline.h"
#include "eval/timeline_curves.h"
#include "io/provenance.h"

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
    // Where the trace came from (io/provenance.h): in otherData.provenance of a Chrome trace,
    // as "# key: value" lines before a CSV's header. Not owned; null: none.
    const Provenance* provenance = nullptr;
};

// An arrow from one kernel to another: indices into the timeline's kernels.
struct TraceFlow {
    int fromKernel = 0;
    int toKernel = 0;
    std::string name;
};

// A stream program's event orderings (eval/program_flows.h) as arrows named "e<event>": from
// the last kernel the recording stream finished by the record to the first kernel the waiting
// stream starts after the wait, both in the wait's block. A record with no kernel before it, or
// a wait with no kernel after it in its block, has no arrow.
std::vector<TraceFlow> traceFlows(const eval::Timeline& timeline,
                                  const std::vector<eval::ProgramFlow>& flows);
// The dependency arrows the explorer's timeline draws (eval::kernelFlows), named "dep".
std::vector<TraceFlow> traceFlows(const std::vector<eval::KernelFlow>& flows);

// Each flow is a pair of flow events with one id, each at the start of its kernel's slice, on
// its track and in its category: "s" at the producing kernel, "f" with "bp": "e" (bound to the
// enclosing slice) at the consuming one. Perfetto, catapult and Chrome DevTools all bind them to
// those two slices. Flows whose kernel indices are out of range throw std::out_of_range.
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
                   const TraceInfo& info, const std::vector<TraceFlow>& flows = {});

} // namespace ios::io
