// SPDX-License-Identifier: Apache-2.0
// One block of a model as a model of its own: what the blocks' searches see (the IOS DP and
// every scheduler schedule block by block), so a block can be searched and priced alone
// (MetaFlow's per-block objective; `specialize --block` and `compare --block`, the IOS paper's
// Figures 10 and 16).
#pragma once

#include "ir/graph.h"

#include <cstdint>

namespace ios::ir {

// Throws ios::UserError naming the model and its valid range (0 to blocks − 1, the numbers
// `info` prints) when `block` is not one of `graph`'s blocks.
void checkBlockIndex(const Graph& graph, int64_t block);

// Block `block` of `graph` (validated) alone: a one-block graph of the same name, its input a
// placeholder of the block's entry name and shape, its operators the block's own (same names,
// attributes and shapes), validated. Throws as checkBlockIndex.
Graph blockAlone(const Graph& graph, int block);
// Blocks first..last of `graph` (validated) as a graph of their own, the same way: its input
// node (kind Placeholder) takes block `first`'s entry name and shape (MetaFlow searches a
// subgraph of several blocks so). Throws as checkBlockIndex for either end, and UserError for last
// < first.
Graph blocksAlone(const Graph& graph, int first, int last);

} // namespace ios::ir
