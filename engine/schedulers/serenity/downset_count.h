// SPDX-License-Identifier: Apache-2.0
// How much work Serenity's DP on a segment is, before it runs (docs/estimates.md):
// its down-sets and expansions counted exactly by a frontier DP, without enumerating them.
#pragma once

#include "ir/memory.h"
#include "schedulers/serenity/memory_dp.h"

#include <cstddef>

namespace ios::schedulers::serenity {

struct DownSetCount {
    // Down-sets of the segment (the empty and the whole one included) and Σ |z(S)| over them:
    // the expansions the unbudgeted DP (memoryDp with kNoBudget) examines. Doubles: a count past
    // 2^53 is approximate, which an estimate can afford.
    double downSets = 0;
    double expansions = 0;
    // False when the frontier grew past the state or width limit: the counts are then 0.
    bool complete = false;
};

// Walks the segment's ops in their (topological) order, deciding each in or out of the
// down-set; a state is which ops of the frontier (decided ops with an undecided successor) are
// in, so two down-sets that agree there are counted together. Linear in ops × states: NasNet-A's
// 374-operator block (8.3 M down-sets, 69 M expansions) needs at most 330 states. Stops when
// the states pass `maxStates` or the frontier 64 ops.
// `breakSymmetry`: the down-sets of the DP that waits for twins (symmetry.h, DpLimits).
DownSetCount countDownSets(const ir::MemoryProblem& problem, const Segment& segment,
                           size_t maxStates = size_t{1} << 16, bool breakSymmetry = true);

} // namespace ios::schedulers::serenity
