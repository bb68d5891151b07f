// SPDX-License-Identifier: Apache-2.0
#include "schedulers/pareto.h"

#include "schedulers/ios_dp.h"
#include "util/error.h"

#include <chrono>

namespace ios::schedulers {

ParetoFront paretoFront(const ir::PreparedModel& model, const Scheduler& scheduler,
                        const Params& params, const cost::CostModel& cost, int points,
                        SearchControl* control) {
    if (!scheduler.reads(Knob::MemoryBudget))
        throw UserError("the latency-memory trade-off needs a scheduler that takes a memory "
                        "budget (ios-both, ios-parallel, ios-merge), not " +
                        std::string(scheduler.key()));
    if (points < 2 || points > 1000)
        throw UserError("the trade-off takes 2 to 1000 points, not " + std::to_string(points));
    const auto start = std::chrono::steady_clock::now();
    ParetoFront front;
    Params p = params;
    p.memoryBudget = 0;
    // Search i of `points` reports its progress as the i-th share of one count.
    int searchIndex = 0;
    auto run = [&](const Params& runParams) {
        if (control == nullptr)
            return scheduler.run(model, runParams, cost, nullptr);
        SearchControl job;
        control->inheritInto(job);
        const auto index = static_cast<uint64_t>(searchIndex++);
        if (control->progress)
            job.progress = [control, index, points](uint64_t done, uint64_t total) {
                const auto n = static_cast<uint64_t>(points);
                control->progress(index * total + done, n * total);
            };
        return scheduler.run(model, runParams, cost, &job);
    };
    Outcome free = run(p);
    front.unconstrainedPeak = free.peakBytes;
    front.smallestPeak = smallestSchedulePeak(model, memoryOptions(params, cost), control);
    front.points.push_back({0, free.latencyMs, free.peakBytes, false, std::move(free.schedule)});
    const int64_t hi = front.unconstrainedPeak;
    const int64_t lo = front.smallestPeak;
    for (int i = 1; i < points && hi > lo; ++i) {
        // Evenly spaced, the last exactly the smallest peak (which always has a schedule).
        const int64_t budget =
            hi - static_cast<int64_t>(static_cast<double>(hi - lo) * i / (points - 1));
        if (budget >= front.points.back().peakBytes)
            continue; // the previous schedule already fits: the same search result
        p.memoryBudget = budget;
        Outcome o = run(p);
        if (o.schedule == front.points.back().schedule)
            continue;
        front.points.push_back({budget, o.latencyMs, o.peakBytes, false, std::move(o.schedule)});
    }
    for (size_t i = 0; i < front.points.size(); ++i)
        for (size_t j = i + 1; j < front.points.size(); ++j)
            front.points[i].dominated =
                front.points[i].dominated || front.points[j].latencyMs <= front.points[i].latencyMs;
    front.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return front;
}

} // namespace ios::schedulers
