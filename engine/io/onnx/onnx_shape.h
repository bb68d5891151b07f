// SPDX-License-Identifier: Apache-2.0
// Tensor shapes of an ONNX graph from the declared input shape, with the integer shape
// sub-graphs (Shape → Gather → Div → Unsqueeze → Concat → Reshape/Slice, as PyTorch exports
// them for flatten and channel shuffles) constant-folded (docs/onnx.md).
#pragma once

#include "io/onnx/onnx_model.h"

#include <unordered_map>

namespace ios::io::onnx {

struct TensorInfo {
    bool known = false;                        // dims are known
    std::vector<int64_t> dims;                 // full ONNX dims, batch included
    std::optional<std::vector<int64_t>> value; // folded integer contents (small tensors)
};
using TensorTable = std::unordered_map<std::string, TensorInfo>;

// Whether the importer has a shape rule (and a lowering rule) for this operator.
bool isKnownOp(const Node& node);

// Whether `node` looks `ids` up in a table: Gather(table, ids) along axis 0 (nn.Embedding).
bool isLookupOf(const Node& node, const std::string& ids);

// Nodes in dependency order (indices into model.nodes); throws UserError naming a node on a
// cycle or an input that nothing produces.
std::vector<size_t> topologicalOrder(const Model& model);

// Shapes of every tensor reachable from the initializers, the graph inputs (their declared
// dims; `dataInput` gets `inputDims`) and the nodes in `order`. Unknown operators take the
// shape declared in value_info, if any; tensors without a derivable shape stay !known.
// Throws UserError naming the node when its inputs contradict its attributes.
TensorTable inferTensors(const Model& model, const std::vector<size_t>& order,
                         const std::string& dataInput, const std::vector<int64_t>& inputDims);

// A list of integers from constant input `input` (newer opsets) or, when that input is
// absent, from attribute `attrName` (older opsets); nullopt when neither is known.
std::optional<std::vector<int64_t>> constInts(const Node& node, size_t input,
                                              std::string_view attrName, const TensorTable& table);

// Per-axis [begin, end) by step of a Slice over `dims` (ONNX clamping rules); nullopt when
// the bounds are not constant.
struct SliceRange {
    int64_t begin = 0;
    int64_t end = 0;
    int64_t step = 1;
    int64_t length() const;
};
std::optional<std::vector<SliceRange>>
sliceRanges(const Node& node, const std::vector<int64_t>& dims, const TensorTable& table);

// Output extent of a sliding window (ONNX Conv/MaxPool/AveragePool rules, PyTorch's ceil_mode
// correction). Throws UserError when the window does not fit.
int64_t windowOutput(const Node& node, int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                     int64_t padBegin, int64_t padEnd, bool ceilMode);

} // namespace ios::io::onnx
