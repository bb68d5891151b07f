// `ios-sched trace MODEL --strategy S -o trace.json|.csv`: the simulated execution of a
// schedule as a Chrome trace (Perfetto, chrome://tracing) or CSV (docs/cost-model.md).
#include "args.h"
#include "command.h"
#include "cost/simulated_gpu_cost_model.h"
#include "cost_options.h"
#include "gpu_runs.h"
#include "io/file_util.h"
#include "io/trace_export.h"
#include "model_options.h"
#include "schedule/timeline.h"
#include "strategies.h"
#include "util/error.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace ios::cli {

namespace {

// --gpu: the schedule (searched with the --cost-model model) run and traced on the GPU.
int traceOnGpu(const ArgParser& parser) {
    const std::string strategy = parser.get("strategy");
    checkStrategyName(strategy);
    const ir::Graph graph = loadModelArg(parser, parser.positionals().front());
    const std::vector<ir::BlockDag> dags = ir::buildDags(graph);
    const auto model = makeCostModel(parser, graph);
    const StrategyRun run =
        runStrategy(graph, dags, strategy, parser.getInt("max-group-size", 1, 128),
                    parser.getInt("max-num-groups", 1, 128), *model);
    const profiling::MeasuredTrace t =
        profiling::traceOnGpu(graph, run.schedule, batchOption(parser));
    const std::string out = parser.get("output");
    io::writeTimeline(out, t.timeline, {graph.name, strategy, "measured"});
    if (!t.warpNote.empty())
        std::cerr << "active warps: " << t.warpNote << "\n";
    std::cout << graph.name << ": " << strategy << " on " << t.timeline.device << ", "
              << t.timeline.kernels.size() << " kernels, " << t.timeline.latencyUs / 1000.0
              << " ms traced -> " << out << "\n";
    return kExitOk;
}

void printStages(const schedule::Timeline& timeline) {
    std::cout << "block stage kind      groups  latency us  active SMs %  warps %  fp32 %\n";
    for (const schedule::TimelineStage& st : timeline.stages) {
        char row[160];
        std::snprintf(row, sizeof row, "%5d %5d %-9s %6d %11.2f %12.1f %8.1f %7.1f\n", st.block,
                      st.stage, st.kind == schedule::StageKind::Merge ? "merge" : "parallel",
                      st.groups, st.endUs - st.startUs, 100 * st.meanActiveSmFraction,
                      100 * st.meanWarpOccupancy, 100 * st.meanFlopUtilisation);
        std::cout << row;
    }
}

int runTrace(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched trace MODEL --strategy S [--device D] [--batch N] [-r N] [-s N] "
                     "-o TRACE.json|TRACE.csv",
                     "Schedule MODEL with strategy S on the simulated device and write the "
                     "simulated kernel timeline: Chrome trace JSON (one track per stream, SM "
                     "utilisation counters) or CSV (by the extension).");
    parser.positional("MODEL", "a model file (.ios.json, .json) or a bundled name (see models)");
    parser.option("--strategy", "S", "sequential, greedy, merge, parallel or both", "both");
    parser.option("-r, --max-group-size", "N", "Most operators per group of a parallel stage", "3");
    parser.option("-s, --max-num-groups", "N", "Most groups per parallel stage", "8");
    parser.option("-o, --output", "OUT", "Trace file to write (.json or .csv)");
    parser.flag("--stages", "Also print each stage's latency and simulated utilisation (IOS "
                            "Figure 2: active SMs, warp occupancy, fp32 utilisation)");
    parser.flag("--gpu", "Run the schedule on the CUDA GPU: measured kernel timeline (CUPTI) "
                         "and active warps (PM sampling) instead of the simulation");
    addCostOptions(parser);
    if (!parser.parse(args))
        return kExitOk;
    if (!parser.value("output"))
        throw UserError("missing -o TRACE.json|TRACE.csv");
    // Checked before any work: the format follows the extension.
    const std::filesystem::path outPath = parser.get("output");
    io::checkOutputPath(outPath);
    if (outPath.extension() != ".json" && outPath.extension() != ".csv")
        throw UserError("a trace is written as .json (Chrome trace) or .csv, not '" +
                            outPath.extension().string() + "'",
                        outPath.string());
    if (parser.has("gpu"))
        return traceOnGpu(parser);
    if (parser.get("cost-model") != "simulated")
        throw UserError("trace needs the simulated cost model (measured traces come from a GPU)");
    const std::string strategy = parser.get("strategy");
    checkStrategyName(strategy);
    const int r = parser.getInt("max-group-size", 1, 128);
    const int s = parser.getInt("max-num-groups", 1, 128);

    const ir::Graph graph = loadModelArg(parser, parser.positionals().front());
    const cost::SimulatedGpuCostModel model(graph, deviceOption(parser), batchOption(parser));
    const std::vector<ir::BlockDag> dags = ir::buildDags(graph);
    const StrategyRun run = runStrategy(graph, dags, strategy, r, s, model);
    const schedule::Timeline timeline = schedule::buildTimeline(dags, run.schedule, model);
    const std::string out = parser.get("output");
    io::writeTimeline(out, timeline, {graph.name, strategy});
    char line[160];
    std::snprintf(line, sizeof line, "%s: %s, %zu stages, %zu kernels, %.4f ms (%s) -> ",
                  graph.name.c_str(), strategy.c_str(), timeline.stages.size(),
                  timeline.kernels.size(), timeline.latencyUs / 1000.0, model.describe().c_str());
    std::cout << line << out << "\n";
    if (parser.has("stages"))
        printStages(timeline);
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(trace, "trace",
                     "Write the simulated timeline of a schedule (Chrome trace, CSV)",
                     ios::cli::runTrace);
