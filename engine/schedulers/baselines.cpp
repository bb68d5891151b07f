// SPDX-License-Identifier: Apache-2.0
#include "schedulers/baselines.h"

#include <algorithm>

namespace ios::schedulers {

schedule::BlockSchedule sequential(const ir::BlockDag& dag) {
    schedule::BlockSchedule bs;
    for (int i = 0; i < static_cast<int>(dag.ops.size()); ++i)
        bs.stages.push_back({schedule::StageKind::Parallel, {{i}}});
    return bs;
}

schedule::Schedule sequential(const std::vector<ir::BlockDag>& dags) {
    schedule::Schedule s;
    for (const ir::BlockDag& d : dags)
        s.blocks.push_back(sequential(d));
    return s;
}

// Kahn levels: each stage holds every operator whose predecessors are all in earlier stages.
schedule::BlockSchedule greedy(const ir::BlockDag& dag) {
    const int n = static_cast<int>(dag.ops.size());
    std::vector<int> missing(n);
    std::vector<int> ready;
    for (int i = 0; i < n; ++i) {
        missing[i] = static_cast<int>(dag.preds[i].size());
        if (missing[i] == 0)
            ready.push_back(i);
    }
    schedule::BlockSchedule bs;
    while (!ready.empty()) {
        schedule::Stage stage;
        std::vector<int> next;
        for (int op : ready) {
            stage.groups.push_back({op});
            for (int s : dag.succs[op])
                if (--missing[s] == 0)
                    next.push_back(s);
        }
        bs.stages.push_back(std::move(stage));
        std::sort(next.begin(), next.end());
        ready = std::move(next);
    }
    return bs;
}

schedule::Schedule greedy(const std::vector<ir::BlockDag>& dags) {
    schedule::Schedule s;
    for (const ir::BlockDag& d : dags)
        s.blocks.push_back(greedy(d));
    return s;
}

} // namespace ios::schedulers
