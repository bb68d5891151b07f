// SPDX-License-Identifier: Apache-2.0
#include "cost/steady_state.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace ios::cost::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = kEventEps; // the event loop's

// One kernel with resident CTAs, as the stretch sees it.
struct Resident {
    int kernel = 0;
    double rate = 0;     // its CTAs' rate (the same for all its cohorts)
    int64_t count = 0;   // resident CTAs
    size_t cohorts = 0;  // how many cohorts hold them
    bool steady = false; // each retirement is refilled by itself
};
constexpr size_t kMaxResident = 8;

// Whether `cps`-per-SM CTAs fit in `room` SMs (GpuSimulation::dispatch's fit).
bool fits(double room, int cps) {
    return room * cps + kEps >= 1.0; // floor(x) > 0
}

// A kernel's cohorts' progress and counts, oldest (most progressed) first.
struct CohortView {
    std::vector<double> progress;
    std::vector<int64_t> count;
    std::vector<uint32_t> entry;
    std::vector<size_t> order;
};
CohortView& view(const Buffers& b, const KernelState& k) {
    thread_local CohortView v;
    v.progress.clear();
    v.count.clear();
    v.entry.clear();
    for (uint32_t e = k.oldest; e != kNoCohort; e = b.cohorts[e].next) {
        v.progress.push_back(k.clock - b.cohorts[e].start);
        v.count.push_back(b.cohorts[e].count);
        v.entry.push_back(e);
    }
    return v;
}

// The most CTAs of a kernel that retire at one instant: its cohorts at one progress (its
// cohorts share a rate, so the groups stay as they are). Progress falls along the list, so
// the cohorts within 2 kEps of one form a window that slides with it.
int64_t largestRetirement(const Buffers& b, const KernelState& k) {
    const CohortView& v = view(b, k);
    const size_t n = v.progress.size();
    int64_t most = 0;
    int64_t together = 0;
    size_t lo = 0;
    size_t hi = 0;
    for (size_t i = 0; i < n; ++i) {
        while (hi < n && v.progress[i] - v.progress[hi] <= 2 * kEps)
            together += v.count[hi++];
        while (v.progress[lo] - v.progress[i] > 2 * kEps)
            together -= v.count[lo++];
        most = std::max(most, together);
    }
    return most;
}

// Steady: a period of refills pending, and no queued kernel served before it fits in the
// room its largest retirement frees beside `freeSms`.
bool isSteady(const Buffers& b, const Resident& r, double freeSms) {
    const KernelState& k = b.kernels[static_cast<size_t>(r.kernel)];
    if (k.pending <= r.count)
        return false;
    const size_t first = b.queued.next(0);
    if (first == RankSet::npos || first >= k.rank)
        return true; // no queued kernel is served before it
    const double room = freeSms + static_cast<double>(largestRetirement(b, k)) / k.ctasPerSm;
    for (size_t q = first; q != RankSet::npos && q < k.rank; q = b.queued.next(q + 1))
        if (fits(room, b.kernels[b.byRank[q]].ctasPerSm))
            return false;
    return true;
}

// The resident kernels (false when more than kMaxResident).
bool residents(const Buffers& b, std::array<Resident, kMaxResident>& out, size_t& n) {
    n = b.residentKernels.size();
    if (n > kMaxResident)
        return false;
    for (size_t j = 0; j < n; ++j) {
        const KernelState& k = b.kernels[static_cast<size_t>(b.residentKernels[j])];
        out[j] = Resident{b.residentKernels[j], b.kernelRates[j], k.resident, k.cohortCount, false};
    }
    return true;
}

// A steady kernel after `horizon`: each cohort's progress wraps at 1, each wrap a refill of as
// many CTAs from the pending ones; the cohorts that wrapped once more than the others (the
// oldest) are the youngest now. Its clock restarts at 0 (a cohort's start is minus its
// progress: no rounding).
void wrapSteady(Buffers& b, KernelState& k, double rate, double horizon) {
    CohortView& v = view(b, k);
    const size_t n = v.progress.size();
    for (size_t i = 0; i < n; ++i) {
        const double x = v.progress[i] + rate * horizon;
        const double laps = std::floor(x + kEps);
        v.progress[i] = std::max(0.0, x - laps);
        k.pending -= v.count[i] * static_cast<int64_t>(laps);
    }
    // Oldest first again: most progress first, ties in the order they had.
    std::vector<size_t>& order = v.order;
    order.resize(n);
    for (size_t i = 0; i < n; ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return v.progress[x] > v.progress[y]; });
    for (size_t i = 0; i < n; ++i) {
        Cohort& c = b.cohorts[v.entry[i]];
        c.count = v.count[order[i]];
        c.start = -v.progress[order[i]];
        c.next = i + 1 < n ? v.entry[i + 1] : kNoCohort;
    }
    k.oldest = v.entry[0];
    k.newest = v.entry[n - 1];
    k.clock = 0;
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
        r.steady = isSteady(b, r, freeSms);
        anySteady = anySteady || r.steady;
        if (r.steady) {
            lastSteadyRank = std::max(lastSteadyRank, k.rank);
            // Whole periods of refills its pending CTAs allow, one CTA kept (so the kernel
            // stays queued until the event loop dispatches its last).
            horizon = std::min(horizon, static_cast<double>((k.pending - 1) / r.count) / r.rate);
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
    if (!(spared >= 3.0))
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
