// SPDX-License-Identifier: Apache-2.0
#include "io/onnx/onnx_patterns.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ios::io::onnx {

namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

// Who writes and who reads each tensor (a graph output counts as a reader).
struct Uses {
    std::unordered_map<std::string, size_t> producer;
    std::unordered_map<std::string, std::pair<int, size_t>> readers; // count, last node

    explicit Uses(const Model& m) {
        for (size_t i = 0; i < m.nodes.size(); ++i) {
            for (const std::string& o : m.nodes[i].outputs)
                producer[o] = i;
            for (const std::string& in : m.nodes[i].inputs) {
                auto& [count, node] = readers[in];
                ++count;
                node = i;
            }
        }
        for (const std::string& o : m.outputs) {
            auto& [count, node] = readers[o];
            ++count;
            node = kNone;
        }
    }
    size_t producerOf(const std::string& t) const {
        const auto it = producer.find(t);
        return it == producer.end() ? kNone : it->second;
    }
    // The one node reading t, when it has exactly one reader and that is a node reading it
    // once.
    size_t soleReader(const std::string& t) const {
        const auto it = readers.find(t);
        return it == readers.end() || it->second.first != 1 ? kNone : it->second.second;
    }
};

std::optional<double> scalarOf(const Tensor& t) {
    if (t.reals && t.reals->size() == 1)
        return t.reals->front();
    return std::nullopt;
}

// The value of a one-element float constant: an initializer or a Constant node's output.
std::optional<double> scalar(const Model& m, const Uses& uses, const std::string& name) {
    if (const auto it = m.initializers.find(name); it != m.initializers.end())
        return scalarOf(it->second);
    const size_t p = uses.producerOf(name);
    if (p == kNone || m.nodes[p].opType != "Constant")
        return std::nullopt;
    const Node& c = m.nodes[p];
    if (const Attribute* a = c.attr("value"); a != nullptr && a->t)
        return scalarOf(*a->t);
    if (const Attribute* a = c.attr("value_float"); a != nullptr)
        return a->f;
    return std::nullopt;
}

bool near(std::optional<double> v, double want) {
    return v && std::abs(*v - want) <= 1e-6 * std::abs(want);
}

bool is(const Model& m, size_t i, const char* op) {
    return i != kNone && m.nodes[i].opType == op && m.nodes[i].domain.empty() &&
           m.nodes[i].inputs.size() == 2 && !m.nodes[i].outputs.empty();
}

// Binary node i computes `operand` ⊙ c with c ≈ want (either order); returns the operand.
std::optional<std::string> withScalar(const Model& m, const Uses& uses, size_t i, double want) {
    const Node& n = m.nodes[i];
    for (int k = 0; k < 2; ++k)
        if (near(scalar(m, uses, n.inputs[static_cast<size_t>(1 - k)]), want))
            return n.inputs[static_cast<size_t>(k)];
    return std::nullopt;
}

// The other operand of binary node i, when one operand is `known`.
std::optional<std::string> otherThan(const Node& n, const std::string& known) {
    if (n.inputs[0] == known)
        return n.inputs[1];
    if (n.inputs[1] == known)
        return n.inputs[0];
    return std::nullopt;
}

// The nodes of one GELU around Erf node e (the last one writes the result), or empty.
std::vector<size_t> geluAround(const Model& m, const Uses& uses, size_t e, std::string& x) {
    const Node& erf = m.nodes[e];
    if (erf.inputs.size() != 1 || erf.outputs.size() != 1)
        return {};
    // x / √2 (or x · 1/√2), read by the Erf alone.
    const size_t d = uses.producerOf(erf.inputs[0]);
    std::optional<std::string> in;
    if (is(m, d, "Div") && near(scalar(m, uses, m.nodes[d].inputs[1]), std::sqrt(2.0)))
        in = m.nodes[d].inputs[0];
    else if (is(m, d, "Mul"))
        in = withScalar(m, uses, d, 1 / std::sqrt(2.0));
    if (!in || uses.soleReader(erf.inputs[0]) != e)
        return {};
    x = *in;
    // 1 + erf(…)
    const size_t a = uses.soleReader(erf.outputs[0]);
    if (!is(m, a, "Add") || withScalar(m, uses, a, 1.0) != erf.outputs[0])
        return {};
    const std::string& plus = m.nodes[a].outputs[0];
    const size_t m1 = uses.soleReader(plus);
    if (!is(m, m1, "Mul"))
        return {};
    const std::optional<std::string> factor = otherThan(m.nodes[m1], plus);
    if (!factor)
        return {};
    if (*factor == x) { // (x · (1 + erf)) · 0.5
        const size_t m2 = uses.soleReader(m.nodes[m1].outputs[0]);
        if (!is(m, m2, "Mul") || withScalar(m, uses, m2, 0.5) != m.nodes[m1].outputs[0])
            return {};
        return {d, e, a, m1, m2};
    }
    // (x · 0.5) · (1 + erf)
    const size_t h = uses.producerOf(*factor);
    if (!is(m, h, "Mul") || withScalar(m, uses, h, 0.5) != x || uses.soleReader(*factor) != m1)
        return {};
    return {d, e, a, h, m1};
}

// The integers of a small constant: an initializer or a Constant node's output.
std::optional<std::vector<int64_t>> intsOf(const Model& m, const Uses& uses,
                                           const std::string& name) {
    if (const auto it = m.initializers.find(name); it != m.initializers.end())
        return it->second.ints;
    const size_t p = uses.producerOf(name);
    if (p == kNone || m.nodes[p].opType != "Constant")
        return std::nullopt;
    if (const Attribute* a = m.nodes[p].attr("value"); a != nullptr && a->t)
        return a->t->ints;
    if (const Attribute* a = m.nodes[p].attr("value_ints"); a != nullptr)
        return a->ints;
    return std::nullopt;
}

// The one axis a keepdims ReduceMean node reduces (attribute before opset 18, input after).
std::optional<int64_t> meanAxis(const Model& m, const Uses& uses, size_t i) {
    if (i == kNone || m.nodes[i].opType != "ReduceMean" || !m.nodes[i].domain.empty() ||
        m.nodes[i].inputs.empty() || m.nodes[i].outputs.size() != 1 ||
        m.nodes[i].attrInt("keepdims", 1) != 1)
        return std::nullopt;
    std::optional<std::vector<int64_t>> axes = m.nodes[i].attrInts("axes");
    if (axes->empty() && m.nodes[i].inputs.size() > 1)
        axes = intsOf(m, uses, m.nodes[i].inputs[1]);
    if (!axes || axes->size() != 1)
        return std::nullopt;
    return axes->front();
}

// The nodes of one LayerNorm without its affine part ending at Div node v, or empty:
// mean = ReduceMean(x), d = x − mean, (d^2 or d·d) → ReduceMean → + ε → Sqrt, d / that.
std::vector<size_t> layerNormAt(const Model& m, const Uses& uses, size_t v, std::string& x,
                                int64_t& axis, double& epsilon) {
    if (!is(m, v, "Div"))
        return {};
    const std::string& d = m.nodes[v].inputs[0];
    const size_t sub = uses.producerOf(d), sq = uses.producerOf(m.nodes[v].inputs[1]);
    if (!is(m, sub, "Sub") || sq == kNone || m.nodes[sq].opType != "Sqrt" ||
        m.nodes[sq].inputs.size() != 1 || uses.soleReader(m.nodes[v].inputs[1]) != v)
        return {};
    x = m.nodes[sub].inputs[0];
    const size_t mean = uses.producerOf(m.nodes[sub].inputs[1]);
    const std::optional<int64_t> a1 = meanAxis(m, uses, mean);
    if (!a1 || m.nodes[mean].inputs[0] != x || uses.soleReader(m.nodes[sub].inputs[1]) != sub)
        return {};
    const size_t add = uses.producerOf(m.nodes[sq].inputs[0]);
    if (!is(m, add, "Add") || uses.soleReader(m.nodes[add].outputs[0]) != sq)
        return {};
    std::optional<std::string> var;
    for (int k = 0; k < 2 && !var; ++k)
        if (const auto eps = scalar(m, uses, m.nodes[add].inputs[static_cast<size_t>(1 - k)]);
            eps && *eps >= 0 && *eps <= 1) {
            var = m.nodes[add].inputs[static_cast<size_t>(k)];
            epsilon = *eps;
        }
    const size_t mean2 = var ? uses.producerOf(*var) : kNone;
    const std::optional<int64_t> a2 = meanAxis(m, uses, mean2);
    if (!a2 || *a2 != *a1 || uses.soleReader(*var) != add)
        return {};
    const std::string& squared = m.nodes[mean2].inputs[0];
    const size_t pow = uses.producerOf(squared);
    const bool power = is(m, pow, "Pow") && m.nodes[pow].inputs[0] == d &&
                       near(scalar(m, uses, m.nodes[pow].inputs[1]), 2.0);
    const bool product =
        is(m, pow, "Mul") && m.nodes[pow].inputs[0] == d && m.nodes[pow].inputs[1] == d;
    const auto readersOfD = uses.readers.find(d); // the square (once or twice) and the Div
    if ((!power && !product) || uses.soleReader(squared) != mean2 ||
        readersOfD == uses.readers.end() || readersOfD->second.first != (power ? 2 : 3))
        return {};
    axis = *a1;
    return {mean, sub, pow, mean2, add, sq, v};
}

// Replaces each match (its nodes, the last one writing the result) with its one node.
size_t replaceMatches(Model& model, std::vector<std::pair<std::vector<size_t>, Node>> matches) {
    std::vector<bool> dropped(model.nodes.size(), false);
    size_t folded = 0;
    for (auto& [nodes, node] : matches) {
        if (std::any_of(nodes.begin(), nodes.end(), [&](size_t i) { return dropped[i]; }))
            continue; // overlaps a match already folded
        for (size_t i : nodes)
            dropped[i] = true;
        if (node.name.empty())
            node.name = model.nodes[nodes.back()].name;
        model.nodes[nodes.back()] = std::move(node);
        dropped[nodes.back()] = false;
        ++folded;
    }
    if (folded == 0)
        return 0;
    std::vector<Node> kept;
    kept.reserve(model.nodes.size());
    for (size_t i = 0; i < model.nodes.size(); ++i)
        if (!dropped[i])
            kept.push_back(std::move(model.nodes[i]));
    model.nodes = std::move(kept);
    return folded;
}

bool hasOp(const Model& model, const char* op) {
    return std::any_of(model.nodes.begin(), model.nodes.end(),
                       [&](const Node& n) { return n.opType == op && n.domain.empty(); });
}

} // namespace

size_t foldErfGelu(Model& model) {
    if (!hasOp(model, "Erf"))
        return 0; // no index of the graph for the many models without one
    const Uses uses(model);
    std::vector<std::pair<std::vector<size_t>, Node>> matches;
    for (size_t e = 0; e < model.nodes.size(); ++e) {
        if (model.nodes[e].opType != "Erf" || !model.nodes[e].domain.empty())
            continue;
        std::string x;
        std::vector<size_t> nodes = geluAround(model, uses, e, x);
        if (nodes.empty())
            continue;
        Node gelu;
        gelu.opType = "Gelu";
        gelu.inputs = {x};
        gelu.outputs = {model.nodes[nodes.back()].outputs[0]};
        matches.emplace_back(std::move(nodes), std::move(gelu));
    }
    return replaceMatches(model, std::move(matches));
}

size_t foldLayerNorm(Model& model) {
    if (!hasOp(model, "Sqrt"))
        return 0;
    const Uses uses(model);
    std::vector<std::pair<std::vector<size_t>, Node>> matches;
    for (size_t v = 0; v < model.nodes.size(); ++v) {
        std::string x;
        int64_t axis = 0;
        double epsilon = 0;
        std::vector<size_t> nodes = layerNormAt(model, uses, v, x, axis, epsilon);
        if (nodes.empty())
            continue;
        Node norm; // "/block/LayerNorm" for PyTorch's "/block/Div", as the module it was
        const std::string& last = model.nodes[v].name;
        if (const size_t slash = last.rfind('/'); slash != std::string::npos && slash > 0)
            norm.name = last.substr(0, slash) + "/LayerNorm";
        norm.opType = "LayerNormalization";
        norm.inputs = {x};
        norm.outputs = {model.nodes[v].outputs[0]};
        Attribute a;
        a.name = "axis";
        a.type = 2; // INT
        a.i = axis;
        Attribute e;
        e.name = "epsilon";
        e.type = 1; // FLOAT
        e.f = epsilon;
        norm.attrs = {a, e};
        matches.emplace_back(std::move(nodes), std::move(norm));
    }
    return replaceMatches(model, std::move(matches));
}

} // namespace ios::io::onnx
