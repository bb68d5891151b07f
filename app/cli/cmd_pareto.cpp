// SPDX-License-Identifier: Apache-2.0
// `ios-sched pareto MODEL`: latency against peak activation memory (docs/memory.md "The
// latency–memory trade-off") — the budgeted IOS search at budgets from the unconstrained
// optimum's peak down to the least peak any schedule reaches, with the schedule at each point.
#include "args.h"
#include "command.h"
#include "cost_options.h"
#include "io/schedule_file.h"
#include "model_options.h"
#include "provenance_options.h"
#include "schedulers/pareto.h"
#include "search_progress.h"
#include "strategies.h"
#include "text_format.h"
#include "util/error.h"
#include "util/json_number.h"

#include <cstdio>
#include <iostream>

namespace ios::cli {

namespace {

int runPareto(const std::vector<std::string>& args) {
    ArgParser parser(
        "ios-sched pareto MODEL [--points N] [--strategy S] [-r N] [-s N] [--json]",
        "Trade latency for memory: the IOS search under memory budgets evenly spaced from the "
        "peak of the unconstrained optimum down to the least peak any schedule reaches "
        "(Serenity's order), each the fastest schedule that fits. Points whose schedule does "
        "not change are merged.");
    parser.positional("MODEL", "a model file (.ios.json, .json, .onnx) or a bundled name");
    parser.option("--points", "N", "Budgets to search (2-1000)", "8");
    parser.flag("--json", "Print one JSON object with every point and its schedule");
    addSearchOptions(parser, StrategyArg::One);
    addCostOptions(parser);
    addModelOptions(parser);
    if (!parser.parse(args))
        return kExitOk;
    const SearchOptions search = searchOptions(parser, StrategyArg::One);
    const int points = parser.getInt("points", 2, 1000);
    const schedulers::Scheduler& scheduler = *search.schedulers.front();
    if (search.params.memoryBudget > 0)
        throw UserError("pareto chooses its own budgets: leave out --memory-budget");

    // The plan of the files it touches: --measure-cache is written, the model file read.
    util::OutputTransaction files;
    planCostModelFiles(parser, files);
    const ir::Graph graph = loadModelArg(parser, parser.positionals().front(), files);
    const auto cost = makeCostModel(parser, graph);
    const ir::PreparedModel prepared(graph, search.params.maxPartSize);
    schedulers::SearchControl control;
    schedulers::ParetoFront front;
    {
        SearchProgress progress(control, "pareto " + graph.name);
        front =
            schedulers::paretoFront(prepared, scheduler, search.params, *cost, points, &control);
    }

    if (parser.has("json")) {
        util::Json j;
        j["model"] = graph.name;
        j["strategy"] = std::string(scheduler.key());
        j["cost_model"] = cost->describe();
        j["unconstrained_peak_bytes"] = front.unconstrainedPeak;
        j["smallest_peak_bytes"] = front.smallestPeak;
        j["seconds"] = front.seconds;
        util::Json rows = util::Json::array();
        for (const schedulers::ParetoPoint& p : front.points) {
            util::Json row;
            row["budget_bytes"] = p.budget;
            row["latency_ms"] = p.latencyMs;
            row["peak_bytes"] = p.peakBytes;
            row["dominated"] = p.dominated;
            row["schedule"] = io::scheduleFileJson(graph, prepared.dags(), p.schedule);
            rows.push_back(std::move(row));
        }
        j["points"] = std::move(rows);
        j[io::kProvenanceKey] = commandProvenanceJson(parser, &graph);
        std::cout << util::dumpJson(j, 2) << "\n";
        return kExitOk;
    }
    std::cout << graph.name << ": " << scheduler.key() << " under memory budgets ("
              << cost->describe() << ")\n"
              << "unconstrained peak " << bytesText(front.unconstrainedPeak)
              << ", least peak of any schedule " << bytesText(front.smallestPeak) << "\n"
              << "      budget   latency ms    peak memory  stages  slowdown\n";
    const double fastest = front.points.front().latencyMs;
    for (const schedulers::ParetoPoint& p : front.points) {
        size_t stages = 0;
        for (const schedule::BlockSchedule& b : p.schedule.blocks)
            stages += b.stages.size();
        char line[160];
        std::snprintf(line, sizeof line, "%12s %12.4f %14s %7zu %8.3fx%s\n",
                      p.budget == 0 ? "none" : bytesText(p.budget).c_str(), p.latencyMs,
                      bytesText(p.peakBytes).c_str(), stages, p.latencyMs / fastest,
                      p.dominated ? "  (dominated: a later point is as fast with less)" : "");
        std::cout << line;
    }
    std::cout << front.points.size() << " points, " << fixed(front.seconds, 3) << " s\n";
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(pareto, "pareto",
                     "Latency against peak memory: IOS under falling memory budgets",
                     ios::cli::runPareto);
