// SPDX-License-Identifier: Apache-2.0
// Schedule validity: every operator exactly once, dependencies respected, merges mergeable.
#pragma once

#include "ir/block_dag.h"
#include "schedule/schedule.h"

#include <vector>

namespace ios::schedule {

// Throws ios::UserError naming the problem and the operator when `bs` is not a valid schedule
// of `dag`: an operator index out of range, missing or repeated; an empty stage or group; an
// operator whose predecessor is neither in an earlier stage nor earlier in the same group; a
// merge stage with more than one group or with operators that cannot merge.
void verify(const ir::BlockDag& dag, const BlockSchedule& bs);

// Every block; a block count mismatch is an error too. Errors say which block.
void verify(const std::vector<ir::BlockDag>& dags, const Schedule& schedule);

} // namespace ios::schedule
