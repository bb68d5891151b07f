// SPDX-License-Identifier: Apache-2.0
// ONNX operators → IR nodes (docs/onnx.md has the full mapping): convolutions with their
// BatchNormalization folded and activation fused, Pad folded into the next conv/pool, Concat
// as identity terms, Add as identity sums (relu when a Relu follows), Split/Slice as channel
// ranges, channel shuffles as one copy, the classifier head as a conv over the flattened map.
#pragma once

#include "io/onnx/onnx_shape.h"
#include "ir/graph.h"

namespace ios::io::onnx {

struct Lowered {
    ir::Node input;              // the placeholder
    std::vector<ir::Node> nodes; // dependency order, dead nodes dropped; back() is the output
};

// Throws UserError: unsupported operators all at once (unless allowOpaque), a node whose
// shape cannot be derived (naming it and its op type), a model without a single output.
Lowered lower(const Model& model, const std::vector<size_t>& order, const TensorTable& tensors,
              const std::string& dataInput, bool allowOpaque);

} // namespace ios::io::onnx
