// SPDX-License-Identifier: Apache-2.0
// The operator graph as the graph view draws it: one node per schedule operator, edges from
// the block DAGs plus the edges into each block from the previous block's exit, and one
// layout cluster per block (and per DP part inside blocks with several parts).
#pragma once

#include "graph_layout.h"
#include "loaded_model.h"

namespace ios::views {

struct ModelGraph {
    LayoutRequest layout;
    std::vector<int> nodeBlock; // per node
    std::vector<int> nodePart;  // per node
};

inline constexpr double kNodeWidth = 170.0;
inline constexpr double kNodeHeight = 54.0; // three lines: type, shape, name

ModelGraph buildModelGraph(const LoadedModel& model);

} // namespace ios::views
