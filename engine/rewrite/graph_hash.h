// SPDX-License-Identifier: Apache-2.0
// A graph's structural hash for the search's duplicate detection (docs/metaflow.md "Graph
// hash", as MetaFlow's Graph::hash): every node gets a Merkle hash of its kind, attributes,
// output shape and inputs — each value as its producer's hash, channel range and in-place
// flag — and the graph hash is the sum over nodes. Names never enter, and a sum does not
// depend on the order of independent nodes, so renaming nodes or reordering them in the file
// keeps the hash.
// 64-bit collisions count as duplicates.
#pragma once

#include "ir/graph.h"

#include <cstdint>

namespace ios::rewrite {

// Of a validated graph (blocks in order, each block's operators in dependency order).
uint64_t graphHash(const ir::Graph& graph);

// The same over one block's operators, its enter node hashed by output shape alone: equal for
// blocks that compute alike from equally shaped inputs, wherever they sit (the key of the
// search's per-block objective memo).
uint64_t blockHash(const ir::Graph& graph, size_t block);

} // namespace ios::rewrite
