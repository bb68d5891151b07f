// SPDX-License-Identifier: Apache-2.0
// Graphviz DOT export of a model: one cluster per block, a node per operator labelled with its
// name, kind and output shape, edges from the inputs; optionally coloured by schedule stage.
#pragma once

#include "ir/graph.h"

#include <string>
#include <vector>

namespace ios::io {

struct DotOptions {
    // Optional stage of each schedule operator: stageOfOperator[block][i] for operator i of
    // Block::operators() (the indices of ir::BlockDag::ops), -1 for none. Empty = no colours;
    // a block with a shorter or missing list leaves its remaining operators uncoloured.
    std::vector<std::vector<int>> stageOfOperator;
};

std::string writeDot(const ir::Graph& graph, const DotOptions& options = {});

} // namespace ios::io
