// SPDX-License-Identifier: Apache-2.0
// Reads a Chrome trace written by trace_export (simulated, or measured on a GPU by profiling/)
// back into a eval::Timeline, so the explorer can show measured runs next to simulated
// ones (issue 7: timeline from the simulator and, when present, from a measured trace).
#pragma once

#include "eval/timeline.h"
#include "io/trace_export.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace ios::io {

// The mapping is the inverse of chromeTraceJson: "X" events of cat "stage" → stages,
// tid i + 1 "X" events (cat "kernel") → kernels of stream i, the device-wide "C" counters →
// samples (per-stream counters are skipped); pid is not read (0 in older traces). What the
// trace does not hold is approximated:
//  - the SM count comes from otherData.sm_count (simulated traces since issue 32), the
//    active SMs from their percentage (0.1 % steps); a trace without it counts SMs in
//    per-mille units: smCount = 1000, activeSms = 10 × pct;
//  - kernels carry operator names but no op index: TimelineKernel::op is -1;
//  - measured traces hold only the "active warps" counter (→ warpOccupancy).
// Kernels are ordered by start time (then stream), stages by start time.
// Throws ios::UserError naming `source` for malformed JSON or events.
eval::Timeline parseChromeTrace(std::string_view text, const std::string& source,
                                TraceInfo* info = nullptr);

// Reads `path` (UserError naming it when unreadable) and parses it as above. Traces of other
// tools open too (io/foreign_trace.h): PyTorch profiler (Kineto) Chrome traces, here and in
// parseChromeTrace, and Nsight Systems SQLite exports; a .nsys-rep is refused with how to
// export it.
eval::Timeline readChromeTrace(const std::filesystem::path& path, TraceInfo* info = nullptr);

} // namespace ios::io
