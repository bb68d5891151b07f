// SPDX-License-Identifier: Apache-2.0
// `ios-sched memory MODEL`: peak activation memory of an operator order per block — file order
// (TFLite's), Kahn FIFO, Serenity's soft-budgeted exact DP, or brute force — with the DP's
// statistics, the soft budget's τ trace and the reduction over file order (docs/memory.md);
// --rewrite applies Serenity's identity graph rewriting first (§3.3).
#include "args.h"
#include "command.h"
#include "ir/memory.h"
#include "model_options.h"
#include "provenance_options.h"
#include "schedulers/serenity/memory_plan.h"
#include "schedulers/serenity/rewrite_plan.h"
#include "search_progress.h"
#include "text_format.h"
#include "util/error.h"
#include "util/json_number.h"

#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ios::cli {

namespace {

namespace sy = schedulers::serenity;

template <class T, class Parse>
T choice(const ArgParser& parser, const std::string& key, Parse parse, const char* valid) {
    const std::string v = parser.get(key);
    const auto parsed = parse(v);
    if (!parsed)
        throw UserError("--" + key + " must be one of " + valid + ", not '" + v + "'");
    return *parsed;
}

ir::MemoryOptions memoryOptionsOf(const ArgParser& parser) {
    ir::MemoryOptions m;
    m.batch = parser.getInt("batch", 1, 1 << 20);
    m.bytesPerElement = parser.getInt("bytes-per-element", 1, 64);
    const std::string assembly = parser.get("assembly");
    if (assembly != "core" && assembly != "materialized")
        throw UserError("--assembly must be core or materialized, not '" + assembly + "'");
    m.materializedAssembly = assembly == "materialized";
    m.sequentialTransients = parser.has("sequential-transients");
    m.countWeights = parser.has("count-weights");
    return m;
}

util::Json blockJson(const sy::RewrittenPlan& r, size_t index, int64_t filePeak,
                     const std::optional<int64_t>& arena) {
    const sy::BlockPlan& b = r.plan.blocks[index];
    const ir::MemoryProblem& problem = r.problems[index];
    util::Json j;
    j["block"] = b.name;
    j["peak_bytes"] = b.peak;
    j["unrewritten_peak_bytes"] = r.originalPeaks[index];
    j["rewrites"] = r.rewrites[index];
    j["rewrite_matches"] = r.matches[index];
    j["file_peak_bytes"] = filePeak;
    if (arena)
        j["arena_bytes"] = *arena;
    j["optimal"] = b.optimal;
    j["entries"] = b.entries;
    j["expansions"] = b.expansions;
    j["partitions"] = b.partitions;
    util::Json trace = util::Json::array();
    for (const sy::BudgetStep& s : b.tauTrace)
        trace.push_back({s.tau, std::string(sy::toString(s.status))});
    j["tau_trace"] = std::move(trace);
    j["seconds"] = b.seconds;
    util::Json order = util::Json::array();
    for (int op : b.order)
        order.push_back(problem.ops[static_cast<size_t>(op)].name);
    j["order"] = std::move(order);
    return j;
}

std::string nsPerExpansion(const sy::BlockPlan& p) {
    return p.expansions > 0 ? fixed(p.seconds * 1e9 / static_cast<double>(p.expansions), 1) : "-";
}

std::string reduction(int64_t before, int64_t after) {
    return after > 0 ? fixed(static_cast<double>(before) / static_cast<double>(after), 3) + "x"
                     : "-";
}

int runMemory(const std::vector<std::string>& args) {
    ArgParser parser(
        "ios-sched memory MODEL [--order file|kahn|serenity|brute] [--partition cuts|blocks|none] "
        "[--limit-expansions N] [--exact-expansions N] [--time-limit-s T] [--bytes-per-element B] "
        "[--batch N] "
        "[--assembly core|materialized] [--sequential-transients] [--count-weights] "
        "[--rewrite none|all|best] [--arena tflite] [--json]",
        "Peak activation memory of an operator order, block by block (Serenity, MLSys 2020). "
        "serenity: the exact dynamic program over down-sets under an adaptive soft budget, on "
        "the partitions between cut points; file: the model's own order (what TFLite runs); "
        "kahn: ready operators first in, first out; brute: every order (partitions of at most "
        "10 operators). Prints per block the peak, the partitions, the DP's entries and "
        "expansions, and the reduction over file order (the unrewritten graph's).");
    parser.positional("MODEL", "a model file (.ios.json, .json, .onnx) or a bundled name");
    parser.option("--order", "ORDER", "file (alias tflite), kahn, serenity or brute", "serenity");
    parser.option("--partition", "P",
                  "cuts: the DP runs between cut points; blocks: once per block; none: once "
                  "over the whole model",
                  "cuts");
    parser.option("--limit-expansions", "N",
                  "Expansions per DP run before it counts as a timeout (0: no limit)", "16777216");
    parser.option("--exact-expansions", "N",
                  "The first run, at Kahn FIFO's peak, is the exact DP: it may take up to N "
                  "expansions unless a lower bound on its down-sets says it cannot fit them "
                  "(0: every run under --limit-expansions, the paper's soft budget)",
                  std::to_string(sy::kExactExpansions));
    parser.option("--escalate", "K",
                  "When every run of the soft budget times out, up to K more runs at the "
                  "lowest budget that timed out, each with twice the expansions",
                  "4");
    parser.option("--time-limit-s", "T",
                  "Seconds per DP run before it counts as a timeout (0: none; the result then "
                  "depends on the machine)",
                  "0");
    parser.option("--bytes-per-element", "B", "Bytes per tensor element (4: fp32, 1: int8)", "4");
    parser.option("--batch", "N", "Batch size", "1");
    parser.option("--assembly", "core|materialized",
                  "materialized: a concatenated or summed input is built in its own buffer "
                  "first (TFLite's CONCAT/ADD operators)",
                  "core");
    parser.flag("--sequential-transients",
                "A sequential holds its inner nodes' adjacent outputs while it runs");
    parser.flag("--count-weights", "Add the weights to every sample (a constant)");
    parser.option("--rewrite", "none|all|best",
                  "Identity graph rewriting first: a conv over a concatenation (directly, or "
                  "through relu/activation/identity nodes) becomes partial convs, one per input "
                  "(channel-wise; kernel-wise for depthwise). all: every "
                  "match; best: per partition, only where the rewritten optimum is lower",
                  "best");
    parser.option("--arena", "tflite",
                  "Also replay TFLite's simple memory arena and report its footprint");
    parser.flag("--json", "Print one JSON object (docs/cli.md)");
    addModelOptions(parser);
    if (!parser.parse(args))
        return kExitOk;

    sy::PlanOptions options;
    options.order = choice<sy::OrderKind>(parser, "order", sy::orderKindFromString,
                                          "file, tflite, kahn, serenity, brute");
    options.partition =
        choice<sy::Partition>(parser, "partition", sy::partitionFromString, "cuts, blocks, none");
    options.limits.maxExpansions =
        static_cast<uint64_t>(parser.getInt64("limit-expansions", 0, int64_t{1} << 40));
    options.limits.timeLimitSeconds = parser.getInt("time-limit-s", 0, 86400);
    options.escalations = parser.getInt("escalate", 0, 20);
    options.exactExpansions =
        static_cast<uint64_t>(parser.getInt64("exact-expansions", 0, int64_t{1} << 40));
    const ir::MemoryOptions memory = memoryOptionsOf(parser);
    options.resolution = memory.bytesPerElement;
    const sy::RewriteMode rewrite =
        choice<sy::RewriteMode>(parser, "rewrite", sy::rewriteModeFromString, "none, all, best");
    const bool arena = parser.has("arena");
    if (arena && parser.get("arena") != "tflite")
        throw UserError("--arena takes tflite, not '" + parser.get("arena") + "'");

    const ir::Graph graph = loadModelArg(parser, parser.positionals().front());
    schedulers::SearchControl control;
    sy::RewrittenPlan result;
    {
        SearchProgress progress(control, "memory " + graph.name);
        result = sy::planRewrittenMemory(graph, memory, options, rewrite, &control);
    }
    const std::vector<ir::MemoryProblem>& problems = result.problems;
    const sy::MemoryPlan& plan = result.plan;

    int64_t filePeak = 0;
    std::vector<int64_t> filePeaks;
    std::vector<std::optional<int64_t>> arenas;
    int64_t footprint = 0; // the largest block's arena footprint (--arena)
    for (size_t b = 0; b < problems.size(); ++b) {
        std::vector<int> file(result.original[b].ops.size()); // TFLite runs the graph as it is
        for (size_t i = 0; i < file.size(); ++i)
            file[i] = static_cast<int>(i);
        filePeaks.push_back(ir::orderPeak(result.original[b], file));
        filePeak = std::max(filePeak, filePeaks.back());
        arenas.push_back(arena
                             ? std::optional(ir::arenaFootprint(problems[b], plan.blocks[b].order))
                             : std::nullopt);
        footprint = std::max(footprint, arenas.back().value_or(0));
    }

    if (parser.has("json")) {
        util::Json j;
        j["model"] = graph.name;
        j["order"] = std::string(sy::toString(options.order));
        j["rewrite"] = std::string(sy::toString(rewrite));
        j["peak_bytes"] = plan.peak;
        j["unrewritten_peak_bytes"] = result.originalPeak;
        j["file_peak_bytes"] = filePeak;
        if (arena) {
            j["arena_bytes"] = footprint;
        }
        j["seconds"] = plan.seconds;
        util::Json blocks = util::Json::array();
        for (size_t b = 0; b < problems.size(); ++b)
            blocks.push_back(blockJson(result, b, filePeaks[b], arenas[b]));
        j["blocks"] = std::move(blocks);
        j[io::kProvenanceKey] = commandProvenanceJson(parser, &graph);
        std::cout << util::dumpJson(j, 2) << "\n";
        return kExitOk;
    }

    std::cout << graph.name << ": " << sy::toString(options.order) << " order, batch "
              << memory.batch << ", " << memory.bytesPerElement << " B per element, rewrite "
              << sy::toString(rewrite) << "\n";
    std::cout << std::left << std::setw(14) << "block" << std::right << std::setw(6) << "ops"
              << std::setw(14) << "file order" << std::setw(9) << "rewrites" << std::setw(14)
              << "unrewritten" << std::setw(14) << "this order" << std::setw(9) << "x"
              << std::setw(12) << "entries" << std::setw(13) << "expansions" << std::setw(9) << "s"
              << std::setw(9) << "ns/exp"
              << "  partitions\n";
    for (size_t b = 0; b < problems.size(); ++b) {
        const sy::BlockPlan& p = plan.blocks[b];
        std::string parts;
        for (int size : p.partitions)
            parts += (parts.empty() ? "" : ",") + std::to_string(size);
        std::cout << std::left << std::setw(14) << p.name << std::right << std::setw(6)
                  << problems[b].ops.size() << std::setw(14) << bytesText(filePeaks[b])
                  << std::setw(9)
                  << (std::to_string(result.rewrites[b]) + "/" + std::to_string(result.matches[b]))
                  << std::setw(14) << bytesText(result.originalPeaks[b]) << std::setw(14)
                  << bytesText(p.peak) << std::setw(9) << reduction(filePeaks[b], p.peak)
                  << std::setw(12) << p.entries << std::setw(13) << p.expansions << std::setw(9)
                  << fixed(p.seconds, 3) << std::setw(9) << nsPerExpansion(p) << "  " << parts
                  << (p.optimal || options.order != sy::OrderKind::Serenity
                          ? ""
                          : " (not optimal: every DP run timed out, see --escalate)")
                  << "\n";
    }
    std::cout << "peak " << bytesText(plan.peak) << " (" << plan.peak << " B), without rewriting "
              << bytesText(result.originalPeak) << " (" << result.originalPeak << " B), file order "
              << bytesText(filePeak) << ": " << reduction(filePeak, plan.peak) << " lower; search "
              << fixed(plan.seconds, 3) << " s\n";
    if (arena)
        std::cout << "TFLite arena footprint " << bytesText(footprint) << " (" << footprint
                  << " B, fragmentation included)\n";
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(memory, "memory",
                     "Peak activation memory of operator orders (Serenity's memory-optimal DP)",
                     ios::cli::runMemory);
