// SPDX-License-Identifier: Apache-2.0
// DAG width: the largest set of operators no two of which depend on each other (a maximum
// antichain). It bounds how many groups any parallel stage can have (docs/algorithms.md
// §2.2 "Parallel stages", §3 "Statistics").
#pragma once

#include "ir/block_dag.h"

#include <cstddef>
#include <vector>

namespace ios::ir {

// Above this many vertices the exact O(n³/64) computation is refused (UserError): it would
// take seconds and its recursion would run deep. Real blocks have at most a few hundred.
inline constexpr size_t kMaxAntichainVertices = 4096;

// A maximum antichain of the DAG given by successor lists (vertex indices 0..n-1), exact:
// Dilworth's theorem with König's construction on the transitive closure (see dag_width.cpp).
// Returns the antichain's vertices in increasing order; its size is the DAG width.
// Throws UserError when the successor lists contain a cycle or an index out of range,
// or have more than kMaxAntichainVertices entries.
std::vector<int> maximumAntichain(const std::vector<std::vector<int>>& succs);

// Width of one block's operator DAG (all edges of the block, parts ignored).
int dagWidth(const BlockDag& dag);

} // namespace ios::ir
