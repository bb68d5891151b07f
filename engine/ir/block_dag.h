// SPDX-License-Identifier: Apache-2.0
// The dependency structure the schedulers see (docs/algorithms.md §1 "The graph the
// schedulers see"): per block, the schedule operators in file order, their edges, and the
// DP parts.
#pragma once

#include "ir/graph.h"

#include <vector>

namespace ios::ir {

inline constexpr int kDefaultMaxPartSize = 100;

struct BlockDag {
    std::vector<const Node*> ops;        // schedule operators, file order
    std::vector<std::vector<int>> preds; // op indices producing an input of op i
    std::vector<std::vector<int>> succs; // op indices consuming op i
    std::vector<std::vector<int>> parts; // op indices per part, each in file order
    std::vector<int> partOf;             // part index of each op
    bool explicitParts = false;          // the block's own parts (maxPartSize did not cut it)
};

// Parts: the block's explicit parts when it has them, else consecutive chunks of at most
// maxPartSize operators. Throws UserError for maxPartSize < 1 or explicit parts that do not
// cover every operator exactly once.
BlockDag buildBlockDag(const Block& block, int maxPartSize = kDefaultMaxPartSize);

std::vector<BlockDag> buildDags(const Graph& graph, int maxPartSize = kDefaultMaxPartSize);

} // namespace ios::ir
