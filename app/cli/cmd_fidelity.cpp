// SPDX-License-Identifier: Apache-2.0
// `ios-sched fidelity MODEL --cost-model cache:FILE`: how well a simulated device ranks the
// stages measured on a GPU (Spearman, Kendall τ-b, MAPE, per stage kind) and what its mistakes
// cost: the DP run on the simulator and on the measurements, both schedules priced by the
// measurements (the decision loss; issue 16 item 3, docs/gpu.md).
#include "analysis/stage_fidelity.h"
#include "args.h"
#include "command.h"
#include "cost/cost_model_factory.h"
#include "cost/measurement_cache.h"
#include "cost/simulated_gpu_cost_model.h"
#include "cost_options.h"
#include "eval/evaluate.h"
#include "io/schedule_file.h"
#include "model_options.h"
#include "provenance_options.h"
#include "search_progress.h"
#include "strategies.h"
#include "text_format.h"
#include "util/error.h"
#include "util/json_number.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ios::cli {

namespace {

using Json = nlohmann::ordered_json;

// Rank statistics are undefined (NaN) for fewer than two stages or constant latencies.
Json numberOrNull(double v) {
    return std::isfinite(v) ? Json(v) : Json(nullptr);
}

std::string statText(double v) {
    return std::isfinite(v) ? fixed(v, 4) : std::string("n/a");
}

Json summaryJson(const analysis::RankSummary& s, const char* label, const Json& value) {
    return {{label, value},
            {"stages", s.stages},
            {"spearman", numberOrNull(s.spearman)},
            {"kendall_tau_b", numberOrNull(s.kendallTauB)},
            {"mape_pct", s.mapePct},
            {"geo_mean_ratio", numberOrNull(s.geoMeanRatio)}};
}

std::string summaryLine(const analysis::RankSummary& s) {
    char line[160];
    std::snprintf(line, sizeof line, "%-10s %7d  %8s  %13s  %5.1f %%  %s\n", s.kind.c_str(),
                  s.stages, statText(s.spearman).c_str(), statText(s.kendallTauB).c_str(),
                  s.mapePct, statText(s.geoMeanRatio).c_str());
    return line;
}

// "conv 3x3/s2 -> 192x35x35": what kind of kernel an operator of a listed stage launches.
std::string operatorText(const ir::Node& node) {
    std::string text(ir::toString(node.kind));
    if (node.kind == ir::NodeKind::Conv)
        text += " " + std::to_string(node.conv.kernel.h) + "x" +
                std::to_string(node.conv.kernel.w) + "/s" + std::to_string(node.conv.stride.h);
    const ir::TensorShape& s = node.outputShape;
    return text + " -> " + std::to_string(s.c) + "x" + std::to_string(s.h) + "x" +
           std::to_string(s.w);
}

// The stages the simulator misjudges most, with the kernels their operators launch.
void printWorst(const std::vector<analysis::StageFidelityRow>& rows,
                const std::vector<ir::BlockDag>& dags, size_t worstCount) {
    if (worstCount == 0)
        return;
    std::cout << "\nworst stages (simulated / measured furthest from 1):\n";
    for (const analysis::StageFidelityRow& r : analysis::worstStages(rows, worstCount)) {
        char line[160];
        std::snprintf(line, sizeof line, "  %6.2fx  measured %s ms  simulated %s ms  block %d  ",
                      r.simulatedMs / r.measuredMs, fixed(r.measuredMs, 4).c_str(),
                      fixed(r.simulatedMs, 4).c_str(), r.block);
        std::cout << line << r.key << "\n";
        const ir::BlockDag& dag = dags[static_cast<size_t>(r.block)];
        for (size_t g = 0; g < r.stage.groups.size(); ++g)
            for (int op : r.stage.groups[g])
                std::cout << "           group " << g << ": "
                          << operatorText(*dag.ops[static_cast<size_t>(op)]) << "\n";
    }
}

// A kept schedule file priced stage by stage under both models.
struct PricedSchedule {
    std::string file;
    int stages = 0;
    double measuredMs = 0;
    double simulatedMs = 0;
};

std::vector<PricedSchedule> priceSchedules(const std::vector<std::string>& files,
                                           const ir::Graph& graph,
                                           const ir::PreparedModel& prepared,
                                           const cost::CostModel& measured,
                                           const cost::CostModel& simulated) {
    std::vector<PricedSchedule> out;
    for (const std::string& file : files) {
        const schedule::Schedule sched = io::loadScheduleFile(file, graph, prepared.dags());
        PricedSchedule p;
        p.file = file;
        for (const schedule::BlockSchedule& b : sched.blocks)
            p.stages += static_cast<int>(b.stages.size());
        try {
            p.measuredMs = eval::totalLatencyMs(prepared.dags(), sched, measured);
        } catch (const UserError& e) {
            throw UserError("schedule " + file +
                                " has a stage the measurements lack: " + e.message(),
                            e.file(), e.node());
        }
        p.simulatedMs = eval::totalLatencyMs(prepared.dags(), sched, simulated);
        out.push_back(std::move(p));
    }
    return out;
}

int runFidelity(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched fidelity MODEL --cost-model cache:FILE[@DEVICE] [--device D] "
                     "[--batch N] [--strategy S] [-r N] [-s N] [--schedules FILE[,FILE...]] "
                     "[--worst N] [--json]",
                     "Compare a simulated device with the stage latencies measured on a GPU: "
                     "rank correlation (Spearman, Kendall tau-b) and MAPE over every measured "
                     "stage, and the decision loss: the measured latency of the schedule the DP "
                     "picks on the simulator over that of the schedule it picks on the "
                     "measurements.");
    parser.positional("MODEL", "a model file or a bundled name (the cache's model)");
    parser.option("--cost-model, --cost", "cache:FILE[@DEVICE]",
                  "The measurements (a measurement cache; @DEVICE picks one device of several)");
    parser.option("--device", "D", "Simulated device: a bundled name or a device profile JSON file",
                  "H100");
    parser.option("--batch", "N", "Batch size of the measurements and the simulation", "1");
    addSearchOptions(parser, StrategyArg::One);
    parser.option("--schedules", "FILE[,FILE...]",
                  "Also price these schedule files (e.g. the measured ones) under the "
                  "measurements and the simulator");
    parser.option("--worst", "N", "List the N stages the simulator misjudges most", "10");
    parser.flag("--json", "Print one JSON object instead of text");
    addModelOptions(parser);
    if (!parser.parse(args))
        return kExitOk;

    cost::CostModelSpec spec;
    if (!parser.value("cost-model"))
        throw UserError("fidelity needs the measurements: --cost-model cache:FILE");
    cost::parseCostModelKind(parser.get("cost-model"), spec);
    if (spec.key != "cache:")
        throw UserError("fidelity compares against measurements: --cost-model must be "
                        "cache:FILE, not '" +
                        parser.get("cost-model") + "'");
    const SearchOptions search = searchOptions(parser, StrategyArg::One);
    const schedulers::Scheduler& scheduler = *search.schedulers.front();
    // A measurement cache does not record the convolution math; `profile` measures strict fp32
    // unless told --tf32, so the device is simulated in fp32 unless the argument names the math.
    const cost::DeviceProfile device =
        parser.get("device").find('@') == std::string::npos
            ? cost::withConvMath(deviceOption(parser), cost::DeviceProfile::ConvMath::Fp32)
            : deviceOption(parser);
    const int batch = batchOption(parser);
    const auto worstCount = static_cast<size_t>(parser.getInt("worst", 0, 1000000));

    const ir::Graph graph = loadModelArg(parser, parser.positionals().front());
    const ir::PreparedModel prepared(graph, search.params.maxPartSize);
    const cost::CacheChoice choice = cost::parseCacheChoice(spec.argument);
    const cost::MeasurementCache cache = cost::MeasurementCache::load(choice.file);
    const cost::CachedCostModel measured(cache, graph, batch, choice.device, choice.file);
    const cost::SimulatedGpuCostModel simulated(graph, device, batch);

    const std::vector<analysis::StageFidelityRow> rows =
        analysis::resolveStages(prepared, cache, measured.device(), batch, simulated, choice.file);
    const std::vector<analysis::RankSummary> summaries = analysis::rankSummaries(rows);
    // Before the searches: a bad schedule file is reported at once.
    const std::vector<PricedSchedule> priced =
        parser.value("schedules") ? priceSchedules(splitList(parser.get("schedules")), graph,
                                                   prepared, measured, simulated)
                                  : std::vector<PricedSchedule>{};
    schedulers::SearchControl control;
    analysis::DecisionLoss loss;
    {
        SearchProgress progress(control, "fidelity " + graph.name);
        loss = analysis::decisionLoss(prepared, scheduler, search.params, measured, simulated,
                                      &control);
    }
    const std::vector<analysis::RankSummary> byGroups = analysis::rankSummariesByGroups(rows);
    const analysis::RankSummary& all = summaries.front();

    if (parser.has("json")) {
        Json j;
        j["model"] = graph.name;
        j["device"] = device.name;
        j["measured_on"] = measured.device();
        j["batch"] = batch;
        j["strategy"] = std::string(scheduler.key());
        j["stages"] = all.stages;
        j["spearman"] = numberOrNull(all.spearman);
        j["kendall_tau_b"] = numberOrNull(all.kendallTauB);
        j["mape_pct"] = all.mapePct;
        j["geo_mean_ratio"] = numberOrNull(all.geoMeanRatio);
        Json kinds = Json::array();
        for (size_t i = 1; i < summaries.size(); ++i)
            kinds.push_back(summaryJson(summaries[i], "kind", summaries[i].kind));
        j["by_kind"] = std::move(kinds);
        Json groups = Json::array();
        for (const analysis::RankSummary& s : byGroups)
            groups.push_back(summaryJson(s, "groups", s.groups));
        j["by_groups"] = std::move(groups);
        j["decision"] = {{"simulated_choice_measured_ms", loss.simulatedChoiceMeasuredMs},
                         {"measured_choice_measured_ms", loss.measuredChoiceMeasuredMs},
                         {"loss", loss.loss},
                         {"simulated_choice_simulated_ms", loss.simulatedChoiceSimulatedMs},
                         {"measured_choice_simulated_ms", loss.measuredChoiceSimulatedMs}};
        Json blocks = Json::array();
        for (const analysis::BlockDecision& b : loss.blocks)
            blocks.push_back({{"block", b.block},
                              {"same_stages", b.sameStages},
                              {"simulated_choice_measured_ms", b.simulatedChoiceMeasuredMs},
                              {"measured_choice_measured_ms", b.measuredChoiceMeasuredMs}});
        j["decision"]["blocks"] = std::move(blocks);
        Json worst = Json::array();
        for (const analysis::StageFidelityRow& r : analysis::worstStages(rows, worstCount))
            worst.push_back({{"stage", r.key},
                             {"block", r.block},
                             {"measured_ms", r.measuredMs},
                             {"simulated_ms", r.simulatedMs}});
        j["worst"] = std::move(worst);
        if (!priced.empty()) {
            Json files = Json::array();
            for (const PricedSchedule& p : priced)
                files.push_back({{"file", p.file},
                                 {"stages", p.stages},
                                 {"measured_ms", p.measuredMs},
                                 {"simulated_ms", p.simulatedMs}});
            j["schedules"] = std::move(files);
        }
        j[io::kProvenanceKey] = commandProvenanceJson(parser, &graph);
        std::cout << util::dumpJson(j, 2) << "\n";
        return kExitOk;
    }
    std::cout << graph.name << ": simulated " << device.name << " vs measured on "
              << measured.device() << ", batch " << batch << "\n"
              << "kind        stages  Spearman  Kendall tau-b    MAPE  sim/meas (geo. mean)\n";
    for (const analysis::RankSummary& s : summaries)
        std::cout << summaryLine(s);
    std::cout << "parallel stages by groups (streams):\n";
    for (const analysis::RankSummary& s : byGroups)
        std::cout << summaryLine(s);
    std::cout << "\ndecision (" << scheduler.key() << ", r " << search.params.r << ", s "
              << search.params.s
              << "): the schedule the DP picks, priced by the measured "
                 "stages\n"
              << "  on the simulator     " << fixed(loss.simulatedChoiceMeasuredMs, 4)
              << " ms (simulated " << fixed(loss.simulatedChoiceSimulatedMs, 4) << " ms)\n"
              << "  on the measurements  " << fixed(loss.measuredChoiceMeasuredMs, 4)
              << " ms (simulated " << fixed(loss.measuredChoiceSimulatedMs, 4) << " ms)\n"
              << "  decision loss        " << fixed(loss.loss, 4) << "\n";
    for (const analysis::BlockDecision& b : loss.blocks)
        if (!b.sameStages)
            std::cout << "  block " << b.block << ": simulator's choice "
                      << fixed(b.simulatedChoiceMeasuredMs, 4) << " ms, measurements' choice "
                      << fixed(b.measuredChoiceMeasuredMs, 4) << " ms (measured)\n";
    if (!priced.empty())
        std::cout << "\nschedules priced stage by stage:\n";
    for (const PricedSchedule& p : priced)
        std::cout << "  " << p.file << " (" << p.stages << " stages): measured "
                  << fixed(p.measuredMs, 4) << " ms, simulated " << fixed(p.simulatedMs, 4)
                  << " ms\n";
    printWorst(rows, prepared.dags(), worstCount);
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(fidelity, "fidelity",
                     "Simulator stage ranking and decision loss against measured stages",
                     ios::cli::runFidelity);
