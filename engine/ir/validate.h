// Structural validation and shape inference of a Graph. Every error names the offending node.
#pragma once

#include "ir/graph.h"

#include <functional>

namespace ios::ir {

// Upper bounds that keep every size product far from int64 overflow.
inline constexpr int64_t kMaxDim = int64_t{1} << 20;      // channels, height, width
inline constexpr int64_t kMaxElements = int64_t{1} << 36; // per tensor
inline constexpr int64_t kMaxKernel = int64_t{1} << 12;   // kernel/stride/padding per axis

// Checks names, block chaining, inputs (unknown, cross-block, channel ranges), cycles,
// attributes and shapes. Nodes whose output shape is all zero get the inferred shape; a
// declared shape that differs from the inferred one is an error. Throws ios::UserError.
void validateAndInferShapes(Graph& graph);

// Output shape of a producer by name; nullptr for unknown names.
using ShapeLookup = std::function<const TensorShape*(const std::string&)>;

// Output shape of `node` given the output shapes of its producers (throws UserError).
TensorShape inferShape(const Node& node, const ShapeLookup& producerShape);

namespace detail {
std::string shapeText(const TensorShape& s);
}

} // namespace ios::ir
