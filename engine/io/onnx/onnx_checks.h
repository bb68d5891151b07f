// SPDX-License-Identifier: Apache-2.0
// Small checks shared by the ONNX shape rules (internal to engine/io/onnx).
#pragma once

#include "io/onnx/onnx_model.h"
#include "util/checked.h"
#include "util/error.h"

#include <string>
#include <vector>

namespace ios::io::onnx::detail {

// Bounds that keep every product of dims far from int64 overflow (fuzzed files).
constexpr int64_t kMaxDimValue = int64_t{1} << 31;
constexpr int64_t kMaxTensorElements = int64_t{1} << 40;
constexpr size_t kMaxRank = 8;

[[noreturn]] inline void fail(const Node& node, const std::string& message) {
    throw UserError(message + " (" + node.opType + ")", {}, node.name);
}

inline std::string dimsText(const std::vector<int64_t>& d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i)
        s += (i ? "x" : "") + std::to_string(d[i]);
    return s + "]";
}

inline void checkDims(const Node& node, const std::vector<int64_t>& dims) {
    if (dims.size() > kMaxRank)
        fail(node, "output rank " + std::to_string(dims.size()) + " is not supported");
    int64_t n = 1;
    for (int64_t d : dims) {
        if (d < 0 || d > kMaxDimValue)
            fail(node, "implausible output shape " + dimsText(dims));
        const std::optional<int64_t> next = checked::mul(n, d);
        if (!next || *next > kMaxTensorElements)
            fail(node, "output shape " + dimsText(dims) + " is too large");
        n = *next;
    }
}

// Axis in [-rank, rank) → [0, rank).
inline size_t normAxis(const Node& node, int64_t axis, size_t rank) {
    const auto r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r)
        fail(node,
             "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

} // namespace ios::io::onnx::detail
