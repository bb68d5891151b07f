// SPDX-License-Identifier: Apache-2.0
// `ios-sched optimize MODEL`: the IOS DP (or a baseline) on a model; statistics and the
// optimised model (docs/algorithms.md §2-§4).
#include "args.h"
#include "bundled_models.h"
#include "command.h"
#include "cost_options.h"
#include "io/model_file.h"
#include "io/schedule_file.h"
#include "ir/block_dag.h"
#include "model_options.h"
#include "process_usage.h"
#include "provenance_options.h"
#include "schedule/ios_stages.h"
#include "schedule/stream_program.h"
#include "schedule/verify.h"
#include "schedulers/scheduler.h"
#include "search_progress.h"
#include "strategies.h"
#include "text_format.h"
#include "util/error.h"
#include "util/json_number.h"
#include "util/output_file.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ios::cli {

namespace {

using Json = nlohmann::ordered_json;

struct ProgramTotals {
    int streams = 0; // the most of any block
    int events = 0;
    int waits = 0;
    int barriers = 0;
};

ProgramTotals programTotals(const schedule::Program& program) {
    ProgramTotals t;
    for (const schedule::StreamProgram& block : program) {
        const schedule::ProgramCounts c = schedule::counts(block);
        t.streams = std::max(t.streams, c.streams);
        t.events += c.events;
        t.waits += c.waits;
        t.barriers += c.barriers;
    }
    return t;
}

int runOptimize(const std::vector<std::string>& args) {
    ArgParser parser(
        "ios-sched optimize MODEL [--strategy S] [-r N] [-s N] [--max-part-size N] "
        "[--endings reference|all] [--memory-budget BYTES] [--stats] [--json] [-o OUT.ios.json] "
        "[--save-schedule FILE] [--schedule SAVED] [--usage]",
        "Find a schedule with the IOS dynamic program (or a baseline) and report its "
        "latency under the cost model; -o writes the optimised model with its stages. With "
        "--schedule, a saved schedule is priced instead (another device or batch).");
    parser.positional("MODEL", "a model file (.ios.json, .json) or a bundled name (see models)");
    addSearchOptions(parser, StrategyArg::One);
    parser.flag("--stats", "Report states, transitions and schedules, in total and per part");
    parser.flag("--json", "Print one JSON object instead of text");
    parser.option("-o, --output", "OUT", "Write the optimised model (.ios.json or native .json)");
    parser.option("--save-schedule", "FILE",
                  "Write the schedule alone as a schedule file (docs/formats.md; read back by "
                  "validate)");
    addScheduleOption(parser);
    addCostOptions(parser);
    addModelOptions(parser);
    addUsageFlag(parser);
    if (!parser.parse(args))
        return kExitOk;
    const UsageReport usage(parser, "optimize");

    const SearchOptions search = searchOptions(parser, StrategyArg::One);
    const schedulers::Scheduler& scheduler = *search.schedulers.front();
    std::string strategy(scheduler.key());
    const schedulers::Params& params = search.params;
    if (params.memoryBudget > 0 && !scheduler.reads(schedulers::Knob::MemoryBudget))
        throw UserError("--memory-budget applies to the IOS strategies (ios-both, ios-parallel, "
                        "ios-merge), not " +
                        strategy);

    // Output paths are checked before the search, which can take minutes; the files are
    // written together at the end, or not at all (docs/cli.md "Output files"). The plan holds
    // every file the command writes or reads: none may be another.
    util::OutputTransaction outputs;
    planCostModelFiles(parser, outputs);
    if (auto out = parser.value("output")) {
        io::formatForWrite(*out);
        outputs.check(*out, "the optimised model (-o)");
    }
    if (auto out = parser.value("save-schedule"))
        outputs.check(*out, "the schedule (--save-schedule)");
    planScheduleInput(parser, outputs);

    const std::string modelArg = parser.positionals().front();
    const ir::Graph graph = loadModelArg(parser, modelArg, outputs);
    const auto cost = makeCostModel(parser, graph);
    const ir::PreparedModel prepared(graph, search.params.maxPartSize);

    const std::optional<io::ScheduleDocument> saved = scheduleOption(parser, prepared);
    schedulers::SearchControl control;
    schedulers::Outcome outcome;
    if (saved) {
        outcome = savedScheduleRun(*saved, prepared, params, *cost).outcome;
        strategy = scheduleLabel(*saved);
    } else {
        SearchProgress progress(control, "optimize " + graph.name);
        outcome = scheduler.run(prepared, params, *cost, &control);
    }
    const schedule::Schedule& sched = outcome.schedule;
    const std::optional<schedulers::Statistics>& stats = outcome.stats;
    const double latencyMs = outcome.latencyMs;
    const double seconds = outcome.searchSeconds;
    // A scheduler that rewrites the graph (metaflow) schedules the rewritten one: -o writes
    // that graph with its stages, --save-schedule names its operators.
    const ir::PreparedModel& scheduled = schedulers::scheduledModel(prepared, outcome);
    const ir::Graph& scheduledGraph = scheduled.graph();
    schedule::verify(scheduled.dags(), sched);
    std::vector<std::string> warnings; // what the output format cannot express
    if (auto out = parser.value("output")) {
        const ir::Graph optimized =
            schedule::optimizedGraph(scheduledGraph, scheduled.dags(), sched);
        const io::Provenance provenance = commandProvenance(parser, &optimized);
        outputs.stage(*out, io::modelFileText(optimized, *out, &warnings, &provenance));
    }
    if (auto out = parser.value("save-schedule")) {
        const io::Provenance provenance = commandProvenance(parser, &scheduledGraph);
        outputs.stage(*out, io::writeScheduleFile(scheduledGraph, scheduled.dags(), sched,
                                                  "ios-sched optimize --strategy " + strategy +
                                                      " (" + cost->describe() + ")",
                                                  &provenance));
    }
    outputs.commit();
    printWarnings("optimize", warnings);

    const bool showStats = parser.has("stats") && stats.has_value();
    if (parser.has("json")) {
        Json j;
        j["model"] = graph.name;
        j["strategy"] = strategy;
        j["r"] = params.r;
        j["s"] = params.s;
        Json total;
        if (showStats) {
            total["states"] = stats->states;
            total["transitions"] = stats->transitions;
            total["schedules"] = stats->schedules.toString();
            // true: a part's count passed 2^128 - 1 and stopped there, so "schedules" is a
            // lower bound (docs/algorithms.md §3), as the text output says
            total["schedules_saturated"] = stats->schedulesSaturated;
        }
        total["latency_ms"] = latencyMs;
        total["peak_bytes"] = outcome.peakBytes;
        if (params.memoryBudget > 0)
            total["memory_budget_bytes"] = params.memoryBudget;
        total["seconds"] = seconds;
        j["total"] = std::move(total);
        if (!outcome.programs.empty()) {
            const ProgramTotals t = programTotals(outcome.programs);
            j["program"] = {{"streams", t.streams},
                            {"events", t.events},
                            {"waits", t.waits},
                            {"barriers", t.barriers}};
        }
        if (showStats) {
            Json parts = Json::array();
            for (const schedulers::PartStatistics& p : stats->parts)
                parts.push_back({{"block", p.block},
                                 {"part", p.part},
                                 {"n", p.n},
                                 {"width", p.width},
                                 {"states", p.states},
                                 {"transitions", p.transitions},
                                 {"schedules", p.schedules.toString()},
                                 {"schedules_saturated", p.schedulesSaturated}});
            j["parts"] = std::move(parts);
        }
        j[io::kProvenanceKey] = commandProvenanceJson(parser, &graph);
        std::cout << util::dumpJson(j, 2) << "\n";
        return kExitOk;
    }
    size_t stageCount = 0;
    for (const auto& b : sched.blocks)
        stageCount += b.stages.size();
    std::cout << graph.name << ": " << strategy;
    if (!saved && scheduler.reads(schedulers::Knob::MaxGroupSize))
        std::cout << " (r " << params.r << ", s " << params.s << ", endings "
                  << schedulers::toString(params.endings) << ")";
    if (outcome.programs.empty()) {
        std::cout << ", " << stageCount << " stages";
    } else {
        // A stream program (docs/raf.md); -o and --save-schedule write its stage form.
        const ProgramTotals t = programTotals(outcome.programs);
        std::cout << ", stream program: " << t.streams << " streams, " << t.events << " events, "
                  << t.waits << " waits, " << t.barriers << " barriers";
    }
    std::cout << ", latency " << fixed(latencyMs, 4) << " ms (" << cost->describe() << "), peak "
              << bytesText(outcome.peakBytes);
    if (params.memoryBudget > 0)
        std::cout << " (budget " << bytesText(params.memoryBudget) << ")";
    std::cout << ", " << fixed(seconds, 3) << " s\n";
    if (showStats) {
        std::cout << "states " << stats->states << ", transitions " << stats->transitions
                  << ", schedules " << stats->schedules.toString()
                  << (stats->schedulesSaturated ? " (a part passed 2^128: lower bound)" : "")
                  << "\n"
                  << "block part    n  width       states    transitions  schedules\n";
        for (const schedulers::PartStatistics& p : stats->parts) {
            char line[128];
            std::snprintf(line, sizeof line, "%5d %4d %4d %6d %12llu %14llu  ", p.block, p.part,
                          p.n, p.width, static_cast<unsigned long long>(p.states),
                          static_cast<unsigned long long>(p.transitions));
            std::cout << line << p.schedules.toString()
                      << (p.schedulesSaturated ? " (2^128 - 1 reached: lower bound)" : "") << "\n";
        }
    }
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(optimize, "optimize", "Schedule a model with IOS (or a baseline)",
                     ios::cli::runOptimize);
