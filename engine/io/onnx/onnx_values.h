// SPDX-License-Identifier: Apache-2.0
// Shape arithmetic on small constant integer tensors, for the ONNX shape rules
// (onnx_shape.cpp; internal to engine/io/onnx).
#pragma once

#include "io/onnx/onnx_model.h"
#include "util/checked.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ios::io::onnx::detail {

// Numpy broadcasting of two shapes; a UserError naming the node when they do not broadcast.
std::vector<int64_t> broadcast(const Node& node, const std::vector<int64_t>& a,
                               const std::vector<int64_t>& b);

// Folds one element of Add/Sub/Mul/Div/Sum/Mod/Equal on constant integers (shape arithmetic
// such as Shape -> Gather -> Mul -> Reshape), exactly: an overflow or a division by zero is
// refused naming the node (Div(INT64_MIN, -1) used to trap with SIGFPE). Nothing for other ops.
std::optional<int64_t> foldBinary(const Node& node, int64_t x, int64_t y);

// An Einsum equation without spaces: one letter string per operand and the output's.
struct EinsumSpec {
    std::vector<std::string> inputs;
    std::string output;
};
// Nothing when the node has no equation, or one this importer does not read (an ellipsis,
// no explicit output, characters other than letters).
std::optional<EinsumSpec> parseEinsum(const Node& node);
// The output dims of an Einsum over operands of these dims; a UserError naming the node when
// the equation is unsupported or does not fit them.
std::vector<int64_t> einsumDims(const Node& node,
                                const std::vector<std::vector<int64_t>>& operands);

// The values of a small constant rearranged: output element i (a multi-index over outDims)
// is the input's element at source(i) (a multi-index over inDims).
// Nothing when the values do not fill inDims or the output is not small.
template <class Source>
std::optional<std::vector<int64_t>>
remapValues(const std::vector<int64_t>& values, const std::vector<int64_t>& inDims,
            const std::vector<int64_t>& outDims, Source source) {
    const std::optional<int64_t> inCount = checked::product(inDims);
    const std::optional<int64_t> count = checked::product(outDims);
    if (!inCount || !count || *inCount != static_cast<int64_t>(values.size()) ||
        *count > kMaxFoldedElements)
        return std::nullopt;
    std::vector<int64_t> out, index(outDims.size(), 0), from(inDims.size(), 0);
    for (int64_t k = 0; k < *count; ++k) {
        source(index, from);
        size_t flat = 0;
        for (size_t a = 0; a < inDims.size(); ++a)
            flat = flat * static_cast<size_t>(inDims[a]) + static_cast<size_t>(from[a]);
        out.push_back(values[flat]);
        for (size_t a = outDims.size(); a-- > 0;) { // next multi-index, last axis fastest
            if (++index[a] < outDims[a])
                break;
            index[a] = 0;
        }
    }
    return out;
}

} // namespace ios::io::onnx::detail
