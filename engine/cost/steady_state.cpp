// SPDX-License-Identifier: Apache-2.0
#include "cost/steady_state.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace ios::cost::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-9; // as the event loop's: a cohort at 1 - kEps has retired

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
    return std::floor(room * cps + kEps) > 0;
}

// The most CTAs of `kernel` that retire at one instant: its cohorts at one progress (its
// cohorts share a rate, so the groups stay as they are).
int64_t largestRetirement(const std::vector<Cohort>& cohorts, int kernel) {
    int64_t most = 0;
    for (const Cohort& c : cohorts) {
        if (c.kernel != kernel)
            continue;
        int64_t together = 0;
        for (const Cohort& d : cohorts)
            if (d.kernel == kernel && std::abs(d.progress - c.progress) <= 2 * kEps)
                together += d.count;
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
    const double room =
        freeSms + static_cast<double>(largestRetirement(b.cohorts, r.kernel)) / k.ctasPerSm;
    for (size_t q = b.queued.next(0); q != RankSet::npos && q < k.rank; q = b.queued.next(q + 1))
        if (fits(room, b.kernels[b.byRank[q]].ctasPerSm))
            return false;
    return true;
}

// The resident kernels of the cohorts (false when more than kMaxResident).
bool residents(const Buffers& b, std::array<Resident, kMaxResident>& out, size_t& n) {
    n = 0;
    for (size_t i = 0; i < b.cohorts.size(); ++i) {
        const Cohort& c = b.cohorts[i];
        size_t j = 0;
        while (j < n && out[j].kernel != c.kernel)
            ++j;
        if (j == n) {
            if (n == kMaxResident)
                return false;
            out[n++] = Resident{c.kernel, b.rates[i], 0, 0, false};
        }
        out[j].count += c.count;
        ++out[j].cohorts;
    }
    return true;
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
    if (b.cohorts.empty() || (!b.waiting.empty() && b.waiting.front().first <= t))
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
        r.steady = isSteady(b, r, freeSms);
        anySteady = anySteady || r.steady;
        if (r.steady)
            lastSteadyRank = std::max(lastSteadyRank, b.kernels[static_cast<size_t>(r.kernel)].rank);
        if (r.steady) // whole periods of refills its pending CTAs allow, one CTA kept (so
                      // the kernel stays queued until the event loop dispatches its last)
            horizon = std::min(
                horizon,
                static_cast<double>((b.kernels[static_cast<size_t>(r.kernel)].pending - 1) /
                                    r.count) /
                    r.rate);
    }
    if (!anySteady)
        return t;
    const auto steady = [&](int kernel) {
        for (size_t j = 0; j < n; ++j)
            if (res[j].kernel == kernel)
                return res[j].steady;
        return false;
    };
    const std::vector<Cohort>& cohorts = b.cohorts;
    for (size_t i = 0; i < cohorts.size(); ++i)
        if (!steady(cohorts[i].kernel))
            horizon = std::min(horizon, (1.0 - cohorts[i].progress) / b.rates[i]);
    horizon = std::min(horizon, firstRelevantAdmission(b, t, freeSms, maxCtasPerSm, lastSteadyRank));
    // Worth a step: the retirements it spares (a wrap of each steady cohort per period).
    double spared = 0;
    for (size_t j = 0; j < n; ++j)
        if (res[j].steady)
            spared += horizon * res[j].rate * static_cast<double>(res[j].cohorts);
    if (!(spared >= 3.0))
        return t;
    for (size_t i = 0; i < b.cohorts.size(); ++i) {
        Cohort& c = b.cohorts[i];
        const double x = c.progress + b.rates[i] * horizon;
        if (!steady(c.kernel)) {
            c.progress = std::min(x, 1.0);
            continue;
        }
        const double laps = std::floor(x + kEps);
        c.progress = std::max(0.0, x - laps);
        b.kernels[static_cast<size_t>(c.kernel)].pending -= c.count * static_cast<int64_t>(laps);
    }
    return t + horizon;
}

} // namespace ios::cost::detail
