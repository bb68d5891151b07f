// SPDX-License-Identifier: Apache-2.0
#include "io/onnx_import.h"

#include "io/model_format.h"
#include "io/onnx/onnx_blocks.h"
#include "io/onnx/onnx_lowering.h"
#include "io/onnx/onnx_patterns.h"
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

// Identity and Cast pass a tensor on unchanged (PyTorch shares weights through Identity).
bool isPassThrough(const onnx::Node& n) {
    return n.opType == "Identity" || n.opType == "Cast";
}

// "'a', 'b'" for the first `limit` names, then "and N more".
std::string quotedNames(const std::vector<std::string>& names, size_t limit = SIZE_MAX) {
    std::string list;
    for (size_t k = 0; k < names.size() && k < limit; ++k)
        list += (k == 0 ? "'" : ", '") + names[k] + "'";
    if (names.size() > limit)
        list += " and " + std::to_string(names.size() - limit) + " more";
    return list;
}

// The nodes that read `input` in a data slot, directly or through such nodes' outputs;
// pass-through nodes carry it on without counting (the exporter shares one parameter among
// layers through Identity nodes).
size_t dataDescendants(const Model& m, const std::vector<size_t>& order, const std::string& input) {
    std::unordered_set<std::string> reached{input};
    size_t nodes = 0;
    for (size_t i : order) {
        const onnx::Node& n = m.nodes[i];
        bool reads = false;
        for (size_t k = 0; k < n.inputs.size() && !reads; ++k)
            reads = !isParameterSlot(n, k) && reached.contains(n.inputs[k]);
        if (!reads)
            continue;
        if (!isPassThrough(n))
            ++nodes;
        reached.insert(n.outputs.begin(), n.outputs.end());
    }
    return nodes;
}

// The graph inputs without values that reach a non-parameter slot. Weights exported as inputs
// reach only parameter slots, possibly through pass-through nodes.
std::vector<std::string> dataCandidates(const Model& m, const std::vector<size_t>& order) {
    std::unordered_set<std::string> dataUse;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const onnx::Node& n = m.nodes[*it];
        const bool outputIsData =
            std::any_of(n.outputs.begin(), n.outputs.end(),
                        [&](const std::string& o) { return dataUse.contains(o); }) ||
            std::any_of(n.outputs.begin(), n.outputs.end(), [&](const std::string& o) {
                return std::find(m.outputs.begin(), m.outputs.end(), o) != m.outputs.end();
            });
        for (size_t i = 0; i < n.inputs.size(); ++i)
            if (!isParameterSlot(n, i) && (!isPassThrough(n) || outputIsData))
                dataUse.insert(n.inputs[i]);
    }
    std::vector<std::string> candidates;
    for (const onnx::ValueInfo& v : m.inputs)
        if (!m.initializers.contains(v.name) && dataUse.contains(v.name))
            candidates.push_back(v.name);
    return candidates;
}

bool isIntegerInput(const Model& m, const std::string& name) {
    constexpr int32_t kInt32 = 6, kInt64 = 7; // onnx::TensorProto::DataType
    return std::any_of(m.inputs.begin(), m.inputs.end(), [&](const onnx::ValueInfo& v) {
        return v.name == name && (v.elemType == kInt32 || v.elemType == kInt64);
    });
}

// The most rows of a table `ids` is looked up in (Gather(table, ids)); 0 when none is known.
int64_t lookupRows(const Model& m, const std::string& ids) {
    int64_t rows = 0;
    for (const onnx::Node& n : m.nodes) {
        if (!onnx::isLookupOf(n, ids))
            continue;
        for (const onnx::ValueInfo& v : m.inputs)
            if (v.name == n.inputs[0] && !v.dims.empty())
                rows = std::max(rows, v.dims[0]);
        if (const auto it = m.initializers.find(n.inputs[0]);
            it != m.initializers.end() && !it->second.dims.empty())
            rows = std::max(rows, it->second.dims[0]);
    }
    return rows;
}

// Token ids beside the embedding table they index reach as many nodes: of `tops`, the integer
// input looked up in the largest table (word ids beside token type or segment ids); empty
// unless exactly one is.
std::string tokenIds(const Model& m, const std::vector<std::string>& tops) {
    std::string ids;
    int64_t best = -1;
    bool tie = false;
    for (const std::string& t : tops) {
        if (!isIntegerInput(m, t))
            continue;
        const int64_t rows = lookupRows(m, t);
        if (rows > best) {
            ids = t;
            best = rows;
            tie = false;
        } else if (rows == best) {
            tie = true;
        }
    }
    return tie ? std::string() : ids;
}

// The graph input the network computes on. Parameters that operators other than convolutions
// read (a class token, a positional embedding, a layer scale, LayerNorm's weights) reach data
// slots too, but only where they join the data: the data input is the candidate from which the
// most nodes compute (every node any of those parameters reaches, and the ones before the first
// join); the others are read as parameters, and the load says so (`warnings`).
std::string dataInputOf(const Model& m, const std::vector<size_t>& order,
                        std::vector<std::string>* warnings) {
    const std::vector<std::string> candidates = dataCandidates(m, order);
    if (candidates.size() == 1)
        return candidates.front();
    if (candidates.empty())
        throw UserError("no graph input feeds the network (all inputs are initializers or "
                        "weights)");
    std::vector<size_t> reach;
    for (const std::string& c : candidates)
        reach.push_back(dataDescendants(m, order, c));
    const size_t most = *std::max_element(reach.begin(), reach.end());
    std::vector<std::string> tops;
    std::vector<std::string> others;
    for (size_t k = 0; k < candidates.size(); ++k)
        (reach[k] == most ? tops : others).push_back(candidates[k]);
    // Token ids are the data, the float tables they index are not.
    if (const std::string ids = tokenIds(m, tops); tops.size() > 1 && !ids.empty()) {
        for (const std::string& t : tops)
            if (t != ids)
                others.push_back(t);
        tops = {ids};
    }
    if (tops.size() > 1)
        throw UserError("the model has several data inputs (" + quotedNames(tops) +
                        ", each feeding " + std::to_string(most) +
                        (most == 1 ? " node" : " nodes") + "); an IOS graph has exactly one");
    if (warnings != nullptr)
        warnings->push_back(std::to_string(others.size()) + " graph input" +
                            (others.size() == 1 ? "" : "s") +
                            " without values read as parameters (" + quotedNames(others, 4) +
                            "): '" + tops.front() + "' feeds the network (" + std::to_string(most) +
                            " nodes compute from it)");
    return tops.front();
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
    if (dims.size() < 2 || dims.size() > 4)
        throw UserError("input '" + input +
                            "' must have shape N x C x H x W (an image), N x T x D (a token "
                            "sequence) or N x D" +
                            (dims.empty() ? std::string(" but declares none: give its shape")
                                          : ", not rank " + std::to_string(dims.size())),
                        Hint::InputShape);
    for (int64_t d : dims)
        if (d <= 0)
            throw UserError("input '" + input +
                                "' has dynamic or empty dims; give its shape (e.g. 1x3x224x224 "
                                "or 1x128x768)",
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
    if (dims.size() < 2 || dims.size() > 4)
        throw UserError("invalid input shape '" + std::string(text) +
                            "': expected N x C x H x W, N x T x D or N x D",
                        Hint::InputShape);
    return dims;
}

bool onnxSupportAvailable() {
    return onnx::supportAvailable();
}

ir::Graph parseOnnx(std::string_view bytes, const std::string& source,
                    const ModelLoadOptions& options) {
    try {
        Model model = onnx::readModel(bytes);
        onnx::foldErfGelu(model);
        onnx::foldLayerNorm(model);
        const std::vector<size_t> order = onnx::topologicalOrder(model);
        const std::string input = dataInputOf(model, order, options.warnings);
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
