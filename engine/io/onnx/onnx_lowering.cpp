// SPDX-License-Identifier: Apache-2.0
#include "io/onnx/onnx_lowerer.h"

#include <algorithm>

namespace ios::io::onnx::detail {

std::vector<Term> sliceTerms(const std::vector<Term>& terms, int64_t lo, int64_t hi) {
    std::vector<Term> out;
    int64_t off = 0;
    for (const Term& t : terms) {
        const int64_t w = t.front().channels();
        const int64_t a = std::max(lo, off), b = std::min(hi, off + w);
        if (a < b) {
            Term cut;
            for (const ValueRef& v : t)
                cut.push_back({v.node, v.begin + (a - off), v.begin + (b - off)});
            out.push_back(std::move(cut));
        }
        off += w;
    }
    return out;
}

bool isChannelAxis(const Val& x, int64_t axis, bool throughLast, int64_t* groups) {
    const auto rank = static_cast<int64_t>(x.dims.size());
    if (rank < 2 || axis < -rank || axis >= rank)
        return false;
    axis = axis < 0 ? axis + rank : axis;
    if (x.view == View::Axes) { // the minor channel axis; the major ones are groups (heads)
        if (x.chanAxes.empty() || x.chanAxes.back() != axis ||
            (throughLast && (x.chanAxes.size() != 1 || axis != rank - 1)))
            return false;
        for (size_t k = 0; groups != nullptr && k + 1 < x.chanAxes.size(); ++k)
            *groups *= x.dims[static_cast<size_t>(x.chanAxes[k])];
        return true;
    }
    if (x.view == View::ChannelsLast)
        return axis == rank - 1;
    if (x.view == View::Flat)
        return axis == 1 && x.termHw == ir::Hw{1, 1};
    if (x.view != View::Plain || axis != 1)
        return false;
    return !throughLast ||
           std::all_of(x.dims.begin() + 2, x.dims.end(), [](int64_t d) { return d == 1; });
}

bool perChannel(const std::vector<int64_t>& c, const Val& x) {
    const size_t rank = x.dims.size();
    if (c.size() > rank)
        return false;
    size_t channel = x.view == View::ChannelsLast ? rank - 1 : 1;
    if (x.view == View::Axes)
        channel = x.chanAxes.size() == 1 ? static_cast<size_t>(x.chanAxes[0]) : rank;
    for (size_t k = 0; k < c.size(); ++k) {
        const size_t axis = rank - c.size() + k; // right-aligned broadcasting
        if (c[k] != 1 && (axis != channel || (x.view == View::Flat && x.termHw != ir::Hw{1, 1})))
            return false;
    }
    return true;
}

ir::TensorShape chw(const std::vector<int64_t>& d) {
    if (d.size() < 2)
        return {d.empty() ? 1 : d[0], 1, 1};
    int64_t w = 1;
    for (size_t i = 3; i < d.size(); ++i)
        w *= d[i];
    return {d[1], d.size() > 2 ? d[2] : 1, w};
}

int64_t fitPadding(const Node& n, int64_t in, int64_t out, int64_t k, int64_t s) {
    const int64_t need = (out - 1) * s + k - in;
    const int64_t p = need <= 0 ? 0 : (need + 1) / 2;
    if ((in + 2 * p - k) / s + 1 != out)
        throw UserError("padding of " + n.opType + " cannot be expressed symmetrically (input " +
                            std::to_string(in) + ", output " + std::to_string(out) + ", kernel " +
                            std::to_string(k) + ", stride " + std::to_string(s) + ")",
                        {}, n.name);
    return p;
}

ActType actFor(const std::string& op) {
    if (op == "Sigmoid" || op == "HardSigmoid" || op == "HardSwish")
        return ActType::Sigmoid; // one transcendental-ish op per element (docs/onnx.md)
    if (op == "Tanh")
        return ActType::Tanh;
    if (op == "Gelu")
        return ActType::Gelu;
    return ActType::Relu; // Relu, Clip (ReLU6), LeakyRelu: one compare per element
}

bool Lowerer::lowerWindow(const Node& n, const Val& x) {
    const std::vector<int64_t>& out = dimsOf(n, n.outputs.at(0));
    const std::string& op = n.opType;
    const bool reduce = op == "ReduceMean" || op == "ReduceMax"; // keepdims=0 gives [1, C]
    if ((out.size() != 4 && !(reduce && out.size() == 2)) || x.dims.size() != 4 ||
        (x.view != View::Plain && x.view != View::Padded))
        return false;
    ir::Node node;
    node.hintName = op;
    node.inputs = x.terms;
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || reduce) {
        if (x.view != View::Plain)
            return false;
        node.kind = NodeKind::Pool;
        node.pool.type = (op == "GlobalMaxPool" || op == "ReduceMax") ? ir::PoolType::GlobalMax
                                                                      : ir::PoolType::GlobalAvg;
        node.pool.kernel = x.termHw; // as the IOS files write global pools
    } else {
        std::vector<int64_t> k = n.attrInts("kernel_shape"), s = n.attrInts("strides");
        if (op == "Conv")
            k.assign(dimsOf(n, n.inputs.at(1)).begin() + 2, dimsOf(n, n.inputs.at(1)).end());
        s.resize(2, 1);
        if (k.size() != 2)
            return false;
        const ir::Hw kernel{k[0], k[1]}, stride{s[0], s[1]};
        const ir::Hw pad{fitPadding(n, x.termHw.h, out[2], kernel.h, stride.h),
                         fitPadding(n, x.termHw.w, out[3], kernel.w, stride.w)};
        if (op == "Conv") {
            node.kind = NodeKind::Conv;
            node.conv = {out[1], kernel, stride, pad, n.attrInt("group", 1), ActType::Identity};
        } else {
            node.kind = NodeKind::Pool;
            node.pool = {op == "MaxPool" ? ir::PoolType::Max : ir::PoolType::Avg, kernel, stride,
                         pad};
        }
    }
    node.outputShape = chw(out);
    vals_[n.outputs[0]] = nodeVal(add(std::move(node), n.name), out);
    return true;
}

bool Lowerer::lowerActivation(const Node& n, const Val& x) {
    const std::string& out = n.outputs.at(0);
    if (n.opType == "BatchNormalization") {
        if ((n.outputs.size() > 1 && !n.outputs[1].empty()) ||
            (x.view != View::Plain && x.view != View::Flat))
            return false; // training mode, or not along the IR's channels
        if (x.irNode >= 0 && soleUse(n.inputs[0]) && irNode(x).kind == NodeKind::Conv &&
            irNode(x).conv.act == ActType::Identity) {
            vals_[out] = x; // folded into the conv's weights and bias
            return true;
        }
        // A standalone BatchNormalization (after a concat, as in DenseNet): a per-channel
        // affine map, one element-wise operator (docs/onnx.md).
        const int idx = newNode(n, NodeKind::Activation, x.terms, x);
        nodes_[static_cast<size_t>(idx)].activation = ActType::Identity;
        vals_[out] = replaced(x, idx);
        return true;
    }
    const ActType act = actFor(n.opType);
    if (x.irNode >= 0 && soleUse(n.inputs[0])) {
        ir::Node& p = irNode(x);
        if (p.kind == NodeKind::Conv && p.conv.act == ActType::Identity) {
            p.conv.act = act;
            vals_[out] = x;
            return true;
        }
        if (p.kind == NodeKind::Activation && p.activation == ActType::Identity) {
            p.activation = act;
            vals_[out] = x;
            return true;
        }
        if (p.kind == NodeKind::Identity && p.inputs.size() == 1 && act == ActType::Relu) {
            p.kind = NodeKind::Relu; // relu(a + b): the sum and the ReLU are one operator
            vals_[out] = x;
            return true;
        }
    }
    const int idx =
        newNode(n, act == ActType::Relu ? NodeKind::Relu : NodeKind::Activation, x.terms, x);
    if (act != ActType::Relu)
        nodes_[static_cast<size_t>(idx)].activation = act;
    vals_[out] = replaced(x, idx);
    return true;
}

bool Lowerer::lowerBinary(const Node& n, const std::vector<const Val*>& in) {
    const std::string& op = n.opType;
    const std::string& out = n.outputs.at(0);
    std::vector<const Val*> operands;
    for (const Val* v : in)
        if (v != nullptr)
            operands.push_back(v);
    const Val& lead = *operands.front(); // channels-last and head views: same shapes only
    std::vector<Val> copies;             // operands copied into the lead's order of positions
    copies.reserve(operands.size());
    for (size_t k = 1; k < operands.size(); ++k)
        if (auto c = TokenRules(*this).inOrderOf(n, *operands[k], lead))
            operands[k] = &copies.emplace_back(std::move(*c));
    const bool channelsLast = lead.view == View::ChannelsLast || lead.view == View::Axes;
    for (const Val* v : operands)
        if ((v->view != View::Plain && v->view != View::Flat && !channelsLast) ||
            (channelsLast && (v->view != lead.view || v->dims != dimsOf(n, out))) ||
            v->chanAxes != lead.chanAxes || v->posAxes != lead.posAxes)
            return false;
    if (operands.size() == 1) { // data ⊙ constant: bias, scale (e.g. a decomposed HardSwish)
        const Val& x = *operands.front();
        const bool first = in[0] != nullptr;
        const std::string& xName = first ? n.inputs[0] : n.inputs[1];
        if (x.dims != dimsOf(n, out))
            return false;
        if (n.inputs.size() == 2 && (op != "Div" || first) && (op != "Sub" || first) &&
            foldConstant(n, x, xName, n.inputs[first ? 1 : 0])) {
            vals_[out] = x;
            return true;
        }
        if (n.inputs.size() == 2 &&
            TokenRules(*this).constant(n, x, xName, n.inputs[first ? 1 : 0]))
            return true;
        const int idx = newNode(n, NodeKind::Activation, x.terms, x);
        nodes_[static_cast<size_t>(idx)].activation = ActType::Identity;
        vals_[out] = replaced(x, idx);
        return true;
    }
    const bool mul = op == "Mul" || op == "Div";
    // SiLU / Swish, x * sigmoid(x) after a conv: fused into the conv as one activation.
    if (op == "Mul" && operands.size() == 2) {
        for (int k = 0; k < 2; ++k) {
            const Val& x = *operands[static_cast<size_t>(k)];
            const Val& s = *operands[static_cast<size_t>(1 - k)];
            if (x.irNode < 0 || s.irNode < 0 || irNode(x).kind != NodeKind::Conv ||
                irNode(x).conv.act != ActType::Identity || irNode(s).kind != NodeKind::Activation ||
                irNode(s).activation != ActType::Sigmoid || irNode(s).inputs != x.terms ||
                uses_[n.inputs[static_cast<size_t>(1 - k)]] != 1 ||
                uses_[n.inputs[static_cast<size_t>(k)]] != 2)
                continue;
            irNode(x).conv.act = ActType::Sigmoid; // the sigmoid node is now unused (dropped)
            vals_[out] = x;
            return true;
        }
    }
    const std::vector<int64_t>& outDims = dimsOf(n, out);
    Term term;
    const Val* big = operands.front();
    for (const Val* v : operands) {
        if (v->dims != outDims && !(v->termHw == ir::Hw{1, 1} && chw(v->dims).c == chw(outDims).c))
            return false; // only same shapes or a per-channel [1, C, 1, 1] broadcast
        if (v->dims == outDims)
            big = v;
    }
    for (const Val* v : operands)
        if (v != big) {
            const Term t = oneTerm(n, *v);
            term.insert(term.end(), t.begin(), t.end());
        }
    const Term t = oneTerm(n, *big);
    term.insert(term.end(), t.begin(), t.end()); // the full-size value last (metrics)
    const bool broadcast = std::any_of(operands.begin(), operands.end(),
                                       [&](const Val* v) { return v->dims != outDims; });
    const NodeKind kind = mul || broadcast ? NodeKind::Element : NodeKind::Identity;
    const int idx = newNode(n, kind, {term}, *big);
    nodes_[static_cast<size_t>(idx)].element = mul ? ir::ElementOp::Mul : ir::ElementOp::Add;
    vals_[out] = replaced(*big, idx);
    return true;
}

bool Lowerer::foldConstant(const Node& n, const Val& x, const std::string& xName,
                           const std::string& constant) {
    // A bias, scaled weights, or a LayerNorm's scale and shift: per channel only (a
    // per-position constant such as a positional embedding stays an operator).
    if (x.irNode < 0 || !soleUse(xName) || !perChannel(dimsOf(n, constant), x))
        return false;
    const ir::Node& p = irNode(x);
    return (p.kind == NodeKind::Conv && p.conv.act == ActType::Identity) ||
           (p.kind == NodeKind::Norm && p.norm.type == ir::NormType::LayerNorm);
}

bool Lowerer::lowerNorm(const Node& n, const std::vector<const Val*>& in) {
    const Val* x = in.empty() ? nullptr : in[0];
    const bool layerNorm = n.opType == "LayerNormalization";
    if (x == nullptr || std::any_of(in.begin() + 1, in.end(), [](const Val* v) { return v; }) ||
        std::any_of(n.outputs.begin() + 1, n.outputs.end(),
                    [](const std::string& o) { return !o.empty(); }))
        return false; // data scale or bias, or the statistics asked for
    // Softmax before opset 13 (and LayerNormalization) reduce from the axis to the last one.
    const int64_t axis = n.attrInt("axis", layerNorm ? -1 : (model_.opset >= 13 ? -1 : 1));
    int64_t groups = 1;
    if (!isChannelAxis(*x, axis, layerNorm || model_.opset < 13, &groups))
        return false;
    const int idx = newNode(n, NodeKind::Norm, x->terms, *x);
    ir::NormAttrs& a = nodes_[static_cast<size_t>(idx)].norm;
    a.groups = groups;
    a.type = layerNorm ? ir::NormType::LayerNorm : ir::NormType::Softmax;
    if (const Attribute* e = n.attr("epsilon"); e != nullptr)
        a.epsilon = e->f;
    vals_[n.outputs[0]] = replaced(*x, idx);
    return true;
}

bool Lowerer::lowerLinear(const Node& n, const Val& x) {
    const std::vector<int64_t>& out = dimsOf(n, n.outputs.at(0));
    // MatMul, or Gemm on [T, C]: the last axis is the channels, in any order of the positions
    // (MaxViT's grid: windows swapped with tokens).
    const auto last = static_cast<int>(x.dims.size()) - 1;
    const bool byAxes = x.view == View::Axes && x.chanAxes == std::vector<int>{last};
    const bool channelsLast = x.view == View::ChannelsLast || byAxes;
    if ((x.view != View::Flat && !channelsLast) || n.attrInt("transA", 0) != 0 || x.alpha != 1.0)
        return false;
    ir::Node node; // a dense layer = a conv whose kernel covers the whole (flattened) map, or,
    node.kind = NodeKind::Conv; // over channels-last positions, a 1×1 conv
    node.hintName = n.opType;
    node.inputs = x.terms;
    node.conv.outChannels = out.back();
    node.conv.kernel = channelsLast ? ir::Hw{1, 1} : x.termHw;
    node.outputShape = channelsLast ? ir::TensorShape{out.back(), x.termHw.h, x.termHw.w}
                                    : ir::TensorShape{out.back(), 1, 1};
    Val v = nodeVal(add(std::move(node), n.name), out);
    if (channelsLast)
        v.view = x.view;
    if (byAxes) {
        v.chanAxes = x.chanAxes;
        v.posAxes = x.posAxes;
    }
    vals_[n.outputs[0]] = v;
    return true;
}

bool Lowerer::lowerShapeOp(const Node& n, const Val& x) {
    const std::string& op = n.opType;
    const std::vector<int64_t>& out = dimsOf(n, n.outputs.at(0));
    Val v = x;
    v.dims = out;
    std::vector<int64_t> perm = n.attrInts("perm");
    const bool movesAxes = op == "Transpose" && [&] {
        for (size_t a = 0; a < perm.size(); ++a)
            if (perm[a] != static_cast<int64_t>(a))
                return true;
        return perm.empty() && x.dims.size() > 1; // the default reverses the axes
    }();
    if (op == "Identity" || op == "Dropout" || op == "Cast" || (out == x.dims && !movesAxes)) {
        if (x.view == View::Reshaped && out == x.origDims && !x.permuted)
            v.view = View::Plain; // reshaped there and back
        vals_[n.outputs[0]] = v;
        return true;
    }
    if (op == "Flatten" || op == "Reshape") {
        if ((x.view == View::Plain || x.view == View::Flat) && out.size() == 2 && out[0] == 1) {
            v.view = View::Flat; // the classifier head's flatten
            vals_[n.outputs[0]] = v;
            return true;
        }
        if (op == "Reshape" && x.view == View::Plain && x.dims.size() == 4 && out.size() == 5 &&
            out[1] != x.dims[1] && out[3] == x.dims[2] && out[4] == x.dims[3]) {
            // Channels split into groups, H and W kept: a channel shuffle's first step (other
            // regroupings, such as heads over flattened positions, are TokenRules' layouts).
            v.view = View::Reshaped;
            v.origDims = x.dims;
            vals_[n.outputs[0]] = v;
            return true;
        }
        if (op == "Reshape" && x.view == View::Reshaped && out == x.origDims) {
            // Channel shuffle: a channel permutation, lowered as one copy (docs/onnx.md).
            Val plain = x;
            plain.view = View::Plain;
            plain.dims = out;
            vals_[n.outputs[0]] = replaced(plain, newNode(n, NodeKind::Identity, x.terms, plain));
            return true;
        }
        return TokenRules(*this).layout(n, x);
    }
    if (op == "Transpose" && x.dims.size() == 4) {
        if (x.view == View::Plain && perm == std::vector<int64_t>{0, 2, 3, 1}) {
            v.view = View::ChannelsLast;
            vals_[n.outputs[0]] = v;
            return true;
        }
        if (x.view == View::ChannelsLast && perm == std::vector<int64_t>{0, 3, 1, 2}) {
            v.view = View::Plain;
            vals_[n.outputs[0]] = v;
            return true;
        }
    }
    if (op == "Transpose" && x.view == View::Reshaped) {
        v.permuted = true;
        vals_[n.outputs[0]] = v;
        return true;
    }
    if (op == "Split" && x.view == View::Plain && x.dims.size() >= 2) {
        // Channel ranges; every other axis must be kept whole (a Slice: TokenRules).
        const int64_t axis = n.attrInt("axis", 0);
        if (axis != 1 && axis != 1 - static_cast<int64_t>(x.dims.size()))
            return false;
        for (size_t o = 0; o < n.outputs.size(); ++o) {
            if (n.outputs[o].empty())
                continue;
            const std::vector<int64_t>& od = dimsOf(n, n.outputs[o]);
            int64_t begin = 0;
            for (size_t p = 0; p < o; ++p)
                begin += dimsOf(n, n.outputs[p])[1];
            for (size_t a = 0; a < od.size(); ++a)
                if (a != 1 && od[a] != x.dims[a])
                    return false;
            Val part = x;
            part.dims = od;
            part.terms = sliceTerms(x.terms, begin, begin + od[1]);
            part.irNode = -1;
            vals_[n.outputs[o]] = part;
        }
        return true;
    }
    return TokenRules(*this).layout(n, x);
}

} // namespace ios::io::onnx::detail
