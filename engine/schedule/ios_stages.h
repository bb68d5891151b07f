// SPDX-License-Identifier: Apache-2.0
// Schedule ↔ IOS JSON `stages` (docs/formats.md "Model structure"): Block::stages name lists
// and the optimised model with merged convolutions.
#pragma once

#include "ir/block_dag.h"
#include "ir/graph.h"
#include "schedule/schedule.h"

#include <vector>

namespace ios::schedule {

// Block::stages (operator names) → Schedule, one BlockSchedule per block. Throws
// ios::UserError naming the block and operator for an unknown name. Stages of one group with
// two or more operators that are mergeable convs are NOT guessed to be merges: IOS JSON has no
// merge marker, so every stage read back is a parallel stage. Blocks with empty `stages` get
// an empty BlockSchedule.
Schedule scheduleFromStages(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags);

// The graph with `schedule` written into Block::stages, merge stages left as separate nodes
// (each merge stage becomes one stage of one group holding its members).
ir::Graph withStages(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                     const Schedule& schedule);

// The optimised model as IOS exports it (docs/formats.md): every merge stage of two or more convs
// becomes ONE conv named like its first member (kernel and padding the largest, out_channels
// summed) placed where the first member was; every consumer's input values name it with the
// member's channel range; the stages list the merged node once. The result validates.
ir::Graph optimizedGraph(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                         const Schedule& schedule);

} // namespace ios::schedule
