// SPDX-License-Identifier: Apache-2.0
#include "eval/timeline_stats.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace ios::eval {

namespace {

struct Range {
    double a = 0;
    double b = 0;
};

Range clipRange(const Timeline& timeline, double t0, double t1) {
    const double end = timelineEndUs(timeline);
    const double a = std::clamp(t0, 0.0, end);
    return {a, std::clamp(t1, a, end)};
}

double fractionOf(double part, double whole) {
    return whole > 0 ? part / whole : 0;
}

// A merged busy interval and the kernels that open and close it (for the gaps' neighbours).
struct BusyRun {
    TimeInterval interval;
    int first = -1; // the kernel that starts it
    int last = -1;  // the kernel that ends it
};

std::vector<BusyRun> busyRuns(const Timeline& timeline, int stream, Range r) {
    std::vector<int> order;
    for (size_t k = 0; k < timeline.kernels.size(); ++k) {
        const TimelineKernel& kern = timeline.kernels[k];
        if ((stream < 0 || kern.stream == stream) && kern.endUs > kern.startUs &&
            kern.startUs < r.b && kern.endUs > r.a)
            order.push_back(static_cast<int>(k));
    }
    // By start, then end, then index: the same runs whatever order the kernels were issued in.
    std::sort(order.begin(), order.end(), [&](int x, int y) {
        const TimelineKernel& kx = timeline.kernels[static_cast<size_t>(x)];
        const TimelineKernel& ky = timeline.kernels[static_cast<size_t>(y)];
        if (kx.startUs != ky.startUs)
            return kx.startUs < ky.startUs;
        if (kx.endUs != ky.endUs)
            return kx.endUs < ky.endUs;
        return x < y;
    });
    std::vector<BusyRun> runs;
    for (int k : order) {
        const TimelineKernel& kern = timeline.kernels[static_cast<size_t>(k)];
        const double s = std::max(kern.startUs, r.a), e = std::min(kern.endUs, r.b);
        if (!runs.empty() && s <= runs.back().interval.endUs) {
            // Touching kernels merge: no idle time lies between them. Ties on the end keep
            // the later kernel, the one issued last.
            if (e >= runs.back().interval.endUs) {
                runs.back().interval.endUs = e;
                runs.back().last = k;
            }
            continue;
        }
        runs.push_back({{s, e}, k, k});
    }
    return runs;
}

} // namespace

double timelineEndUs(const Timeline& timeline) {
    double end = std::max(timeline.latencyUs, 0.0);
    for (const TimelineKernel& k : timeline.kernels)
        end = std::max(end, k.endUs);
    return end;
}

std::vector<TimeInterval> busyIntervals(const Timeline& timeline, int stream, double t0,
                                        double t1) {
    std::vector<TimeInterval> out;
    for (const BusyRun& run : busyRuns(timeline, stream, clipRange(timeline, t0, t1)))
        out.push_back(run.interval);
    return out;
}

namespace {

double busyUs(const Timeline& timeline, int stream, Range r) {
    double sum = 0;
    for (const BusyRun& run : busyRuns(timeline, stream, r))
        sum += run.interval.endUs - run.interval.startUs;
    return sum;
}

} // namespace

BusySummary busySummary(const Timeline& timeline, double t0, double t1) {
    const Range r = clipRange(timeline, t0, t1);
    BusySummary out;
    out.startUs = r.a;
    out.endUs = r.b;
    out.spanUs = r.b - r.a;
    out.overall.busyUs = busyUs(timeline, -1, r);
    out.overall.fraction = fractionOf(out.overall.busyUs, out.spanUs);
    out.idleUs = out.spanUs - out.overall.busyUs;
    std::map<int, int> kernels; // stream → kernels in the range
    for (const TimelineKernel& k : timeline.kernels)
        kernels[k.stream] += kernelIntersects(k, r.a, r.b) ? 1 : 0;
    for (const auto& [stream, count] : kernels) {
        StreamBusy s;
        s.stream = stream;
        s.kernels = count;
        s.busy.busyUs = busyUs(timeline, stream, r);
        s.busy.fraction = fractionOf(s.busy.busyUs, out.spanUs);
        out.streams.push_back(s);
    }
    return out;
}

std::vector<IdleGap> idleGaps(const Timeline& timeline, int stream, double minUs, double t0,
                              double t1) {
    const Range r = clipRange(timeline, t0, t1);
    std::vector<IdleGap> gaps;
    auto add = [&](double s, double e, int before, int after) {
        if (e > s && e - s >= minUs)
            gaps.push_back({stream, s, e, before, after});
    };
    double cursor = r.a;
    int before = -1;
    for (const BusyRun& run : busyRuns(timeline, stream, r)) {
        add(cursor, run.interval.startUs, before, run.first);
        cursor = run.interval.endUs;
        before = run.last;
    }
    add(cursor, r.b, before, -1);
    std::stable_sort(gaps.begin(), gaps.end(), [](const IdleGap& x, const IdleGap& y) {
        return x.durationUs() > y.durationUs();
    });
    return gaps;
}

bool kernelIntersects(const TimelineKernel& kernel, double t0, double t1) {
    if (!(t1 > t0))
        return false;
    if (kernel.endUs <= kernel.startUs)
        return kernel.startUs >= t0 && kernel.startUs < t1;
    return kernel.startUs < t1 && kernel.endUs > t0;
}

int rangeKernelCount(const Timeline& timeline, double t0, double t1) {
    return static_cast<int>(
        std::count_if(timeline.kernels.begin(), timeline.kernels.end(),
                      [&](const TimelineKernel& k) { return kernelIntersects(k, t0, t1); }));
}

TimelineSample sampleAt(const Timeline& timeline, double t) {
    const auto& s = timeline.samples;
    if (t < 0 || t >= timelineEndUs(timeline))
        return {t, 0, 0, 0};
    auto it = std::upper_bound(s.begin(), s.end(), t, [](double time, const TimelineSample& x) {
        return time < x.timeUs;
    });
    if (it == s.begin())
        return {t, 0, 0, 0};
    return *std::prev(it);
}

RangeStats rangeStats(const Timeline& timeline, double t0, double t1) {
    const Range r = clipRange(timeline, t0, t1);
    RangeStats out;
    out.startUs = r.a;
    out.endUs = r.b;
    out.durationUs = r.b - r.a;
    out.kernels = rangeKernelCount(timeline, r.a, r.b);
    out.busy.busyUs = busyUs(timeline, -1, r);
    out.busy.fraction = fractionOf(out.busy.busyUs, out.durationUs);
    if (out.durationUs <= 0)
        return out;
    // Integrate the piecewise-constant curves over [a, b): each sample holds until the next
    // (the last one until the timeline's end).
    const double end = timelineEndUs(timeline);
    const double sms = std::max(timeline.smCount, 1);
    const auto& s = timeline.samples;
    for (size_t i = 0; i < s.size(); ++i) {
        const double from = std::max(s[i].timeUs, r.a);
        const double to = std::min(i + 1 < s.size() ? s[i + 1].timeUs : end, r.b);
        if (to <= from)
            continue;
        const double w = (to - from) / out.durationUs;
        out.meanActiveSmFraction += w * s[i].activeSms / sms;
        out.meanWarpOccupancy += w * s[i].warpOccupancy;
        out.meanFlopUtilisation += w * s[i].flopUtilisation;
    }
    return out;
}

} // namespace ios::eval
