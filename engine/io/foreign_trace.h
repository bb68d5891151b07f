// SPDX-License-Identifier: Apache-2.0
// Traces of real runs written by other tools, read as eval::Timeline so the explorer can show
// them beside a schedule (docs/formats.md "Foreign traces"):
//  - PyTorch profiler (Kineto) Chrome traces: `prof.export_chrome_trace(...)`, GPU kernels as
//    "X" events of category "kernel" with args "device", "stream", "grid", "correlation";
//  - Nsight Systems exports as SQLite (`nsys export --type sqlite`): the kernels of table
//    CUPTI_ACTIVITY_KIND_KERNEL, their names in StringIds, the GPU in TARGET_INFO_GPU.
// Such traces have no IOS stages: the timeline holds kernels only (one block, one stage,
// op -1, opName empty), on streams numbered by first use; times in µs from the first
// kernel. Only the device with the most kernels is kept (others are counted in the note).
#pragma once

#include "eval/timeline.h"
#include "util/json_text.h"

#include <filesystem>
#include <string>

namespace ios::io {

struct ForeignTraceInfo {
    std::string tool;        // "kineto" or "nsys"
    std::string note;        // what was left out, for people ("2 kernels on other devices")
    size_t otherKernels = 0; // kernels of devices other than the one kept
};

// Whether `doc` (a parsed Chrome trace) is a Kineto trace rather than one this tool wrote:
// Kineto's top-level "schemaVersion" or "deviceProperties", or kernel events with a
// "correlation" argument.
bool isKinetoTrace(const util::Json& doc);
eval::Timeline kinetoTimeline(const util::Json& doc, const std::string& source,
                              ForeignTraceInfo* info = nullptr);

// Whether the file starts with SQLite's header ("SQLite format 3").
bool isSqliteFile(const std::filesystem::path& path);
// Throws ios::UserError naming the file (and the table) when it is no Nsight Systems export
// or holds no kernel. A .nsys-rep report is refused with how to export it.
eval::Timeline readNsysSqlite(const std::filesystem::path& path, ForeignTraceInfo* info = nullptr);

} // namespace ios::io
