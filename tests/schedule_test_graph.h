// SPDX-License-Identifier: Apache-2.0
// A four-operator block for the schedule tests: a (1×1 conv) and b (3×3 conv) read the input
// and can merge, c (max pool) reads the input, d concatenates a, b and c.
#pragma once

#include "ir/block_dag.h"
#include "ir/validate.h"
#include "ir_builders.h"

namespace ios::testing {

inline ir::Graph fourOpGraph() {
    ir::Graph g;
    g.name = "four";
    g.input = placeholder("in", {8, 8, 8});
    ir::Block b;
    b.enterName = "in";
    b.enterNode = g.input;
    b.innerNodes.push_back(conv("a", sum({val("in", 0, 8)}), 8, {1, 1}));
    b.innerNodes.push_back(conv("b", sum({val("in", 0, 8)}), 16, {3, 3}, {1, 1}, {1, 1}));
    b.innerNodes.push_back(
        pool("c", sum({val("in", 0, 8)}), ir::PoolType::Max, {3, 3}, {1, 1}, {1, 1}));
    b.exitNode = node(ir::NodeKind::Identity, "d",
                      concat({val("a", 0, 8), val("b", 0, 16), val("c", 0, 8)}));
    g.blocks.push_back(b);
    ir::validateAndInferShapes(g);
    return g;
}

} // namespace ios::testing
