// SPDX-License-Identifier: Apache-2.0
// `ios-sched info MODEL`: structure, work and size of a model (engine: ir::summarize).
#include "args.h"
#include "bundled_models.h"
#include "command.h"
#include "ir/model_summary.h"
#include "ir/validate.h"
#include "model_options.h"
#include "provenance_options.h"
#include "text_format.h"
#include "util/json_number.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

namespace ios::cli {

namespace {

using Json = nlohmann::ordered_json;

Json shapeJson(const ir::TensorShape& s) {
    return Json::array({s.c, s.h, s.w});
}

Json kindsJson(const ir::KindCounts& counts) {
    Json out = Json::object();
    for (const auto& [kind, n] : counts)
        out[std::string(ir::toString(kind))] = n;
    return out;
}

Json widthJson(const std::optional<int>& width) {
    return width ? Json(*width) : Json(nullptr);
}

// Work and size of a set of operators; FLOPs are whole numbers, so they print as integers.
void addMetrics(Json& out, const ir::OperatorMetrics& m) {
    out["flops"] = m.flops;
    out["gflops"] = static_cast<double>(m.flops) / 1e9;
    out["parameters"] = m.parameters;
    out["weight_bytes"] = m.weightBytes;
    out["weight_mb"] = static_cast<double>(m.weightBytes) / 1e6;
    out["bytes_read"] = m.bytesRead;
    out["bytes_written"] = m.bytesWritten;
}

Json summaryJson(const ir::ModelSummary& s) {
    Json out;
    out["name"] = s.name;
    out["input_shape"] = shapeJson(s.inputShape);
    out["output_shape"] = shapeJson(s.outputShape);
    out["blocks"] = s.blocks.size();
    out["operators"] = s.operators;
    out["parts"] = s.parts;
    out["max_part_size"] = s.maxPartSize;
    out["widest_part"] = s.widestPart;
    out["dag_width"] = widthJson(s.dagWidth);
    out["operators_by_kind"] = kindsJson(s.operatorsByKind);
    out["primitives_by_kind"] = kindsJson(s.primitivesByKind);
    addMetrics(out, s.totals);
    Json blocks = Json::array();
    for (size_t i = 0; i < s.blocks.size(); ++i) {
        const ir::BlockSummary& b = s.blocks[i];
        Json j;
        j["index"] = i;
        j["enter"] = b.enterName;
        j["exit"] = b.exitName;
        j["operators"] = b.operators;
        j["parts"] = b.parts;
        j["widest_part"] = b.widestPart;
        j["dag_width"] = widthJson(b.dagWidth);
        addMetrics(j, b.metrics);
        blocks.push_back(std::move(j));
    }
    out["per_block"] = std::move(blocks);
    return out;
}

std::string kindsText(const ir::KindCounts& counts) {
    std::string out;
    for (const auto& [kind, n] : counts)
        out +=
            (out.empty() ? "" : ", ") + std::string(ir::toString(kind)) + " " + std::to_string(n);
    return out;
}

std::string widthText(const std::optional<int>& width) {
    return width ? std::to_string(*width) : "n/a";
}

std::string padLeft(const std::string& s, size_t width) {
    return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string padRight(const std::string& s, size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

void printText(const ir::ModelSummary& s) {
    auto row = [](const char* label, const std::string& value) {
        std::cout << padRight(label, 14) << value << "\n";
    };
    row("Model", s.name);
    row("Input", ir::detail::shapeText(s.inputShape));
    row("Output", ir::detail::shapeText(s.outputShape));
    row("Blocks", std::to_string(s.blocks.size()));
    row("Operators", std::to_string(s.operators) + " (" + kindsText(s.operatorsByKind) + ")");
    row("Primitives", kindsText(s.primitivesByKind) + " (sequentials expanded)");
    row("Parts", std::to_string(s.parts) + " (max part size " + std::to_string(s.maxPartSize) +
                     "; explicit parts win)");
    row("Widest part", std::to_string(s.widestPart) + " operators");
    row("DAG width", widthText(s.dagWidth) + " (largest set of mutually independent operators)");
    row("FLOPs", fixed(static_cast<double>(s.totals.flops) / 1e9, 3) + " GFLOPs (batch 1)");
    row("Parameters", fixed(static_cast<double>(s.totals.parameters) / 1e6, 3) + " M");
    row("Weights", fixed(static_cast<double>(s.totals.weightBytes) / 1e6, 3) + " MB (fp32)");

    // Block names can be long; the enter → exit column grows to the widest one.
    size_t span = 12;
    for (const ir::BlockSummary& b : s.blocks)
        span = std::max(span, b.enterName.size() + b.exitName.size() + 4);
    std::cout << "\n"
              << padLeft("block", 5) << "  " << padRight("enter -> exit", span) << padLeft("ops", 5)
              << padLeft("parts", 7) << padLeft("widest", 8) << padLeft("width", 7)
              << padLeft("GFLOPs", 10) << padLeft("params M", 10) << "\n";
    for (size_t i = 0; i < s.blocks.size(); ++i) {
        const ir::BlockSummary& b = s.blocks[i];
        std::cout << padLeft(std::to_string(i), 5) << "  "
                  << padRight(b.enterName + " -> " + b.exitName, span)
                  << padLeft(std::to_string(b.operators), 5) << padLeft(std::to_string(b.parts), 7)
                  << padLeft(std::to_string(b.widestPart), 8) << padLeft(widthText(b.dagWidth), 7)
                  << padLeft(fixed(static_cast<double>(b.metrics.flops) / 1e9, 3), 10)
                  << padLeft(fixed(static_cast<double>(b.metrics.parameters) / 1e6, 3), 10) << "\n";
    }
}

int runInfo(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched info MODEL [--json] [--max-part-size N]",
                     "Show a model's blocks, DP parts, operators by kind, FLOPs, parameters,\n"
                     "weight size, widest part and DAG width (maximum antichain).");
    parser.positional("MODEL", "a model file (.ios.json, .json) or a bundled name (see models)");
    parser.flag("--json", "Print one JSON object instead of text (keys: docs/cli.md)");
    parser.option("--max-part-size", "N", "Cut blocks without explicit parts into parts of N",
                  std::to_string(ir::kDefaultMaxPartSize));
    addModelOptions(parser);
    if (!parser.parse(args))
        return kExitOk;
    const int maxPartSize = parser.getInt("max-part-size", 1, std::numeric_limits<int>::max());
    const ir::Graph graph = loadModelArg(parser, parser.positionals().front());
    const ir::ModelSummary summary = ir::summarize(graph, maxPartSize);
    if (parser.has("json")) {
        Json j = summaryJson(summary);
        j[io::kProvenanceKey] = commandProvenanceJson(parser, &graph);
        std::cout << util::dumpJson(j, 2) << "\n";
    } else
        printText(summary);
    return kExitOk;
}

} // namespace

IOS_REGISTER_COMMAND(info, "info", "Show a model's structure, work and size", runInfo);

} // namespace ios::cli
