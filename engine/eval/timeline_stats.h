// SPDX-License-Identifier: Apache-2.0
// Where a timeline's GPU is busy and where it idles (issue 17, Nsight Systems' "GPU
// utilisation" row and Perfetto's range selection): busy time per stream and overall over a
// time range, the idle gaps largest first, and the figures of a selected range. Everything is
// measured on half-open ranges [t0, t1) in µs, exactly (no sampling), so busy + idle = span and
// the gaps of a range add up to its idle time.
#pragma once

#include "eval/timeline.h"

#include <vector>

namespace ios::eval {

// A stream's or the device's busy time: the union of its kernels' intervals, clipped to the
// range. Zero-length kernels (and kernels with end ≤ start) occupy no time.
struct BusyTime {
    double busyUs = 0;
    double fraction = 0; // busyUs / span; 0 for an empty span
};

struct StreamBusy {
    int stream = 0;
    int kernels = 0; // kernels of the stream intersecting the range (see rangeKernelCount)
    BusyTime busy;
};

struct BusySummary {
    double startUs = 0;
    double endUs = 0;
    double spanUs = 0;
    BusyTime overall;                // any stream busy
    double idleUs = 0;               // spanUs - overall.busyUs
    std::vector<StreamBusy> streams; // every stream that has a kernel, by stream id
};

// Where the timeline ends: its latency, or the last kernel's end when a measured trace's kernels
// run past the latency it reports. Every range below is clipped to [0, timelineEndUs].
double timelineEndUs(const Timeline& timeline);

// A range outside the timeline gives an empty span and zero figures.
BusySummary busySummary(const Timeline& timeline, double t0, double t1);

// The merged busy intervals of one stream (stream ≥ 0) or of all streams (stream = -1),
// clipped to [t0, t1), in time order, non-overlapping and non-touching.
struct TimeInterval {
    double startUs = 0;
    double endUs = 0;
};
std::vector<TimeInterval> busyIntervals(const Timeline& timeline, int stream, double t0, double t1);

// An interval of [t0, t1) in which a stream (or, for stream = -1, every stream) runs nothing.
struct IdleGap {
    int stream = -1; // -1: the whole device
    double startUs = 0;
    double endUs = 0;
    double durationUs() const { return endUs - startUs; }
    // The kernel that ends where the gap starts and the one that starts where it ends (indices
    // into timeline.kernels; on the gap's stream, any stream for -1); -1 at the range's edges.
    int before = -1;
    int after = -1;
};

// Gaps of at least minUs µs (a gap of exactly minUs counts), largest first, ties by start time.
// The gaps at the range's edges count (the device idles before its first kernel too). With
// minUs ≤ 0 every gap is listed and their durations add up to the idle time.
std::vector<IdleGap> idleGaps(const Timeline& timeline, int stream, double minUs, double t0,
                              double t1);

// What Perfetto shows for a selected range.
struct RangeStats {
    double startUs = 0; // clipped to [0, timelineEndUs]
    double endUs = 0;
    double durationUs = 0;
    int kernels = 0; // kernels intersecting the range (rangeKernelCount)
    BusyTime busy;   // overall
    // Time-weighted means of the utilisation curves over the range (timeline.samples).
    double meanActiveSmFraction = 0;
    double meanWarpOccupancy = 0;
    double meanFlopUtilisation = 0;
};
RangeStats rangeStats(const Timeline& timeline, double t0, double t1);

// A kernel intersects [t0, t1) when it overlaps it (start < t1 and end > t0); a zero-length
// kernel when its instant lies in it.
bool kernelIntersects(const TimelineKernel& kernel, double t0, double t1);
int rangeKernelCount(const Timeline& timeline, double t0, double t1);

// The piecewise-constant curves at time t: the last sample at or before t; zero before the
// first sample and from timelineEndUs on.
TimelineSample sampleAt(const Timeline& timeline, double t);

} // namespace ios::eval
