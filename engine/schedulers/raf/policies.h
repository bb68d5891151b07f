// SPDX-License-Identifier: Apache-2.0
// RAF's policies as functions of its dependency graph (docs/raf.md), for the schedulers and
// the tests.
#pragma once

#include "schedulers/raf/raf_graph.h"

#include <vector>

namespace ios::schedulers::raf {

// Wavefront: waves of chains of node indices (docs/raf.md "Wavefront").
std::vector<std::vector<std::vector<int>>> wavefrontChains(const RafGraph& g);

// ASAP's heavy edges: depth (nodes on the longest path to a sink) and, per node, its heavy
// child (the input it claimed) and heavy parent (the consumer that claimed it), -1 for none.
struct HeavyEdges {
    std::vector<int> depth;
    std::vector<int> heavyChild;
    std::vector<int> heavyParent;
};
HeavyEdges heavyEdges(const RafGraph& g);

schedule::StreamProgram asapProgram(const RafGraph& g);

} // namespace ios::schedulers::raf
