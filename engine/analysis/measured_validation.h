// SPDX-License-Identifier: Apache-2.0
// The simulator against GPU measurements (docs/performance.md, issue "simulator error"):
// schedules that were timed on a GPU (`ios-sched measure` results, schedules kept as
// schedule files) are evaluated on a device profile, and the error is summarised per strategy
// as the mean absolute percentage error (MAPE). Used by `ios-sched validate` and
// tests/tst_h100_calibration.cpp.
#pragma once

#include "cost/device_profile.h"
#include "ir/graph.h"

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::analysis {

// One timed schedule of a `measure` results file.
struct MeasuredSchedule {
    std::string run;      // run name (the results' "run", else the model name)
    std::string model;    // bundled model name or model file
    std::string strategy; // sequential, greedy, merge, parallel or both
    int batch = 1;
    int stages = 0;         // stage count of the measured schedule
    double measuredMs = 0;  // CUDA-graph replay median, else the eager median
    bool cudaGraph = false; // which of the two measuredMs is
    bool tf32 = false;      // the run's "tf32": its convolutions may have used TF32 math
    std::string source;     // the results file it was read from (for messages)
};

// Parses `ios-sched measure -o` output, or tools/gpu_measure.sh's combined file ({"runs":
// [...]}, each run a measure output with a "run" name). Throws ios::UserError naming `source`.
std::vector<MeasuredSchedule> parseMeasuredResults(std::string_view jsonText,
                                                   const std::string& source);
std::vector<MeasuredSchedule> loadMeasuredResults(const std::filesystem::path& path);

// Where the schedule of a measured entry is kept: DIR/<run>-<strategy>.json. The name comes
// from the results file, so it must stay inside DIR (util::resolveInside): a "run" of
// "../x" or a symlink out of DIR is a UserError naming m.source.
std::filesystem::path scheduleFileFor(const std::filesystem::path& dir, const MeasuredSchedule& m);

struct ValidationRow {
    MeasuredSchedule measured;
    double simulatedMs = 0;
    double errorPct = 0; // 100 × (simulated − measured) / measured
};

struct StrategyError {
    std::string strategy;
    int count = 0;
    double mapePct = 0;   // mean of |errorPct|
    double maxAbsPct = 0; // worst |errorPct|
};

// Evaluates every entry's schedule file (scheduleFileFor(dir, …)) on `device` with the
// simulated GPU cost model. `loadGraph` turns an entry's model into a graph (bundled name or
// file). Throws ios::UserError when a schedule file is missing or invalid, or when its stage
// count differs from the measured one (then it is not the schedule that was measured).
std::vector<ValidationRow>
validateSchedules(const std::vector<MeasuredSchedule>& measured,
                  const std::filesystem::path& scheduleDir, const cost::DeviceProfile& device,
                  const std::function<ir::Graph(const std::string&)>& loadGraph);

// MAPE per strategy, strategies in order of first appearance.
std::vector<StrategyError> errorByStrategy(const std::vector<ValidationRow>& rows);

} // namespace ios::analysis
