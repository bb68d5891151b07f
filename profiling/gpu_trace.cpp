// SPDX-License-Identifier: Apache-2.0
#include "gpu_trace.h"

#include <algorithm>
#include <cstdlib>
#include <cxxabi.h>
#include <limits>
#include <memory>
#include <utility>

namespace ios::profiling {

std::string shortKernelName(const std::string& name) {
    std::string s = name;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> demangled(
        abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    if (status == 0 && demangled)
        s = demangled.get();
    // Cut parameters, then template arguments, then the return type.
    int depth = 0;
    std::string out;
    for (char ch : s) {
        if (ch == '(' && depth == 0)
            break;
        if (ch == '<')
            ++depth;
        else if (ch == '>')
            depth = std::max(0, depth - 1);
        else if (depth == 0)
            out += ch;
    }
    if (const size_t space = out.rfind(' '); space != std::string::npos)
        out = out.substr(space + 1);
    return out.empty() ? name : out;
}

eval::Timeline buildMeasuredTimeline(const MeasuredTraceInput& in) {
    eval::Timeline tl;
    tl.device = in.device;
    tl.batch = in.batch;
    if (in.kernels.empty())
        return tl;
    std::vector<const KernelRecord*> sorted;
    for (const KernelRecord& k : in.kernels)
        sorted.push_back(&k);
    std::stable_sort(
        sorted.begin(), sorted.end(),
        [](const KernelRecord* a, const KernelRecord* b) { return a->startNs < b->startNs; });
    const uint64_t t0 = sorted.front()->startNs;
    uint64_t tEnd = t0;
    auto us = [t0](uint64_t ns) { return static_cast<double>(ns - std::min(ns, t0)) / 1000.0; };

    std::vector<uint64_t> tracks = in.streamIds;
    for (const KernelRecord* k : sorted) {
        auto it = std::find(tracks.begin(), tracks.end(), k->streamId);
        int stream = static_cast<int>(it - tracks.begin());
        if (it == tracks.end())
            tracks.push_back(k->streamId);
        eval::TimelineKernel tk;
        tk.stream = stream;
        tk.kernel = shortKernelName(k->name);
        tk.ctas = static_cast<int64_t>(k->grid[0]) * k->grid[1] * k->grid[2];
        tk.startUs = us(k->startNs);
        tk.endUs = us(k->endNs);
        tk.block = tk.stage = tk.op = -1;
        const int st = k->tag ? tagStage(k->tag) : -1;
        if (st >= 0 && static_cast<size_t>(st) < in.stages.size()) {
            const TracedStage& s = in.stages[static_cast<size_t>(st)];
            tk.block = s.block;
            tk.stage = s.stage;
            tk.op = tagOp(k->tag);
            if (tk.op >= 0 && static_cast<size_t>(tk.op) < s.opNames.size())
                tk.opName = s.opNames[static_cast<size_t>(tk.op)];
        }
        tEnd = std::max(tEnd, k->endNs);
        tl.kernels.push_back(std::move(tk));
    }
    tl.streams = static_cast<int>(tracks.size());
    tl.latencyUs = us(tEnd);

    // Stage spans from their kernels, in issue order.
    for (size_t st = 0; st < in.stages.size(); ++st) {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (size_t i = 0; i < sorted.size(); ++i)
            if (sorted[i]->tag && tagStage(sorted[i]->tag) == static_cast<int>(st)) {
                lo = std::min(lo, tl.kernels[i].startUs);
                hi = std::max(hi, tl.kernels[i].endUs);
            }
        if (hi < lo) // a stage without kernels (only aliases): zero length where the last ended
            lo = hi = tl.stages.empty() ? 0 : tl.stages.back().endUs;
        const TracedStage& s = in.stages[st];
        tl.stages.push_back({s.block, s.stage, s.kind, s.groups, lo, hi, 0, 0, 0});
    }

    // Active warps, aligned to the kernel clock.
    const std::vector<WarpSample>& ws = in.warps.samples;
    if (!ws.empty()) {
        const bool percent = in.warps.metric.find("pct") != std::string::npos;
        const bool covers = ws.front().startNs <= t0 && ws.back().endNs >= t0;
        const int64_t shift =
            covers ? 0 : static_cast<int64_t>(t0) - static_cast<int64_t>(ws.front().startNs);
        for (const WarpSample& w : ws) {
            const double start = (static_cast<double>(static_cast<int64_t>(w.startNs) + shift) -
                                  static_cast<double>(t0)) /
                                 1000.0;
            eval::TimelineSample sample;
            sample.timeUs = start;
            sample.warpOccupancy = percent ? w.value / 100.0 : w.value;
            tl.samples.push_back(sample);
        }
        eval::TimelineSample last;
        last.timeUs = (static_cast<double>(static_cast<int64_t>(ws.back().endNs) + shift) -
                       static_cast<double>(t0)) /
                      1000.0;
        tl.samples.push_back(last);
        for (eval::TimelineStage& s : tl.stages)
            s.meanWarpOccupancy = std::max(0.0, meanWarpOccupancy(tl, s.startUs, s.endUs));
    }
    return tl;
}

namespace {

// Sample-weighted sum and covered length over [fromUs, toUs).
std::pair<double, double> warpIntegral(const eval::Timeline& tl, double fromUs, double toUs) {
    double weighted = 0, covered = 0;
    for (size_t i = 0; i + 1 < tl.samples.size(); ++i) {
        const double lo = std::max(fromUs, tl.samples[i].timeUs);
        const double hi = std::min(toUs, tl.samples[i + 1].timeUs);
        if (hi > lo) {
            weighted += (hi - lo) * tl.samples[i].warpOccupancy;
            covered += hi - lo;
        }
    }
    return {weighted, covered};
}

} // namespace

double meanWarpOccupancy(const eval::Timeline& tl, double fromUs, double toUs) {
    const auto [weighted, covered] = warpIntegral(tl, fromUs, toUs);
    return covered > 0 ? weighted / covered : -1;
}

double busyWarpOccupancy(const eval::Timeline& tl) {
    std::vector<std::pair<double, double>> spans;
    for (const eval::TimelineKernel& k : tl.kernels)
        if (k.endUs > k.startUs)
            spans.emplace_back(k.startUs, k.endUs);
    std::sort(spans.begin(), spans.end());
    double weighted = 0, covered = 0;
    auto add = [&](double lo, double hi) {
        const auto [w, c] = warpIntegral(tl, lo, hi);
        weighted += w;
        covered += c;
    };
    for (size_t i = 0; i < spans.size();) { // merge overlapping kernels into busy intervals
        double lo = spans[i].first, hi = spans[i].second;
        for (++i; i < spans.size() && spans[i].first <= hi; ++i)
            hi = std::max(hi, spans[i].second);
        add(lo, hi);
    }
    return covered > 0 ? weighted / covered : -1;
}

} // namespace ios::profiling
