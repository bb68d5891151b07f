// SPDX-License-Identifier: Apache-2.0
#include "cost/gpu_simulation.h"

#include "cost/steady_state.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace ios::cost::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = kEventEps;
constexpr size_t kNone = kNoKernel;

Buffers& threadBuffers() {
    thread_local Buffers buffers;
    return buffers;
}

} // namespace

GpuSimulation::GpuSimulation(size_t streamCount, const DeviceProfile& device, bool timeline,
                             bool launchLatency, bool joinOverhead, SimulationMode mode)
    : b_(threadBuffers()), device_(device), model_(device.sm), rateModel_(device),
      timeline_(timeline), joinOverhead_(joinOverhead), mode_(mode) {
    run_.synchronized = launchLatency || joinOverhead;
    latency_ = launchLatency ? device.launchLatencyUs : 0.0;
    b_.kernels.clear();
    b_.cohorts.clear();
    b_.freeCohort = kNoCohort;
    b_.cohortTotal = 0;
    b_.residentKernels.clear();
    b_.depEdges.clear();
    b_.head.assign(streamCount, kNone);
    b_.tail.assign(streamCount, kNone);
    b_.ready.assign(streamCount, 0.0);
}

PreparedKernel prepareKernel(const KernelDesc& k, const DeviceProfile& device,
                             const CtaRateModel& rateModel) {
    const Occupancy o = occupancy(k, device);
    PreparedKernel p{&k, rateModel.prepare(k), o.ctasPerSm, 0.0};
    // A CTA's rate is 1 / (ctaLatency + max(compute, memory / memoryShare)) with compute and
    // memory at their least when nothing shares the SMs, the L2 or the DRAM (shares of 1, no
    // L2 miss): CtaRateModel::ratesOf. At most ctasPerSm × SMs CTAs are resident at once.
    const CtaRateModel::Kernel& r = p.rate;
    const double compute = r.computeWork;
    const double bytes = r.dramBytes / r.ctas;
    const double memory = bytes > 0 ? bytes / r.memoryRate : 0.0;
    const double cta = device.sm.ctaLatencyUs + std::max(compute, memory);
    const double minUs = static_cast<double>(o.waves) * cta;
    p.minUs = std::isfinite(minUs) && minUs > 0 ? minUs : 0.0;
    // A CTA's rate is at most computeShare / compute-at-share-1, and the resident CTAs'
    // Σ count × warps × computeShare = min(warpDemand, activeSms × satC) ≤ SMs × satC.
    const double computeUs =
        r.ctas * r.warps * compute / (std::max(1, device.smCount) * rateModel.saturationWarps());
    p.computeUs = std::isfinite(computeUs) && computeUs > 0 ? computeUs : 0.0;
    return p;
}

PreparedKernel GpuSimulation::prepare(const KernelDesc& k) const {
    return prepareKernel(k, device_, rateModel_);
}

size_t GpuSimulation::add(const KernelDesc& k, int stream, int op, const std::string* label) {
    return add(prepare(k), stream, op, label);
}

size_t GpuSimulation::add(const PreparedKernel& p, int stream, int op, const std::string* label) {
    const KernelDesc& k = *p.desc;
    const auto g = static_cast<size_t>(stream);
    assert(g < b_.head.size());
    const size_t index = b_.kernels.size();
    if (b_.tail[g] == kNone)
        b_.head[g] = index;
    else
        b_.kernels[b_.tail[g]].next = index;
    b_.tail[g] = index;
    KernelState s;
    s.desc = &k;
    s.group = stream;
    s.op = op;
    s.label = label;
    s.rate = p.rate;
    s.ctasPerSm = p.ctasPerSm;
    s.smPerCta = 1.0 / p.ctasPerSm;
    // Half-launch units times 0.5 are exact, so a stage's issue times are index × overhead.
    s.issue = static_cast<double>(hostHalves_) * 0.5 * device_.launchOverheadUs;
    hostHalves_ += 2;
    s.arrival = s.issue + latency_;
    s.pending = std::max<int64_t>(1, k.ctas);
    if (index > 0 && s.arrival < b_.kernels.back().arrival)
        arrivalOrdered_ = false;
    b_.kernels.push_back(s);
    return index;
}

void GpuSimulation::addDependency(size_t before, size_t after) {
    assert(before < after && after < b_.kernels.size());
    b_.depEdges.emplace_back(before, after);
    ++b_.kernels[after].unmet;
}

double GpuSimulation::kernelStartUs(size_t kernel) const {
    return b_.kernels[kernel].start;
}
double GpuSimulation::kernelEndUs(size_t kernel) const {
    return b_.kernels[kernel].end;
}

double GpuSimulation::run() {
    start();
    advance();
    return finish();
}

bool GpuSimulation::advance() {
    double t = t_;
    // Every iteration retires a cohort (at least one CTA) or admits a kernel, so the CTAs
    // and kernels bound the loop; exceeding it means a bug, not a slow stage.
    while (true) {
        if (guard_-- == 0)
            throw std::logic_error("stage simulation did not converge");
        dispatch(t);
        if (paused_) {
            t_ = t;
            return true;
        }
        const double next = nextArrival(t);
        if (b_.cohortTotal == 0 && next == kInf)
            break;
        if (cohortsChanged_) // the rates depend on the resident cohorts alone
            updateRates();
        if (timeline_)
            sample(t);
        if (mode_ == SimulationMode::Fast)
            t = skipSteady(t);
        // A stretch may pass an admission that cannot take SM room (steady_state.h): it is
        // made now, at the stretch's end (dt 0), as nothing of its kernel could run before.
        // Each kernel's next retirement is its oldest cohort's (a closed-form stretch may
        // leave one a rounding past its end: it retires now).
        const std::vector<int>& resident = b_.residentKernels;
        const double* rates = b_.kernelRates.data();
        KernelState* kernels = b_.kernels.data();
        const Cohort* cohorts = b_.cohorts.data();
        double dt = nextArrival(t) - t;
        for (size_t j = 0; j < resident.size(); ++j) {
            const KernelState& k = kernels[resident[j]];
            dt = std::min(dt, std::max(0.0, 1.0 - oldestProgress(b_, k)) / rates[j]);
        }
        assert(dt >= 0 && dt < kInf);
        // A whole wave: one cohort, fresh, that runs to its end.
        int waveKernel = -1;
        int64_t waveCount = 0;
        if (b_.cohortTotal == 1) {
            const KernelState& k = kernels[resident[0]];
            if (oldestProgress(b_, k) == 0 && dt == (1.0 - 0.0) / rates[0]) {
                waveKernel = resident[0];
                waveCount = cohorts[k.oldest].count;
            }
        }
        t += dt;
        for (size_t j = 0; j < resident.size(); ++j)
            kernels[resident[j]].clock += rates[j] * dt;
        retire(t);
        if (waveKernel >= 0 && b_.cohortTotal == 0)
            t = repeatWaves(t, waveKernel, waveCount, dt);
    }
    t_ = t;
    return false;
}

double GpuSimulation::finish() {
    const double issueEnd = static_cast<double>(hostHalves_) * 0.5 * device_.launchOverheadUs;
    double end = std::max(t_, issueEnd);
    if (joinOverhead_)
        end += device_.syncOverheadUs;
    run_.latencyUs = end;
    if (timeline_) {
        run_.samples.push_back({t_, 0, 0, 0});
        summarise();
    }
    return end;
}

bool GpuSimulation::startPaused(size_t next) {
    start();
    pauseBefore(next);
    if (advance())
        return true;
    finish();
    return false;
}

// The admission stream `next`'s first kernel will have, issued in the host's next slot
// (add(): arrival = issue + latency; ready 0 and no dependency do not delay it).
void GpuSimulation::pauseBefore(size_t next) {
    pauseStream_ = next;
    paused_ = false;
    if (next == kNone)
        return;
    assert(next < b_.head.size() && b_.head[next] == kNone);
    const double issue = static_cast<double>(hostHalves_) * 0.5 * device_.launchOverheadUs;
    b_.waiting.emplace_back(issue + latency_, next);
    std::push_heap(b_.waiting.begin(), b_.waiting.end(), std::greater<>());
}

bool GpuSimulation::resume(const PreparedKernel* const* kernels, size_t count, size_t next) {
    assert(paused_ && b_.depEdges.empty());
    const size_t stream = pauseStream_;
    const size_t first = b_.kernels.size();
    for (size_t i = 0; i < count; ++i)
        add(*kernels[i], static_cast<int>(stream), 0, nullptr);
    // What start() would have set up for the new kernels: ranks (arrivals in index order,
    // which PrefixStageSimulator checks), room in the queue, the cps counts and the
    // dependency index, and the loop's bound.
    const size_t n = b_.kernels.size();
    b_.byRank.resize(n);
    int maxCps = static_cast<int>(b_.cpsCount.size()) - 1;
    for (size_t i = first; i < n; ++i) {
        b_.byRank[i] = i;
        b_.kernels[i].rank = i;
        maxCps = std::max(maxCps, b_.kernels[i].ctasPerSm);
        guard_ += 2 + 2 * static_cast<size_t>(b_.kernels[i].pending);
    }
    b_.queued.grow(n);
    b_.cpsCount.resize(static_cast<size_t>(maxCps) + 1, 0);
    b_.cpsBits.resize(static_cast<size_t>(maxCps) / 64 + 1, 0);
    b_.depFirst.resize(n + 1, 0);
    pauseBefore(next);
    if (advance())
        return true;
    finish();
    return false;
}

void GpuSimulation::save(Checkpoint& to) const {
    to.buffers = b_;
    to.latency = latency_;
    to.hostHalves = hostHalves_;
    to.arrivalOrdered = arrivalOrdered_;
    to.cohortsChanged = cohortsChanged_;
    to.usedSms = usedSms_;
    to.queuedMaxCps = queuedMaxCps_;
    to.t = t_;
    to.guard = guard_;
    to.pauseStream = pauseStream_;
    to.steadyWait = steadyWait_;
}

// The streams of the paused stage, plus those `streamCount` adds (no kernels yet).
void GpuSimulation::restore(const Checkpoint& from, size_t streamCount) {
    b_ = from.buffers;
    b_.head.resize(std::max(b_.head.size(), streamCount), kNone);
    b_.tail.resize(b_.head.size(), kNone);
    b_.ready.resize(b_.head.size(), 0.0);
    latency_ = from.latency;
    hostHalves_ = from.hostHalves;
    arrivalOrdered_ = from.arrivalOrdered;
    cohortsChanged_ = from.cohortsChanged;
    usedSms_ = from.usedSms;
    queuedMaxCps_ = from.queuedMaxCps;
    t_ = from.t;
    guard_ = from.guard;
    pauseStream_ = from.pauseStream;
    steadyWait_ = from.steadyWait;
    paused_ = true;
}

StageRun GpuSimulation::timeline() {
    return std::move(run_);
}

// Ranks the kernels by (arrival, index), the order in which the CTA scheduler serves
// them, and puts every stream's first kernel on the waiting heap.
void GpuSimulation::start() {
    std::vector<KernelState>& kernels = b_.kernels;
    b_.byRank.resize(kernels.size());
    std::iota(b_.byRank.begin(), b_.byRank.end(), size_t{0});
    if (!arrivalOrdered_) // arrivals grow with the index unless the overhead is negative
        std::stable_sort(b_.byRank.begin(), b_.byRank.end(), [&](size_t a, size_t b) {
            return kernels[a].arrival < kernels[b].arrival;
        });
    int maxCps = 0;
    for (size_t r = 0; r < kernels.size(); ++r) {
        kernels[b_.byRank[r]].rank = r;
        maxCps = std::max(maxCps, kernels[r].ctasPerSm);
    }
    b_.queued.reset(kernels.size());
    b_.cpsCount.assign(static_cast<size_t>(maxCps) + 1, 0);
    b_.cpsBits.assign(static_cast<size_t>(maxCps) / 64 + 1, 0);
    queuedMaxCps_ = 0;
    b_.waiting.clear();
    // Dependents of each kernel, grouped (counting sort by dependency).
    b_.depFirst.assign(kernels.size() + 1, 0);
    for (const auto& [before, after] : b_.depEdges)
        ++b_.depFirst[before + 1];
    for (size_t i = 0; i < kernels.size(); ++i)
        b_.depFirst[i + 1] += b_.depFirst[i];
    b_.dependents.resize(b_.depEdges.size());
    b_.depCursor.assign(b_.depFirst.begin(), b_.depFirst.end() - 1);
    for (const auto& [before, after] : b_.depEdges)
        b_.dependents[b_.depCursor[before]++] = after;
    for (size_t s = 0; s < b_.head.size(); ++s)
        wait(s);
    t_ = 0;
    guard_ = 16;
    steadyWait_ = 0;
    for (const KernelState& k : kernels)
        guard_ += 2 + 2 * static_cast<size_t>(k.pending);
}

// Puts stream s's head kernel, if any, on the waiting heap.
void GpuSimulation::wait(size_t s) {
    if (b_.head[s] == kNone)
        return;
    const KernelState& k = b_.kernels[b_.head[s]];
    if (k.unmet > 0)
        return; // admitted once its last dependency finishes
    b_.waiting.emplace_back(std::max(std::max(k.arrival, b_.ready[s]), k.depReady), s);
    std::push_heap(b_.waiting.begin(), b_.waiting.end(), std::greater<>());
}

void GpuSimulation::enqueue(const KernelState& k) {
    b_.queued.insert(k.rank);
    const auto c = static_cast<size_t>(k.ctasPerSm);
    if (b_.cpsCount[c]++ == 0)
        b_.cpsBits[c / 64] |= uint64_t{1} << (c % 64);
    queuedMaxCps_ = std::max(queuedMaxCps_, k.ctasPerSm);
}

void GpuSimulation::dequeue(const KernelState& k) {
    b_.queued.erase(k.rank);
    const auto c = static_cast<size_t>(k.ctasPerSm);
    if (--b_.cpsCount[c] != 0)
        return;
    b_.cpsBits[c / 64] &= ~(uint64_t{1} << (c % 64));
    if (k.ctasPerSm != queuedMaxCps_)
        return;
    queuedMaxCps_ = 0; // the largest ctasPerSm still queued (0: none)
    for (size_t w = b_.cpsBits.size(); w-- > 0;)
        if (b_.cpsBits[w] != 0) {
            queuedMaxCps_ = static_cast<int>(w * 64 + 63 - std::countl_zero(b_.cpsBits[w]));
            break;
        }
}

// Admits the ready head kernel of each stream, then fills free SM slots with pending
// CTAs in launch order (the hardware CTA scheduler favours the earlier kernel).
void GpuSimulation::dispatch(double t) {
    std::vector<KernelState>& kernels = b_.kernels;
    std::vector<std::pair<double, size_t>>& waiting = b_.waiting;
    while (!waiting.empty() && waiting.front().first <= t + kEps) {
        if (waiting.front().second == pauseStream_ && b_.head[pauseStream_] == kNone) {
            paused_ = true; // its kernels come with resume()
            return;
        }
        std::pop_heap(waiting.begin(), waiting.end(), std::greater<>());
        KernelState& k = kernels[b_.head[waiting.back().second]];
        waiting.pop_back();
        k.admitted = true;
        enqueue(k); // pending >= 1 until it is dispatched
    }
    if (!anyFits())
        return;
    for (size_t r = b_.queued.next(0); r != RankSet::npos; r = b_.queued.next(r + 1)) {
        const size_t i = b_.byRank[r];
        KernelState& k = kernels[i];
        const double free = device_.smCount - usedSms_;
        const double room = free * k.ctasPerSm + kEps;
        if (room < 1.0)
            continue;
        // room >= 1 here: the conversion truncates, which is floor (no libm call).
        const int64_t n = std::min(k.pending, static_cast<int64_t>(room));
        if (k.start < 0)
            k.start = t;
        k.pending -= n;
        k.resident += n;
        if (k.pending == 0)
            dequeue(k);
        usedSms_ += static_cast<double>(n) * k.smPerCta;
        pushCohort(b_, static_cast<int>(i), n);
        cohortsChanged_ = true;
        if (!anyFits())
            return;
    }
}

double GpuSimulation::nextArrival(double t) const {
    return b_.waiting.empty() ? kInf : std::max(b_.waiting.front().first, t);
}

// After `wave` (all the free SMs' worth of one kernel's CTAs, dt long) retired at t with
// nothing else resident: while the same kernel refills the same slots and nothing
// arrives, every further wave is the same, so the main loop's steps reduce to t += dt
// (the same additions, so the same latency to the bit). Stops before the kernel's last
// full wave and leaves it, and the tail, to the main loop. Returns the new t.
double GpuSimulation::repeatWaves(double t, int kernel, int64_t count, double dt) {
    KernelState& k = b_.kernels[static_cast<size_t>(kernel)];
    const int64_t full = static_cast<int64_t>(std::floor(device_.smCount * k.ctasPerSm + kEps));
    if (count != full || k.pending <= count || b_.queued.next(0) != k.rank)
        return t;
    // Refilled, the wave leaves no room for another queued kernel.
    const double used = 0.0 + static_cast<double>(count) / k.ctasPerSm;
    if ((device_.smCount - used) * queuedMaxCps_ + kEps >= 1.0)
        return t;
    const std::vector<std::pair<double, size_t>>& waiting = b_.waiting;
    while (k.pending > count) {
        const double next = waiting.empty() ? kInf : std::max(waiting.front().first, t);
        if (next <= t + kEps || next - t < dt)
            break; // an admission or an arrival inside the wave: the main loop's case
        t += dt;
        k.pending -= count;
    }
    return t;
}

// A steady stretch in one step (steady_state.h). After an attempt that finds none, the next
// waits as many steps as there are cohorts, so stages that never settle pay little for it.
double GpuSimulation::skipSteady(double t) {
    if (steadyWait_ > 0) {
        --steadyWait_;
        return t;
    }
    const double freeSms = device_.smCount - usedSms_;
    if (anyFits() || !stretchMaySpare(b_, freeSms))
        return t;
    const double after = skipSteadyStretch(b_, t, freeSms, std::max(1, device_.maxCtasPerSm));
    if (after == t)
        steadyWait_ = b_.cohortTotal;
    return after;
}

void GpuSimulation::sample(double t) {
    int64_t ctas = 0;
    double warps = 0;
    double flopsPerUs = 0;
    for (size_t j = 0; j < b_.residentKernels.size(); ++j) {
        const KernelState& ks = b_.kernels[static_cast<size_t>(b_.residentKernels[j])];
        const KernelDesc& k = *ks.desc;
        ctas += ks.resident;
        warps += static_cast<double>(ks.resident) * k.warpsPerCta();
        flopsPerUs += static_cast<double>(ks.resident) * b_.kernelRates[j] * k.flops /
                      static_cast<double>(std::max<int64_t>(1, k.ctas));
    }
    UtilisationSample s;
    s.timeUs = t;
    s.activeSms = static_cast<int>(std::min<int64_t>(device_.smCount, ctas));
    s.warpOccupancy = std::min(1.0, warps / (device_.smCount * device_.maxWarpsPerSm()));
    s.flopUtilisation = std::min(1.0, flopsPerUs / (device_.fp32PeakTflops * 1e6));
    if (!run_.samples.empty() && run_.samples.back().timeUs == t)
        run_.samples.back() = s;
    else
        run_.samples.push_back(s);
}

// Retires every cohort at the end of its work (each kernel's oldest ones), in rank order.
void GpuSimulation::retire(double t) {
    std::vector<int>& resident = b_.residentKernels;
    size_t kept = 0;
    for (size_t j = 0; j < resident.size(); ++j) {
        const int i = resident[j];
        KernelState& k = b_.kernels[static_cast<size_t>(i)];
        while (k.oldest != kNoCohort && oldestProgress(b_, k) >= 1.0 - kEps) {
            const int64_t count = popOldestCohort(b_, k);
            k.resident -= count;
            usedSms_ -= static_cast<double>(count) * k.smPerCta;
            cohortsChanged_ = true;
            if (k.pending == 0 && k.resident == 0)
                retireKernel(k, i, t);
        }
        if (k.oldest != kNoCohort)
            resident[kept++] = i;
    }
    resident.resize(kept);
    if (b_.cohortTotal == 0)
        usedSms_ = 0; // drop accumulated rounding
}

// Kernel `kernel` finished at t: its stream's next kernel, and its dependents, may start.
void GpuSimulation::retireKernel(KernelState& k, int kernel, double t) {
    k.end = t;
    const auto s = static_cast<size_t>(k.group);
    b_.head[s] = k.next;
    b_.ready[s] = t + model_.kernelGapUs;
    wait(s);
    const auto self = static_cast<size_t>(kernel);
    for (size_t d = b_.depFirst[self]; d < b_.depFirst[self + 1]; ++d) {
        KernelState& after = b_.kernels[b_.dependents[d]];
        after.depReady = std::max(after.depReady, t + model_.kernelGapUs);
        const auto as = static_cast<size_t>(after.group);
        if (--after.unmet == 0 && b_.head[as] == b_.dependents[d])
            wait(as);
    }
}

void GpuSimulation::summarise() {
    for (const KernelState& k : b_.kernels)
        run_.kernels.push_back({k.group, k.op, *k.label, k.desc->name,
                                std::max<int64_t>(1, k.desc->ctas), k.issue, k.start, k.end});
    const double total = run_.latencyUs;
    if (total <= 0)
        return;
    const auto& s = run_.samples;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
        const double dt = s[i + 1].timeUs - s[i].timeUs;
        run_.meanActiveSmFraction += dt * s[i].activeSms / device_.smCount;
        run_.meanWarpOccupancy += dt * s[i].warpOccupancy;
        run_.meanFlopUtilisation += dt * s[i].flopUtilisation;
    }
    run_.meanActiveSmFraction /= total;
    run_.meanWarpOccupancy /= total;
    run_.meanFlopUtilisation /= total;
}

} // namespace ios::cost::detail
