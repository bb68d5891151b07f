// SPDX-License-Identifier: Apache-2.0
// `ios-sched streams MODEL --policy P`: the stream program a scheduler's result runs as
// (RAF's policies give their own; the others' stage schedules lowered): per block its launches,
// event records and waits, barriers and syncs in issue order, with the simulated latency;
// `-o` writes it as a program file (docs/formats.md "Stream programs"), `--load` reads one
// back instead of running a policy, `--trace` writes its timeline with an arrow per event.
#include "args.h"
#include "command.h"
#include "cost_options.h"
#include "eval/program_eval.h"
#include "eval/program_flows.h"
#include "io/program_json.h"
#include "io/trace_export.h"
#include "model_options.h"
#include "provenance_options.h"
#include "schedule/stream_program.h"
#include "schedulers/scheduler.h"
#include "strategies.h"
#include "text_format.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_number.h"
#include "util/json_text.h"
#include "util/output_file.h"

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace ios::cli {

namespace {

constexpr const char* kDefaultPolicy = "raf-wavefront";

// One instruction as a line of the text output: "  s1 launch conv_3", "  s3 wait e1".
std::string instructionLine(const ir::BlockDag& dag, const schedule::Instruction& in) {
    const std::string stream = "  s" + std::to_string(in.stream) + " ";
    const std::string event = "e" + std::to_string(in.event);
    switch (in.kind) {
    case schedule::InstrKind::Launch: {
        std::string line = stream + "launch " + schedule::launchName(dag, in);
        if (in.ops.empty())
            line += " (synthetic)";
        else if (in.ops.size() > 1)
            line += " (merged)";
        return line;
    }
    case schedule::InstrKind::Record:
        return stream + "record " + event;
    case schedule::InstrKind::Wait:
        return stream + "wait " + event;
    case schedule::InstrKind::Barrier:
        return "  barrier";
    case schedule::InstrKind::Sync:
        return "  sync";
    }
    return {};
}

void printProgram(const std::string& title, const std::vector<ir::BlockDag>& dags,
                  const schedule::Program& program, double latencyMs, const cost::CostModel& cost) {
    std::cout << title << ", " << dags.size() << (dags.size() == 1 ? " block\n" : " blocks\n");
    for (size_t b = 0; b < dags.size(); ++b) {
        const schedule::ProgramCounts c = schedule::counts(program[b]);
        std::cout << "block " << b << ": " << c.launches << " launches, " << c.streams
                  << " streams, " << c.events << " events, " << c.records << " records, " << c.waits
                  << " waits, " << c.barriers << " barriers, " << c.syncs << " syncs\n";
        for (const schedule::Instruction& in : program[b].instructions)
            std::cout << instructionLine(dags[b], in) << "\n";
    }
    std::cout << "latency " << fixed(latencyMs, 4) << " ms (" << cost.describe() << ")\n";
}

bool tuplesOption(const ArgParser& parser) {
    const std::string v = parser.get("raf-tuples");
    if (v != "on" && v != "off")
        throw UserError("--raf-tuples must be on or off, not '" + v + "'");
    return v == "on";
}

// What the command shows: a policy's program, or one read from a program file.
struct Shown {
    std::string policy;
    schedulers::Outcome outcome; // programs set (a loaded file's, or the policy's own)
    double latencyMs = 0;
};

int runStreams(const std::vector<std::string>& args) {
    ArgParser parser(
        "ios-sched streams MODEL [--policy P | --schedule FILE] [--raf-tuples on|off] "
        "[--json] [-o PROGRAM.json] [--trace TRACE.json]",
        "Show the stream program of a scheduler's result: per block the kernel launches on "
        "numbered streams, event records and waits, barriers and syncs in issue order, and "
        "its simulated latency. RAF's policies (raf-wavefront, raf-asap, raf-ios) give their "
        "own programs; the other schedulers' stage schedules are lowered (a stream per group, "
        "a sync before each parallel stage, barriers between stages).");
    parser.positional("MODEL", "a model file (.ios.json, .json) or a bundled name (see models)");
    parser.option("--policy", "P",
                  "Scheduler whose program is shown: raf-wavefront, raf-asap, raf-ios or any "
                  "registered key (" +
                      schedulers::schedulerKeyList() + ")",
                  kDefaultPolicy);
    addScheduleOption(parser);
    parser.option("--load", "PROGRAM.json",
                  "The older name of --schedule (a program file written by -o, or any saved "
                  "schedule): verified against the model and simulated");
    parser.option("--raf-tuples", "on|off",
                  "RAF's policies: a synthetic tuple launch before every concatenation", "on");
    parser.flag("--json", "Print the program as one JSON object (the program file's content)");
    parser.option("-o, --output", "PROGRAM.json", "Write the program file (docs/formats.md)");
    parser.option("--trace", "TRACE.json",
                  "Write the program's simulated timeline as a Chrome trace with an arrow from "
                  "each event record to each wait of it (.csv: the timeline without arrows)");
    addSearchOptions(parser, StrategyArg::None);
    addCostOptions(parser);
    addModelOptions(parser);
    if (!parser.parse(args))
        return kExitOk;

    if (parser.has("load") && parser.has("schedule"))
        throw UserError("give --schedule or --load (its older name), not both");
    const std::optional<std::string> loadPath =
        parser.has("load") ? parser.value("load") : parser.value("schedule");
    const bool load = loadPath.has_value();
    if (load && parser.has("policy"))
        throw UserError(std::string("give --policy or ") +
                        (parser.has("load") ? "--load" : "--schedule") + ", not both");
    SearchOptions search = searchOptions(parser, StrategyArg::None);
    search.params.rafTuples = tuplesOption(parser);
    const schedulers::Scheduler* scheduler =
        load ? nullptr : &schedulers::schedulerByName(parser.get("policy"));

    // Outputs are checked before the search and written together at the end (docs/cli.md).
    util::OutputTransaction outputs;
    const std::optional<std::string> programOut = parser.value("output");
    const std::optional<std::string> traceOut = parser.value("trace");
    if (programOut) {
        outputs.check(*programOut, "the program (-o)");
        if (!util::isStandardOutput(*programOut) &&
            std::filesystem::path(*programOut).extension() != ".json")
            throw UserError("a program file is written as .json", *programOut);
    }
    if (traceOut) {
        outputs.check(*traceOut, "the trace (--trace)");
        const std::filesystem::path ext = std::filesystem::path(*traceOut).extension();
        if (!util::isStandardOutput(*traceOut) && ext != ".json" && ext != ".csv")
            throw UserError("a trace is written as .json (Chrome trace) or .csv, not '" +
                                ext.string() + "'",
                            *traceOut);
    }

    if (load)
        outputs.input(*loadPath, "the saved schedule (--schedule)");
    planCostModelFiles(parser, outputs);
    const ir::Graph graph = loadModelArg(parser, parser.positionals().front(), outputs);
    const auto cost = makeCostModel(parser, graph);
    const ir::PreparedModel prepared(graph, search.params.maxPartSize);
    const std::vector<ir::BlockDag>& dags = prepared.dags();

    Shown shown;
    if (load) {
        const io::ScheduleDocument saved = io::readScheduleDocument(*loadPath, prepared);
        shown.outcome = io::pricedScheduleDocument(saved, prepared, *cost, search.params);
        shown.policy = saved.origin.empty() ? "loaded" : saved.origin;
        shown.latencyMs = shown.outcome.latencyMs;
    } else {
        StrategyRun run = runStrategy(prepared, *scheduler, search.params, *cost);
        shown.policy = std::string(scheduler->key());
        shown.latencyMs = run.latencyMs;
        shown.outcome = std::move(run.outcome);
    }
    const schedule::Program program = schedulers::programOf(shown.outcome);

    const io::Provenance provenance = commandProvenance(parser, &graph);
    if (programOut)
        outputs.stage(*programOut, io::programFileText(graph.name, shown.policy, shown.latencyMs,
                                                       dags, program, &provenance));
    if (traceOut) {
        const eval::Timeline timeline = schedulers::outcomeTimeline(dags, shown.outcome, *cost);
        const std::vector<io::TraceFlow> flows =
            io::traceFlows(timeline, eval::programFlows(dags, program, *cost));
        io::TraceInfo traceInfo{graph.name, shown.policy};
        traceInfo.provenance = &provenance;
        outputs.stage(*traceOut, io::timelineText(*traceOut, timeline, traceInfo, flows));
    }
    outputs.commit();

    if (parser.has("json")) {
        std::cout << util::dumpJson(io::programJson(graph.name, shown.policy, shown.latencyMs, dags,
                                                    program, &provenance),
                                    2)
                  << "\n";
        return kExitOk;
    }
    const std::string title =
        graph.name + ": " +
        (load ? "program " + *loadPath + " (" + shown.policy + ")" : shown.policy);
    printProgram(title, dags, program, shown.latencyMs, *cost);
    if (programOut)
        std::cout << "program -> " << *programOut << "\n";
    if (traceOut)
        std::cout << "trace -> " << *traceOut << "\n";
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(streams, "streams",
                     "Show, write or load the stream program of a schedule (RAF policies)",
                     ios::cli::runStreams);
