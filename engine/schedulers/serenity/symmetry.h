// SPDX-License-Identifier: Apache-2.0
// Interchangeable ops of a memory problem (docs/memory.md "Interchangeable operators"): two
// ops that read the same tensors, allocate the same bytes and write equal-sized tensors that
// only they produce and the same ops read (equally sinks), with the same predecessors and
// successors. Swapping two such ops in an order changes no step's sample and no down-set's
// μ, so an order and its swap have the same peak, and some optimal order runs every class of
// them in index order. The DP, its lower bound and its counted work add that order as
// precedences (without data: μ and the frees are unchanged), which leaves the optimum and
// removes the down-sets that hold a later op of a class without an earlier one.
#pragma once

#include "ir/memory.h"
#include "schedulers/serenity/memory_dp.h"

#include <vector>

namespace ios::schedulers::serenity {

// For each op of `segment` (by its position in segment.ops), the position of the op of its
// class just before it, or -1 (the first of a class, or an op without twins). Linear in the
// segment's ops and their inputs and consumers (ops are grouped by a hash, then compared).
std::vector<int> twinBefore(const ir::MemoryProblem& problem, const Segment& segment);

} // namespace ios::schedulers::serenity
