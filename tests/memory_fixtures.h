// SPDX-License-Identifier: Apache-2.0
// Hand-built memory cases shared by the memory suites: Serenity's four-branch example (A5,
// Fig. 9) and two small arena problems whose footprints are worked out in the tests.
#pragma once

#include "ir/memory.h"
#include "ir/validate.h"
#include "ir_builders.h"

#include <string>
#include <vector>

namespace ios::testing {

// x0 (16×8×8) → four 3×3 convs of 16 channels → a 3×3 conv over their concatenation, which
// is depthwise (64 channels) when `depthwise` (SERENITY contract A5, Fig. 9).
inline ir::Graph fourBranchGraph(bool depthwise = false) {
    ir::Graph g;
    g.name = "four_branch";
    g.input = placeholder("x0", {16, 8, 8});
    std::vector<Node> inner;
    std::vector<ValueRef> branches;
    for (int i = 0; i < 4; ++i) {
        const std::string name = "c" + std::to_string(i);
        inner.push_back(conv(name, concat({val("x0", 0, 16)}), 16, {3, 3}, {1, 1}, {1, 1}));
        branches.push_back(val(name, 0, 16));
    }
    Node y = depthwise ? conv("y", concat(branches), 64, {3, 3}, {1, 1}, {1, 1}, 64)
                       : conv("y", concat(branches), 16, {3, 3}, {1, 1}, {1, 1});
    g.blocks.push_back(block(g.input, std::move(inner), std::move(y)));
    ir::validateAndInferShapes(g);
    return g;
}

// in (8 B) → a (4) → b (4); c (8) reads in and b: a's 4-byte hole is too small for c.
inline ir::MemoryProblem fragmentingArenaProblem() {
    ir::MemoryProblem p;
    p.name = "arena";
    p.tensors = {{"in", 8, {}, {}, false},
                 {"a", 4, {0}, {}, false},
                 {"b", 4, {1}, {}, false},
                 {"c", 8, {2}, {}, false}};
    p.ops = {{"a", 0, 1, {0}}, {"b", 1, 2, {1}}, {"c", 2, 3, {0, 2}}};
    p.opOfBlockOp = {0, 1, 2};
    p.assemblyOf = {-1, -1, -1};
    ir::finishMemoryProblem(p);
    return p;
}

// in → a → b, 8 bytes each: no holes.
inline ir::MemoryProblem chainArenaProblem() {
    ir::MemoryProblem p;
    p.name = "chain";
    p.tensors = {{"in", 8, {}, {}, false}, {"a", 8, {0}, {}, false}, {"b", 8, {1}, {}, false}};
    p.ops = {{"a", 0, 1, {0}}, {"b", 1, 2, {1}}};
    p.opOfBlockOp = {0, 1};
    p.assemblyOf = {-1, -1};
    ir::finishMemoryProblem(p);
    return p;
}

} // namespace ios::testing
