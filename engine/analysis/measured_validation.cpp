// SPDX-License-Identifier: Apache-2.0
#include "analysis/measured_validation.h"

#include "cost/simulated_gpu_cost_model.h"
#include "eval/evaluate.h"
#include "io/schedule_file.h"
#include "ir/block_dag.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_number.h"
#include "util/json_text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>

namespace ios::analysis {

namespace {

using util::Json;

double medianOf(const Json& result, const char* key, const std::string& source) {
    if (!result.contains(key) || !result[key].is_object())
        return -1;
    const Json& s = result[key];
    if (!s.contains("median_ms") || !s["median_ms"].is_number())
        return -1;
    return util::jsonNumber(s["median_ms"], 0, cost::kMaxStageLatencyMs,
                            std::string(key) + ".median_ms", source);
}

void readRun(const Json& run, const std::string& source, std::vector<MeasuredSchedule>& out) {
    const auto bad = [&](const std::string& what) {
        throw UserError("measurement results: " + what, source);
    };
    if (!run.is_object() || !run.contains("model") || !run["model"].is_string() ||
        !run.contains("results") || !run["results"].is_array())
        bad("a run must be an object with \"model\" and \"results\"");
    const std::string model = run["model"].get<std::string>();
    const std::string name =
        run.contains("run") && run["run"].is_string() ? run["run"].get<std::string>() : model;
    const int batch =
        run.contains("batch")
            ? static_cast<int>(util::jsonInteger(run["batch"], 1, cost::kMaxBatch,
                                                 "run '" + name + "': \"batch\"", source))
            : 1;
    if (run.contains("tf32") && !run["tf32"].is_boolean())
        bad("run '" + name + "': \"tf32\" must be true or false");
    const bool tf32 = run.contains("tf32") && run["tf32"].get<bool>();
    for (const Json& r : run["results"]) {
        if (!r.is_object() || !r.contains("strategy") || !r["strategy"].is_string())
            bad("run '" + name + "': every result needs a \"strategy\"");
        MeasuredSchedule m;
        m.run = name;
        m.model = model;
        m.strategy = r["strategy"].get<std::string>();
        m.batch = batch;
        m.tf32 = tf32;
        m.source = source;
        m.stages = r.contains("stages")
                       ? static_cast<int>(util::jsonInteger(
                             r["stages"], 0, INT32_MAX, "run '" + name + "': \"stages\"", source))
                       : 0;
        const double graph = medianOf(r, "cuda_graph_latency", source);
        const double eager = medianOf(r, "latency", source);
        m.cudaGraph = graph > 0;
        m.measuredMs = m.cudaGraph ? graph : eager;
        if (!(m.measuredMs > 0))
            bad("run '" + name + "', strategy '" + m.strategy + "': no latency median");
        out.push_back(std::move(m));
    }
}

} // namespace

std::vector<MeasuredSchedule> parseMeasuredResults(std::string_view jsonText,
                                                   const std::string& source) {
    const util::JsonDocument parsed = util::parseJsonDocument(jsonText, source);
    const Json& doc = parsed.root();
    std::vector<MeasuredSchedule> out;
    if (doc.is_object() && doc.contains("runs")) {
        if (!doc["runs"].is_array())
            throw UserError("measurement results: \"runs\" must be a list", source);
        for (const Json& run : doc["runs"])
            readRun(run, source, out);
    } else {
        readRun(doc, source, out);
    }
    return out;
}

std::vector<MeasuredSchedule> loadMeasuredResults(const std::filesystem::path& path) {
    return parseMeasuredResults(util::readInputFile(path, util::InputKind::Results), path.string());
}

std::filesystem::path scheduleFileFor(const std::filesystem::path& dir, const MeasuredSchedule& m) {
    return util::resolveInside(dir, m.run + "-" + m.strategy + ".json",
                               "the schedule file name made of \"run\" and \"strategy\"", m.source);
}

std::vector<ValidationRow>
validateSchedules(const std::vector<MeasuredSchedule>& measured,
                  const std::filesystem::path& scheduleDir, const cost::DeviceProfile& device,
                  const std::function<ir::Graph(const std::string&)>& loadGraph) {
    // Graphs and DAGs per model, loaded once (the cost model keeps a reference to its graph).
    std::map<std::string, std::unique_ptr<ir::Graph>> graphs;
    std::vector<ValidationRow> rows;
    for (const MeasuredSchedule& m : measured) {
        // Errors that name no file (a bundled model, the simulation) are about this entry of
        // the results file.
        const auto inResults = [&](const UserError& e) {
            return e.file().empty() ? UserError("run '" + m.run + "', strategy '" + m.strategy +
                                                    "': " + e.message(),
                                                m.source, e.node())
                                    : e;
        };
        auto& graph = graphs[m.model];
        try {
            if (!graph)
                graph = std::make_unique<ir::Graph>(loadGraph(m.model));
        } catch (const UserError& e) {
            throw inResults(e);
        }
        const std::vector<ir::BlockDag> dags = ir::buildDags(*graph);
        const std::filesystem::path file = scheduleFileFor(scheduleDir, m);
        if (!util::inputExists(file))
            throw UserError("no schedule file for run '" + m.run + "', strategy '" + m.strategy +
                                "'",
                            file.string());
        const schedule::Schedule s = io::loadScheduleFile(file, *graph, dags);
        size_t stages = 0;
        for (const auto& b : s.blocks)
            stages += b.stages.size();
        if (m.stages > 0 && stages != static_cast<size_t>(m.stages))
            throw UserError("the schedule has " + std::to_string(stages) +
                                " stages, the measured one " + std::to_string(m.stages),
                            file.string());
        ValidationRow row;
        row.measured = m;
        try {
            // Simulated in the math the measurement ran (strict fp32 unless it allowed TF32).
            const cost::SimulatedGpuCostModel model(
                *graph,
                cost::withConvMath(device, m.tf32 ? cost::DeviceProfile::ConvMath::Tf32
                                                  : cost::DeviceProfile::ConvMath::Fp32),
                m.batch);
            row.simulatedMs = eval::totalLatencyMs(dags, s, model);
        } catch (const UserError& e) {
            throw inResults(e);
        }
        row.errorPct = 100 * (row.simulatedMs - m.measuredMs) / m.measuredMs;
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<StrategyError> errorByStrategy(const std::vector<ValidationRow>& rows) {
    std::vector<StrategyError> out;
    for (const ValidationRow& r : rows) {
        auto it = std::find_if(out.begin(), out.end(), [&](const StrategyError& e) {
            return e.strategy == r.measured.strategy;
        });
        if (it == out.end()) {
            out.push_back({r.measured.strategy, 0, 0, 0});
            it = out.end() - 1;
        }
        ++it->count;
        it->mapePct += std::abs(r.errorPct);
        it->maxAbsPct = std::max(it->maxAbsPct, std::abs(r.errorPct));
    }
    for (StrategyError& e : out)
        e.mapePct /= e.count;
    return out;
}

} // namespace ios::analysis
