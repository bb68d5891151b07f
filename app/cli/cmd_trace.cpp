// SPDX-License-Identifier: Apache-2.0
// `ios-sched trace MODEL --strategy S -o trace.json|.csv`: the simulated execution of a
// schedule as a Chrome trace (Perfetto, chrome://tracing) or CSV (docs/cost-model.md).
#include "args.h"
#include "command.h"
#include "cost/kernel_timeline.h"
#include "cost_options.h"
#include "eval/timeline.h"
#include "eval/timeline_curves.h"
#include "gpu_runs.h"
#include "io/trace_export.h"
#include "io/trace_format.h"
#include "message_mode.h"
#include "model_options.h"
#include "provenance_options.h"
#include "strategies.h"
#include "util/error.h"
#include "util/output_file.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace ios::cli {

namespace {

// --gpu: the schedule (searched with the --cost-model model) run and traced on the GPU.
int traceOnGpu(const ArgParser& parser, util::OutputTransaction& output) {
    const SearchOptions search = searchOptions(parser, StrategyArg::One);
    const std::string strategy(search.schedulers.front()->key());
    planCostModelFiles(parser, output);
    const ir::Graph graph = loadModelArg(parser, parser.positionals().front(), output);
    const ir::PreparedModel prepared(graph, search.params.maxPartSize);
    const auto model = makeCostModel(parser, graph);
    const StrategyRun run =
        runStrategy(prepared, *search.schedulers.front(), search.params, *model);
    // The graph the schedule refers to (a rewritten one for metaflow).
    const ir::Graph& scheduled = schedulers::scheduledModel(prepared, run.outcome).graph();
    profiling::TraceOptions options;
    options.mode =
        parser.has("cuda-graph") ? profiling::TraceMode::CudaGraph : profiling::TraceMode::Eager;
    const profiling::MeasuredTrace t =
        profiling::traceOnGpu(scheduled, run.outcome.schedule, batchOption(parser), options);
    const std::string out = parser.get("output");
    const io::Provenance provenance =
        measuredProvenance(parser, graph, t.timeline.device, batchOption(parser));
    output.stage(out,
                 io::timelineText(out, t.timeline,
                                  {graph.name, strategy, io::trace::kMeasuredSource,
                                   profiling::traceModeName(t.mode), t.warpMetric, &provenance}));
    output.commit();
    if (!t.warpNote.empty())
        notes() << "active warps: " << t.warpNote << "\n";
    std::cout << graph.name << ": " << strategy << " on " << t.timeline.device << " ("
              << profiling::traceModeName(t.mode) << "), " << t.timeline.kernels.size()
              << " kernels, " << t.timeline.latencyUs / 1000.0 << " ms traced -> " << out << "\n";
    if (t.meanWarpOccupancy >= 0)
        std::cout << "active warps: " << 100 * t.busyWarpOccupancy << " % of peak over busy time, "
                  << 100 * t.meanWarpOccupancy << " % over the run\n";
    if (t.mode == profiling::TraceMode::Eager)
        notes() << "eager run: host-bound on fast GPUs; --cuda-graph traces replays "
                   "(docs/gpu.md \"Active warps and eager runs\")\n";
    return kExitOk;
}

void printStages(const eval::Timeline& timeline) {
    std::cout << "block stage kind      groups  latency us  active SMs %  warps %  fp32 %\n";
    for (const eval::TimelineStage& st : timeline.stages) {
        char row[160];
        std::snprintf(row, sizeof row, "%5d %5d %-9s %6d %11.2f %12.1f %8.1f %7.1f\n", st.block,
                      st.stage, st.kind == schedule::StageKind::Merge ? "merge" : "parallel",
                      st.groups, st.endUs - st.startUs, 100 * st.meanActiveSmFraction,
                      100 * st.meanWarpOccupancy, 100 * st.meanFlopUtilisation);
        std::cout << row;
    }
}

int runTrace(const std::vector<std::string>& args) {
    ArgParser parser(
        "ios-sched trace MODEL --strategy S [--device D] [--batch N] [-r N] [-s N] "
        "[--schedule SAVED] -o TRACE.json|TRACE.csv",
        "Schedule MODEL with strategy S and write the kernel timeline the cost "
        "model describes (simulated device or analytic roofline): Chrome trace JSON "
        "(one track per stream, SM "
        "utilisation counters) or CSV (by the extension). With --schedule, the timeline of a "
        "saved schedule instead of a search.");
    parser.positional("MODEL", "a model file (.ios.json, .json) or a bundled name (see models)");
    addSearchOptions(parser, StrategyArg::One);
    parser.option("-o, --output", "OUT", "Trace file to write (.json or .csv)");
    parser.flag("--stages", "Also print each stage's latency and simulated utilisation (IOS "
                            "Figure 2: active SMs, warp occupancy, fp32 utilisation)");
    parser.flag("--gpu", "Run the schedule on the CUDA GPU: measured kernel timeline (CUPTI) "
                         "and active warps (PM sampling) instead of the simulation");
    parser.flag("--cuda-graph", "With --gpu: trace CUDA-graph replays (captured once, the middle "
                                "of 20 back-to-back replays) instead of one eager run");
    addScheduleOption(parser);
    addCostOptions(parser);
    if (!parser.parse(args))
        return kExitOk;
    if (!parser.value("output"))
        throw UserError("missing -o TRACE.json|TRACE.csv");
    // Checked before any work: the format follows the extension.
    const std::filesystem::path outPath = parser.get("output");
    util::OutputTransaction output;
    output.check(outPath, "the trace (-o)");
    if (!util::isStandardOutput(outPath) && outPath.extension() != ".json" &&
        outPath.extension() != ".csv")
        throw UserError("a trace is written as .json (Chrome trace) or .csv, not '" +
                            outPath.extension().string() + "'",
                        outPath.string());
    if (parser.has("cuda-graph") && !parser.has("gpu"))
        throw UserError("--cuda-graph traces CUDA-graph replays on the GPU: give it with --gpu");
    if (parser.has("gpu") && parser.has("schedule"))
        throw UserError("--schedule traces a saved schedule on the simulated device; run it on "
                        "the GPU with `ios-sched measure`, not --gpu");
    if (parser.has("gpu"))
        return traceOnGpu(parser, output);
    const SearchOptions search = searchOptions(parser, StrategyArg::One);
    std::string strategy(search.schedulers.front()->key());
    planScheduleInput(parser, output);
    planCostModelFiles(parser, output);
    const ir::Graph graph = loadModelArg(parser, parser.positionals().front(), output);
    const auto model = makeCostModel(parser, graph);
    const cost::KernelTimelineModel* kernels = model->kernelTimeline();
    if (kernels == nullptr)
        throw UserError("trace needs a cost model that describes kernels (simulated or analytic; "
                        "measured traces come from a GPU with --gpu), not " +
                        costModelOption(parser));
    const ir::PreparedModel prepared(graph, search.params.maxPartSize);
    const std::vector<ir::BlockDag>& dags = prepared.dags();
    const std::optional<io::ScheduleDocument> saved = scheduleOption(parser, prepared);
    if (saved)
        strategy = scheduleLabel(*saved);
    const StrategyRun run =
        saved ? savedScheduleRun(*saved, prepared, search.params, *model)
              : runStrategy(prepared, *search.schedulers.front(), search.params, *model);
    const eval::Timeline timeline = schedulers::outcomeTimeline(dags, run.outcome, *model);
    // The dependency arrows the explorer's timeline draws, between the scheduled model's kernels.
    const std::vector<io::TraceFlow> flows = io::traceFlows(
        eval::kernelFlows(timeline, schedulers::scheduledModel(prepared, run.outcome).dags()));
    const std::string out = parser.get("output");
    const io::Provenance provenance = commandProvenance(parser, &graph);
    io::TraceInfo info{graph.name, strategy};
    info.provenance = &provenance;
    output.stage(out, io::timelineText(out, timeline, info, flows));
    output.commit();
    char line[160];
    std::snprintf(line, sizeof line, "%s: %s, %zu stages, %zu kernels, %.4f ms (%s) -> ",
                  graph.name.c_str(), strategy.c_str(), timeline.stages.size(),
                  timeline.kernels.size(), timeline.latencyUs / 1000.0, model->describe().c_str());
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
