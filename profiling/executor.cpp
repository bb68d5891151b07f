// SPDX-License-Identifier: Apache-2.0
#include "executor.h"

#include "gpu_trace.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ios::profiling {

NumericCheck compareOutputs(const std::vector<float>& out, const std::vector<float>& ref) {
    NumericCheck c;
    if (out.size() != ref.size())
        throw std::logic_error("compareOutputs: sizes differ");
    double diff2 = 0, ref2 = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        if (!std::isfinite(out[i]) || !std::isfinite(ref[i]))
            c.finite = false;
        const double d = static_cast<double>(out[i]) - ref[i];
        diff2 += d * d;
        ref2 += static_cast<double>(ref[i]) * ref[i];
        c.maxAbsDiff = std::max(c.maxAbsDiff, std::abs(d));
    }
    c.relativeL2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
    if (!c.finite)
        c.relativeL2 = std::numeric_limits<double>::infinity();
    return c;
}

double percentile(std::vector<double> samples, double p) {
    if (samples.empty())
        return 0;
    std::sort(samples.begin(), samples.end());
    const double pos = std::clamp(p, 0.0, 100.0) / 100 * static_cast<double>(samples.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, samples.size() - 1);
    const double frac = pos - static_cast<double>(lo);
    return samples[lo] + frac * (samples[hi] - samples[lo]);
}

Executor::Executor(const ir::Graph& graph, GpuBackend& backend, int batch, uint64_t seed)
    : graph_(graph), backend_(backend), batch_(batch), model_(graph, backend, batch, seed) {
    stream(0);
    fork_ = backend_.createEvent();
    start_ = backend_.createEvent();
    stop_ = backend_.createEvent();
}

const std::vector<std::vector<Kernel>>& Executor::stageKernels(const ir::BlockDag& dag,
                                                               const schedule::Stage& stage) {
    return model_.stageProgram(dag, stage).groups;
}

StreamId Executor::stream(size_t index) {
    while (streams_.size() <= index) {
        streams_.push_back(backend_.createStream());
        joins_.push_back(backend_.createEvent());
    }
    return streams_[index];
}

// Group g runs on stream g; streams 1.. wait for stream 0 at the stage start and stream 0
// waits for all of them at its end: the IOS runtime's synchronisation at stage boundaries.
void Executor::issueStageProgram(const StageProgram& p, int stageOrdinal) {
    const StreamId main = stream(0);
    if (p.groups.size() > 1) {
        backend_.record(fork_, main);
        for (size_t g = 1; g < p.groups.size(); ++g)
            backend_.wait(stream(g), fork_);
    }
    for (size_t g = 0; g < p.groups.size(); ++g)
        for (size_t i = 0; i < p.groups[g].size(); ++i) {
            if (stageOrdinal > 0)
                backend_.setTraceTag(makeTraceTag(stageOrdinal, p.ops[g][i]));
            backend_.enqueue(stream(g), p.groups[g][i]);
        }
    for (size_t g = 1; g < p.groups.size(); ++g) {
        backend_.record(joins_[g], streams_[g]);
        backend_.wait(main, joins_[g]);
    }
}

void Executor::issueStage(const ir::BlockDag& dag, const schedule::Stage& stage) {
    issueStageProgram(model_.stageProgram(dag, stage));
}

void Executor::issueSchedule(const std::vector<ir::BlockDag>& dags,
                             const schedule::Schedule& schedule, bool tagStages) {
    if (dags.size() != schedule.blocks.size())
        throw UserError("the schedule has " + std::to_string(schedule.blocks.size()) +
                        " blocks but the model has " + std::to_string(dags.size()));
    int ordinal = 0;
    for (size_t b = 0; b < dags.size(); ++b)
        for (const schedule::Stage& stage : schedule.blocks[b].stages)
            issueStageProgram(model_.stageProgram(dags[b], stage), tagStages ? ++ordinal : 0);
    if (tagStages)
        backend_.setTraceTag(0);
}

GraphId Executor::capture(const std::function<void()>& issueOnce) {
    const StreamId main = stream(0);
    issueOnce(); // create every stream, program and workspace before capturing
    backend_.synchronize();
    backend_.beginCapture(main);
    capturing_ = true;
    try {
        issueOnce();
    } catch (...) {
        capturing_ = false;
        try { // end the broken capture so the stream stays usable
            backend_.endCapture(main);
        } catch (...) {
        }
        throw;
    }
    capturing_ = false;
    return backend_.endCapture(main);
}

GraphId Executor::captureSchedule(const std::vector<ir::BlockDag>& dags,
                                  const schedule::Schedule& schedule) {
    return capture([&] { issueSchedule(dags, schedule); });
}

std::vector<double> Executor::timeRuns(const std::function<void()>& issueOnce,
                                       const TimingOptions& options) {
    if (options.repeat < 1 || options.number < 1 || options.warmup < 0)
        throw UserError("timing needs repeat >= 1, number >= 1 and warmup >= 0");
    const StreamId main = stream(0);
    std::function<void()> body = issueOnce;
    if (options.cudaGraph) {
        const GraphId graph = capture(issueOnce);
        body = [this, graph, main] { backend_.launchGraph(graph, main); };
    }
    for (int i = 0; i < options.warmup; ++i)
        body();
    backend_.synchronize();
    std::vector<double> samples;
    for (int r = 0; r < options.repeat; ++r) {
        backend_.record(start_, main);
        for (int i = 0; i < options.number; ++i)
            body();
        backend_.record(stop_, main);
        samples.push_back(backend_.elapsedMs(start_, stop_) / options.number);
    }
    return samples;
}

std::vector<double> Executor::timeSchedule(const std::vector<ir::BlockDag>& dags,
                                           const schedule::Schedule& schedule,
                                           const TimingOptions& options) {
    return timeRuns([&] { issueSchedule(dags, schedule); }, options);
}

std::vector<double> Executor::timeStage(const ir::BlockDag& dag, const schedule::Stage& stage,
                                        const TimingOptions& options) {
    return timeRuns([&] { issueStage(dag, stage); }, options);
}

void Executor::poisonActivations() {
    model_.poisonActivations();
}

std::vector<float> Executor::output() {
    backend_.synchronize();
    return backend_.download(model_.outputBuffer());
}

} // namespace ios::profiling
