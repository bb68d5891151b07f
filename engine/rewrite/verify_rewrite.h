// SPDX-License-Identifier: Apache-2.0
// The proof a front end runs on a MetaFlow result (docs/metaflow.md "Scheduler and CLI",
// `ios-sched metaflow --verify`): the original graph with its weights and the rewritten graph
// with the weights derived by replaying the substitution log's weight transforms, both run by
// the double-precision reference executor.
#pragma once

#include "ir/graph.h"
#include "ref/reference_executor.h"
#include "rewrite/backtracking.h"
#include "rewrite/rules.h"

#include <cstdint>
#include <vector>

namespace ios::rewrite {

struct RewriteCheck {
    double maxAbsError = 0; // max |y − y'| over every block exit
    double maxRelError = 0; // max over block exits of max |y − y'| / max(1, max |y|)
};

// Every block exit of `g` run by the reference executor with `weights` (other convs:
// name-derived weights of `seed`, inputs from `seed`), in block order.
std::vector<ref::Tensor> blockExitOutputs(const ir::Graph& g, const WeightMap& weights,
                                          uint64_t seed);

// Replays `history` on (g0, initialWeights(g0, seed)) and compares the block exits of g0 and
// of the replayed graph, run with inputs and other weights from `seed`. Throws UserError when
// the replay does not give `rewritten` (a log that does not belong to it).
RewriteCheck checkRewrite(const ir::Graph& g0, const ir::Graph& rewritten,
                          const std::vector<Substitution>& history, uint64_t seed = 1);

} // namespace ios::rewrite
