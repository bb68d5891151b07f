// SPDX-License-Identifier: Apache-2.0
// Batched stage timing (Executor::timeStages): the stage profiler's inner loop.
#include "executor.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ios::profiling {

int BatchTiming::repeatsFor(double spanMs) const {
    if (!(spanMs > 0))
        return maxRepeat; // below the events' resolution: as many samples as allowed
    const double wanted = std::ceil(targetMs / spanMs);
    return static_cast<int>(
        std::clamp(wanted, static_cast<double>(minRepeat), static_cast<double>(maxRepeat)));
}

size_t Executor::stageKernelCount(const ir::BlockDag& dag, const schedule::Stage& stage) {
    size_t n = 0;
    for (const std::vector<Kernel>& group : model_.stageProgram(dag, stage).groups)
        n += group.size();
    return n;
}

BatchedTimes Executor::timeStages(const std::vector<StageRef>& stages, const BatchTiming& timing) {
    if (stages.empty())
        throw std::invalid_argument("timeStages: no stages");
    if (timing.warmup < 1 || timing.minRepeat < 1 || timing.maxRepeat < timing.minRepeat)
        throw std::invalid_argument("timeStages: needs warmup >= 1 and 1 <= minRepeat <= "
                                    "maxRepeat");
    const StreamId main = stream(0);
    while (timingEvents_.size() < stages.size() + 1)
        timingEvents_.push_back(backend_.createEvent());
    const size_t k = stages.size();
    // Programs are built (and merged weights uploaded) before the capture: capture() issues
    // once eagerly anyway, but building inside the issue would allocate while capturing.
    std::vector<const StageProgram*> programs;
    for (const StageRef& s : stages)
        programs.push_back(&model_.stageProgram(*s.dag, *s.stage));
    const GraphId graph = capture([&] {
        for (size_t i = 0; i < k; ++i) {
            backend_.recordTiming(timingEvents_[i], main);
            issueStageProgram(*programs[i]);
        }
        backend_.recordTiming(timingEvents_[k], main);
    });

    BatchedTimes out;
    double spanMs = 0;
    for (int w = 0; w < timing.warmup; ++w) {
        backend_.launchGraph(graph, main);
        spanMs = backend_.elapsedMs(timingEvents_[0], timingEvents_[k]);
        out.busyMs += spanMs;
    }
    out.repeats = timing.repeatsFor(spanMs);
    out.replays = timing.warmup + out.repeats;
    std::vector<std::vector<double>> samples(k);
    for (int r = 0; r < out.repeats; ++r) {
        backend_.launchGraph(graph, main);
        // The events are overwritten by the next replay: read them all before launching it.
        for (size_t i = 0; i < k; ++i)
            samples[i].push_back(backend_.elapsedMs(timingEvents_[i], timingEvents_[i + 1]));
        out.busyMs += backend_.elapsedMs(timingEvents_[0], timingEvents_[k]);
    }
    backend_.destroyGraph(graph);
    for (std::vector<double>& s : samples) {
        const auto [lo, hi] = std::minmax_element(s.begin(), s.end());
        out.spreadMs.push_back(s.empty() ? 0 : *hi - *lo);
        out.medianMs.push_back(median(std::move(s)));
    }
    return out;
}

} // namespace ios::profiling
