// SPDX-License-Identifier: Apache-2.0
// Simulated timelines of the baseline schedules on the bundled V100 at batch 1, for the trace
// export and import suites; figure2Timeline() is the Figure 2 demo graph's (IOS paper Figure 2).
#pragma once

#include "bundled_models.h"
#include "cost/simulated_gpu_cost_model.h"
#include "eval/timeline.h"
#include "schedulers/baselines.h"

namespace ios::testing {

// The timeline of `graph`'s greedy schedule, or of its sequential one.
inline eval::Timeline baselineTimeline(const ir::Graph& graph, bool greedy) {
    const auto dags = ir::buildDags(graph);
    const cost::SimulatedGpuCostModel model(graph, *cost::findBundledDevice("V100"), 1);
    return eval::buildTimeline(
        dags, greedy ? schedulers::greedy(dags) : schedulers::sequential(dags), model);
}

inline eval::Timeline figure2Timeline(bool greedy) {
    static const ir::Graph graph = samples::loadBundledModel("demo_figure2");
    return baselineTimeline(graph, greedy);
}

} // namespace ios::testing
