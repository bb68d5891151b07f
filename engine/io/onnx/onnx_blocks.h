// SPDX-License-Identifier: Apache-2.0
// Blocks of an imported graph: cut at articulation points, the single tensors every path
// from the input to the output passes through, as the IOS models are cut
// (docs/algorithms.md §1 "The graph the schedulers see").
#pragma once

#include "io/onnx/onnx_lowering.h"

namespace ios::io::onnx {

// Node k (in dependency order) is an articulation point when no edge jumps over it, i.e. no
// node before k feeds a node after k; once dead nodes are gone that is exactly "every path
// passes through k". Consecutive one-operator segments (chains: stems, stride-2 stages, the
// classifier head) share one block, so a chain is one block as in the IOS InceptionV3.
// Each block gets the sequential schedule (one operator per stage), like the reference files.
ir::Graph buildBlocks(Lowered lowered, const std::string& name);

} // namespace ios::io::onnx
