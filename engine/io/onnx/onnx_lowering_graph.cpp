// SPDX-License-Identifier: Apache-2.0
#include "io/onnx/onnx_lowerer.h"

#include <algorithm>

namespace ios::io::onnx {

namespace detail {

void Lowerer::opaque(const Node& n, const std::vector<const Val*>& in, const std::string& why) {
    const std::string key = n.opType + (n.domain.empty() ? "" : " (domain " + n.domain + ")") +
                            (why.empty() ? "" : ": " + why);
    unsupported_[key].push_back(n.name);
    if (!allowOpaque_) {
        for (const std::string& o : n.outputs)
            if (!o.empty())
                vals_[o].poisoned = true;
        return;
    }
    std::vector<Term> inputs;
    for (const Val* v : in)
        if (v != nullptr)
            inputs.insert(inputs.end(), v->terms.begin(), v->terms.end());
    for (const std::string& o : n.outputs) {
        if (o.empty() || (n.opType == "Dropout" && &o != &n.outputs.front()))
            continue;
        ir::Node node;
        node.kind = NodeKind::Opaque;
        node.hintName = n.opType;
        node.inputs = inputs;
        node.outputShape = chw(dimsOf(n, o));
        const int idx = add(std::move(node), n.outputs.size() == 1 ? n.name : n.name + ":" + o);
        vals_[o] = nodeVal(idx, dimsOf(n, o));
    }
}

bool Lowerer::lowerNode(const Node& n, const std::vector<const Val*>& in) {
    const std::string& op = n.opType;
    const Val* x = in.empty() ? nullptr : in[0];
    if (op == "Conv" || op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" ||
        op == "GlobalMaxPool") {
        if (x == nullptr || (op == "Conv" && in.size() < 2) ||
            std::any_of(in.begin() + 1, in.end(), [](const Val* v) { return v != nullptr; }))
            return false; // data weights
        if (op == "Conv" && n.attrInt("group", 1) < 1)
            return false;
        return lowerWindow(n, *x);
    }
    if (op == "ReduceMean" || op == "ReduceMax") {
        const auto axes = constInts(n, 1, "axes", tensors_);
        if (x == nullptr || !axes)
            return false;
        std::vector<int64_t> sorted;
        for (int64_t a : *axes)
            sorted.push_back(a < 0 ? a + static_cast<int64_t>(x->dims.size()) : a);
        std::sort(sorted.begin(), sorted.end());
        if (x->dims.size() == 4 && (x->view == View::Plain || x->view == View::Padded))
            return sorted == std::vector<int64_t>{2, 3} && lowerWindow(n, *x);
        return TokenRules(*this).reduce(n, *x, sorted); // a mean over tokens
    }
    if (op == "Gelu" && n.attrString("approximate", "none") != "none")
        return false; // the tanh approximation computes other values
    if (op == "Relu" || op == "Clip" || op == "Sigmoid" || op == "HardSigmoid" ||
        op == "HardSwish" || op == "Tanh" || op == "LeakyRelu" || op == "BatchNormalization" ||
        op == "Gelu")
        return x != nullptr && x->view != View::Padded && x->view != View::Reshaped &&
               lowerActivation(n, *x);
    if (op == "LayerNormalization" || op == "Softmax")
        return lowerNorm(n, in);
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Sum")
        return lowerBinary(n, in);
    if (op == "Concat")
        return TokenRules(*this).concat(n, in);
    if (op == "Where")
        return TokenRules(*this).masked(n, in);
    if (op == "Pad" && x != nullptr && dimsOf(n, n.outputs.at(0)) == x->dims)
        return lowerShapeOp(n, *x); // pads of zero (Swin's window padding at 224×224)
    if (op == "Pad") {
        const auto pads = constInts(n, 1, "pads", tensors_);
        if (x == nullptr || x->view != View::Plain || x->dims.size() != 4 || !pads ||
            pads->size() != 8 || n.attrString("mode", "constant") != "constant" ||
            (*pads)[0] != 0 || (*pads)[1] != 0 || (*pads)[4] != 0 || (*pads)[5] != 0)
            return false;
        Val v = *x;
        v.view = View::Padded;
        v.dims = dimsOf(n, n.outputs.at(0));
        v.irNode = -1;
        vals_[n.outputs[0]] = v;
        return true;
    }
    if (op == "MatMul" && x != nullptr && in.size() == 2 && in[1] != nullptr)
        return TokenRules(*this).matmul(n, *x, *in[1]); // two activations: attention
    if (op == "Einsum")
        return in.size() == 2 && x != nullptr && in[1] != nullptr &&
               TokenRules(*this).einsum(n, *x, *in[1]);
    if (op == "Gemm" || op == "MatMul")
        return x != nullptr && in.size() >= 2 && in[1] == nullptr && lowerLinear(n, *x);
    return x != nullptr && lowerShapeOp(n, *x);
}

Lowered Lowerer::run(const std::vector<size_t>& order, const std::string& dataInput) {
    Lowered out;
    const NetworkInput input = networkInput(dataInput, tensors_, consumers_);
    out.input = input.placeholder;
    names_.insert(dataInput);
    vals_[dataInput] = input.val;
    for (const Node* lookup : input.lookups)
        vals_[lookup->outputs[0]] = input.val;

    for (size_t i : order) {
        const Node& n = model_.nodes[i];
        std::vector<const Val*> ins;
        bool anyData = false, poisoned = false;
        for (const std::string& t : n.inputs) {
            const Val* v = t.empty() ? nullptr : data(t);
            poisoned = poisoned || (v && v->poisoned);
            anyData = anyData || v;
            ins.push_back(v);
        }
        // Shape reads only the (known) dims of a data tensor: its output is a constant.
        if (!anyData || n.outputs.empty() || n.outputs[0].empty() || n.opType == "Shape" ||
            std::find(input.lookups.begin(), input.lookups.end(), &n) != input.lookups.end())
            continue;   // constants, weights, shape arithmetic (folded); the input's lookups
        if (poisoned) { // downstream of an unsupported operator: still list unknown ones
            if (!isKnownOp(n))
                opaque(n, ins, "");
            for (const std::string& o : n.outputs)
                vals_[o].poisoned = true;
            continue;
        }
        if (!isKnownOp(n))
            opaque(n, ins, "");
        else if (!lowerNode(n, ins))
            opaque(n, ins, "unsupported form");
    }
    if (!unsupported_.empty() && !allowOpaque_) {
        std::string list;
        for (const auto& [op, nodes] : unsupported_) {
            list += (list.empty() ? " " : "; ") + op + " x" + std::to_string(nodes.size()) + ": ";
            for (size_t k = 0; k < nodes.size() && k < 5; ++k)
                list += (k ? ", '" : "'") + nodes[k] + "'";
            if (nodes.size() > 5)
                list += ", ...";
        }
        throw UserError("unsupported ONNX operators:" + list, Hint::AllowOpaque);
    }
    if (model_.outputs.size() != 1)
        throw UserError("the model has " + std::to_string(model_.outputs.size()) +
                        " outputs; only single-output models can be scheduled");
    const Val* result = data(model_.outputs.front());
    if (result == nullptr)
        throw UserError("the model output '" + model_.outputs.front() +
                        "' does not depend on the input '" + dataInput + "'");
    int last = result->irNode;
    if (last < 0 || result->terms != nodeVal(last, result->dims).terms) {
        Node sink;
        sink.name = model_.outputs.front();
        sink.opType = "Output";
        last = newNode(sink, NodeKind::Identity, result->terms, *result);
    }
    if (last < 0 || nodes_.empty())
        throw UserError("the model has no operators between its input and output");

    // Keep what the output needs, in creation (dependency) order.
    std::unordered_map<std::string, size_t> index;
    for (size_t k = 0; k < nodes_.size(); ++k)
        index[nodes_[k].name] = k;
    std::vector<bool> live(nodes_.size(), false);
    std::vector<size_t> stack{static_cast<size_t>(last)};
    live[static_cast<size_t>(last)] = true;
    while (!stack.empty()) {
        const size_t k = stack.back();
        stack.pop_back();
        for (const Term& t : nodes_[k].inputs)
            for (const ValueRef& v : t)
                if (auto it = index.find(v.node); it != index.end() && !live[it->second]) {
                    live[it->second] = true;
                    stack.push_back(it->second);
                }
    }
    for (size_t k = 0; k <= static_cast<size_t>(last); ++k)
        if (live[k])
            out.nodes.push_back(std::move(nodes_[k]));
    return out;
}

} // namespace detail

Lowered lower(const Model& model, const std::vector<size_t>& order, const TensorTable& tensors,
              const std::string& dataInput, bool allowOpaque) {
    return detail::Lowerer(model, tensors, allowOpaque).run(order, dataInput);
}

} // namespace ios::io::onnx
