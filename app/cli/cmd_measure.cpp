// SPDX-License-Identifier: Apache-2.0
// `ios-sched measure MODEL --strategy S[,S…]`: run schedules on the CUDA GPU with cuDNN and
// report latency median / p10 / p90 per strategy, the numeric check against the sequential
// schedule, the simulator's estimate of the same schedule and, with --trace-prefix, kernel
// timelines with active warps (issue "GPU profiling"; with --cuda-graph, of CUDA-graph
// replays). Eager timings are host-bound on fast GPUs: measure says so, and with --cuda-graph
// backs it with this run's eager/replay ratios (docs/gpu.md "Active warps and eager runs").
// Outcomes that are stream programs (RAF's policies: Outcome::programs) are timed, checked, traced
// and captured as programs (streams, events, barriers; profiling/executor.h), the others as stage
// schedules.
#include "args.h"
#include "bundled_models.h"
#include "command.h"
#include "cost/measurement_cache.h"
#include "cost/simulated_gpu_cost_model.h"
#include "cost_options.h"
#include "eval/evaluate.h"
#include "gpu_runs.h"
#include "io/trace_export.h"
#include "io/trace_format.h"
#include "measured_cost_model.h"
#include "message_mode.h"
#include "model_options.h"
#include "provenance_options.h"
#include "schedule/stream_program.h"
#include "strategies.h"
#include "text_format.h"
#include "util/error.h"
#include "util/json_number.h"
#include "util/output_file.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ios::cli {

namespace {

using Json = nlohmann::ordered_json;

Json summaryJson(const profiling::LatencySummary& s) {
    return {{"median_ms", s.medianMs},
            {"p10_ms", s.p10Ms},
            {"p90_ms", s.p90Ms},
            {"samples_ms", s.samples}};
}

int runMeasure(const std::vector<std::string>& args) {
    ArgParser parser(
        "ios-sched measure MODEL [--strategy S[,S...]] [--batch N] [--repeat N] [--warmup N] "
        "[--cuda-graph] [--warps] [--trace-prefix P] [-o results.json]",
        "Run schedules of MODEL on the CUDA GPU (cuDNN, one stream per group; stream programs "
        "of the RAF strategies with their own streams and events) and report the "
        "latency median, p10 and p90 per strategy. IOS strategies are searched with the cost "
        "model of --cost-model (measured: stage latencies measured on this GPU). Exits 1 with "
        "\"no CUDA device available\" when there is no usable GPU. The main timings are eager "
        "(every kernel launched from the host): on fast GPUs eager execution is host-bound and "
        "multi-stream schedules need CUDA-graph replay (--cuda-graph) to win; on an H100, "
        "InceptionV3 sequential takes 6.2 ms eager vs 3.5 ms replayed and IOS-both 9.7 ms eager "
        "(docs/gpu.md). With --cuda-graph, measure prints eager/replay per strategy and flags "
        "a strategy that loses to sequential eagerly but wins replayed.");
    parser.positional("MODEL", "a model file (.ios.json, .json) or a bundled name (see models)");
    addSearchOptions(parser, StrategyArg::List, "sequential");
    parser.option("--repeat", "N", "Timed runs per strategy (the median is reported)", "20");
    parser.option("--warmup", "N", "Untimed runs first", "5");
    parser.flag("--cuda-graph", "Also time CUDA-graph replays of each schedule (and trace "
                                "replays with --trace-prefix)");
    parser.flag("--tf32", "Let cuDNN use TF32 tensor cores (default: strict fp32)");
    parser.flag("--warps", "Also sample active warps (PM sampling) over CUDA-graph replays");
    parser.flag("--no-check", "Skip the numeric check against the sequential schedule");
    parser.option("--trace-prefix", "P",
                  "Write a Chrome trace per strategy to P-<strategy>.json (kernel timeline, "
                  "stages, active warps): of one eager run, or with --cuda-graph of CUDA-graph "
                  "replays (the middle of 20 back-to-back replays, sampled throughout)");
    parser.option("-o, --output", "FILE", "Write all results as JSON");
    addCostOptions(parser);
    if (!parser.parse(args))
        return kExitOk;

    const SearchOptions search = searchOptions(parser, StrategyArg::List);
    const int batch = batchOption(parser);
    profiling::TimingOptions timing;
    timing.repeat = parser.getInt("repeat", 1, 100000);
    timing.warmup = parser.getInt("warmup", 0, 100000);

    // Every option is checked before the GPU is touched: a typo fails at once, everywhere.
    const cost::DeviceProfile device = deviceOption(parser);
    const std::string costKind = costModelOption(parser);
    // Every file is written at the end, together, or none (docs/cli.md "Output files").
    util::OutputTransaction outputs;
    if (auto out = parser.value("output"))
        outputs.check(*out, "the results (-o)");
    const std::string cacheFile = parser.get("measure-cache");
    planCostModelFiles(parser, outputs);
    if (auto prefix = parser.value("trace-prefix"))
        for (const schedulers::Scheduler* scheduler : search.schedulers)
            outputs.check(*prefix + "-" + std::string(scheduler->key()) + ".json",
                          "a trace of --trace-prefix");

    const ir::Graph graph = loadModelArg(parser, parser.positionals().front(), outputs);
    const ir::PreparedModel prepared(graph, search.params.maxPartSize);
    const std::vector<ir::BlockDag>& dags = prepared.dags();

    profiling::CudaBackendOptions gpuOptions;
    gpuOptions.allowTf32 = parser.has("tf32");
    std::unique_ptr<profiling::GpuBackend> backend = profiling::requireCudaBackend(gpuOptions);
    profiling::Executor executor(graph, *backend, batch);
    const io::Provenance provenance =
        measuredProvenance(parser, graph, backend->deviceName(), batch);

    // The DP's cost model: measured stages share this executor (and its cache file).
    cost::MeasurementCache cache;
    std::unique_ptr<cost::CostModel> dpCost;
    if (costKind == "measured") {
        if (std::filesystem::exists(cacheFile))
            cache = cost::MeasurementCache::load(cacheFile);
        dpCost = std::make_unique<profiling::MeasuredCostModel>(
            executor, graph.name, profiling::MeasuredCostModel::defaultTiming(), &cache);
    } else {
        dpCost = makeCostModel(parser, graph);
    }
    const cost::SimulatedGpuCostModel simulated(graph, device, batch);

    std::vector<float> reference;
    if (!parser.has("no-check")) {
        executor.issueSchedule(dags, [&] {
            return runStrategy(prepared, schedulers::schedulerByName("sequential"), search.params,
                               simulated)
                .outcome.schedule;
        }());
        reference = executor.output();
    }

    Json results = Json::array();
    std::vector<profiling::EagerReplayTiming> eagerVsReplay; // strategies timed both ways
    std::cout << graph.name << " on " << backend->deviceName() << ", batch " << batch
              << ", median of " << timing.repeat << " runs after " << timing.warmup
              << " warm-up runs\n";
    std::cout
        << "strategy     median_ms  p10_ms   p90_ms   simulated_ms  graph_ms  warps%  check\n";
    for (const schedulers::Scheduler* scheduler : search.schedulers) {
        const std::string name(scheduler->key());
        const StrategyRun sr = runStrategy(prepared, *scheduler, search.params, *dpCost);
        const schedulers::Outcome& run = sr.outcome;
        if (run.rewritten)
            throw UserError("measure runs schedules of " + graph.name + " on its executor; " +
                            name +
                            " schedules a rewritten graph, which that executor does not "
                            "hold (`ios-sched metaflow --verify` checks it instead)");
        // A stream program runs as one (the RAF policies'); every other outcome as stages.
        const bool isProgram = !run.programs.empty();
        const auto summary =
            profiling::summarize(isProgram ? executor.timeProgram(dags, run.programs, timing)
                                           : executor.timeSchedule(dags, run.schedule, timing));
        Json j;
        j["strategy"] = name;
        j["cost_model"] = run.stats ? dpCost->describe() : "-"; // baselines price nothing
        j["search_seconds"] = run.searchSeconds;
        size_t stages = 0;
        for (const auto& b : run.schedule.blocks)
            stages += b.stages.size();
        j["stages"] = stages;
        if (isProgram) {
            schedule::ProgramCounts total;
            for (const schedule::StreamProgram& p : run.programs) {
                const schedule::ProgramCounts c = schedule::counts(p);
                total.streams = std::max(total.streams, c.streams);
                total.events += c.events;
                total.records += c.records;
                total.waits += c.waits;
                total.barriers += c.barriers;
                total.syncs += c.syncs;
                total.launches += c.launches;
            }
            j["program"] = {{"max_streams", total.streams}, {"events", total.events},
                            {"records", total.records},     {"waits", total.waits},
                            {"barriers", total.barriers},   {"syncs", total.syncs},
                            {"launches", total.launches}};
        }
        j["latency"] = summaryJson(summary);
        const double simMs = isProgram ? schedulers::outcomeLatencyMs(dags, run, simulated)
                                       : eval::totalLatencyMs(dags, run.schedule, simulated);
        j["simulated_ms"] = simMs;
        j["simulator"] = simulated.describe();
        j["simulator_error_pct"] = 100 * (simMs - summary.medianMs) / summary.medianMs;
        std::string check = "skipped";
        if (!reference.empty()) {
            const profiling::NumericCheck c =
                isProgram ? profiling::checkSchedule(executor, dags, run.programs, reference)
                          : profiling::checkSchedule(executor, dags, run.schedule, reference);
            j["numeric_check"] = {{"relative_l2", c.finite ? c.relativeL2 : -1.0},
                                  {"max_abs_diff", c.maxAbsDiff},
                                  {"passed", c.passed()}};
            check = c.passed() ? "ok (" + fixed(c.relativeL2, 8) + ")" : "FAILED";
        }
        if (auto prefix = parser.value("trace-prefix")) {
            try {
                profiling::TraceOptions traceOptions;
                traceOptions.mode = parser.has("cuda-graph") ? profiling::TraceMode::CudaGraph
                                                             : profiling::TraceMode::Eager;
                const profiling::MeasuredTrace t =
                    isProgram
                        ? profiling::traceSchedule(executor, dags, run.programs, traceOptions)
                        : profiling::traceSchedule(executor, dags, run.schedule, traceOptions);
                const std::string file = *prefix + "-" + name + ".json";
                outputs.stage(file, io::timelineText(file, t.timeline,
                                                     {graph.name, name, io::trace::kMeasuredSource,
                                                      profiling::traceModeName(t.mode),
                                                      t.warpMetric, &provenance}));
                j["trace"] = file;
                j["trace_mode"] = profiling::traceModeName(t.mode);
                j["kernels"] = t.timeline.kernels.size();
                j["warp_metric"] = t.warpMetric;
                if (t.meanWarpOccupancy >= 0) {
                    j["mean_active_warps_pct"] = 100 * t.meanWarpOccupancy;
                    j["busy_active_warps_pct"] = 100 * t.busyWarpOccupancy;
                } else
                    j["active_warps_unavailable"] = t.warpNote;
                if (!t.warpNote.empty())
                    notes() << "active warps (" << name << "): " << t.warpNote << "\n";
            } catch (const UserError&) {
                throw; // the file could not be staged: the command fails, nothing is written
            } catch (const std::runtime_error& e) {
                j["trace_error"] = e.what();
                notes() << "trace (" << name << "): " << e.what() << "\n";
            }
        }
        if (parser.has("cuda-graph")) {
            profiling::TimingOptions g = timing;
            g.cudaGraph = true;
            try {
                const profiling::LatencySummary replayed =
                    profiling::summarize(isProgram ? executor.timeProgram(dags, run.programs, g)
                                                   : executor.timeSchedule(dags, run.schedule, g));
                j["cuda_graph_latency"] = summaryJson(replayed);
                eagerVsReplay.push_back({name, summary.medianMs, replayed.medianMs});
            } catch (const std::runtime_error& e) { // keep the other results of this run
                j["cuda_graph_error"] = e.what();
                notes() << "CUDA graph (" << name << "): " << e.what() << "\n";
            }
        }
        if (parser.has("warps")) {
            try {
                const profiling::ReplayWarps w =
                    isProgram ? profiling::replayWarps(executor, dags, run.programs)
                              : profiling::replayWarps(executor, dags, run.schedule);
                if (w.meanPct >= 0)
                    j["replay_active_warps_pct"] = w.meanPct;
                j["replay_warp_samples"] = w.samples;
                if (!w.note.empty()) {
                    j["replay_warps_note"] = w.note;
                    notes() << "active warps (" << name << "): " << w.note << "\n";
                }
            } catch (const std::runtime_error& e) {
                j["replay_warps_note"] = e.what();
                notes() << "active warps (" << name << "): " << e.what() << "\n";
            }
        }
        const std::string graphMs =
            j.contains("cuda_graph_latency") ? fixed(j["cuda_graph_latency"]["median_ms"], 4) : "-";
        const std::string warps =
            j.contains("replay_active_warps_pct")
                ? fixed(j["replay_active_warps_pct"], 2)
                : (j.contains("mean_active_warps_pct") ? fixed(j["mean_active_warps_pct"], 2)
                                                       : "-");
        std::cout << formatted("%-12s %9s  %7s  %7s  %12s  %8s  %6s  %s\n", name.c_str(),
                               fixed(summary.medianMs, 4).c_str(), fixed(summary.p10Ms, 4).c_str(),
                               fixed(summary.p90Ms, 4).c_str(), fixed(simMs, 4).c_str(),
                               graphMs.c_str(), warps.c_str(), check.c_str())
                  << std::flush;
        results.push_back(std::move(j));
    }
    // The eager statement, backed by this run's numbers when replays were timed too.
    if (!parser.has("cuda-graph"))
        notes() << profiling::eagerExecutionNote() << "\n";
    for (const profiling::EagerReplayVerdict& v : profiling::eagerReplayVerdicts(eagerVsReplay)) {
        std::cout << v.strategy << ": eager/replay = " << fixed(v.ratio, 2) << "x"
                  << (v.needsReplay ? "  <- loses to sequential eagerly, wins replayed: needs "
                                      "CUDA-graph replay"
                                    : "")
                  << "\n";
        for (Json& r : results)
            if (r["strategy"] == v.strategy) {
                r["eager_over_replay"] = v.ratio;
                r["needs_cuda_graph"] = v.needsReplay;
            }
    }
    if (costKind == "measured") {
        cache.setProvenance(io::provenanceJson(provenance));
        outputs.stage(cacheFile, cache.text());
    }
    if (auto out = parser.value("output")) {
        Json doc;
        doc["model"] = graph.name;
        doc["device"] = backend->deviceName();
        doc["batch"] = batch;
        doc["repeat"] = timing.repeat;
        doc["warmup"] = timing.warmup;
        doc["tf32"] = gpuOptions.allowTf32;
        doc["results"] = std::move(results);
        doc[io::kProvenanceKey] = io::provenanceJson(provenance);
        outputs.stage(*out, util::dumpJson(doc, 1) + "\n");
    }
    outputs.commit();
    if (costKind == "measured")
        notes() << "stage measurements saved to " << cacheFile << "\n";
    return kExitOk;
}

} // namespace

IOS_REGISTER_COMMAND(measure, "measure", "Run schedules on the CUDA GPU and time them", runMeasure);

} // namespace ios::cli
