// SPDX-License-Identifier: Apache-2.0
// Arrows of a Chrome trace bound to kernels (io/trace_export.h): a stream program's record → wait
// orderings and a stage schedule's dependencies.
#include "io/trace_export.h"

namespace ios::io {

namespace {

// The program's flows and its timeline come from the same simulation; this only absorbs the
// rounding of sums (far below the trace's ns resolution).
constexpr double kToleranceUs = 1e-4;

// Kernel indices per stream, in the timeline's order (per stream: time order).
std::vector<std::vector<int>> kernelsByStream(const eval::Timeline& tl) {
    std::vector<std::vector<int>> out;
    for (size_t k = 0; k < tl.kernels.size(); ++k) {
        const int s = tl.kernels[k].stream;
        if (s >= static_cast<int>(out.size()))
            out.resize(static_cast<size_t>(s) + 1);
        out[static_cast<size_t>(s)].push_back(static_cast<int>(k));
    }
    return out;
}

const std::vector<int>& streamKernels(const std::vector<std::vector<int>>& byStream, int s) {
    static const std::vector<int> none;
    return s >= 0 && s < static_cast<int>(byStream.size()) ? byStream[static_cast<size_t>(s)]
                                                           : none;
}

// The last kernel of `block` on the stream that ended by `us` (the work a record captures).
int producer(const eval::Timeline& tl, const std::vector<int>& kernels, int block, double us) {
    int best = -1;
    for (int k : kernels) {
        const eval::TimelineKernel& kern = tl.kernels[static_cast<size_t>(k)];
        if (kern.block == block && kern.endUs <= us + kToleranceUs &&
            (best < 0 || kern.endUs >= tl.kernels[static_cast<size_t>(best)].endUs))
            best = k;
    }
    return best;
}

// The first kernel of `block` on the stream that starts at or after `us` (what a wait guards).
int consumer(const eval::Timeline& tl, const std::vector<int>& kernels, int block, double us) {
    int best = -1;
    for (int k : kernels) {
        const eval::TimelineKernel& kern = tl.kernels[static_cast<size_t>(k)];
        if (kern.block == block && kern.startUs >= us - kToleranceUs &&
            (best < 0 || kern.startUs < tl.kernels[static_cast<size_t>(best)].startUs))
            best = k;
    }
    return best;
}

} // namespace

std::vector<TraceFlow> traceFlows(const eval::Timeline& timeline,
                                  const std::vector<eval::ProgramFlow>& flows) {
    const std::vector<std::vector<int>> byStream = kernelsByStream(timeline);
    std::vector<TraceFlow> out;
    out.reserve(flows.size());
    for (const eval::ProgramFlow& f : flows) {
        const int from =
            producer(timeline, streamKernels(byStream, f.fromStream), f.block, f.fromUs);
        const int to = consumer(timeline, streamKernels(byStream, f.toStream), f.block, f.toUs);
        if (from >= 0 && to >= 0)
            out.push_back({from, to, "e" + std::to_string(f.event)});
    }
    return out;
}

std::vector<TraceFlow> traceFlows(const std::vector<eval::KernelFlow>& flows) {
    std::vector<TraceFlow> out;
    out.reserve(flows.size());
    for (const eval::KernelFlow& f : flows)
        out.push_back({f.from, f.to, "dep"});
    return out;
}

} // namespace ios::io
