// SPDX-License-Identifier: Apache-2.0
#include "eval/evaluate.h"

#include "cost/stage_memo.h"

namespace ios::eval {

double blockLatencyMs(const ir::BlockDag& dag, const schedule::BlockSchedule& bs,
                      const cost::CostModel& cost) {
    double ms = 0;
    cost::StagePricer pricer(cost, dag); // checked: the sum cannot become inf
    for (const schedule::Stage& st : bs.stages)
        ms += pricer.ms(st);
    return ms;
}

double totalLatencyMs(const std::vector<ir::BlockDag>& dags, const schedule::Schedule& sched,
                      const cost::CostModel& cost) {
    double ms = 0;
    for (size_t b = 0; b < dags.size() && b < sched.blocks.size(); ++b)
        ms += blockLatencyMs(dags[b], sched.blocks[b], cost);
    return ms;
}

} // namespace ios::eval
