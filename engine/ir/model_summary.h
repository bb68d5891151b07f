// SPDX-License-Identifier: Apache-2.0
// What `ios-sched info` and the GUI's model panel show: structure, work and size of a model.
#pragma once

#include "ir/block_dag.h"
#include "ir/graph.h"
#include "ir/metrics.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ios::ir {

// How many nodes of each kind, in NodeKind order, kinds that do not occur left out.
using KindCounts = std::vector<std::pair<NodeKind, int>>;

struct BlockSummary {
    std::string enterName;
    std::string exitName;
    int operators = 0;           // schedule operators (a sequential counts once)
    int parts = 0;               // DP parts (docs/algorithms.md §1)
    int widestPart = 0;          // operators in the largest part
    std::optional<int> dagWidth; // maximum antichain; empty above kMaxAntichainVertices
    OperatorMetrics metrics;     // summed over the block's operators
};

struct ModelSummary {
    std::string name;
    TensorShape inputShape;
    TensorShape outputShape; // the last block's exit
    int maxPartSize = kDefaultMaxPartSize;
    int operators = 0;
    int parts = 0;
    int widestPart = 0;
    std::optional<int> dagWidth; // maximum over blocks; empty when any block is too large
    KindCounts operatorsByKind;  // schedule operators
    KindCounts primitivesByKind; // sequentials expanded into their inner nodes
    OperatorMetrics totals;      // batch 1, fp32
    std::vector<BlockSummary> blocks;
};

// Summarises a validated graph (shapes inferred). Parts as buildBlockDag cuts them with
// maxPartSize (explicit parts win). Throws UserError for maxPartSize < 1 or bad parts.
ModelSummary summarize(const Graph& graph, int maxPartSize = kDefaultMaxPartSize);

} // namespace ios::ir
