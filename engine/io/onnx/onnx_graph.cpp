// SPDX-License-Identifier: Apache-2.0
// Graph-level helpers of the ONNX import: which operators are known, constant integer
// operands, Slice ranges, sliding-window extents and the dependency order of the nodes.
#include "io/onnx/onnx_checks.h"
#include "io/onnx/onnx_shape.h"

#include <algorithm>
#include <array>
#include <functional>
#include <numeric>

namespace ios::io::onnx {

using namespace detail;

namespace {

constexpr std::array<std::string_view, 50> kKnownOps{"Conv",
                                                     "BatchNormalization",
                                                     "Relu",
                                                     "Clip",
                                                     "Sigmoid",
                                                     "HardSigmoid",
                                                     "HardSwish",
                                                     "Tanh",
                                                     "LeakyRelu",
                                                     "Add",
                                                     "Sub",
                                                     "Mul",
                                                     "Div",
                                                     "Sum",
                                                     "Concat",
                                                     "MaxPool",
                                                     "AveragePool",
                                                     "GlobalAveragePool",
                                                     "GlobalMaxPool",
                                                     "Pad",
                                                     "Flatten",
                                                     "Reshape",
                                                     "Gemm",
                                                     "MatMul",
                                                     "Dropout",
                                                     "Identity",
                                                     "ReduceMean",
                                                     "ReduceMax",
                                                     "Transpose",
                                                     "Slice",
                                                     "Split",
                                                     "Constant",
                                                     "Shape",
                                                     "Gather",
                                                     "Unsqueeze",
                                                     "Squeeze",
                                                     "Cast",
                                                     "ConstantOfShape",
                                                     "Softmax",
                                                     "Gelu",
                                                     "LayerNormalization",
                                                     "Mod",
                                                     "Equal",
                                                     "Where",
                                                     "Expand",
                                                     "Pow",
                                                     "Einsum",
                                                     "Range",
                                                     "ScatterND",
                                                     "Not"};

} // namespace

std::optional<std::vector<int64_t>> constInts(const Node& node, size_t input,
                                              std::string_view attrName, const TensorTable& table) {
    if (input < node.inputs.size() && !node.inputs[input].empty()) {
        auto it = table.find(node.inputs[input]);
        if (it != table.end() && it->second.value)
            return it->second.value;
        return std::nullopt;
    }
    if (!attrName.empty() && node.attr(attrName))
        return node.attrInts(attrName);
    return std::nullopt;
}

int64_t SliceRange::length() const {
    return step > 0 ? (end > begin ? (end - begin + step - 1) / step : 0)
                    : (begin > end ? (begin - end - step - 1) / -step : 0);
}

std::optional<std::vector<SliceRange>>
sliceRanges(const Node& node, const std::vector<int64_t>& dims, const TensorTable& table) {
    const bool inputs = node.inputs.size() > 1; // opset >= 10: bounds are inputs
    const auto starts = inputs ? constInts(node, 1, "", table) : node.attrInts("starts");
    const auto ends = inputs ? constInts(node, 2, "", table) : node.attrInts("ends");
    if (!starts || !ends)
        return std::nullopt;
    if (starts->size() != ends->size())
        fail(node, "starts and ends differ in length");
    std::vector<int64_t> axes(starts->size());
    std::iota(axes.begin(), axes.end(), 0);
    if (auto a = inputs ? constInts(node, 3, "", table) : node.attrInts("axes"); a && !a->empty())
        axes = *a;
    std::vector<int64_t> steps(starts->size(), 1);
    if (auto st = inputs ? constInts(node, 4, "", table) : std::nullopt; st && !st->empty())
        steps = *st;
    if (axes.size() != starts->size() || steps.size() != starts->size())
        fail(node, "starts, ends, axes and steps differ in length");
    std::vector<SliceRange> out;
    for (int64_t d : dims)
        out.push_back({0, d, 1});
    for (size_t i = 0; i < axes.size(); ++i) {
        const size_t ax = normAxis(node, axes[i], dims.size());
        const int64_t d = dims[ax];
        const int64_t st = steps[i];
        if (st == 0 || st < -kMaxDimValue || st > kMaxDimValue)
            fail(node, "invalid slice step " + std::to_string(st));
        auto clampIdx = [&](int64_t v, int64_t lo, int64_t hi) {
            if (v < 0)
                v = v < -d ? -1 : v + d;
            return std::clamp(v, lo, hi);
        };
        const int64_t lo = st > 0 ? 0 : -1, hi = st > 0 ? d : d - 1;
        out[ax] = {clampIdx((*starts)[i], lo, hi), clampIdx((*ends)[i], lo, hi), st};
    }
    return out;
}

bool isKnownOp(const Node& node) {
    return node.domain.empty() &&
           std::find(kKnownOps.begin(), kKnownOps.end(), node.opType) != kKnownOps.end();
}

bool isLookupOf(const Node& node, const std::string& ids) {
    return node.opType == "Gather" && node.inputs.size() == 2 && node.inputs[1] == ids &&
           node.inputs[0] != ids && node.attrInt("axis", 0) == 0 && !node.outputs.empty();
}

int64_t windowOutput(const Node& node, int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                     int64_t padBegin, int64_t padEnd, bool ceilMode) {
    if (kernel > kMaxDimValue || dilation > kMaxDimValue || stride > kMaxDimValue ||
        padBegin > kMaxDimValue || padEnd > kMaxDimValue)
        fail(node, "implausible kernel, stride, dilation or padding");
    const int64_t effective = (kernel - 1) * dilation + 1;
    const int64_t span = in + padBegin + padEnd - effective;
    if (span < 0)
        fail(node, "kernel " + std::to_string(effective) + " does not fit input extent " +
                       std::to_string(in) + " with padding " + std::to_string(padBegin) + "+" +
                       std::to_string(padEnd));
    int64_t out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
    // PyTorch (and ONNX Runtime): the last window must start inside the input or left padding.
    if (ceilMode && (out - 1) * stride >= in + padBegin)
        --out;
    return out;
}

std::vector<size_t> topologicalOrder(const Model& model) {
    std::unordered_map<std::string, size_t> producer;
    for (size_t i = 0; i < model.nodes.size(); ++i)
        for (const std::string& o : model.nodes[i].outputs)
            if (!o.empty() && !producer.emplace(o, i).second)
                throw UserError("tensor '" + o + "' is produced twice", {}, model.nodes[i].name);
    std::unordered_map<std::string, bool> external;
    for (const auto& [name, t] : model.initializers)
        external[name] = true;
    for (const ValueInfo& v : model.inputs)
        external[v.name] = true;
    std::vector<std::vector<size_t>> succ(model.nodes.size());
    std::vector<size_t> indeg(model.nodes.size(), 0);
    for (size_t i = 0; i < model.nodes.size(); ++i)
        for (const std::string& in : model.nodes[i].inputs) {
            if (in.empty())
                continue;
            if (auto it = producer.find(in); it != producer.end()) {
                succ[it->second].push_back(i);
                ++indeg[i];
            } else if (!external.contains(in)) {
                throw UserError("input '" + in + "' of " + model.nodes[i].label() +
                                    " is not produced by any node, initializer or graph input",
                                {}, model.nodes[i].name);
            }
        }
    // Kahn's algorithm; the smallest ready index first keeps the file order when it is valid.
    std::vector<size_t> order, ready;
    for (size_t i = model.nodes.size(); i-- > 0;)
        if (indeg[i] == 0)
            ready.push_back(i);
    while (!ready.empty()) {
        std::pop_heap(ready.begin(), ready.end(), std::greater<>());
        const size_t u = ready.back();
        ready.pop_back();
        order.push_back(u);
        for (size_t v : succ[u])
            if (--indeg[v] == 0) {
                ready.push_back(v);
                std::push_heap(ready.begin(), ready.end(), std::greater<>());
            }
    }
    if (order.size() != model.nodes.size())
        for (size_t i = 0; i < model.nodes.size(); ++i)
            if (indeg[i] != 0)
                throw UserError("the graph has a cycle through " + model.nodes[i].label(), {},
                                model.nodes[i].name);
    return order;
}

} // namespace ios::io::onnx
