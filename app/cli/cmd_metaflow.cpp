// SPDX-License-Identifier: Apache-2.0
// `ios-sched metaflow MODEL`: MetaFlow's relaxed graph substitutions ([MF] §3–§4), then a
// scheduler on the rewritten graph (docs/metaflow.md "Scheduler and CLI"): before/after cost,
// kernels, FLOPs, the substitution log, search statistics, optionally the reference
// executor's proof and the rewritten model.
#include "args.h"
#include "command.h"
#include "cost_options.h"
#include "io/model_file.h"
#include "metaflow_options.h"
#include "metaflow_report.h"
#include "metaflow_sweep.h"
#include "model_options.h"
#include "provenance_options.h"
#include "search_progress.h"
#include "strategies.h"
#include "util/error.h"
#include "util/json_number.h"
#include "util/output_file.h"

#include <iostream>

namespace ios::cli {

namespace {

// fp32 terms (docs/metaflow.md §7.1): the reference runs in double, the rules are exact.
constexpr double kMaxVerifyError = 1e-4;

// --alpha-sweep: the search once per α, the best cost against α printed (Fig. 10).
int runAlphaSweep(const ArgParser& parser, const schedulers::MetaflowOptions& options,
                  const schedulers::Params& params, const std::vector<double>& alphas) {
    for (const char* key : {"verify", "log", "trace", "output"})
        if (parser.has(key))
            throw UserError(std::string("--alpha-sweep prints the sweep only; drop ") +
                            (std::string_view(key) == "output" ? "-o" : "--" + std::string(key)));
    util::OutputTransaction outputs;
    planCostModelFiles(parser, outputs);
    const ir::Graph graph = loadModelArg(parser, parser.positionals().front(), outputs);
    const auto cost = makeCostModel(parser, graph);
    const ir::PreparedModel prepared(graph, params.maxPartSize);
    AlphaSweep sweep;
    {
        schedulers::SearchControl control;
        SearchProgress progress(control, "metaflow alpha sweep " + graph.name);
        sweep = sweepAlpha(prepared, params, *cost, options, alphas, &control);
    }
    outputs.commit();
    if (parser.has("json")) {
        util::Json j = alphaSweepJson(graph.name, cost->describe(), sweep);
        j[io::kProvenanceKey] = io::provenanceJson(commandProvenance(parser, &graph));
        std::cout << util::dumpJson(j, 2) << "\n";
    } else
        printAlphaSweep(std::cout, graph.name, cost->describe(), sweep);
    return kExitOk;
}

int runMetaflow(const std::vector<std::string>& args) {
    ArgParser parser(
        "ios-sched metaflow MODEL [--preset paper|artifact] [--alpha A] [--budget N] "
        "[--alpha-sweep A1,A2,...] [--split-threshold T] [--rules R1,R3,...] [--objective seq|ios] "
        "[--then S] [--verify] "
        "[--log FILE.json] [--trace FILE.csv] [--json] [-o OUT]",
        "Rewrite MODEL with MetaFlow's graph substitutions (backtracking search over the "
        "rules, cost = sum of operator latencies under the cost model), then schedule the "
        "rewritten graph with S (default ios-both) and compare with S on the original.");
    parser.positional("MODEL", "a model file (.ios.json, .json) or a bundled name (see models)");
    addMetaflowOptions(parser);
    addSearchOptions(parser, StrategyArg::None);
    parser.flag("--verify", "Run the original and the rewritten graph (weights derived through "
                            "the substitutions) in the reference executor and report the "
                            "largest error; exit 1 above 1e-4 relative");
    parser.option("--log", "FILE", "Write the substitution log as JSON");
    parser.option("--trace", "FILE",
                  "Write the search's progress as CSV (counter, best ms, "
                  "popped ms, queue; one row per report)");
    parser.flag("--json", "Print one JSON object instead of text");
    parser.option("-o, --output", "OUT", "Write the rewritten model (.ios.json or native .json)");
    addCostOptions(parser);
    addModelOptions(parser);
    if (!parser.parse(args))
        return kExitOk;

    const schedulers::MetaflowOptions options = metaflowOptions(parser);
    const SearchOptions search = searchOptions(parser, StrategyArg::None);
    if (search.params.memoryBudget > 0)
        throw UserError("--memory-budget does not apply to metaflow");
    const std::vector<double> alphas = alphaSweepOption(parser);
    if (!alphas.empty())
        return runAlphaSweep(parser, options, search.params, alphas);
    // Outputs are checked before the search and written together at the end, or not at all.
    util::OutputTransaction outputs;
    std::vector<std::string> warnings; // what the output format cannot express
    if (auto out = parser.value("output")) {
        io::formatForWrite(*out);
        outputs.check(*out, "the rewritten model (-o)");
    }
    for (const char* key : {"log", "trace"})
        if (auto out = parser.value(key))
            outputs.check(*out, std::string("the ") + key + " (--" + key + ")");
    planCostModelFiles(parser, outputs);

    const ir::Graph graph = loadModelArg(parser, parser.positionals().front(), outputs);
    const auto cost = makeCostModel(parser, graph);
    const ir::PreparedModel prepared(graph, search.params.maxPartSize);
    const schedulers::Params& params = search.params;

    SearchTrace trace;
    rewrite::SearchHooks hooks;
    if (parser.has("trace"))
        hooks.progress = [&trace](const rewrite::SearchProgress& p) { trace.add(p); };
    schedulers::MetaflowResult result;
    ThenComparison then;
    {
        schedulers::SearchControl control;
        SearchProgress progress(control, "metaflow " + graph.name);
        result = schedulers::runMetaflow(prepared, params, *cost, options, &control, hooks);
    }
    {
        const schedulers::Scheduler& s = schedulers::schedulerByName(options.then);
        schedulers::SearchControl control;
        SearchProgress progress(control, graph.name + " " + std::string(s.key()));
        then = {std::string(s.key()), s.run(prepared, params, *cost, &control).latencyMs,
                result.then.latencyMs};
    }
    MetaflowReport report{graph.name, cost->describe(), &result, then, std::nullopt};
    if (parser.has("verify")) {
        report.verify = rewrite::checkRewrite(graph, result.rewritten->graph(),
                                              result.rewritten->search.history);
        if (!(report.verify->maxRelError <= kMaxVerifyError))
            throw UserError("--verify: the rewritten graph does not compute what " + graph.name +
                            " computes: max relative error " +
                            std::to_string(report.verify->maxRelError) + " > 1e-4 (max abs " +
                            std::to_string(report.verify->maxAbsError) + ")");
    }
    if (auto out = parser.value("output")) {
        const ir::Graph& rewritten = result.rewritten->graph();
        const io::Provenance written = commandProvenance(parser, &rewritten);
        outputs.stage(*out, io::modelFileText(rewritten, *out, &warnings, &written));
    }
    const io::Provenance provenance = commandProvenance(parser, &graph);
    if (auto out = parser.value("log")) {
        util::Json log = substitutionLogJson(graph.name, result);
        log[io::kProvenanceKey] = io::provenanceJson(provenance);
        outputs.stage(*out, util::dumpJson(log, 2) + "\n");
    }
    if (auto out = parser.value("trace"))
        outputs.stage(*out, io::provenanceComment(provenance) + trace.csv());
    outputs.commit();
    printWarnings("metaflow", warnings);

    if (parser.has("json")) {
        util::Json j = metaflowJson(report);
        j[io::kProvenanceKey] = io::provenanceJson(provenance);
        std::cout << util::dumpJson(j, 2) << "\n";
    } else
        printMetaflowText(std::cout, report);
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(metaflow, "metaflow",
                     "Rewrite a model with MetaFlow's substitutions, then schedule it",
                     ios::cli::runMetaflow);
