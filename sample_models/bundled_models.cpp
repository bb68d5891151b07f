// SPDX-License-Identifier: Apache-2.0
#include "bundled_models.h"

#include "io/ios_json.h"
#include "io/model_file.h"
#include "io/onnx_import.h"
#include "random_dag.h"
#include "util/error.h"
#include "util/input_file.h"

#include <filesystem>
#include <span>
#include <system_error>

namespace ios::samples {

namespace embedded {
extern const std::span<const std::pair<std::string_view, std::string_view>> kFiles;
} // namespace embedded

namespace {

// One line per bundled model: what menus show, and the embedded files it is read from (an
// explicit parts file beside it, docs/formats.md "Parts files"). The format follows the
// model file's extension: IOS JSON, or a weight-less ONNX export (sample_models/onnx).
struct Entry {
    BundledModel model;
    std::string_view file;
    std::string_view parts; // empty: cut by max part size
};

const std::vector<Entry>& entries() {
    static const std::vector<Entry> table{
        {{"inception_v3", "Inception V3 (299x299), 13 blocks, 119 operators", true},
         "inception_v3.ios.json",
         {}},
        {{"squeezenet", "SqueezeNet (224x224), 12 blocks, 50 operators", true},
         "squeezenet.ios.json",
         {}},
        {{"nasnet_large", "NasNet-A large (331x331), 1 block in 25 explicit parts, 374 operators",
          true},
         "nasnet_large.ios.json",
         "nasnet_large.parts.json"},
        {{"randwire_large", "RandWire large (224x224), 6 blocks, 120 operators", true},
         "randwire_large.ios.json",
         {}},
        {{"demo_figure2", "IOS paper Figure 2: convolutions a -> b, c, d on one input", false},
         "demo_figure2.ios.json",
         {}},
        {{"demo_inception_module", "One Inception-A module (4 branches, concat)", false},
         "demo_inception_module.ios.json",
         {}},
        {{"demo_random_dag", "A small random DAG of convolutions", false},
         "demo_random_dag.ios.json",
         {}},
        {{"darts_v2_cells",
          "DARTS V2 normal + reduction cell (28x28, C=48), 3 explicit parts, 51 operators", false},
         "darts_v2_cells.ios.json",
         "darts_v2_cells.parts.json"},
        {{"swiftnet_cell",
          "A SwiftNet-like cell (56x56), 33 operators: concatenations into ReLU-led convs", false},
         "swiftnet_cell.ios.json",
         {}},
        {{"convnext_tiny",
          "ConvNeXt-T (224x224, torchvision ONNX): LayerNorm, GELU, 101 operators in 23 blocks",
          false},
         "convnext_tiny.onnx",
         {}},
        {{"vit_b_16",
          "ViT-B/16 (224x224, torchvision ONNX): class token, 12-head self-attention, 137 "
          "operators in 26 blocks",
          false},
         "vit_b_16.onnx",
         {}},
        {{"swin_t",
          "Swin-T (224x224, torchvision ONNX): shifted-window attention, 218 operators in 32 "
          "blocks",
          false},
         "swin_t.onnx",
         {}},
    };
    return table;
}

std::string_view embeddedFile(std::string_view file) {
    for (const auto& [name, contents] : embedded::kFiles)
        if (name == file)
            return contents;
    return {};
}

const Entry* entryOf(std::string_view name) {
    for (const Entry& e : entries())
        if (e.model.name == name)
            return &e;
    return nullptr;
}

} // namespace

const std::vector<BundledModel>& bundledModels() {
    static const std::vector<BundledModel> models = [] {
        std::vector<BundledModel> out;
        for (const Entry& e : entries())
            out.push_back(e.model);
        return out;
    }();
    return models;
}

bool isBundledModel(std::string_view name) {
    return entryOf(name) != nullptr;
}

std::string_view bundledModelText(std::string_view name) {
    const Entry* e = entryOf(name);
    return e == nullptr ? std::string_view() : embeddedFile(e->file);
}

ir::Graph loadBundledModel(std::string_view name) {
    const Entry* e = entryOf(name);
    if (e == nullptr)
        throw UserError("unknown bundled model '" + std::string(name) + "'");
    const std::string source = "<bundled " + std::string(name) + ">";
    const std::string_view text = embeddedFile(e->file);
    if (e->file.ends_with(".onnx")) // named after the file's stem, as any ONNX file is
        return io::parseOnnx(text, std::string(e->file));
    ir::Graph graph = io::parseIosJson(text, source);
    if (!e->parts.empty())
        io::applyPartsJson(graph, embeddedFile(e->parts), source + " parts");
    return graph;
}

ir::Graph loadModel(const std::string& pathOrName) {
    return loadModel(pathOrName, io::ModelLoadOptions{});
}

ir::Graph loadModel(const std::string& pathOrName, const io::ModelLoadOptions& options) {
    std::error_code ec;
    if (util::isStandardInput(pathOrName) || std::filesystem::exists(pathOrName, ec))
        return io::loadModelFile(pathOrName, options);
    if (isBundledModel(pathOrName))
        return loadBundledModel(pathOrName);
    if (std::optional<ir::Graph> generated = generatedModel(pathOrName))
        return std::move(*generated);
    std::string names;
    for (const BundledModel& m : bundledModels())
        names += (names.empty() ? "" : ", ") + std::string(m.name);
    throw UserError("no such file, and not a bundled model (bundled: " + names +
                        "; generated: " + std::string(kRandomDagPattern) + ")",
                    pathOrName);
}

} // namespace ios::samples
