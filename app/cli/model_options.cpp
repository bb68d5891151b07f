// SPDX-License-Identifier: Apache-2.0
#include "model_options.h"

#include "bundled_models.h"
#include "message_mode.h"
#include "util/message_text.h"

namespace ios::cli {

void addModelOptions(ArgParser& parser) {
    parser.option("--input-shape", "DIMS",
                  "ONNX: the model input's shape, overriding dynamic dims: NxCxHxW for images "
                  "(e.g. 1x3x224x224), NxTxD for token sequences (e.g. 1x128x768)");
    parser.flag("--allow-opaque",
                "ONNX: import unsupported operators as opaque ones (zero FLOPs, real traffic)");
}

io::ModelLoadOptions modelOptions(const ArgParser& parser) {
    io::ModelLoadOptions options;
    if (auto shape = parser.value("input-shape"))
        options.inputShape = io::parseInputShape(*shape);
    options.allowOpaque = parser.has("allow-opaque");
    return options;
}

namespace {
std::string& currentModelSlot() {
    static std::string model;
    return model;
}
} // namespace

ir::Graph loadModelArg(const ArgParser& parser, const std::string& pathOrName) {
    currentModelSlot() = pathOrName;
    std::vector<std::string> warnings;
    io::ModelLoadOptions options = modelOptions(parser);
    options.warnings = &warnings;
    ir::Graph graph = samples::loadModel(pathOrName, options);
    for (const std::string& w : warnings)
        notes() << "ios-sched: warning: " << util::escapeControl(pathOrName) << ": "
                << util::escapeControl(w) << "\n";
    return graph;
}

ir::Graph loadModelArg(const ArgParser& parser, const std::string& pathOrName,
                       util::OutputTransaction& outputs) {
    outputs.input(pathOrName, "the model file");
    return loadModelArg(parser, pathOrName);
}

const std::string& currentModel() {
    return currentModelSlot();
}

} // namespace ios::cli
