// `ios-sched profile MODEL --cache FILE`: stage profiling at scale (docs/gpu.md "Stage
// profiling at scale", issue 16). Lists every distinct stage the search meets, measures them
// on the CUDA GPU many per captured graph (one per group of stages that launch the same
// kernels), streams them into FILE.partial so a cut-off run resumes, writes the measurement
// cache FILE, then runs the measured search from it: the command to replay anywhere is
// `ios-sched optimize MODEL --cost-model cache:FILE`.
#include "args.h"
#include "command.h"
#include "cost/measurement_cache.h"
#include "cost_options.h"
#include "cuda_backend.h"
#include "io/schedule_file.h"
#include "model_options.h"
#include "search_progress.h"
#include "stage_journal.h"
#include "stage_profiler.h"
#include "strategies.h"
#include "text_format.h"
#include "util/error.h"
#include "util/json_number.h"
#include "util/output_file.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string_view>
#include <unistd.h>

namespace ios::cli {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Progress of the measurement on stderr: on a terminal one line rewritten at most four times
// a second; otherwise a line at most every ten seconds (logs of long runs stay short).
class ProfileProgressPrinter {
public:
    explicit ProfileProgressPrinter(std::string label)
        : label_(util::escapeControl(label)), tty_(isatty(STDERR_FILENO) == 1) {}
    ~ProfileProgressPrinter() {
        if (tty_ && printed_) {
            std::fprintf(stderr, "\r\033[K");
            std::fflush(stderr);
        }
    }
    ProfileProgressPrinter(const ProfileProgressPrinter&) = delete;
    ProfileProgressPrinter& operator=(const ProfileProgressPrinter&) = delete;

    void operator()(const profiling::ProfileProgress& p) {
        const auto now = Clock::now();
        const double interval = tty_ ? 0.25 : 10;
        const bool last = p.graphsDone == p.graphsTotal;
        if (!last && std::chrono::duration<double>(now - lastPrint_).count() < interval)
            return;
        if (last && !printed_)
            return; // a run shorter than one interval: the summary says it all
        lastPrint_ = now;
        printed_ = true;
        std::fprintf(stderr, "%s%s: %zu/%zu stages, %zu/%zu graphs, %s s, about %s s left%s",
                     tty_ ? "\r" : "", label_.c_str(), p.stagesDone, p.stagesTotal, p.graphsDone,
                     p.graphsTotal, fixed(p.elapsedSeconds, 1).c_str(),
                     fixed(p.etaSeconds, 0).c_str(), tty_ ? "\033[K" : "\n");
        std::fflush(stderr);
    }

private:
    std::string label_;
    bool tty_;
    bool printed_ = false;
    Clock::time_point lastPrint_ = Clock::now();
};

// --shard I/N: 0 <= I < N <= 4096.
std::optional<profiling::Shard> shardOption(const ArgParser& parser) {
    const auto text = parser.value("shard");
    if (!text)
        return std::nullopt;
    const std::string bad = "--shard must be I/N with 0 <= I < N <= " +
                            std::to_string(profiling::kMaxShards) + " (got '" +
                            util::escapeControl(*text) + "')";
    const size_t slash = text->find('/');
    if (slash == std::string::npos)
        throw UserError(bad);
    auto number = [&](std::string_view digits) {
        if (digits.empty() || digits.size() > 5 ||
            digits.find_first_not_of("0123456789") != std::string_view::npos)
            throw UserError(bad);
        return static_cast<uint32_t>(std::stoul(std::string(digits)));
    };
    profiling::Shard shard;
    shard.index = number(std::string_view(*text).substr(0, slash));
    shard.count = number(std::string_view(*text).substr(slash + 1));
    if (shard.count < 1 || shard.count > profiling::kMaxShards || shard.index >= shard.count)
        throw UserError(bad);
    return shard;
}

int runProfile(const std::vector<std::string>& args) {
    ArgParser parser(
        "ios-sched profile MODEL --cache FILE [--strategy S[,S...]] [-r N] [-s N] [--batch N] "
        "[--stages-per-graph K] [--every-stage] [--max-graphs N] [--shard I/N] [--no-search] "
        "[--save-schedule FILE] [--json]",
        "Measure on the CUDA GPU every distinct stage the searches of MODEL meet (and the "
        "stages of the baselines' schedules), many stages per captured CUDA graph, one per group "
        "of stages that launch the same kernels, and write the measured ones to the measurement "
        "cache FILE (resumable: FILE.partial keeps what a cut-off run measured); then run the "
        "searches from the cache, which gives every other stage its group's latency. "
        "Replay it anywhere with `ios-sched optimize MODEL --cost-model cache:FILE`. Exits 1 "
        "with \"no CUDA device available\" when there is no usable GPU "
        "(IOS_PROFILING_MOCK=1: a timing-only mock device, for dry runs).");
    parser.positional("MODEL", "a model file (.ios.json, .json) or a bundled name (see models)");
    addSearchOptions(parser, StrategyArg::List, "ios-both");
    parser.option("--batch", "N", "Batch size the stages are measured at", "1");
    parser.option("--cache", "FILE", "The measurement cache to complete (created when missing)");
    parser.option("--stages-per-graph", "K", "Most stages per captured CUDA graph", "64");
    parser.flag("--every-stage",
                "Measure and write every name-distinct stage, not one per group of stages that "
                "launch the same kernels");
    parser.option("--max-graphs", "N",
                  "Stop after N graphs, keeping FILE.partial (run again to go on); 0 = all", "0");
    parser.option("--shard", "I/N",
                  "Measure only part I of N (0 <= I < N <= 4096): the stage classes whose "
                  "signature hash mod N is I, so N runs (a job array) cover each class once; "
                  "no search follows (the other parts are missing)");
    parser.flag("--no-search", "Only measure: do not run the search from the cache");
    parser.option("--save-schedule", "FILE",
                  "Write the schedule the first --strategy finds from the cache");
    parser.flag("--tf32", "Let cuDNN use TF32 tensor cores (default: strict fp32)");
    parser.flag("--json", "Print one JSON object instead of text");
    addModelOptions(parser);
    if (!parser.parse(args))
        return kExitOk;

    const SearchOptions search = searchOptions(parser, StrategyArg::List);
    const schedulers::Scheduler& scheduler = *search.schedulers.front();
    const int batch = batchOption(parser);
    const auto cacheArg = parser.value("cache");
    if (!cacheArg)
        throw UserError("profile needs --cache FILE (the measurement cache to write)");
    const std::string cacheFile = *cacheArg;
    profiling::ProfileOptions options;
    options.stagesPerGraph = static_cast<size_t>(parser.getInt("stages-per-graph", 1, 4096));
    options.maxGraphs = static_cast<size_t>(parser.getInt("max-graphs", 0, 1 << 30));
    options.everyStage = parser.has("every-stage");
    const std::optional<profiling::Shard> shard = shardOption(parser);
    // The plan of every file the command writes or reads: the cache and its journal (each
    // written by its own writer: the journal as graphs are measured, the cache when all are)
    // and --save-schedule (staged here) are outputs, none of which may be another or the model.
    util::OutputTransaction outputs;
    outputs.check(cacheFile, "the measurement cache (--cache)");
    outputs.check(profiling::journalPath(cacheFile), "the profiling journal of --cache");
    if (auto out = parser.value("save-schedule"))
        outputs.check(*out, "the schedule (--save-schedule)");

    const std::string modelArg = parser.positionals().front();
    const ir::Graph graph = loadModelArg(parser, modelArg, outputs);
    const ir::PreparedModel prepared(graph, search.maxPartSize);
    // The device first: without one nothing is searched and no file is touched.
    profiling::CudaBackendOptions gpuOptions;
    gpuOptions.allowTf32 = parser.has("tf32");
    std::unique_ptr<profiling::GpuBackend> backend = profiling::requireCudaBackend(gpuOptions);
    profiling::Executor executor(graph, *backend, batch);

    const auto wallStart = Clock::now();
    profiling::StageEnumeration met;
    {
        schedulers::SearchControl control;
        SearchProgress progress(control, "profile " + graph.name + ": listing stages");
        met =
            profiling::enumerateStages(prepared, search.schedulers, search.params, batch, &control);
    }
    const size_t stagesBeforeShard = met.stages.size();
    size_t shardClasses = 0;
    if (shard)
        met.stages = profiling::shardStages(prepared, std::move(met.stages), *shard, &shardClasses);
    profiling::ProfileResult result;
    {
        ProfileProgressPrinter printer("profile " + graph.name);
        options.progress = [&printer](const profiling::ProfileProgress& p) { printer(p); };
        result = profiling::profileStages(executor, graph.name, prepared, met.stages, cacheFile,
                                          options);
    }
    for (const std::string& w : result.warnings)
        std::cerr << "ios-sched profile: warning: " << util::escapeControl(w) << "\n";

    std::string replay = "ios-sched optimize " + modelArg + " --strategy " +
                         std::string(scheduler.key()) + " -r " + parser.get("max-group-size") +
                         " -s " + parser.get("max-num-groups");
    if (batch != 1)
        replay += " --batch " + std::to_string(batch);
    if (search.maxPartSize != ir::kDefaultMaxPartSize)
        replay += " --max-part-size " + std::to_string(search.maxPartSize);
    replay += " --cost-model cache:" + cacheFile;

    util::Json j;
    j["model"] = graph.name;
    j["device"] = backend->deviceName();
    j["batch"] = batch;
    util::Json strategies = util::Json::array();
    for (const schedulers::Scheduler* s : search.schedulers)
        strategies.push_back(std::string(s->key()));
    j["strategies"] = strategies;
    j["stage_requests"] = met.calls;
    if (shard) {
        j["shard"] = std::to_string(shard->index) + "/" + std::to_string(shard->count);
        j["shard_stages_of"] = stagesBeforeShard;
        j["shard_classes"] = shardClasses;
    }
    j["stages_met"] = result.stagesMet;
    j["distinct_canonical"] = result.classes;
    j["from_cache"] = result.fromCache;
    j["shared"] = result.shared;
    j["measured"] = result.measured;
    j["graphs"] = result.graphs;
    j["kernels"] = result.kernels;
    j["replays"] = result.replays;
    j["gpu_busy_seconds"] = result.busySeconds;
    j["enumeration_seconds"] = met.seconds;
    j["preparation_seconds"] = result.prepareSeconds;
    j["measurement_seconds"] = result.measureSeconds;
    j["save_seconds"] = result.saveSeconds;
    j["complete"] = result.complete;
    j["entries_written"] = result.written;
    j["cache_entries"] = result.cacheEntries;
    j["cache"] = cacheFile;
    j["replay_command"] = replay;

    // The searches from the cache, as `optimize --cost-model cache:FILE` runs them.
    util::Json searches = util::Json::array();
    if (result.complete && !parser.has("no-search") && !shard) {
        const auto readStart = Clock::now();
        const cost::CachedCostModel cost(cost::MeasurementCache::load(cacheFile), graph, batch,
                                         backend->deviceName(), cacheFile);
        j["cache_read_seconds"] = secondsSince(readStart);
        for (const schedulers::Scheduler* s : search.schedulers) {
            schedulers::SearchControl control;
            SearchProgress progress(control, "profile " + graph.name + ": " +
                                                 std::string(s->key()) + " from the cache");
            const schedulers::Outcome outcome = s->run(prepared, search.params, cost, &control);
            searches.push_back({{"strategy", std::string(s->key())},
                                {"latency_ms", outcome.latencyMs},
                                {"search_seconds", outcome.searchSeconds}});
            const auto out = parser.value("save-schedule");
            if (s == &scheduler && out)
                outputs.stage(*out, io::writeScheduleFile(graph, prepared.dags(), outcome.schedule,
                                                          "ios-sched profile --strategy " +
                                                              std::string(s->key()) + " (" +
                                                              cost.describe() + ")"));
        }
        j["search"] = searches;
    }
    outputs.commit();
    j["wall_seconds"] = secondsSince(wallStart);

    if (parser.has("json")) {
        std::cout << util::dumpJson(j, 1) << "\n";
    } else {
        std::cout << graph.name << " on " << backend->deviceName() << ", batch " << batch << ", "
                  << parser.get("strategy") << " (r " << search.params.r << ", s "
                  << search.params.s << ")\n"
                  << "stages met           " << result.stagesMet << " (asked " << met.calls
                  << " times)\n"
                  << "distinct canonical   " << result.classes
                  << (options.everyStage ? " (--every-stage: not shared)" : "") << "\n"
                  << "from cache           " << result.fromCache << "\n"
                  << "shared               " << result.shared << "\n"
                  << "measured             " << result.measured << "\n"
                  << "graphs               " << result.graphs << "\n"
                  << "kernels              " << result.kernels << "\n"
                  << "replays              " << result.replays << "\n"
                  << "GPU-busy seconds     " << fixed(result.busySeconds, 3) << "\n"
                  << "enumeration seconds  " << fixed(met.seconds, 2) << "\n"
                  << "preparation seconds  " << fixed(result.prepareSeconds, 2) << "\n"
                  << "measurement seconds  " << fixed(result.measureSeconds, 2) << "\n"
                  << "cache write seconds  " << fixed(result.saveSeconds, 2) << "\n"
                  << "wall seconds         " << fixed(j["wall_seconds"].get<double>(), 2) << "\n";
        if (result.complete)
            std::cout << "cache                " << cacheFile << " (" << result.written
                      << " entries written, " << result.cacheEntries << " in all)\n";
        if (result.complete && !shard)
            std::cout << "replay: " << replay << "\n";
        if (!searches.empty())
            std::cout << "cache read seconds   " << fixed(j["cache_read_seconds"].get<double>(), 2)
                      << "\n";
        for (const util::Json& sj : searches)
            std::cout << "from the cache: " << sj["strategy"].get<std::string>() << " "
                      << fixed(sj["latency_ms"].get<double>(), 4) << " ms, search "
                      << fixed(sj["search_seconds"].get<double>(), 2) << " s\n";
    }
    if (shard && result.complete)
        std::cerr << "ios-sched profile: shard " << j["shard"].get<std::string>() << ": "
                  << result.stagesMet << " of " << stagesBeforeShard
                  << " stages measured or known; no search (it needs every shard: merge them, "
                     "then run the search)\n";
    if (!result.complete)
        std::cerr << "ios-sched profile: stopped after " << result.graphs << " graphs; "
                  << profiling::journalPath(cacheFile).string()
                  << " keeps the measured stages: run the same command again to go on\n";
    return kExitOk;
}

} // namespace

IOS_REGISTER_COMMAND(profile, "profile",
                     "Measure every stage a search meets on the CUDA GPU into a cache", runProfile);

} // namespace ios::cli
