// SPDX-License-Identifier: Apache-2.0
#include "ir/metrics.h"

#include "util/checked.h"
#include "util/error.h"

#include <algorithm>

namespace ios::ir {

namespace {

// A checked count, or a UserError naming the node and the count.
int64_t must(std::optional<int64_t> v, const std::string& node, const char* what) {
    if (!v)
        throw UserError(std::string("its ") + what +
                            " overflow 64-bit integers; reduce its channels, kernel or input size",
                        {}, node);
    return *v;
}

} // namespace

OperatorMetrics& OperatorMetrics::add(const OperatorMetrics& o, const std::string& node) {
    flops = must(checked::add(flops, o.flops), node, "summed FLOPs");
    bytesRead = must(checked::add(bytesRead, o.bytesRead), node, "summed bytes read");
    bytesWritten = must(checked::add(bytesWritten, o.bytesWritten), node, "summed bytes written");
    weightBytes = must(checked::add(weightBytes, o.weightBytes), node, "summed weight bytes");
    parameters = must(checked::add(parameters, o.parameters), node, "summed parameters");
    return *this;
}

NodeIndex::NodeIndex(const Graph& graph) {
    add(graph.input);
    for (const Block& b : graph.blocks) {
        for (const Node& n : b.innerNodes)
            add(n);
        add(b.exitNode);
    }
}

void NodeIndex::add(const Node& node) {
    nodes_.emplace(node.name, &node);
    for (const Node& inner : node.nodes)
        add(inner);
}

const Node* NodeIndex::find(const std::string& name) const {
    auto it = nodes_.find(name);
    return it == nodes_.end() ? nullptr : it->second;
}

OperatorMetrics computeMetrics(const Node& node, const NodeIndex& index) {
    OperatorMetrics m;
    if (node.kind == NodeKind::Sequential) {
        for (const Node& inner : node.nodes)
            m.add(computeMetrics(inner, index), node.name);
        return m;
    }
    if (node.kind == NodeKind::Placeholder)
        return m;

    auto count = [&](std::optional<int64_t> v, const char* what) {
        return must(v, node.name, what);
    };
    const TensorShape& out = node.outputShape;
    const int64_t outElems = count(checked::mul(checked::mul(out.c, out.h), out.w), "outputs");
    int64_t inChannels = 0;
    int64_t inHw = 0;
    int64_t valuesRead = 0; // elements read over all input values
    int64_t combines = 0;   // element-wise adds/muls between values of a term
    for (const Term& term : node.inputs) {
        inHw = 0;
        for (const ValueRef& v : term) {
            const Node* src = index.find(v.node);
            const int64_t hw =
                src ? count(checked::mul(src->outputShape.h, src->outputShape.w), "inputs") : 0;
            inHw = std::max(inHw, hw); // a 1x1 value broadcasts over the others' H x W
            valuesRead = count(
                checked::add(valuesRead, count(checked::mul(v.channels(), hw), "input values")),
                "input values");
        }
        if (!term.empty()) {
            const int64_t width = term.front().channels();
            inChannels = count(checked::add(inChannels, width), "input channels");
            const auto extra = static_cast<int64_t>(term.size() - 1);
            combines =
                count(checked::add(combines, count(checked::mul(checked::mul(extra, width), inHw),
                                                   "element-wise operations")),
                      "element-wise operations");
        }
    }
    m.bytesRead = count(checked::mul(valuesRead, kBytesPerElement), "bytes read");
    m.bytesWritten = count(checked::mul(outElems, kBytesPerElement), "bytes written");

    switch (node.kind) {
    case NodeKind::Conv: {
        const ConvAttrs& a = node.conv;
        const int64_t perFilter =
            count(checked::mul(checked::mul(inChannels / a.groups, a.kernel.h), a.kernel.w),
                  "parameters");
        m.parameters = count(checked::add(checked::mul(a.outChannels, perFilter), a.outChannels),
                             "parameters"); // weights + bias
        m.weightBytes = count(checked::mul(m.parameters, kBytesPerElement), "weight bytes");
        const int64_t activation = a.act != ActType::Identity ? outElems : 0;
        m.flops = count(
            checked::add(checked::add(checked::mul(checked::mul(perFilter, outElems), 2), combines),
                         activation),
            "FLOPs");
        break;
    }
    case NodeKind::Pool: {
        const PoolAttrs& a = node.pool;
        const bool global = a.type == PoolType::GlobalAvg || a.type == PoolType::GlobalMax;
        const int64_t window = global ? inHw : a.kernel.h * a.kernel.w;
        m.flops = count(checked::add(checked::mul(window, outElems), combines), "FLOPs");
        break;
    }
    case NodeKind::Relu:
    case NodeKind::Activation:
        m.flops = count(checked::add(outElems, combines), "FLOPs");
        break;
    case NodeKind::Norm: {
        // Per element: LayerNorm 7 (sum for the mean, subtract, square, sum, normalize, scale,
        // shift), softmax 5 (max, subtract, exp, sum, divide); plus one reciprocal square root
        // per normalized row of a LayerNorm, which also has a scale and a shift per channel.
        const bool layerNorm = node.norm.type == NormType::LayerNorm;
        const int64_t rows =
            count(checked::mul(checked::mul(out.h, out.w), node.norm.groups), "rows");
        const int64_t perElement = layerNorm ? 7 : 5;
        m.flops = count(checked::add(checked::add(checked::mul(outElems, perElement), combines),
                                     layerNorm ? rows : 0),
                        "FLOPs");
        if (layerNorm) {
            m.parameters = count(checked::mul(out.c, 2), "parameters");
            m.weightBytes = count(checked::mul(m.parameters, kBytesPerElement), "weight bytes");
        }
        break;
    }
    case NodeKind::Matmul: {
        // 2 FLOPs per multiply-add: every output element sums over d (A·Bᵀ) or over B's
        // positions (A·V); in both cases outputs × depth = positions_A × positions_B × C.
        const Node* b = node.inputs.size() == 2 && !node.inputs[1].empty()
                            ? index.find(node.inputs[1].front().node)
                            : nullptr;
        const int64_t keys =
            b ? count(checked::mul(b->outputShape.h, b->outputShape.w), "positions") /
                    std::max<int64_t>(1, node.matmul.windows)
              : 0; // per window
        const int64_t depth = node.matmul.transposeB ? node.inputs.front().front().channels() /
                                                           std::max<int64_t>(1, node.matmul.heads)
                                                     : keys;
        m.flops =
            count(checked::add(checked::mul(checked::mul(outElems, depth), 2), combines), "FLOPs");
        break;
    }
    case NodeKind::Tokens: {
        // A copy; the learned tokens are C values each, the embedding table its own extent
        // (added once per output element).
        const TokenAttrs& a = node.tokens;
        const int64_t table =
            a.embed ? count(checked::mul(a.tableChannels(out.c), a.tablePositions()), "parameters")
                    : 0;
        m.flops = count(checked::add(a.embed ? outElems : 0, combines), "FLOPs");
        m.parameters =
            count(checked::add(checked::mul(out.c, a.learnedTokens()), table), "parameters");
        m.weightBytes = count(checked::mul(m.parameters, kBytesPerElement), "weight bytes");
        break;
    }
    case NodeKind::Opaque: // unknown arithmetic: counted as none, its memory traffic is real
        m.flops = 0;
        break;
    default: // identity, element: only the combining of values costs arithmetic
        m.flops = combines;
        break;
    }
    return m;
}

} // namespace ios::ir
