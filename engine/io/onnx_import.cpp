// SPDX-License-Identifier: Apache-2.0
#include "io/onnx_import.h"

#include "io/model_format.h"
#include "io/onnx/onnx_blocks.h"
#include "io/onnx/onnx_lowering.h"
#include "io/onnx/onnx_shape.h"
#include "ir/validate.h"
#include "util/error.h"
#include "util/input_file.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <unordered_set>

namespace ios::io {

namespace {

using onnx::Model;

// Inputs at these positions of these operators are parameters (weights, shape operands), so
// a graph input used only there is a weight exported as an input, not the model's data.
bool isParameterSlot(const onnx::Node& n, size_t input) {
    static const std::set<std::string, std::less<>> ops{"Conv",         "BatchNormalization",
                                                        "Gemm",         "MatMul",
                                                        "Reshape",      "Clip",
                                                        "Pad",          "Slice",
                                                        "Split",        "Unsqueeze",
                                                        "Squeeze",      "ReduceMean",
                                                        "ReduceMax",    "PRelu",
                                                        "Resize",       "Expand",
                                                        "ConvTranspose"};
    return input > 0 && ops.contains(n.opType);
}

// The graph input the network computes on. Weights exported as inputs reach only parameter
// slots, possibly through Identity/Cast (PyTorch shares weights through Identity nodes).
std::string dataInputOf(const Model& m, const std::vector<size_t>& order) {
    std::unordered_set<std::string> dataUse;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const onnx::Node& n = m.nodes[*it];
        const bool passThrough = n.opType == "Identity" || n.opType == "Cast";
        const bool outputIsData =
            std::any_of(n.outputs.begin(), n.outputs.end(),
                        [&](const std::string& o) { return dataUse.contains(o); }) ||
            std::any_of(n.outputs.begin(), n.outputs.end(), [&](const std::string& o) {
                return std::find(m.outputs.begin(), m.outputs.end(), o) != m.outputs.end();
            });
        for (size_t i = 0; i < n.inputs.size(); ++i)
            if (!isParameterSlot(n, i) && (!passThrough || outputIsData))
                dataUse.insert(n.inputs[i]);
    }
    std::vector<std::string> candidates;
    for (const onnx::ValueInfo& v : m.inputs)
        if (!m.initializers.contains(v.name) && dataUse.contains(v.name))
            candidates.push_back(v.name);
    if (candidates.size() == 1)
        return candidates.front();
    if (candidates.empty())
        throw UserError("no graph input feeds the network (all inputs are initializers or "
                        "weights)");
    std::string list;
    for (const std::string& c : candidates)
        list += (list.empty() ? "'" : ", '") + c + "'";
    throw UserError("the model has several data inputs (" + list +
                    "); an IOS graph has exactly one");
}

std::vector<int64_t> inputDims(const Model& m, const std::string& input,
                               const ModelLoadOptions& options) {
    std::vector<int64_t> dims;
    for (const onnx::ValueInfo& v : m.inputs)
        if (v.name == input && v.hasShape)
            dims = v.dims;
    if (!options.inputShape.empty()) {
        if (!dims.empty() && dims.size() != options.inputShape.size())
            throw UserError("the input shape has " + std::to_string(options.inputShape.size()) +
                                " dims but input '" + input + "' has rank " +
                                std::to_string(dims.size()),
                            Hint::InputShape);
        dims = options.inputShape;
    }
    if (dims.size() != 4)
        throw UserError("input '" + input + "' must have shape N x C x H x W (rank 4)" +
                            (dims.empty() ? std::string(" but declares none: give its shape")
                                          : ", not rank " + std::to_string(dims.size())),
                        Hint::InputShape);
    for (int64_t d : dims)
        if (d <= 0)
            throw UserError("input '" + input +
                                "' has dynamic or empty dims; give its shape NxCxHxW (e.g. "
                                "1x3x224x224)",
                            Hint::InputShape);
    dims[0] = 1; // the IR describes one sample; the batch size is a cost-model option
    return dims;
}

} // namespace

std::vector<int64_t> parseInputShape(std::string_view text) {
    std::vector<int64_t> dims;
    size_t pos = 0;
    while (pos <= text.size()) {
        const size_t end = text.find_first_of("x,X", pos);
        const std::string_view part =
            text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
        int64_t v = 0;
        const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || v <= 0 ||
            v > (int64_t{1} << 20))
            throw UserError("invalid input shape '" + std::string(text) +
                                "': expected dims in [1, 1048576] like 1x3x224x224",
                            Hint::InputShape);
        dims.push_back(v);
        if (end == std::string_view::npos)
            break;
        pos = end + 1;
    }
    if (dims.size() != 4)
        throw UserError("invalid input shape '" + std::string(text) +
                            "': expected 4 dims N x C x H x W",
                        Hint::InputShape);
    return dims;
}

bool onnxSupportAvailable() {
    return onnx::supportAvailable();
}

ir::Graph parseOnnx(std::string_view bytes, const std::string& source,
                    const ModelLoadOptions& options) {
    try {
        const Model model = onnx::readModel(bytes);
        const std::vector<size_t> order = onnx::topologicalOrder(model);
        const std::string input = dataInputOf(model, order);
        const onnx::TensorTable tensors =
            onnx::inferTensors(model, order, input, inputDims(model, input, options));
        // The file's stem names the model (PyTorch names every graph "torch_jit").
        std::string name = std::filesystem::path(source).stem().string();
        if (name.empty())
            name = model.graphName;
        ir::Graph graph =
            onnx::buildBlocks(onnx::lower(model, order, tensors, input, options.allowOpaque), name);
        ir::validateAndInferShapes(graph);
        return graph;
    } catch (const UserError& e) {
        throw e.inFile(source);
    }
}

ir::Graph loadOnnxFile(const std::filesystem::path& path, const ModelLoadOptions& options) {
    return parseOnnx(util::readInputFile(path, util::InputKind::OnnxModel), path.string(), options);
}

IOS_REGISTER_MODEL_FORMAT(onnx, ModelFormatEntry{.key = "onnx",
                                                 .suffix = ".onnx",
                                                 .label = "ONNX",
                                                 .rank = 30,
                                                 .read = loadOnnxFile,
                                                 .write = {}});

} // namespace ios::io
