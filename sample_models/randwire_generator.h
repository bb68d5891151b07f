// SPDX-License-Identifier: Apache-2.0
// RandWire-style graphs of any size (Xie et al., "Exploring Randomly Wired Neural Networks";
// the IOS benchmark's randwire_large is built from such cells): a Watts–Strogatz graph
// WS(n, k = 4, p = 0.75) with its edges oriented from the lower to the higher node, each node
// a 3x3 convolution over the sum of its inputs, the sources reading the input and the sinks
// summed by the output node. For `ios-sched bench --scaling`: how the DP's states,
// transitions and distinct stages grow with the graph.
#pragma once

#include "ir/graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ios::samples {

// One block of `nodes` (>= 5) convolutions; the same (nodes, seed) give the same graph on
// every platform (mt19937 draws, no library distributions). Throws UserError for nodes < 5.
ir::Graph randwireStyleGraph(int nodes, uint32_t seed = 1);

// One node of a wired graph: a kernel x kernel convolution (odd kernel, same padding) over the
// sum of the nodes `preds` (lower indices), or over the block input when `preds` is empty.
struct WiredNode {
    std::vector<int> preds;
    int kernel = 3;
};

// The graph of a wiring (shared by the generators): one block named `name` whose node i is
// "node<i>" (64 channels, 28x28, ReLU), the nodes without successors summed by the output
// node. Validated, shapes inferred.
ir::Graph wiredConvGraph(std::string name, const std::vector<WiredNode>& nodes);

} // namespace ios::samples
