// SPDX-License-Identifier: Apache-2.0
// Structural validation and shape inference of a Graph. Every error names the offending node.
#pragma once

#include "ir/graph.h"

#include <functional>
#include <string>
#include <unordered_map>

namespace ios::ir {

// Upper bounds that keep every size product far from int64 overflow.
inline constexpr int64_t kMaxDim = int64_t{1} << 20;      // channels, height, width
inline constexpr int64_t kMaxElements = int64_t{1} << 36; // per tensor
inline constexpr int64_t kMaxKernel = int64_t{1} << 12;   // kernel/stride/padding per axis

// Checks names, block chaining, inputs (unknown, cross-block, channel ranges), cycles,
// attributes, shapes and in-place terms. Nodes whose output shape is all zero get the inferred
// shape; a declared shape that differs from the inferred one is an error. Throws ios::UserError.
void validateAndInferShapes(Graph& graph);

// Output shape of a producer by name; nullptr for unknown names.
using ShapeLookup = std::function<const TensorShape*(const std::string&)>;

// Output shape of `node` given the output shapes of its producers (throws UserError).
TensorShape inferShape(const Node& node, const ShapeLookup& producerShape);

// How often each node's output is read: once per value naming it in an operator's inputs (a
// sequential's: its first node's), plus once for the model output (the last block's exit).
std::unordered_map<std::string, int> valueReferences(const Graph& graph);

// Why `producer` could not write term `term` of `node` in place (ValueRef::inPlace), or an
// empty string when it can: the term is one value reading all of `producer`'s output, `node`
// has two or more terms (a concatenation), `producer` is not the model input and this value is
// its only reader (`references`, as valueReferences counts). `producer` is nullptr when the
// name is unknown. The one definition validation and rewrite rule R5 share.
std::string inPlaceObstacle(const Node& node, const Term& term, const Node* producer,
                            int references);

namespace detail {
std::string shapeText(const TensorShape& s);
}

} // namespace ios::ir
