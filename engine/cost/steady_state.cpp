// SPDX-License-Identifier: Apache-2.0
#include "cost/steady_state.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace ios::cost::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = kEventEps; // the event loop's
// A stretch is taken when it spares at least this many cohort retirements (fewer cost less
// one event at a time than the stretch's cohort walk).
constexpr double kWorthSparing = 3.0;

// One kernel with resident CTAs, as the stretch sees it.
struct Resident {
    int kernel = 0;
    double rate = 0;     // its CTAs' rate (the same for all its cohorts)
    size_t cohorts = 0;  // how many cohorts hold them
    bool steady = false; // each retirement is refilled by itself
};
constexpr size_t kMaxResident = 8;

// Whether `cps`-per-SM CTAs fit in `room` SMs (GpuSimulation::dispatch's fit).
bool fits(double room, int cps) {
    return room * cps + kEps >= 1.0; // floor(x) > 0
}

// The progress of the cohort at entry e of kernel k.
double progressOf(const Buffers& b, const KernelState& k, uint32_t e) {
    return k.clock - b.cohorts[e].start;
}

// The most CTAs of a kernel that retire at one instant: its cohorts at one progress (its
// cohorts share a rate, so the groups stay as they are). Progress falls along the list, so
// the cohorts within 2 kEps of one form a window [lo, hi) that slides with it.
int64_t largestRetirement(const Buffers& b, const KernelState& k) {
    int64_t most = 0;
    int64_t together = 0;
    uint32_t lo = k.oldest;
    uint32_t hi = k.oldest;
    for (uint32_t e = k.oldest; e != kNoCohort; e = b.cohorts[e].next) {
        const double progress = progressOf(b, k, e);
        while (hi != kNoCohort && progress - progressOf(b, k, hi) <= 2 * kEps) {
            together += b.cohorts[hi].count;
            hi = b.cohorts[hi].next;
        }
        while (progressOf(b, k, lo) - progress > 2 * kEps) {
            together -= b.cohorts[lo].count;
            lo = b.cohorts[lo].next;
        }
        most = std::max(most, together);
    }
    return most;
}

// Whether a queued kernel the CTA scheduler serves before k fits in `room` SMs.
bool earlierFits(const Buffers& b, const KernelState& k, double room) {
    for (size_t q = b.queued.next(0); q != RankSet::npos && q < k.rank; q = b.queued.next(q + 1))
        if (fits(room, b.kernels[b.byRank[q]].ctasPerSm))
            return true;
    return false;
}

// Whether k's pending CTAs refill its oldest cohort with one CTA kept (so it stays queued).
bool refillsOldest(const Buffers& b, const KernelState& k) {
    return k.pending > b.cohorts[k.oldest].count;
}

// Steady: its oldest cohort's refill pending, and no queued kernel served before it fits in
// the room its largest retirement frees beside `freeSms`.
bool isSteady(const Buffers& b, const KernelState& k, double freeSms) {
    if (!refillsOldest(b, k))
        return false;
    const size_t first = b.queued.next(0);
    if (first == RankSet::npos || first >= k.rank)
        return true; // no queued kernel is served before it
    return !earlierFits(b, k, freeSms + static_cast<double>(largestRetirement(b, k)) / k.ctasPerSm);
}

// Surely not steady (isSteady false), known without looking at the cohorts: its oldest
// cohort's refill is not pending, or a kernel served first fits in the room that one frees
// (no larger than its largest retirement's).
bool surelyUnsteady(const Buffers& b, const KernelState& k, double freeSms) {
    return !refillsOldest(b, k) ||
           earlierFits(b, k,
                       freeSms + static_cast<double>(b.cohorts[k.oldest].count) / k.ctasPerSm);
}

// How long, in periods of its rate, a steady kernel refills every retirement with as many of
// its pending CTAs, one CTA kept (so it stays queued until the event loop dispatches its
// last): whole periods, then its cohorts oldest first while the CTAs last, up to the
// retirement of the last one refilled in full. A cohort within 2 kEps of the next retires
// with it in the event loop (wrapSteady counts both), so the stretch stops before such a pair
// unless both are refilled.
double steadyHorizon(const Buffers& b, const KernelState& k) {
    const int64_t laps = (k.pending - 1) / k.resident;
    int64_t left = k.pending - 1 - laps * k.resident; // CTAs beyond the kept one after the laps
    double partial = 0;
    double last = -1; // progress of the last cohort refilled in the partial lap
    for (uint32_t e = k.oldest; e != kNoCohort; e = b.cohorts[e].next) {
        const double progress = progressOf(b, k, e);
        if (last >= 0 && last - progress > 2 * kEps)
            partial = 1.0 - last; // the cohorts so far retire apart from the rest
        if (b.cohorts[e].count > left)
            break;
        left -= b.cohorts[e].count;
        last = progress;
    }
    return static_cast<double>(laps) + partial;
}

// The resident kernels (false when more than kMaxResident).
bool residents(const Buffers& b, std::array<Resident, kMaxResident>& out, size_t& n) {
    n = b.residentKernels.size();
    if (n > kMaxResident)
        return false;
    for (size_t j = 0; j < n; ++j) {
        const KernelState& k = b.kernels[static_cast<size_t>(b.residentKernels[j])];
        out[j] = Resident{b.residentKernels[j], b.kernelRates[j], k.cohortCount, false};
    }
    return true;
}

// Orders k's cohorts oldest (most progressed) first again, ties in the order they had.
void sortCohorts(Buffers& b, KernelState& k) {
    thread_local std::vector<uint32_t> entries;
    entries.clear();
    for (uint32_t e = k.oldest; e != kNoCohort; e = b.cohorts[e].next)
        entries.push_back(e);
    std::stable_sort(entries.begin(), entries.end(), [&](uint32_t x, uint32_t y) {
        return b.cohorts[x].start < b.cohorts[y].start; // progress = -start, clock at 0
    });
    for (size_t i = 0; i + 1 < entries.size(); ++i)
        b.cohorts[entries[i]].next = entries[i + 1];
    b.cohorts[entries.back()].next = kNoCohort;
    k.oldest = entries.front();
    k.newest = entries.back();
}

// A steady kernel after `horizon`: each cohort's progress wraps at 1, each wrap a refill of as
// many CTAs from the pending ones; the cohorts that wrapped once more than the others (the
// oldest) are the youngest now. Its clock restarts at 0 (a cohort's start is minus its
// progress: no rounding). The cohorts share a rate, so their order is the old one rotated:
// the list is relinked at the seam where progress rises (sorted only if rounding broke that).
void wrapSteady(Buffers& b, KernelState& k, double rate, double horizon) {
    uint32_t seam = kNoCohort;       // the first cohort with more progress than the one before
    uint32_t beforeSeam = kNoCohort; // the one before it
    bool rotation = true;
    double before = kInf;
    uint32_t previous = kNoCohort;
    for (uint32_t e = k.oldest; e != kNoCohort; e = b.cohorts[e].next) {
        Cohort& c = b.cohorts[e];
        const double x = progressOf(b, k, e) + rate * horizon;
        const double laps = std::floor(x + kEps);
        const double progress = std::max(0.0, x - laps);
        k.pending -= c.count * static_cast<int64_t>(laps);
        c.start = -progress;
        if (progress > before && seam != kNoCohort) {
            rotation = false; // a second rise: not one rotated run
        } else if (progress > before) {
            seam = e;
            beforeSeam = previous;
        }
        before = progress;
        previous = e;
    }
    k.clock = 0;
    if (seam == kNoCohort)
        return; // still oldest first
    // Rotated: the youngest (the list's end) must be ahead of the old oldest, else ties or
    // rounding decide the order.
    if (rotation && b.cohorts[k.newest].start < b.cohorts[k.oldest].start) {
        b.cohorts[k.newest].next = k.oldest;
        b.cohorts[beforeSeam].next = kNoCohort;
        k.oldest = seam;
        k.newest = beforeSeam;
        return;
    }
    sortCohorts(b, k);
}

// The first admission that can change what the steady kernels dispatch: one of a kernel the
// CTA scheduler serves before some steady kernel (it would take that kernel's room), or any
// when a CTA of some kernel could fit in the room left now. Any other kernel only queues
// behind them: it gets no CTA before a retirement that ends the stretch anyway. The paused
// stream of a prefix run (no kernel yet) issues after every kernel there, so it is ranked
// after them all, whatever its kernels are: a paused run and the whole run step alike.
double firstRelevantAdmission(const Buffers& b, double t, double freeSms, int maxCtasPerSm,
                              size_t lastSteadyRank) {
    const bool roomLeft = fits(freeSms, maxCtasPerSm);
    double first = kInf;
    for (const auto& [time, stream] : b.waiting) {
        if (time - t >= first)
            continue;
        const size_t head = b.head[stream];
        if (roomLeft || (head != kNoKernel && b.kernels[head].rank < lastSteadyRank))
            first = time - t;
    }
    return first;
}

} // namespace

bool stretchMaySpare(const Buffers& b, double freeSms) {
    double bound = kInf; // no stretch passes the next retirement of a kernel surely unsteady
    double perTime = 0;  // the others' cohort wraps per µs
    for (size_t j = 0; j < b.residentKernels.size(); ++j) {
        const KernelState& k = b.kernels[static_cast<size_t>(b.residentKernels[j])];
        const double rate = b.kernelRates[j];
        if (surelyUnsteady(b, k, freeSms))
            bound = std::min(bound, std::max(0.0, 1.0 - oldestProgress(b, k)) / rate);
        else
            perTime += rate * static_cast<double>(k.cohortCount);
    }
    return perTime > 0 && !(bound * perTime < kWorthSparing);
}

double skipSteadyStretch(Buffers& b, double t, double freeSms, int maxCtasPerSm) {
    if (b.cohortTotal == 0 || (!b.waiting.empty() && b.waiting.front().first <= t))
        return t;
    double horizon = kInf;
    std::array<Resident, kMaxResident> res;
    size_t n = 0;
    if (!residents(b, res, n))
        return t;
    bool anySteady = false;
    size_t lastSteadyRank = 0;
    for (size_t j = 0; j < n; ++j) {
        Resident& r = res[j];
        const KernelState& k = b.kernels[static_cast<size_t>(r.kernel)];
        r.steady = isSteady(b, k, freeSms);
        anySteady = anySteady || r.steady;
        if (r.steady) {
            lastSteadyRank = std::max(lastSteadyRank, k.rank);
            horizon = std::min(horizon, steadyHorizon(b, k) / r.rate);
        } else { // until its oldest cohort retires
            horizon = std::min(horizon, std::max(0.0, 1.0 - oldestProgress(b, k)) / r.rate);
        }
    }
    if (!anySteady)
        return t;
    horizon =
        std::min(horizon, firstRelevantAdmission(b, t, freeSms, maxCtasPerSm, lastSteadyRank));
    // Worth a step: the retirements it spares (a wrap of each steady cohort per period).
    double spared = 0;
    for (size_t j = 0; j < n; ++j)
        if (res[j].steady)
            spared += horizon * res[j].rate * static_cast<double>(res[j].cohorts);
    if (!(spared >= kWorthSparing))
        return t;
    for (size_t j = 0; j < n; ++j) {
        KernelState& k = b.kernels[static_cast<size_t>(res[j].kernel)];
        if (res[j].steady)
            wrapSteady(b, k, res[j].rate, horizon);
        else
            k.clock += res[j].rate * horizon;
    }
    return t + horizon;
}

} // namespace ios::cost::detail
