// SPDX-License-Identifier: Apache-2.0
#include "eval/schedule_diff.h"

#include "eval/timeline_stats.h"
#include "ir/metrics.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace ios::eval {

namespace {

double overlapUs(double a0, double a1, double b0, double b1) {
    return std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
}

bool isComputeBound(const ComputeBound& bound, const TimelineKernel& k) {
    if (k.block < 0 || k.op < 0 || static_cast<size_t>(k.block) >= bound.size())
        return false;
    const auto& ops = bound[static_cast<size_t>(k.block)];
    return static_cast<size_t>(k.op) < ops.size() && ops[static_cast<size_t>(k.op)] != 0;
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string ms(double us) {
    return fixed(us / 1000.0, us < 10 ? 4 : 3) + " ms";
}

double overlap(const TimeBreakdown& t) {
    const double busy = t.computeUs + t.memoryUs;
    return busy > 0 ? t.meanKernelsInFlight * t.spanUs / busy : 0.0;
}

std::string plural(int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Stage latencies of each block, in stage order.
std::vector<std::vector<double>> stageLatencies(const Timeline& timeline, size_t blocks) {
    std::vector<std::vector<double>> out(blocks);
    for (const TimelineStage& s : timeline.stages) {
        if (s.block < 0 || static_cast<size_t>(s.block) >= blocks || s.stage < 0)
            continue;
        auto& v = out[static_cast<size_t>(s.block)];
        if (v.size() <= static_cast<size_t>(s.stage))
            v.resize(static_cast<size_t>(s.stage) + 1, 0.0);
        v[static_cast<size_t>(s.stage)] += s.endUs - s.startUs;
    }
    return out;
}

size_t blockCount(const Timeline& timeline) {
    int most = -1;
    for (const TimelineStage& s : timeline.stages)
        most = std::max(most, s.block);
    for (const TimelineKernel& k : timeline.kernels)
        most = std::max(most, k.block);
    return static_cast<size_t>(most + 1);
}

void sortByGain(std::vector<LatencyDelta>& deltas) {
    std::stable_sort(deltas.begin(), deltas.end(),
                     [](const LatencyDelta& x, const LatencyDelta& y) {
                         if (x.gainUs() != y.gainUs())
                             return x.gainUs() > y.gainUs();
                         if (x.block != y.block)
                             return x.block < y.block;
                         return x.stage < y.stage;
                     });
}

struct Placement {
    int stage = 0;
    int stream = 0;
    double startUs = 0; // relative to the block's start
    std::string name;
};

// The first kernel of each (block, operator), its start relative to the block's start.
std::map<std::pair<int, int>, Placement> placements(const Timeline& timeline) {
    std::map<std::pair<int, int>, Placement> out;
    std::map<int, double> blockStart;
    for (const TimelineKernel& k : timeline.kernels) {
        if (k.op < 0)
            continue;
        auto [it, fresh] = blockStart.try_emplace(k.block, 0.0);
        if (fresh)
            it->second = blockRange(timeline, k.block).startUs;
        const double rel = k.startUs - it->second;
        auto [p, added] =
            out.try_emplace({k.block, k.op}, Placement{k.stage, k.stream, rel, k.opName});
        if (!added && rel < p->second.startUs)
            p->second = {k.stage, k.stream, rel, k.opName};
    }
    return out;
}

} // namespace

double ridgeFlopsPerByte(const cost::DeviceProfile& device) {
    return device.dramBytesPerSecond() > 0
               ? device.fp32PeakTflops * 1e12 / device.dramBytesPerSecond()
               : 0.0;
}

ComputeBound computeBoundOperators(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                                   double ridgeFlopsPerByte) {
    const ir::NodeIndex index(graph);
    ComputeBound out(dags.size());
    for (size_t b = 0; b < dags.size(); ++b)
        for (const ir::Node* node : dags[b].ops) {
            const ir::OperatorMetrics m = ir::computeMetrics(*node, index);
            const double bytes = static_cast<double>(m.bytesRead + m.bytesWritten + m.weightBytes);
            const double intensity = bytes > 0 ? static_cast<double>(m.flops) / bytes : 0.0;
            out[b].push_back(m.flops > 0 && intensity >= ridgeFlopsPerByte ? 1 : 0);
        }
    return out;
}

TimeInterval blockRange(const Timeline& timeline, int block) {
    TimeInterval r{0, 0};
    bool any = false;
    for (const TimelineStage& s : timeline.stages) {
        if (s.block != block)
            continue;
        r.startUs = any ? std::min(r.startUs, s.startUs) : s.startUs;
        r.endUs = any ? std::max(r.endUs, s.endUs) : s.endUs;
        any = true;
    }
    return r;
}

TimeBreakdown timeBreakdown(const Timeline& timeline, const ComputeBound& bound, double t0,
                            double t1) {
    TimeBreakdown out;
    const BusySummary busy = busySummary(timeline, t0, t1);
    out.spanUs = busy.spanUs;
    if (out.spanUs <= 0)
        return out;
    const double a = busy.startUs, e = busy.endUs;
    double computeKernelUs = 0, kernelUs = 0;
    for (const TimelineKernel& k : timeline.kernels) {
        if (!kernelIntersects(k, a, e))
            continue;
        ++out.kernels;
        const double d = overlapUs(k.startUs, k.endUs, a, e);
        kernelUs += d;
        if (isComputeBound(bound, k))
            computeKernelUs += d;
    }
    out.computeUs = kernelUs > 0 ? busy.overall.busyUs * computeKernelUs / kernelUs : 0.0;
    out.memoryUs = busy.overall.busyUs - out.computeUs;
    out.meanKernelsInFlight = kernelUs / out.spanUs;
    // The device's idle gaps: inside a stage they wait for a launch or its sync.
    double inStages = 0;
    for (const IdleGap& gap : idleGaps(timeline, -1, 0, a, e))
        for (const TimelineStage& s : timeline.stages)
            inStages += overlapUs(gap.startUs, gap.endUs, s.startUs, s.endUs);
    out.overheadUs = std::min(inStages, busy.idleUs);
    out.idleUs = busy.idleUs - out.overheadUs;
    for (const TimelineStage& s : timeline.stages) {
        if (overlapUs(s.startUs, s.endUs, a, e) <= 0)
            continue;
        ++out.stages;
        out.mergeStages += s.kind == schedule::StageKind::Merge ? 1 : 0;
        out.maxGroups = std::max(out.maxGroups, s.groups);
    }
    const RangeStats stats = rangeStats(timeline, a, e);
    out.meanActiveSmFraction = stats.meanActiveSmFraction;
    out.meanWarpOccupancy = stats.meanWarpOccupancy;
    return out;
}

std::string explainBlock(int block, const TimeBreakdown& a, const TimeBreakdown& b,
                         const std::string& aLabel, const std::string& bLabel) {
    const bool bFaster = b.spanUs <= a.spanUs;
    const TimeBreakdown& fast = bFaster ? b : a;
    const TimeBreakdown& slow = bFaster ? a : b;
    const std::string& who = bFaster ? bLabel : aLabel;
    const double gain = slow.spanUs - fast.spanUs;
    std::string s = who + " saves " + ms(gain) + " in block " + std::to_string(block);
    if (gain <= 0)
        return aLabel + " and " + bLabel + " take the same time in block " + std::to_string(block) +
               " (" + ms(a.spanUs) + ")";
    // The mechanism the figures show, most specific first. Overlap: kernels in flight while
    // any runs (less launch or sync time alone raises the mean over the span, not this).
    const double concurrencyGain = overlap(fast) - overlap(slow);
    if (fast.maxGroups > 1 && fast.maxGroups > slow.maxGroups && concurrencyGain >= 0.05)
        return s + " by running " + std::to_string(fast.maxGroups) +
               " branches concurrently (mean concurrency " + fixed(fast.meanKernelsInFlight, 1) +
               " vs " + fixed(slow.meanKernelsInFlight, 1) + ")";
    if (fast.mergeStages > slow.mergeStages && fast.kernels < slow.kernels)
        return s + " by merging convolutions (" +
               plural(fast.mergeStages, "merged stage", "merged stages") + ", " +
               std::to_string(fast.kernels) + " kernels vs " + std::to_string(slow.kernels) + ")";
    if (concurrencyGain >= 0.05)
        return s + " by overlapping more kernels (mean concurrency " +
               fixed(fast.meanKernelsInFlight, 1) + " vs " + fixed(slow.meanKernelsInFlight, 1) +
               ")";
    const double fastIdle = fast.overheadUs + fast.idleUs, slowIdle = slow.overheadUs + slow.idleUs;
    if (fast.stages < slow.stages || fast.kernels < slow.kernels)
        return s + " with fewer launches and syncs (" + std::to_string(fast.kernels) +
               " kernels in " + plural(fast.stages, "stage", "stages") + " vs " +
               std::to_string(slow.kernels) + " in " + std::to_string(slow.stages) + "; overhead " +
               ms(fast.overheadUs) + " vs " + ms(slow.overheadUs) + ")";
    if (fastIdle < slowIdle)
        return s + " with less idle time (" + ms(fastIdle) + " vs " + ms(slowIdle) +
               " with no kernel running)";
    return s + " with faster kernels (busy " + ms(fast.computeUs + fast.memoryUs) + " vs " +
           ms(slow.computeUs + slow.memoryUs) + ")";
}

ScheduleDiff diffSchedules(const Timeline& a, const Timeline& b, const ComputeBound& bound,
                           const std::string& aLabel, const std::string& bLabel,
                           const DiffOptions& options) {
    const size_t blocks = blockCount(a);
    if (blocks != blockCount(b))
        throw UserError("the two schedules have " + std::to_string(blocks) + " and " +
                        std::to_string(blockCount(b)) + " blocks: not the same model");
    ScheduleDiff d;
    d.aLabel = aLabel;
    d.bLabel = bLabel;
    d.aLatencyUs = a.latencyUs;
    d.bLatencyUs = b.latencyUs;
    d.a = timeBreakdown(a, bound, 0, timelineEndUs(a));
    d.b = timeBreakdown(b, bound, 0, timelineEndUs(b));
    const auto aStages = stageLatencies(a, blocks), bStages = stageLatencies(b, blocks);
    for (size_t blk = 0; blk < blocks; ++blk) {
        const int block = static_cast<int>(blk);
        const TimeInterval ra = blockRange(a, block), rb = blockRange(b, block);
        const LatencyDelta delta{block, -1, ra.endUs - ra.startUs, rb.endUs - rb.startUs};
        d.blocks.push_back(delta);
        const size_t n = std::max(aStages[blk].size(), bStages[blk].size());
        for (size_t s = 0; s < n; ++s)
            d.stages.push_back({block, static_cast<int>(s),
                                s < aStages[blk].size() ? aStages[blk][s] : 0.0,
                                s < bStages[blk].size() ? bStages[blk][s] : 0.0});
        if (std::abs(delta.gainUs()) >= options.minGainUs)
            d.explanations.push_back(
                {block, delta.gainUs(),
                 explainBlock(block, timeBreakdown(a, bound, ra.startUs, ra.endUs),
                              timeBreakdown(b, bound, rb.startUs, rb.endUs), aLabel, bLabel)});
    }
    sortByGain(d.blocks);
    sortByGain(d.stages);
    std::stable_sort(d.explanations.begin(), d.explanations.end(),
                     [](const BlockExplanation& x, const BlockExplanation& y) {
                         return std::abs(x.gainUs) > std::abs(y.gainUs);
                     });
    const auto pa = placements(a), pb = placements(b);
    for (const auto& [key, p] : pa) {
        const auto it = pb.find(key);
        if (it == pb.end())
            continue;
        const Placement& q = it->second;
        if (p.stage != q.stage || p.stream != q.stream ||
            std::abs(p.startUs - q.startUs) > options.moveToleranceUs)
            d.moved.push_back({key.first, key.second, p.name, p.stage, q.stage, p.stream, q.stream,
                               p.startUs, q.startUs});
    }
    const bool bFaster = d.bLatencyUs <= d.aLatencyUs;
    const double fast = bFaster ? d.bLatencyUs : d.aLatencyUs;
    const double slow = bFaster ? d.aLatencyUs : d.bLatencyUs;
    d.summary = fast == slow
                    ? aLabel + " and " + bLabel + " take the same time: " + ms(fast) + "."
                    : (bFaster ? bLabel : aLabel) + " is " +
                          fixed(fast > 0 ? slow / fast : 0.0, 2) + "× faster than " +
                          (bFaster ? aLabel : bLabel) + ": " + ms(fast) + " vs " + ms(slow) + ".";
    return d;
}

} // namespace ios::eval
