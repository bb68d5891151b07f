// SPDX-License-Identifier: Apache-2.0
// `ios-sched profile MODEL --cache FILE | --store URL`: stage profiling at scale (docs/gpu.md
// "Stage profiling at scale", "Sharing measurements"; issues 16 and 34). Lists every distinct
// stage the search meets and measures them on the CUDA GPU many per captured graph (one per
// group of stages that launch the same kernels). Into a cache FILE: streamed into
// FILE.partial so a cut-off run resumes, the cache written at the end, the replay is
// `--cost-model cache:FILE`. Into a store (profile_store.cpp): each graph added in one
// transaction, the replay is `--cost-model store:URL@ID`. `--shard I/N` measures one part of
// N of a job array.
#include "command.h"
#include "cost/measurement_cache.h"
#include "cost_options.h"
#include "cuda_backend.h"
#include "message_mode.h"
#include "model_options.h"
#include "profile_run.h"
#include "provenance_options.h"
#include "search_progress.h"
#include "stage_journal.h"
#include "text_format.h"
#include "util/error.h"
#include "util/json_number.h"
#include "util/message_text.h"

#include <iostream>
#include <optional>
#include <string_view>

namespace ios::cli {

namespace {

// --shard I/N: 0 <= I < N <= 4096.
std::optional<profiling::Shard> shardOption(const ArgParser& parser) {
    const auto text = parser.value("shard");
    if (!text)
        return std::nullopt;
    const std::string bad =
        "--shard must be I/N with 0 <= I < N <= " + std::to_string(profiling::kMaxShards) +
        " (got '" + *text + "')";
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

void declareOptions(ArgParser& parser) {
    parser.positional("MODEL", "a model file (.ios.json, .json) or a bundled name (see models)");
    addSearchOptions(parser, StrategyArg::List, "ios-both");
    parser.option("--batch", "N", "Batch size the stages are measured at", "1");
    parser.option("--cache", "FILE", "The measurement cache to complete (created when missing)");
    parser.option("--store", "URL",
                  "The measurement store to complete instead (sqlite:PATH, a PATH, or "
                  "postgresql://...; created when missing): stages it holds for this device "
                  "setup are skipped, each graph's measurements added in one transaction");
    parser.option("--stages-per-graph", "K", "Most stages per captured CUDA graph", "64");
    parser.option("--repeat", "N",
                  "Time every graph exactly N times (default: as many as fill 20 ms, 10 to 50); "
                  "equal counts make runs that batch the stages differently (shards) comparable",
                  "0");
    parser.flag("--every-stage",
                "Measure and write every name-distinct stage, not one per group of stages that "
                "launch the same kernels (--cache only)");
    parser.option("--max-graphs", "N",
                  "Stop after N graphs, keeping what was measured (run again to go on); 0 = all",
                  "0");
    parser.option("--shard", "I/N",
                  "Measure only part I of N (0 <= I < N <= 4096): the stage classes whose "
                  "signature hash mod N is I, so N runs (a job array) cover each class once; "
                  "no search follows (the other parts are missing)");
    parser.flag("--no-search", "Only measure: do not run the search from the measurements");
    parser.option("--save-schedule", "FILE",
                  "Write the schedule the first --strategy finds from the measurements");
    parser.flag("--tf32", "Let cuDNN use TF32 tensor cores (default: strict fp32)");
    parser.flag("--json", "Print one JSON object instead of text");
    addModelOptions(parser);
}

profiling::ProfileOptions profileOptions(const ArgParser& parser) {
    profiling::ProfileOptions options;
    options.stagesPerGraph = static_cast<size_t>(parser.getInt("stages-per-graph", 1, 4096));
    options.maxGraphs = static_cast<size_t>(parser.getInt("max-graphs", 0, 1 << 30));
    options.everyStage = parser.has("every-stage");
    if (const int repeat = parser.getInt("repeat", 0, 100000); repeat > 0)
        options.timing.minRepeat = options.timing.maxRepeat = repeat;
    return options;
}

int profileIntoCache(ProfileRun& run, const std::string& cacheFile) {
    profiling::ProfileResult result;
    {
        ProfileProgressPrinter printer("profile " + run.graph.name);
        run.options.progress = [&printer](const profiling::ProfileProgress& p) { printer(p); };
        result = profiling::profileStages(run.executor, run.graph.name, run.prepared,
                                          run.met.stages, cacheFile, run.options);
    }
    for (const std::string& w : result.warnings)
        notes() << "ios-sched profile: warning: " << util::escapeControl(w) << "\n";
    const std::string replay = replayCommand(run, "cache:" + cacheFile);

    util::Json j = commonJson(run);
    addMeasureCounters(j, run, result);
    j["from_cache"] = result.fromCache;
    j["shared"] = result.shared;
    j["save_seconds"] = result.saveSeconds;
    j["entries_written"] = result.written;
    j["cache_entries"] = result.cacheEntries;
    j["cache"] = cacheFile;
    j["replay_command"] = replay;

    // The searches from the cache, as `optimize --cost-model cache:FILE` runs them.
    util::Json searches = util::Json::array();
    if (result.complete && !run.parser.has("no-search") && !run.shard) {
        const auto readStart = ProfileClock::now();
        const cost::CachedCostModel cost(cost::MeasurementCache::load(cacheFile), run.graph,
                                         run.batch, run.backend.deviceName(), cacheFile);
        j["cache_read_seconds"] = secondsSince(readStart);
        searches = runSearches(run, cost, "cache");
        j["search"] = searches;
    }
    run.outputs.commit();
    j["wall_seconds"] = secondsSince(run.wallStart);
    j[io::kProvenanceKey] = io::provenanceJson(
        measuredProvenance(run.parser, run.graph, run.backend.deviceName(), run.batch));

    if (run.json) {
        std::cout << util::dumpJson(j, 1) << "\n";
    } else {
        std::cout << run.graph.name << " on " << run.backend.deviceName() << ", batch " << run.batch
                  << ", " << run.parser.get("strategy") << " (r " << run.search.params.r << ", s "
                  << run.search.params.s << ")\n"
                  << "stages met           " << result.stagesMet << " (asked " << run.met.calls
                  << " times)\n"
                  << "distinct canonical   " << result.classes
                  << (run.options.everyStage ? " (--every-stage: not shared)" : "") << "\n"
                  << "from cache           " << result.fromCache << "\n"
                  << "shared               " << result.shared << "\n"
                  << "measured             " << result.measured << "\n"
                  << "graphs               " << result.graphs << "\n"
                  << "kernels              " << result.kernels << "\n"
                  << "replays              " << result.replays << "\n"
                  << "GPU-busy seconds     " << fixed(result.busySeconds, 3) << "\n"
                  << "enumeration seconds  " << fixed(run.met.seconds, 2) << "\n"
                  << "preparation seconds  " << fixed(result.prepareSeconds, 2) << "\n"
                  << "measurement seconds  " << fixed(result.measureSeconds, 2) << "\n"
                  << "cache write seconds  " << fixed(result.saveSeconds, 2) << "\n"
                  << "wall seconds         " << fixed(j["wall_seconds"].get<double>(), 2) << "\n";
        if (result.complete)
            std::cout << "cache                " << cacheFile << " (" << result.written
                      << " entries written, " << result.cacheEntries << " in all)\n";
        if (result.complete && !run.shard)
            std::cout << "replay: " << replay << "\n";
        if (!searches.empty())
            std::cout << "cache read seconds   " << fixed(j["cache_read_seconds"].get<double>(), 2)
                      << "\n";
        printSearches(searches, "cache");
    }
    if (run.shard && result.complete)
        noteShard(run, result.stagesMet);
    if (!result.complete)
        notes() << "ios-sched profile: stopped after " << result.graphs << " graphs; "
                << profiling::journalPath(cacheFile).string()
                << " keeps the measured stages: run the same command again to go on\n";
    return kExitOk;
}

int runProfile(const std::vector<std::string>& args) {
    ArgParser parser(
        "ios-sched profile MODEL (--cache FILE | --store URL) [--strategy S[,S...]] [-r N] "
        "[-s N] [--batch N] [--stages-per-graph K] [--repeat N] [--every-stage] "
        "[--max-graphs N] [--shard I/N] [--no-search] [--save-schedule FILE] [--json]",
        "Measure on the CUDA GPU every distinct stage the searches of MODEL meet (and the "
        "stages of the baselines' schedules), many stages per captured CUDA graph, one per group "
        "of stages that launch the same kernels, and write the measured ones to the measurement "
        "cache FILE (resumable: FILE.partial keeps what a cut-off run measured) or add them to "
        "the measurement store URL (keyed by stage contents and device setup, shared by every "
        "model and any number of concurrent runs); then run the searches from them, which give "
        "every other stage its group's latency. Replay anywhere with `ios-sched optimize MODEL "
        "--cost-model cache:FILE` (or store:URL@ID). Exits 1 with \"no CUDA device available\" "
        "when there is no usable GPU (IOS_PROFILING_MOCK=1: a timing-only mock device, for dry "
        "runs; IOS_PROFILING_MOCK=NAME: another mock device).");
    declareOptions(parser);
    if (!parser.parse(args))
        return kExitOk;

    const SearchOptions search = searchOptions(parser, StrategyArg::List);
    const int batch = batchOption(parser);
    const auto cacheArg = parser.value("cache");
    const auto storeArg = parser.value("store");
    if (cacheArg && storeArg)
        throw UserError("profile writes to --cache FILE or to --store URL, not both");
    if (!cacheArg && !storeArg)
        throw UserError("profile needs --cache FILE (a measurement cache) or --store URL (a "
                        "measurement store) to write");
    if (storeArg && parser.has("every-stage"))
        throw UserError("--every-stage has no meaning with --store (a store keeps one "
                        "measurement per stage signature)");
    profiling::ProfileOptions options = profileOptions(parser);
    const std::optional<profiling::Shard> shard = shardOption(parser);
    // The plan of every file the command writes or reads: the cache and its journal (each
    // written by its own writer: the journal as graphs are measured, the cache when all are)
    // and --save-schedule (staged here) are outputs, none of which may be another or the model.
    util::OutputTransaction outputs;
    if (cacheArg) {
        outputs.check(*cacheArg, "the measurement cache (--cache)");
        outputs.check(profiling::journalPath(*cacheArg), "the profiling journal of --cache");
    }
    if (auto out = parser.value("save-schedule"))
        outputs.check(*out, "the schedule (--save-schedule)");

    const std::string modelArg = parser.positionals().front();
    const ir::Graph graph = loadModelArg(parser, modelArg, outputs);
    const ir::PreparedModel prepared(graph, search.params.maxPartSize);
    // The device first: without one nothing is searched and no file is touched.
    profiling::CudaBackendOptions gpuOptions;
    gpuOptions.allowTf32 = parser.has("tf32");
    std::unique_ptr<profiling::GpuBackend> backend = profiling::requireCudaBackend(gpuOptions);
    profiling::Executor executor(graph, *backend, batch);

    const auto wallStart = ProfileClock::now();
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
    ProfileRun run{parser,
                   search,
                   batch,
                   modelArg,
                   graph,
                   prepared,
                   *backend,
                   executor,
                   met,
                   shard,
                   stagesBeforeShard,
                   shardClasses,
                   options,
                   outputs,
                   wallStart,
                   parser.has("json")};
    return storeArg ? profileIntoStore(run, *storeArg) : profileIntoCache(run, *cacheArg);
}

} // namespace

IOS_REGISTER_COMMAND(profile, "profile",
                     "Measure every stage a search meets on the CUDA GPU into a cache or store",
                     runProfile);

} // namespace ios::cli
