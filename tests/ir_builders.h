// SPDX-License-Identifier: Apache-2.0
// Terse constructors for hand-built graphs in the IR tests (names, inputs, attributes only;
// shapes are left for validateAndInferShapes to infer).
#pragma once

#include "ir/graph.h"

#include <string>
#include <utility>
#include <vector>

namespace ios::testing {

using ir::Node;
using ir::NodeKind;
using ir::Term;
using ir::ValueRef;

inline ValueRef val(std::string node, int64_t begin, int64_t end) {
    return {std::move(node), begin, end};
}

// One term per value: the values are concatenated.
inline std::vector<Term> concat(std::vector<ValueRef> values) {
    std::vector<Term> terms;
    for (ValueRef& v : values)
        terms.push_back({std::move(v)});
    return terms;
}

// One term holding all values: they are combined element-wise.
inline std::vector<Term> sum(std::vector<ValueRef> values) {
    return {Term(std::move(values))};
}

inline Node node(NodeKind kind, std::string name, std::vector<Term> inputs) {
    Node n;
    n.kind = kind;
    n.hintName = name;
    n.name = std::move(name);
    n.inputs = std::move(inputs);
    return n;
}

inline Node placeholder(std::string name, ir::TensorShape shape) {
    Node n = node(NodeKind::Placeholder, std::move(name), {});
    n.outputShape = shape;
    return n;
}

inline Node conv(std::string name, std::vector<Term> inputs, int64_t out, ir::Hw kernel,
                 ir::Hw stride = {1, 1}, ir::Hw padding = {0, 0}, int64_t groups = 1,
                 ir::ActType act = ir::ActType::Relu) {
    Node n = node(NodeKind::Conv, std::move(name), std::move(inputs));
    n.conv = {out, kernel, stride, padding, groups, act};
    return n;
}

inline Node pool(std::string name, std::vector<Term> inputs, ir::PoolType type, ir::Hw kernel,
                 ir::Hw stride = {1, 1}, ir::Hw padding = {0, 0}) {
    Node n = node(NodeKind::Pool, std::move(name), std::move(inputs));
    n.pool = {type, kernel, stride, padding};
    return n;
}

inline Node globalPool(std::string name, std::vector<Term> inputs, ir::PoolType type) {
    Node n = node(NodeKind::Pool, std::move(name), std::move(inputs));
    n.pool.type = type;
    return n;
}

inline Node element(std::string name, std::vector<Term> inputs, ir::ElementOp op) {
    Node n = node(NodeKind::Element, std::move(name), std::move(inputs));
    n.element = op;
    return n;
}

// A product of two activations: operands a and b (one term each).
inline Node matmul(std::string name, ValueRef a, ValueRef b, int64_t heads, bool transposeB,
                   double alpha = 1.0) {
    Node n = node(NodeKind::Matmul, std::move(name), {{std::move(a)}, {std::move(b)}});
    n.matmul = {heads, transposeB, alpha};
    return n;
}

inline Node activation(std::string name, std::vector<Term> inputs, ir::ActType act) {
    Node n = node(NodeKind::Activation, std::move(name), std::move(inputs));
    n.activation = act;
    return n;
}

// Inner nodes run in order: the first reads the outside, each next one the previous.
inline Node sequential(std::string name, std::vector<Node> inner) {
    Node n = node(NodeKind::Sequential, std::move(name), {});
    n.nodes = std::move(inner);
    return n;
}

// A block entering from `enter` (a node of the graph: the input or the previous exit).
inline ir::Block block(const Node& enter, std::vector<Node> inner, Node exit) {
    ir::Block b;
    b.enterName = enter.name;
    b.enterNode = enter;
    b.innerNodes = std::move(inner);
    b.exitNode = std::move(exit);
    return b;
}

} // namespace ios::testing
