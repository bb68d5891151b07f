// SPDX-License-Identifier: Apache-2.0
// Where each operator sits in a schedule (stage, group, position), so views can colour and
// link operators, stages and timeline intervals without walking the schedule again.
#pragma once

#include "loaded_model.h"
#include "schedule/schedule.h"

#include <vector>

namespace ios::views {

struct OperatorPlacement {
    int stage = -1;       // within its block; -1 = not scheduled
    int globalStage = -1; // counted over all blocks, in execution order
    int group = -1;
    int position = -1; // within the group
    schedule::StageKind kind = schedule::StageKind::Parallel;
};

class ScheduleIndex {
public:
    ScheduleIndex() = default;
    // The schedule must have one BlockSchedule per block of the model.
    ScheduleIndex(const LoadedModel& model, const schedule::Schedule& schedule);

    bool isEmpty() const { return placements_.empty(); }
    const OperatorPlacement& at(int flatIndex) const { return placements_[flatIndex]; }
    int stageCount() const { return stageCount_; }
    // First global stage number of each block.
    const std::vector<int>& blockFirstStage() const { return blockFirstStage_; }

private:
    std::vector<OperatorPlacement> placements_;
    std::vector<int> blockFirstStage_;
    int stageCount_ = 0;
};

} // namespace ios::views
