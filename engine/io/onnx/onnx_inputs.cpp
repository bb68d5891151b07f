// SPDX-License-Identifier: Apache-2.0
// The network's input as the IR sees it (docs/onnx.md "Inputs"): an image [N, C, H, W], a
// token sequence [N, T, D] (D channels at T positions, channels-last), features [N, D], or
// token ids [N, T] whose embedding lookups (Gather from a [V, D] table) start the network: the
// lookup's output is the IR's input.
#include "io/onnx/onnx_lowerer.h"
#include "io/onnx/onnx_roles.h"

namespace ios::io::onnx::detail {

namespace {

// The nodes that look `ids` up in a parameter table: Gather(table [V, D], ids) along axis 0.
// Empty unless every reader of `ids` is one.
std::vector<const Node*>
lookupsOf(const std::string& ids,
          const std::unordered_map<std::string, std::vector<const Node*>>& consumers,
          const TensorTable& tensors) {
    const auto it = consumers.find(ids);
    if (it == consumers.end() || it->second.empty())
        return {};
    for (const Node* n : it->second) {
        if (!isLookupOf(*n, ids))
            return {};
        const auto table = tensors.find(n->inputs[0]);
        if (table == tensors.end() || table->second.dims.size() != 2)
            return {};
    }
    return it->second;
}

} // namespace

NetworkInput
networkInput(const std::string& dataInput, const TensorTable& tensors,
             const std::unordered_map<std::string, std::vector<const Node*>>& consumers) {
    NetworkInput ni;
    ir::Node& p = ni.placeholder;
    p.kind = ir::NodeKind::Placeholder;
    p.name = dataInput;
    p.hintName = dataInput;
    const std::vector<int64_t>& dims = tensors.at(dataInput).dims;
    ni.lookups = lookupsOf(dataInput, consumers, tensors);
    std::vector<int64_t> seen = dims; // the dims the IR input is seen as
    if (!ni.lookups.empty()) {
        seen = tensors.at(ni.lookups.front()->outputs[0]).dims; // [N, T..., D]
        p.hintName = "embedding";
    }
    const bool sequence = seen.size() >= 3 && (!ni.lookups.empty() || seen.size() == 3);
    if (sequence) {
        const int64_t positions = product(seen, nonUnit(seen, 1, seen.size() - 1));
        p.outputShape = {seen.back(), positions, 1};
    } else {
        p.outputShape = chw(seen);
    }
    Val& in = ni.val;
    in.terms = {{ir::ValueRef{dataInput, 0, p.outputShape.c}}};
    in.termHw = {p.outputShape.h, p.outputShape.w};
    in.dims = seen;
    if (sequence)
        settle(in,
               {nonUnit(seen, seen.size() - 1, seen.size()), nonUnit(seen, 1, seen.size() - 1)});
    return ni;
}

} // namespace ios::io::onnx::detail
