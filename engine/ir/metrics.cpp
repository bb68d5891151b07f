#include "ir/metrics.h"

#include <algorithm>

namespace ios::ir {

OperatorMetrics& OperatorMetrics::operator+=(const OperatorMetrics& o) {
    flops += o.flops;
    bytesRead += o.bytesRead;
    bytesWritten += o.bytesWritten;
    weightBytes += o.weightBytes;
    parameters += o.parameters;
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
            m += computeMetrics(inner, index);
        return m;
    }
    if (node.kind == NodeKind::Placeholder)
        return m;

    const TensorShape& out = node.outputShape;
    const double outElems = static_cast<double>(out.elements());
    int64_t inChannels = 0;
    int64_t inHw = 0;
    int64_t valuesRead = 0; // elements read over all input values
    int64_t combines = 0;   // element-wise adds/muls between values of a term
    for (const Term& term : node.inputs) {
        inHw = 0;
        for (const ValueRef& v : term) {
            const Node* src = index.find(v.node);
            const int64_t hw = src ? src->outputShape.h * src->outputShape.w : 0;
            inHw = std::max(inHw, hw); // a 1x1 value broadcasts over the others' H x W
            valuesRead += v.channels() * hw;
        }
        if (!term.empty()) {
            inChannels += term.front().channels();
            combines += static_cast<int64_t>(term.size() - 1) * term.front().channels() * inHw;
        }
    }
    m.bytesRead = valuesRead * kBytesPerElement;
    m.bytesWritten = out.elements() * kBytesPerElement;

    switch (node.kind) {
    case NodeKind::Conv: {
        const ConvAttrs& a = node.conv;
        const int64_t perFilter = (inChannels / a.groups) * a.kernel.h * a.kernel.w;
        m.parameters = a.outChannels * perFilter + a.outChannels; // weights + bias
        m.weightBytes = m.parameters * kBytesPerElement;
        m.flops = 2.0 * static_cast<double>(perFilter) * outElems + static_cast<double>(combines);
        if (a.act != ActType::Identity)
            m.flops += outElems;
        break;
    }
    case NodeKind::Pool: {
        const PoolAttrs& a = node.pool;
        const bool global = a.type == PoolType::GlobalAvg || a.type == PoolType::GlobalMax;
        const double window =
            global ? static_cast<double>(inHw) : static_cast<double>(a.kernel.h * a.kernel.w);
        m.flops = window * outElems + static_cast<double>(combines);
        break;
    }
    case NodeKind::Relu:
    case NodeKind::Activation:
        m.flops = outElems + static_cast<double>(combines);
        break;
    case NodeKind::Opaque: // unknown arithmetic: counted as none, its memory traffic is real
        m.flops = 0;
        break;
    default: // identity, element: only the combining of values costs arithmetic
        m.flops = static_cast<double>(combines);
        break;
    }
    return m;
}

} // namespace ios::ir
