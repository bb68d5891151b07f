// SPDX-License-Identifier: Apache-2.0
// `ios-sched validate RESULTS.json --schedules DIR --device D`: the simulator against GPU
// measurements. Every timed schedule of a `measure` results file is read back from its
// schedule file (DIR/<run>-<strategy>.json, the exact schedule that was measured) and
// evaluated on the device profile; prints each error and the MAPE per strategy
// (docs/performance.md "Simulator error").
#include "analysis/measured_validation.h"
#include "args.h"
#include "bundled_models.h"
#include "command.h"
#include "cost_options.h"
#include "io/model_file.h"
#include "text_format.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_number.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ios::cli {

namespace {

using Json = nlohmann::ordered_json;

int runValidate(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched validate RESULTS.json [--schedules DIR] [--runs R[,R...]] "
                     "[--device D] [--json]",
                     "Evaluate the schedules that `ios-sched measure` timed (kept as schedule "
                     "files DIR/<run>-<strategy>.json) on a simulated device and report the "
                     "simulator's error per schedule and its MAPE per strategy.");
    parser.positional("RESULTS", "measure output (-o) or tools/gpu_measure.sh's combined file");
    parser.option("--schedules", "DIR",
                  "Folder of the schedule files (default: schedules/ beside RESULTS)");
    parser.option("--runs", "R", "Only these runs (comma-separated; default: all)");
    parser.option("--device", "D", "Simulated device: a bundled name or a device profile JSON file",
                  "H100");
    parser.flag("--json", "Print one JSON object instead of text");
    if (!parser.parse(args))
        return kExitOk;

    const std::filesystem::path results = parser.positionals().front();
    std::vector<analysis::MeasuredSchedule> measured = analysis::loadMeasuredResults(results);
    if (auto runs = parser.value("runs")) {
        const std::vector<std::string> keep = splitList(*runs);
        for (const std::string& r : keep)
            if (std::none_of(measured.begin(), measured.end(),
                             [&](const analysis::MeasuredSchedule& m) { return m.run == r; }))
                throw UserError("no run '" + r + "' in the results", results.string());
        std::erase_if(measured, [&](const analysis::MeasuredSchedule& m) {
            return std::find(keep.begin(), keep.end(), m.run) == keep.end();
        });
    }
    const std::filesystem::path dir = parser.value("schedules")
                                          ? std::filesystem::path(parser.get("schedules"))
                                          : results.parent_path() / "schedules";
    const cost::DeviceProfile device = deviceOption(parser);
    // A results file names its model: a bundled name, or a file inside the results' folder
    // (never an arbitrary path: the results file must not decide what else is read).
    const auto loadGraph = [&](const std::string& model) {
        if (samples::isBundledModel(model))
            return samples::loadBundledModel(model);
        return io::loadModelFile(
            util::resolveInside(results.parent_path(), model, "\"model\"", results.string()));
    };
    const std::vector<analysis::ValidationRow> rows =
        analysis::validateSchedules(measured, dir, device, loadGraph);
    const std::vector<analysis::StrategyError> errors = analysis::errorByStrategy(rows);

    if (parser.has("json")) {
        Json j;
        j["results"] = results.string();
        j["device"] = device.name;
        Json list = Json::array();
        for (const analysis::ValidationRow& r : rows)
            list.push_back({{"run", r.measured.run},
                            {"model", r.measured.model},
                            {"strategy", r.measured.strategy},
                            {"stages", r.measured.stages},
                            {"measured_ms", r.measured.measuredMs},
                            {"measured", r.measured.cudaGraph ? "cuda_graph" : "eager"},
                            {"simulated_ms", r.simulatedMs},
                            {"error_pct", r.errorPct}});
        j["schedules"] = std::move(list);
        Json mape = Json::array();
        for (const analysis::StrategyError& e : errors)
            mape.push_back({{"strategy", e.strategy},
                            {"count", e.count},
                            {"mape_pct", e.mapePct},
                            {"max_abs_pct", e.maxAbsPct}});
        j["by_strategy"] = std::move(mape);
        std::cout << util::dumpJson(j, 2) << "\n";
        return kExitOk;
    }
    std::cout << "simulated " << device.name << " vs " << results.string() << "\n"
              << "run                  strategy    stages  measured ms  simulated ms   error\n";
    for (const analysis::ValidationRow& r : rows) {
        std::cout << formatted(
            "%-20s %-10s %7d  %10s%s  %12s  %+6.1f %%\n", r.measured.run.c_str(),
            r.measured.strategy.c_str(), r.measured.stages, fixed(r.measured.measuredMs, 3).c_str(),
            r.measured.cudaGraph ? " " : "e", fixed(r.simulatedMs, 3).c_str(), r.errorPct);
    }
    std::cout << "strategy    schedules  MAPE     worst\n";
    for (const analysis::StrategyError& e : errors)
        std::cout << formatted("%-10s %10d  %5.1f %%  %5.1f %%\n", e.strategy.c_str(), e.count,
                               e.mapePct, e.maxAbsPct);
    std::cout << std::flush;
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(validate, "validate",
                     "Simulator error against measured schedules (MAPE per strategy)",
                     ios::cli::runValidate);
