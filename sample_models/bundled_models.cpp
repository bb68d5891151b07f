// SPDX-License-Identifier: Apache-2.0
#include "bundled_models.h"

#include "io/ios_json.h"
#include "io/model_file.h"
#include "random_dag.h"
#include "util/error.h"
#include "util/input_file.h"

#include <filesystem>
#include <system_error>

namespace ios::samples {

namespace embedded {
extern const std::string_view k_inception_v3_ios_json;
extern const std::string_view k_squeezenet_ios_json;
extern const std::string_view k_nasnet_large_ios_json;
extern const std::string_view k_nasnet_large_parts_json;
extern const std::string_view k_randwire_large_ios_json;
extern const std::string_view k_demo_figure2_ios_json;
extern const std::string_view k_demo_inception_module_ios_json;
extern const std::string_view k_demo_random_dag_ios_json;
extern const std::string_view k_darts_v2_cells_ios_json;
extern const std::string_view k_darts_v2_cells_parts_json;
extern const std::string_view k_swiftnet_cell_ios_json;
} // namespace embedded

const std::vector<BundledModel>& bundledModels() {
    static const std::vector<BundledModel> models{
        {"inception_v3", "Inception V3 (299x299), 13 blocks, 119 operators", true},
        {"squeezenet", "SqueezeNet (224x224), 12 blocks, 50 operators", true},
        {"nasnet_large", "NasNet-A large (331x331), 1 block in 25 explicit parts, 374 operators",
         true},
        {"randwire_large", "RandWire large (224x224), 6 blocks, 120 operators", true},
        {"demo_figure2", "IOS paper Figure 2: convolutions a -> b, c, d on one input", false},
        {"demo_inception_module", "One Inception-A module (4 branches, concat)", false},
        {"demo_random_dag", "A small random DAG of convolutions", false},
        {"darts_v2_cells",
         "DARTS V2 normal + reduction cell (28x28, C=48), 3 explicit parts, 51 operators", false},
        {"swiftnet_cell",
         "A SwiftNet-like cell (56x56), 33 operators: concatenations into ReLU-led convs", false},
    };
    return models;
}

bool isBundledModel(std::string_view name) {
    return !bundledModelText(name).empty();
}

std::string_view bundledModelText(std::string_view name) {
    using namespace embedded;
    if (name == "inception_v3")
        return k_inception_v3_ios_json;
    if (name == "squeezenet")
        return k_squeezenet_ios_json;
    if (name == "nasnet_large")
        return k_nasnet_large_ios_json;
    if (name == "randwire_large")
        return k_randwire_large_ios_json;
    if (name == "demo_figure2")
        return k_demo_figure2_ios_json;
    if (name == "demo_inception_module")
        return k_demo_inception_module_ios_json;
    if (name == "demo_random_dag")
        return k_demo_random_dag_ios_json;
    if (name == "darts_v2_cells")
        return k_darts_v2_cells_ios_json;
    if (name == "swiftnet_cell")
        return k_swiftnet_cell_ios_json;
    return {};
}

ir::Graph loadBundledModel(std::string_view name) {
    const std::string_view text = bundledModelText(name);
    if (text.empty())
        throw UserError("unknown bundled model '" + std::string(name) + "'");
    const std::string source = "<bundled " + std::string(name) + ">";
    ir::Graph graph = io::parseIosJson(text, source);
    // Explicit DP parts (docs/formats.md "Parts files"), as a file beside the model gives them.
    if (name == "nasnet_large")
        io::applyPartsJson(graph, embedded::k_nasnet_large_parts_json, source + " parts");
    if (name == "darts_v2_cells")
        io::applyPartsJson(graph, embedded::k_darts_v2_cells_parts_json, source + " parts");
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
