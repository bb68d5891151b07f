// SPDX-License-Identifier: Apache-2.0
#include "schedule_index.h"

namespace ios::views {

ScheduleIndex::ScheduleIndex(const LoadedModel& model, const schedule::Schedule& schedule) {
    placements_.assign(static_cast<size_t>(model.operatorCount()), {});
    const int blocks =
        std::min(static_cast<int>(schedule.blocks.size()), static_cast<int>(model.dags().size()));
    for (int b = 0; b < blocks; ++b) {
        blockFirstStage_.push_back(stageCount_);
        const auto& stages = schedule.blocks[b].stages;
        const int ops = static_cast<int>(model.dags()[b].ops.size());
        for (int st = 0; st < static_cast<int>(stages.size()); ++st, ++stageCount_) {
            const auto& groups = stages[st].groups;
            for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
                for (int p = 0; p < static_cast<int>(groups[g].size()); ++p) {
                    const int op = groups[g][p];
                    if (op < 0 || op >= ops)
                        continue;
                    placements_[model.flatIndex({b, op})] = {st, stageCount_, g, p,
                                                             stages[st].kind};
                }
            }
        }
    }
}

} // namespace ios::views
