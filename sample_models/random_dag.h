// SPDX-License-Identifier: Apache-2.0
// Random DAGs of any operator count, by name: `random_dag:N[:SEED]` is accepted wherever a
// MODEL is (samples::loadModel), for the graph-size rows of docs/performance.md "Scaling".
// Unlike the RandWire-style generator (randwire_generator.h), whose long random edges make a
// DP part of a few dozen nodes take minutes, the wiring is local, as in real CNNs: each node
// joins the oldest unconsumed output or forks from a recent node, so at most five branches
// are open at any point and the DAG width grows slowly (6-7 at 100 operators, 12-13 at 3 000).
#pragma once

#include "ir/graph.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace ios::samples {

inline constexpr std::string_view kRandomDagPattern = "random_dag:N[:SEED]";
inline constexpr std::string_view kRandomDagDescription =
    "A random DAG of N operators (2-100000; local wiring, few branches), the same for the "
    "same SEED (default 1)";
inline constexpr int kMaxRandomDagOperators = 100000;

// N - 1 convolutions (1x1, 3x3 or 5x5, 64 channels, 28x28) in one block, plus the output node
// that sums the unconsumed ones: N operators. The same (operators, seed) give the same graph on
// every platform (mt19937 draws, no library distributions). Throws UserError unless
// 2 <= operators <= kMaxRandomDagOperators.
ir::Graph randomDag(int operators, uint32_t seed = 1);

// The graph a generated model name stands for: "random_dag:N" (seed 1) or "random_dag:N:SEED";
// nullopt for a name without the "random_dag:" prefix. Throws UserError for a malformed one.
std::optional<ir::Graph> generatedModel(std::string_view name);

} // namespace ios::samples
