// SPDX-License-Identifier: Apache-2.0
// `ios-sched compare MODEL`: the paper's five schedules side by side (IOS §6.1, Figure 6/7):
// latency, speedup over sequential and search time per strategy.
#include "args.h"
#include "bundled_models.h"
#include "command.h"
#include "cost_options.h"
#include "model_options.h"
#include "process_usage.h"
#include "provenance_options.h"
#include "schedulers/parallel_jobs.h"
#include "search_progress.h"
#include "strategies.h"
#include "text_format.h"
#include "util/json_number.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ios::cli {

namespace {

int runCompare(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched compare MODEL [--device D] [--batch N] [-r N] [-s N] [--json]",
                     "Schedule MODEL with every registered scheduler (" +
                         schedulers::schedulerKeyList() +
                         ") and compare their latencies under the cost model (default: simulated "
                         "V100).");
    parser.positional("MODEL", "a model file (.ios.json, .json) or a bundled name (see models)");
    addSearchOptions(parser, StrategyArg::None);
    parser.flag("--json", "Print {model, strategies: [{strategy, latency_ms, speedup, peak_bytes, "
                          "search_seconds}], provenance} as JSON");
    addCostOptions(parser);
    addModelOptions(parser);
    addUsageFlag(parser);
    if (!parser.parse(args))
        return kExitOk;
    const UsageReport usage(parser, "compare");
    const SearchOptions search = searchOptions(parser, StrategyArg::None);
    const int r = search.params.r;
    const int s = search.params.s;
    // The plan of the files it touches: --measure-cache is written, the model file read.
    util::OutputTransaction files;
    planCostModelFiles(parser, files);
    const ir::Graph graph = loadModelArg(parser, parser.positionals().front(), files);
    const auto cost = makeCostModel(parser, graph);
    const ir::PreparedModel prepared(graph, search.params.maxPartSize);

    // Every scheduler, then the sequential baseline the speedups are over (whether or not it
    // is a row): independent searches, run on --threads threads, kept in this order.
    std::vector<const schedulers::Scheduler*> jobs = search.schedulers;
    jobs.push_back(&schedulers::schedulerByName("sequential"));
    std::vector<StrategyRun> done(jobs.size());
    schedulers::Params params = search.params;
    params.threads = schedulers::innerThreads(search.params.threads, jobs.size());
    {
        schedulers::SearchControl control;
        SearchProgress progress(control, "compare " + graph.name);
        schedulers::runJobs(&control, std::vector<uint64_t>(jobs.size(), 1000),
                            search.params.threads, [&](size_t i, schedulers::SearchControl& job) {
                                done[i] = runStrategy(prepared, *jobs[i], params, *cost, &job);
                            });
    }
    std::vector<std::pair<std::string, StrategyRun>> runs;
    for (size_t i = 0; i + 1 < jobs.size(); ++i)
        runs.emplace_back(std::string(jobs[i]->key()), std::move(done[i]));
    const double sequentialMs = done.back().latencyMs;

    if (parser.has("json")) {
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const auto& [name, run] : runs)
            rows.push_back({{"strategy", name},
                            {"latency_ms", run.latencyMs},
                            {"speedup", sequentialMs / run.latencyMs},
                            {"peak_bytes", run.outcome.peakBytes},
                            {"search_seconds", run.outcome.searchSeconds}});
        nlohmann::ordered_json doc;
        doc["model"] = graph.name;
        doc["strategies"] = std::move(rows);
        doc[io::kProvenanceKey] = commandProvenanceJson(parser, &graph);
        std::cout << util::dumpJson(doc, 2) << "\n";
        return kExitOk;
    }
    std::cout << graph.name << " (" << cost->describe() << ", r " << r << ", s " << s << ")\n"
              << "strategy       latency ms  speedup   peak memory  search s\n";
    for (const auto& [name, run] : runs) {
        char line[160];
        std::snprintf(line, sizeof line, "%-12s %12.4f %7.3fx %13s %9.3f\n", name.c_str(),
                      run.latencyMs, sequentialMs / run.latencyMs,
                      bytesText(run.outcome.peakBytes).c_str(), run.outcome.searchSeconds);
        std::cout << line;
    }
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(compare, "compare", "Compare every registered scheduler side by side",
                     ios::cli::runCompare);
