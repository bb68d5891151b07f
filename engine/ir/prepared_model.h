// SPDX-License-Identifier: Apache-2.0
// A model as the schedulers take it: the validated graph plus its per-block dependency DAGs and
// DP parts, built once by the caller for one max part size (docs/algorithms.md §1) and shared
// by every scheduler, cost model and evaluation of that model.
#pragma once

#include "ir/block_dag.h"
#include "ir/graph.h"

#include <vector>

namespace ios::ir {

class PreparedModel {
public:
    // `graph` must be validated and outlive this object (the DAGs point into its nodes).
    // Throws UserError for maxPartSize < 1 or explicit parts that do not cover a block.
    explicit PreparedModel(const Graph& graph, int maxPartSize = kDefaultMaxPartSize)
        : graph_(&graph), maxPartSize_(maxPartSize), dags_(buildDags(graph, maxPartSize)) {}

    const Graph& graph() const { return *graph_; }
    int maxPartSize() const { return maxPartSize_; }
    const std::vector<BlockDag>& dags() const { return dags_; }

private:
    const Graph* graph_;
    int maxPartSize_;
    std::vector<BlockDag> dags_;
};

} // namespace ios::ir
