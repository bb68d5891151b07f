// SPDX-License-Identifier: Apache-2.0
// `ios-sched bench [MODELS…]`: the IOS DP's search cost in the paper's five settings, so that
// Table 1 and the search-cost figures can be rerun (docs/algorithms.md §3 "Statistics").
#include "args.h"
#include "bench_memory.h"
#include "bench_metaflow.h"
#include "bundled_models.h"
#include "command.h"
#include "cost_options.h"
#include "model_options.h"
#include "process_usage.h"
#include "randwire_generator.h"
#include "schedulers/ios_dp.h"
#include "search_progress.h"
#include "strategies.h"
#include "util/error.h"
#include "util/json_number.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ios::cli {

namespace {

using Json = nlohmann::ordered_json;

struct Setting {
    const char* name;
    const char* shortName; // --settings
    schedulers::Strategy strategy;
    int r, s; // 0 = r and s do not apply (merge)
};

constexpr Setting kSettings[] = {
    {"parallel unpruned", "unpruned", schedulers::Strategy::Parallel, 100, 100},
    {"parallel r3s8", "r3s8", schedulers::Strategy::Parallel, 3, 8},
    {"parallel r1s8", "r1s8", schedulers::Strategy::Parallel, 1, 8},
    {"merge", "merge", schedulers::Strategy::Merge, 0, 0},
    {"both r3s8", "both", schedulers::Strategy::Both, 3, 8},
};

// Share of the distinct stages the canonical stage memo already held (0 when none were priced).
double hitRate(const schedulers::Statistics& s) {
    return s.stages == 0
               ? 0.0
               : 1.0 - static_cast<double>(s.stagesPriced) / static_cast<double>(s.stages);
}

double nsPerTransition(const schedulers::Statistics& s) {
    return s.transitions == 0 ? 0.0 : s.seconds * 1e9 / static_cast<double>(s.transitions);
}

int runBench(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched bench [MODELS...] [--json] [--endings reference|all]",
                     "Run the IOS DP in five settings (parallel unpruned r=s=100, parallel r3 s8, "
                     "parallel r1 s8, merge, both r3 s8) on each model (default: the four "
                     "benchmark networks) and report states, transitions, schedules and seconds.");
    parser.positional("MODELS", "model files or bundled names", false, true);
    parser.flag("--json", "Print a JSON array of {model, setting, strategy, r, s, states, "
                          "transitions, schedules, operators, width, parts, parts_searched, "
                          "stages, stages_priced, memo_hit_rate, seconds, ns_per_transition}");
    parser.option("--endings", "E", "reference (the IOS enumeration) or all endings", "reference");
    parser.option("--max-part-size", "N", "Cut blocks without explicit parts into parts of N",
                  std::to_string(ir::kDefaultMaxPartSize));
    parser.option("--settings", "LIST",
                  "Comma-separated settings to run, of: unpruned, r3s8, r1s8, merge, both "
                  "(default: all five)",
                  "unpruned,r3s8,r1s8,merge,both");
    parser.flag("--memory",
                "Instead of the IOS DP: Serenity's exact memory DP on every block of each model "
                "(no budget, no expansion limit, one thread): entries, expansions, seconds, ns "
                "per expansion, peak memory and the process's max RSS (docs/performance.md)");
    parser.flag("--scaling",
                "Instead of MODELS: RandWire-style graphs (Watts-Strogatz, k 4, p 0.75) of 3w "
                "nodes for w = 4..12, one block each, to see how the DP's cost grows with "
                "states, transitions and distinct stages");
    parser.flag("--metaflow",
                "Instead of the IOS DP: MetaFlow's search with the paper preset on each model "
                "(seconds, expanded, generated) and Sequential / IOS-both (r 3, s 8) on the "
                "original and the rewritten graph (docs/metaflow.md)");
    addThreadsOption(parser);
    addCostOptions(parser);
    addUsageFlag(parser);
    if (!parser.parse(args))
        return kExitOk;
    const UsageReport usage(parser, "bench");
    auto endings = schedulers::endingsFromString(parser.get("endings"));
    if (!endings)
        throw UserError("--endings must be reference or all, not '" + parser.get("endings") + "'");
    const int maxPartSize = parser.getInt("max-part-size", 1, 128);
    const int threads = threadsOption(parser);

    std::vector<std::string> models = parser.positionals();
    const bool scaling = parser.has("scaling");
    if (scaling && !models.empty())
        throw UserError("--scaling generates its own graphs: give no MODELS");
    if (scaling)
        for (int w = 4; w <= 12; ++w)
            models.push_back(std::to_string(3 * w)); // node counts
    if (models.empty())
        for (const samples::BundledModel& m : samples::bundledModels())
            if (m.benchmark)
                models.emplace_back(m.name);
    if (parser.has("metaflow")) {
        if (scaling || parser.has("memory"))
            throw UserError("give --metaflow alone, not with --memory or --scaling");
        return benchMetaflow(parser, models, parser.has("json"));
    }
    if (parser.has("memory")) {
        if (scaling)
            throw UserError("give --memory or --scaling, not both");
        return benchMemory(parser, models, parser.has("json"));
    }

    std::vector<const Setting*> settings;
    for (const std::string& want : splitList(parser.get("settings"))) {
        const Setting* found = nullptr;
        for (const Setting& st : kSettings)
            if (want == st.shortName)
                found = &st;
        if (found == nullptr)
            throw UserError("--settings: unknown setting '" + want +
                            "' (valid: unpruned, r3s8, r1s8, merge, both)");
        settings.push_back(found);
    }

    const bool json = parser.has("json");
    Json rows = Json::array();
    double totalSeconds = 0;
    if (!json)
        std::cout << "model              setting                 states  transitions  "
                     "schedules    stages  priced   hit %   seconds  ns/transition\n";
    for (const std::string& name : models) {
        const ir::Graph graph =
            scaling ? samples::randwireStyleGraph(std::stoi(name)) : loadModelArg(parser, name);
        const auto cost = makeCostModel(parser, graph);
        const ir::PreparedModel prepared(graph, maxPartSize);
        for (const Setting* setting : settings) {
            const Setting& st = *setting;
            schedulers::Options o;
            o.strategy = st.strategy;
            o.r = st.r > 0 ? st.r : 3;
            o.s = st.s > 0 ? st.s : 8;
            o.endings = *endings;
            o.threads = threads;
            schedulers::SearchControl control;
            schedulers::Result res;
            {
                SearchProgress progress(control, graph.name + " " + st.name);
                res = schedulers::optimize(prepared, o, *cost, &control);
            }
            const schedulers::Statistics& s = res.stats;
            totalSeconds += s.seconds;
            if (json) {
                rows.push_back({{"model", graph.name},
                                {"setting", st.name},
                                {"strategy", schedulers::toString(st.strategy)},
                                {"r", st.r > 0 ? Json(st.r) : Json(nullptr)},
                                {"s", st.s > 0 ? Json(st.s) : Json(nullptr)},
                                {"states", s.states},
                                {"transitions", s.transitions},
                                {"schedules", s.schedules.toString()},
                                {"operators", graph.operatorCount()},
                                {"width", s.largestPart() ? s.largestPart()->width : 0},
                                {"parts", s.parts.size()},
                                {"parts_searched", s.partsSearched},
                                {"stages", s.stages},
                                {"stages_priced", s.stagesPriced},
                                {"memo_hit_rate", hitRate(s)},
                                {"seconds", s.seconds},
                                {"ns_per_transition", nsPerTransition(s)}});
                continue;
            }
            // Schedules in scientific notation from the exact decimal (they pass 10^308, the
            // double range); --json prints them exactly.
            const std::string digits = s.schedules.toString();
            const std::string sci = digits.size() <= 6
                                        ? digits
                                        : digits.substr(0, 1) + "." + digits.substr(1, 3) + "e+" +
                                              std::to_string(digits.size() - 1);
            char line[256];
            std::snprintf(line, sizeof line,
                          "%-18s %-18s %11llu %12llu  %10s %9llu %7llu %7.2f %9.4f  %8.1f\n",
                          graph.name.c_str(), st.name, static_cast<unsigned long long>(s.states),
                          static_cast<unsigned long long>(s.transitions), sci.c_str(),
                          static_cast<unsigned long long>(s.stages),
                          static_cast<unsigned long long>(s.stagesPriced), 100 * hitRate(s),
                          s.seconds, nsPerTransition(s));
            std::cout << line << std::flush;
        }
    }
    if (json) {
        std::cout << util::dumpJson(rows, 2) << "\n";
    } else {
        char line[64];
        std::snprintf(line, sizeof line, "total %.4f s\n", totalSeconds);
        std::cout << line;
    }
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(bench, "bench", "Search cost of the IOS DP in the paper's settings",
                     ios::cli::runBench);
