// SPDX-License-Identifier: Apache-2.0
// `ios-sched compare MODEL [--block B]`: the paper's five schedules side by side (IOS §6.1,
// Figure 6/7; one block: Figure 16): latency, speedup over sequential and search time per
// strategy; a strategy that cannot run under the cost model gets a row saying why.
#include "args.h"
#include "block_option.h"
#include "bundled_models.h"
#include "command.h"
#include "cost_options.h"
#include "error_hints.h"
#include "model_options.h"
#include "process_usage.h"
#include "provenance_options.h"
#include "schedulers/not_applicable.h"
#include "schedulers/parallel_jobs.h"
#include "schedulers/work_estimate.h"
#include "search_progress.h"
#include "strategies.h"
#include "text_format.h"
#include "util/json_number.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

namespace ios::cli {

namespace {

using Json = nlohmann::ordered_json;

// A scheduler's row: its run, or why it could not run under the cost model and settings.
struct Row {
    std::string strategy;
    std::optional<StrategyRun> run;
    std::string reason; // when !run: the refusal as the CLI words it
};

// A scheduler's estimated microseconds where it has an estimate of its own (estimateRun),
// else 1 ms: the fallback of estimateRun prices operators, which a measured cost model would
// run on the GPU. A refusal is left to the search, which words it.
uint64_t estimatedMicros(const schedulers::Scheduler& scheduler, const ir::PreparedModel& prepared,
                         const schedulers::Params& params, const cost::CostModel& cost) {
    constexpr double kCountSeconds = 0.02; // what counting may take per scheduler
    double seconds = 1e-3;
    if (scheduler.hasEstimate())
        try {
            const double point =
                schedulers::estimateRun(scheduler, prepared, params, cost, kCountSeconds, nullptr)
                    .point();
            seconds = std::clamp(point, seconds, 1e6);
        } catch (const UserError&) {
        }
    return static_cast<uint64_t>(seconds * 1e6);
}

// The jobs' weights, for their progress and start order (heaviest first), counted on
// `threads` threads.
std::vector<uint64_t> jobWeights(const ir::PreparedModel& prepared,
                                 const std::vector<const schedulers::Scheduler*>& jobs,
                                 const schedulers::Params& params, const cost::CostModel& cost,
                                 int threads) {
    std::vector<uint64_t> weights(jobs.size());
    schedulers::runJobs(nullptr, std::vector<uint64_t>(jobs.size(), 1), threads,
                        [&](size_t i, schedulers::SearchControl&) {
                            weights[i] = estimatedMicros(*jobs[i], prepared, params, cost);
                        });
    return weights;
}

// Every scheduler's row, then the sequential baseline the speedups are over (whether or not it
// is a row): independent searches, run on --threads threads, kept in this order. A scheduler
// that cannot run gets its reason (schedulers::runOrNotApplicable); the others still run.
std::vector<Row> compareRows(const ir::PreparedModel& prepared, const SearchOptions& search,
                             const cost::CostModel& cost, const std::string& title) {
    std::vector<const schedulers::Scheduler*> jobs = search.schedulers;
    jobs.push_back(&schedulers::schedulerByName("sequential"));
    std::vector<Row> rows(jobs.size());
    schedulers::Params params = search.params;
    params.threads = schedulers::innerThreads(search.params.threads, jobs.size());
    schedulers::SearchControl control;
    SearchProgress progress(control, "compare " + title);
    schedulers::runJobs(&control, jobWeights(prepared, jobs, params, cost, search.params.threads),
                        search.params.threads, [&](size_t i, schedulers::SearchControl& job) {
                            Row& row = rows[i];
                            row.strategy = std::string(jobs[i]->key());
                            const auto refused = schedulers::runOrNotApplicable([&] {
                                row.run = runStrategy(prepared, *jobs[i], params, cost, &job);
                            });
                            if (refused)
                                row.reason = refused->reason + cliHintText(refused->hint);
                        });
    return rows;
}

// `sequentialMs` is 0 when the sequential baseline did not run. (A plain value: GCC 12 took
// an optional's read here for uninitialised in a unity build of the CLI.)
std::optional<double> speedup(double sequentialMs, const StrategyRun& run) {
    if (sequentialMs <= 0)
        return std::nullopt;
    return sequentialMs / run.latencyMs;
}

Json rowJson(const Row& row, double sequentialMs) {
    if (!row.run)
        return {{"strategy", row.strategy}, {"status", "not applicable"}, {"reason", row.reason}};
    const std::optional<double> x = speedup(sequentialMs, *row.run);
    return {{"strategy", row.strategy},
            {"status", "ok"},
            {"latency_ms", row.run->latencyMs},
            {"speedup", x ? Json(*x) : Json(nullptr)},
            {"peak_bytes", row.run->outcome.peakBytes},
            {"search_seconds", row.run->outcome.searchSeconds}};
}

std::string rowText(const Row& row, double sequentialMs) {
    if (!row.run)
        return formatted("%-12s not applicable: %s\n", row.strategy.c_str(), row.reason.c_str());
    const std::optional<double> x = speedup(sequentialMs, *row.run);
    return formatted("%-12s %12.4f %8s %13s %9.3f\n", row.strategy.c_str(), row.run->latencyMs,
                     x ? formatted("%7.3fx", *x).c_str() : "-",
                     bytesText(row.run->outcome.peakBytes).c_str(), row.run->outcome.searchSeconds);
}

int runCompare(const std::vector<std::string>& args) {
    ArgParser parser(
        "ios-sched compare MODEL [--block B] [--device D] [--batch N] [-r N] [-s N] "
        "[--schedule SAVED] [--json]",
        "Schedule MODEL (or one block of it) with every registered scheduler (" +
            schedulers::schedulerKeyList() +
            ") and compare their latencies under the cost model (default: simulated "
            "V100). A scheduler that cannot run under it gets a row saying why; "
            "the exit status is 0 when at least one ran. --schedule adds a saved schedule's "
            "row.");
    parser.positional("MODEL", "a model file (.ios.json, .json) or a bundled name (see models)");
    addBlockOption(parser);
    addSearchOptions(parser, StrategyArg::None);
    parser.flag("--json", "Print {model, [block,] strategies: [{strategy, status, latency_ms, "
                          "speedup, peak_bytes, search_seconds} or {strategy, status: \"not "
                          "applicable\", reason}], provenance} as JSON");
    addScheduleOption(parser);
    addCostOptions(parser);
    addModelOptions(parser);
    addUsageFlag(parser);
    if (!parser.parse(args))
        return kExitOk;
    const UsageReport usage(parser, "compare");
    const SearchOptions search = searchOptions(parser, StrategyArg::None);
    // The plan of the files it touches: --measure-cache is written, the model file read.
    util::OutputTransaction files;
    planCostModelFiles(parser, files);
    planScheduleInput(parser, files, {});
    if (parser.has("schedule") && parser.has("block"))
        throw UserError("--schedule is a schedule of the whole model: give it without --block");
    const ir::Graph graph = loadModelArg(parser, parser.positionals().front(), files);
    const ModelScope scope(parser, graph, search.params.maxPartSize);
    const auto wholeCost = makeCostModel(parser, graph);
    std::unique_ptr<cost::CostModel> owned;
    const cost::CostModel& cost = scope.cost(*wholeCost, owned);

    std::vector<Row> rows = compareRows(scope.prepared(), search, cost, scope.title());
    const Row baseline = std::move(rows.back());
    rows.pop_back();
    if (const std::optional<io::ScheduleDocument> saved = scheduleOption(parser, scope.prepared()))
        rows.push_back({scheduleLabel(*saved),
                        savedScheduleRun(*saved, scope.prepared(), search.params, cost),
                        {}});
    const double sequentialMs = baseline.run ? baseline.run->latencyMs : 0.0;

    if (parser.has("json")) {
        Json list = Json::array();
        for (const Row& row : rows)
            list.push_back(rowJson(row, sequentialMs));
        Json doc;
        doc["model"] = graph.name;
        if (scope.block())
            doc["block"] = *scope.block();
        doc["strategies"] = std::move(list);
        doc[io::kProvenanceKey] = commandProvenanceJson(parser, &graph);
        std::cout << util::dumpJson(doc, 2) << "\n";
    } else {
        std::cout << scope.title() << " (" << cost.describe() << ", r " << search.params.r << ", s "
                  << search.params.s << ")\n"
                  << "strategy       latency ms  speedup   peak memory  search s\n";
        for (const Row& row : rows)
            std::cout << rowText(row, sequentialMs);
    }
    if (std::none_of(rows.begin(), rows.end(), [](const Row& row) { return row.run.has_value(); }))
        throw UserError("no scheduler could run under " + cost.describe() + " (each row says why)");
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(compare, "compare", "Compare every registered scheduler side by side",
                     ios::cli::runCompare);
