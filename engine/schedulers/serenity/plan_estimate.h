// SPDX-License-Identifier: Apache-2.0
// What planMemory (memory_plan.h) will cost, before it runs (docs/estimates.md):
// the expansions of each segment's DP counted exactly (downset_count.h), the runs the soft
// budget makes predicted as it decides them, at this process's measured DP rate (dp_rate.h).
#pragma once

#include "schedulers/search_statistics.h"
#include "schedulers/serenity/memory_plan.h"

#include <vector>

namespace ios::schedulers::serenity {

// Serenity orders only (other orders take no time worth estimating: states 0, seconds 0).
// states: down-sets, transitions: expansions (statesUnit/transitionsUnit say so), both of
// the unbudgeted DP: the first run, at Kahn FIFO's peak, prunes the transitions over it (a
// few per cent on the bundled models, none on NasNet-A), so they bound its work from above. A
// segment whose exact DP fits the first run's limit (firstRunExpansions) costs its counted
// expansions; one that does not (or whose frontier is too wide to count) costs at least that limit
// and at most every run the bisection and the escalations may make, so the range widens; the rate's
// own spread (a large DP's tables fall out of cache) widens it to 0.8–2 ×. `seconds` is the
// geometric mean of the range. Throws Cancelled when control->cancel is set.
SearchEstimate estimatePlan(const std::vector<ir::MemoryProblem>& blocks,
                            const PlanOptions& options, const SearchControl* control = nullptr);

} // namespace ios::schedulers::serenity
