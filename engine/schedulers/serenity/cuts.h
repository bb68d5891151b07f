// SPDX-License-Identifier: Apache-2.0
// Cut points of a memory problem and the segments between them (Serenity §3.2 "divide and
// conquer", Fig. 7; docs/memory.md "Divide and conquer").
#pragma once

#include "ir/memory.h"
#include "schedulers/serenity/memory_dp.h"

#include <vector>

namespace ios::schedulers::serenity {

// Op c is a cut when every other op is an ancestor or a descendant of c and no edge goes from
// an ancestor of c to a descendant of c: every order is then perm(anc)·c·perm(desc). Cuts in
// topological order.
std::vector<int> cutPoints(const ir::MemoryProblem& problem);

// Maximal runs of ops between consecutive cuts, each cut in the segment it ends; `before` of
// each segment is every op of the earlier ones. Sizes sum to the op count; no empty segment.
std::vector<Segment> cutSegments(const ir::MemoryProblem& problem);

} // namespace ios::schedulers::serenity
