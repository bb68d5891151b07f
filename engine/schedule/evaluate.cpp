#include "schedule/evaluate.h"

namespace ios::schedule {

double blockLatencyMs(const ir::BlockDag& dag, const BlockSchedule& bs,
                      const cost::CostModel& cost) {
    double ms = 0;
    for (const Stage& st : bs.stages)
        ms += cost.stageLatencyMs(dag, st);
    return ms;
}

double totalLatencyMs(const std::vector<ir::BlockDag>& dags, const Schedule& schedule,
                      const cost::CostModel& cost) {
    double ms = 0;
    for (size_t b = 0; b < dags.size() && b < schedule.blocks.size(); ++b)
        ms += blockLatencyMs(dags[b], schedule.blocks[b], cost);
    return ms;
}

} // namespace ios::schedule
