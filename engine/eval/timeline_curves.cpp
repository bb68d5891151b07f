// SPDX-License-Identifier: Apache-2.0
#include "eval/timeline_curves.h"

#include "eval/timeline_stats.h"

#include <algorithm>
#include <limits>

namespace ios::eval {

double curveValue(const Timeline& timeline, const TimelineSample& sample, TimelineCurve curve) {
    switch (curve) {
    case TimelineCurve::ActiveSms:
        return static_cast<double>(sample.activeSms) / std::max(timeline.smCount, 1);
    case TimelineCurve::WarpOccupancy:
        return sample.warpOccupancy;
    case TimelineCurve::FlopUtilisation:
        return sample.flopUtilisation;
    }
    return 0;
}

namespace {

struct Segment {
    double start = 0;
    double end = 0;
    double value = 0;
};

// The curve as constant segments covering [lo, hi): zero before the first sample and after the
// timeline's end.
std::vector<Segment> segments(const Timeline& timeline, TimelineCurve curve, double lo, double hi) {
    const double end = timelineEndUs(timeline);
    const auto& s = timeline.samples;
    std::vector<Segment> out;
    auto add = [&out](double a, double b, double v) {
        if (b > a)
            out.push_back({a, b, v});
    };
    add(lo, s.empty() ? hi : std::min(s.front().timeUs, hi), 0);
    for (size_t i = 0; i < s.size(); ++i)
        add(std::max(s[i].timeUs, lo), std::min(i + 1 < s.size() ? s[i + 1].timeUs : end, hi),
            curveValue(timeline, s[i], curve));
    if (!s.empty())
        add(std::max(end, lo), hi, 0);
    return out;
}

} // namespace

std::vector<CurveBucket> decimateCurve(const Timeline& timeline, TimelineCurve curve, double t0,
                                       double t1, int buckets) {
    std::vector<CurveBucket> out;
    if (buckets < 1 || !(t1 > t0))
        return out;
    const std::vector<Segment> segs = segments(timeline, curve, t0, t1);
    const double width = (t1 - t0) / buckets;
    size_t j = 0; // first segment that may reach into the current bucket
    for (int k = 0; k < buckets; ++k) {
        CurveBucket b;
        b.startUs = t0 + width * k;
        b.endUs = k + 1 == buckets ? t1 : t0 + width * (k + 1);
        b.min = std::numeric_limits<double>::infinity();
        b.max = -b.min;
        double weighted = 0;
        for (size_t i = j; i < segs.size() && segs[i].start < b.endUs; ++i) {
            const double overlap =
                std::min(segs[i].end, b.endUs) - std::max(segs[i].start, b.startUs);
            if (overlap <= 0)
                continue;
            weighted += overlap * segs[i].value;
            b.min = std::min(b.min, segs[i].value);
            b.max = std::max(b.max, segs[i].value);
        }
        while (j < segs.size() && segs[j].end <= b.endUs)
            ++j;
        if (b.min > b.max) // rounding left the bucket without a segment
            b.min = b.max = 0;
        b.mean = weighted / (b.endUs - b.startUs);
        out.push_back(b);
    }
    return out;
}

std::vector<KernelFlow> kernelFlows(const Timeline& timeline,
                                    const std::vector<ir::BlockDag>& dags) {
    // Per operator: its last-ending and first-starting kernel.
    std::vector<std::vector<int>> last(dags.size()), first(dags.size());
    for (size_t b = 0; b < dags.size(); ++b) {
        last[b].assign(dags[b].ops.size(), -1);
        first[b].assign(dags[b].ops.size(), -1);
    }
    const auto& ks = timeline.kernels;
    for (size_t k = 0; k < ks.size(); ++k) {
        const TimelineKernel& kern = ks[k];
        if (kern.block < 0 || static_cast<size_t>(kern.block) >= dags.size() || kern.op < 0 ||
            static_cast<size_t>(kern.op) >= dags[static_cast<size_t>(kern.block)].ops.size())
            continue;
        int& l = last[static_cast<size_t>(kern.block)][static_cast<size_t>(kern.op)];
        int& f = first[static_cast<size_t>(kern.block)][static_cast<size_t>(kern.op)];
        if (l < 0 || kern.endUs > ks[static_cast<size_t>(l)].endUs)
            l = static_cast<int>(k);
        if (f < 0 || kern.startUs < ks[static_cast<size_t>(f)].startUs)
            f = static_cast<int>(k);
    }
    std::vector<KernelFlow> flows;
    for (size_t b = 0; b < dags.size(); ++b)
        for (size_t u = 0; u < dags[b].succs.size(); ++u) {
            const int from = last[b][u];
            if (from < 0)
                continue;
            for (int v : dags[b].succs[u]) {
                const int to = first[b][static_cast<size_t>(v)];
                if (to >= 0 &&
                    ks[static_cast<size_t>(from)].stream != ks[static_cast<size_t>(to)].stream)
                    flows.push_back({from, to});
            }
        }
    std::sort(flows.begin(), flows.end(), [](const KernelFlow& x, const KernelFlow& y) {
        return x.from != y.from ? x.from < y.from : x.to < y.to;
    });
    return flows;
}

} // namespace ios::eval
