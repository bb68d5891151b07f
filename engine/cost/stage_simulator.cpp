#include "cost/stage_simulator.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace ios::cost {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-9;

struct KernelState {
    const KernelDesc* desc = nullptr;
    int group = 0;
    const OpKernels* op = nullptr; // null when only the latency is simulated
    CtaRateModel::Kernel rate;
    int ctasPerSm = 0;
    double issue = 0;
    double arrival = 0; // reaches the GPU
    int64_t pending = 0;
    int64_t resident = 0;
    bool admitted = false; // launched on the GPU: its CTAs may take free SM slots
    double start = -1;
    double end = -1;
    uint64_t counted = 0; // the rate evaluation that last counted its working set
    size_t rank = 0;      // position in (arrival, index) order: the CTA scheduler's priority
};

struct Cohort {
    int kernel = 0; // index into kernels
    int64_t count = 0;
    double progress = 0; // fraction of the CTAs' work done
};

// A set of ranks 0..n-1 visited in ascending order: a two-level bitset (finding the next
// member skips 4096 absent ranks per summary word), no allocation once grown.
class RankSet {
public:
    static constexpr size_t npos = static_cast<size_t>(-1);

    void reset(size_t n) {
        words_.assign((n + 63) / 64, 0);
        summary_.assign((words_.size() + 63) / 64, 0);
    }
    void insert(size_t r) {
        words_[r / 64] |= bit(r % 64);
        summary_[r / 4096] |= bit(r / 64 % 64);
    }
    void erase(size_t r) {
        uint64_t& w = words_[r / 64];
        w &= ~bit(r % 64);
        if (w == 0)
            summary_[r / 4096] &= ~bit(r / 64 % 64);
    }
    // The smallest member >= r, or npos.
    size_t next(size_t r) const {
        size_t word = r / 64;
        if (word >= words_.size())
            return npos;
        if (const uint64_t w = words_[word] & (~uint64_t{0} << (r % 64)); w != 0)
            return word * 64 + static_cast<size_t>(std::countr_zero(w));
        ++word;
        size_t si = word / 64;
        if (si >= summary_.size())
            return npos;
        uint64_t s = summary_[si] & (~uint64_t{0} << (word % 64));
        while (s == 0) {
            if (++si >= summary_.size())
                return npos;
            s = summary_[si];
        }
        word = si * 64 + static_cast<size_t>(std::countr_zero(s));
        return word * 64 + static_cast<size_t>(std::countr_zero(words_[word]));
    }

private:
    static uint64_t bit(size_t i) { return uint64_t{1} << i; }
    std::vector<uint64_t> words_;
    std::vector<uint64_t> summary_;
};

// A simulation's working memory, kept per thread between simulations (the search simulates
// many small stages; the buffers stop growing after the first few).
struct Buffers {
    std::vector<KernelState> kernels;
    // Stream s issues kernels [first, end[s]) in order; head[s] is the next one to finish.
    std::vector<size_t> head;
    std::vector<size_t> end;
    std::vector<double> ready; // earliest start of the stream's next kernel
    // Min-heap of (admission time, stream) over the streams whose head kernel waits to be
    // admitted: admission time = max(arrival, ready) of the head.
    std::vector<std::pair<double, size_t>> waiting;
    // The admitted kernels with pending CTAs, by rank; byRank[rank] = kernel index.
    RankSet queued;
    std::vector<size_t> byRank;
    std::vector<int> cpsCount; // queued kernels per ctasPerSm
    std::vector<Cohort> cohorts;
    std::vector<CtaRateModel::Resident> resident;
    std::vector<double> rates;
};

Buffers& threadBuffers() {
    thread_local Buffers buffers;
    return buffers;
}

class Simulation {
public:
    // `timeline`: also record samples and per-kernel runs (kernels then carry their OpKernels).
    Simulation(size_t groupCount, const DeviceProfile& device, bool timeline)
        : b_(threadBuffers()), device_(device), model_(device.sm), rateModel_(device),
          timeline_(timeline) {
        run_.synchronized = groupCount > 1;
        // The host issues group after group, one kernel every launchOverheadUs.
        latency_ = run_.synchronized ? device.launchLatencyUs : 0.0;
        b_.kernels.clear();
        b_.cohorts.clear();
        b_.head.assign(groupCount, 0);
        b_.end.assign(groupCount, 0);
        b_.ready.assign(groupCount, 0.0);
    }

    // Issues the next kernel (groups in ascending order, each group's kernels together).
    void add(const KernelDesc& k, int group, const OpKernels* op) {
        const auto g = static_cast<size_t>(group);
        assert(g < b_.head.size());
        assert(b_.kernels.empty() || b_.kernels.back().group <= group);
        const size_t index = b_.kernels.size();
        if (b_.end[g] == 0)
            b_.head[g] = index;
        b_.end[g] = index + 1;
        KernelState s;
        s.desc = &k;
        s.group = group;
        s.op = op;
        s.rate = rateModel_.prepare(k);
        s.ctasPerSm = occupancy(k, device_).ctasPerSm;
        s.issue = static_cast<double>(index) * device_.launchOverheadUs;
        s.arrival = s.issue + latency_;
        s.pending = std::max<int64_t>(1, k.ctas);
        if (index > 0 && s.arrival < b_.kernels.back().arrival)
            arrivalOrdered_ = false;
        b_.kernels.push_back(s);
    }

    double run() {
        std::vector<KernelState>& kernels = b_.kernels;
        std::vector<Cohort>& cohorts = b_.cohorts;
        const double issueEnd = static_cast<double>(kernels.size()) * device_.launchOverheadUs;
        start();
        double t = 0;
        // Every iteration retires a cohort (at least one CTA) or admits a kernel, so the CTAs
        // and kernels bound the loop; exceeding it means a bug, not a slow stage.
        size_t guard = 16;
        for (const KernelState& k : kernels)
            guard += 2 + 2 * static_cast<size_t>(k.pending);
        while (true) {
            if (guard-- == 0)
                throw std::logic_error("stage simulation did not converge");
            dispatch(t);
            const double next = nextArrival(t);
            if (cohorts.empty() && next == kInf)
                break;
            if (cohortsChanged_) // the rates depend on the resident cohorts alone
                updateRates();
            const double* rates = b_.rates.data();
            if (timeline_)
                sample(t);
            double dt = next - t;
            for (size_t i = 0; i < cohorts.size(); ++i)
                dt = std::min(dt, (1.0 - cohorts[i].progress) / rates[i]);
            assert(dt >= 0 && dt < kInf);
            // A whole wave: one cohort, fresh, that runs to its end.
            const Cohort wave =
                cohorts.size() == 1 && cohorts[0].progress == 0 && dt == (1.0 - 0.0) / rates[0]
                    ? cohorts[0]
                    : Cohort{-1, 0, 0};
            t += dt;
            for (size_t i = 0; i < cohorts.size(); ++i)
                cohorts[i].progress += rates[i] * dt;
            retire(t);
            if (wave.kernel >= 0 && cohorts.empty() && !timeline_)
                t = repeatWaves(t, wave, dt);
        }
        double end = std::max(t, issueEnd);
        if (run_.synchronized)
            end += device_.syncOverheadUs;
        run_.latencyUs = end;
        if (timeline_) {
            run_.samples.push_back({t, 0, 0, 0});
            summarise();
        }
        return end;
    }

    StageRun timeline() { return std::move(run_); }

private:
    // Ranks the kernels by (arrival, index), the order in which the CTA scheduler serves
    // them, and puts every stream's first kernel on the waiting heap.
    void start() {
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
        queuedMaxCps_ = 0;
        b_.waiting.clear();
        for (size_t s = 0; s < b_.head.size(); ++s)
            wait(s);
    }

    // Puts stream s's head kernel, if any, on the waiting heap.
    void wait(size_t s) {
        if (b_.head[s] >= b_.end[s])
            return;
        const KernelState& k = b_.kernels[b_.head[s]];
        b_.waiting.emplace_back(std::max(k.arrival, b_.ready[s]), s);
        std::push_heap(b_.waiting.begin(), b_.waiting.end(), std::greater<>());
    }

    void enqueue(const KernelState& k) {
        b_.queued.insert(k.rank);
        ++b_.cpsCount[static_cast<size_t>(k.ctasPerSm)];
        queuedMaxCps_ = std::max(queuedMaxCps_, k.ctasPerSm);
    }

    void dequeue(const KernelState& k) {
        b_.queued.erase(k.rank);
        --b_.cpsCount[static_cast<size_t>(k.ctasPerSm)];
        while (queuedMaxCps_ > 0 && b_.cpsCount[static_cast<size_t>(queuedMaxCps_)] == 0)
            --queuedMaxCps_;
    }

    // Whether any queued kernel could place a CTA in the free SM slots (fit grows with
    // ctasPerSm, so the largest decides).
    bool anyFits() const {
        const double free = device_.smCount - usedSms_;
        return std::floor(free * queuedMaxCps_ + kEps) > 0;
    }

    // Admits the ready head kernel of each stream, then fills free SM slots with pending
    // CTAs in launch order (the hardware CTA scheduler favours the earlier kernel).
    void dispatch(double t) {
        std::vector<KernelState>& kernels = b_.kernels;
        std::vector<std::pair<double, size_t>>& waiting = b_.waiting;
        while (!waiting.empty() && waiting.front().first <= t + kEps) {
            std::pop_heap(waiting.begin(), waiting.end(), std::greater<>());
            KernelState& k = kernels[b_.head[waiting.back().second]];
            waiting.pop_back();
            k.admitted = true;
            enqueue(k); // pending >= 1 until it is dispatched
        }
        for (size_t r = b_.queued.next(0); r != RankSet::npos && anyFits();
             r = b_.queued.next(r + 1)) {
            const size_t i = b_.byRank[r];
            KernelState& k = kernels[i];
            const double free = device_.smCount - usedSms_;
            const auto fit = static_cast<int64_t>(std::floor(free * k.ctasPerSm + kEps));
            const int64_t n = std::min(k.pending, fit);
            if (n <= 0)
                continue;
            if (k.start < 0)
                k.start = t;
            k.pending -= n;
            k.resident += n;
            if (k.pending == 0)
                dequeue(k);
            usedSms_ += static_cast<double>(n) / k.ctasPerSm;
            b_.cohorts.push_back({static_cast<int>(i), n, 0.0});
            cohortsChanged_ = true;
        }
    }

    double nextArrival(double t) const {
        return b_.waiting.empty() ? kInf : std::max(b_.waiting.front().first, t);
    }

    // After `wave` (all the free SMs' worth of one kernel's CTAs, dt long) retired at t with
    // nothing else resident: while the same kernel refills the same slots and nothing
    // arrives, every further wave is the same, so the main loop's steps reduce to t += dt
    // (the same additions, so the same latency to the bit). Stops before the kernel's last
    // full wave and leaves it, and the tail, to the main loop. Returns the new t.
    double repeatWaves(double t, const Cohort& wave, double dt) {
        KernelState& k = b_.kernels[static_cast<size_t>(wave.kernel)];
        const int64_t full = static_cast<int64_t>(std::floor(device_.smCount * k.ctasPerSm + kEps));
        if (wave.count != full || k.pending <= wave.count || b_.queued.next(0) != k.rank)
            return t;
        // Refilled, the wave leaves no room for another queued kernel.
        const double used = 0.0 + static_cast<double>(wave.count) / k.ctasPerSm;
        if (std::floor((device_.smCount - used) * queuedMaxCps_ + kEps) > 0)
            return t;
        const std::vector<std::pair<double, size_t>>& waiting = b_.waiting;
        while (k.pending > wave.count) {
            const double next = waiting.empty() ? kInf : std::max(waiting.front().first, t);
            if (next <= t + kEps || next - t < dt)
                break; // an admission or an arrival inside the wave: the main loop's case
            t += dt;
            k.pending -= wave.count;
        }
        return t;
    }

    // ctaRates of the resident cohorts (a kernel's working set counted once).
    void updateRates() {
        const size_t n = b_.cohorts.size();
        b_.resident.resize(n);
        b_.rates.resize(n);
        ++evaluation_;
        for (size_t i = 0; i < n; ++i) {
            KernelState& k = b_.kernels[static_cast<size_t>(b_.cohorts[i].kernel)];
            b_.resident[i] = {&k.rate, b_.cohorts[i].count, k.counted != evaluation_};
            k.counted = evaluation_;
        }
        rateModel_.rates(b_.resident.data(), n, b_.rates.data());
        cohortsChanged_ = false;
    }

    void sample(double t) {
        int64_t ctas = 0;
        double warps = 0;
        double flopsPerUs = 0;
        for (size_t i = 0; i < b_.cohorts.size(); ++i) {
            const Cohort& c = b_.cohorts[i];
            const KernelDesc& k = *b_.kernels[static_cast<size_t>(c.kernel)].desc;
            ctas += c.count;
            warps += static_cast<double>(c.count) * k.warpsPerCta();
            flopsPerUs += static_cast<double>(c.count) * b_.rates[i] * k.flops /
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

    void retire(double t) {
        std::vector<Cohort>& cohorts = b_.cohorts;
        size_t kept = 0;
        for (size_t i = 0; i < cohorts.size(); ++i) {
            const Cohort c = cohorts[i];
            if (c.progress < 1.0 - kEps) {
                cohorts[kept++] = c;
                continue;
            }
            KernelState& k = b_.kernels[static_cast<size_t>(c.kernel)];
            k.resident -= c.count;
            usedSms_ -= static_cast<double>(c.count) / k.ctasPerSm;
            cohortsChanged_ = true;
            if (k.pending == 0 && k.resident == 0) {
                k.end = t;
                const auto s = static_cast<size_t>(k.group);
                ++b_.head[s];
                b_.ready[s] = t + model_.kernelGapUs;
                wait(s);
            }
        }
        cohorts.resize(kept);
        if (cohorts.empty())
            usedSms_ = 0; // drop accumulated rounding
    }

    void summarise() {
        for (const KernelState& k : b_.kernels)
            run_.kernels.push_back({k.group, k.op->op, k.op->label, k.desc->name,
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

    Buffers& b_;
    const DeviceProfile& device_;
    const SmModel& model_;
    const CtaRateModel rateModel_;
    const bool timeline_;
    double latency_ = 0;
    bool arrivalOrdered_ = true;
    bool cohortsChanged_ = true;
    uint64_t evaluation_ = 0;
    double usedSms_ = 0;
    int queuedMaxCps_ = 0; // the largest ctasPerSm among queued kernels (0: none)
    StageRun run_;
};

} // namespace

StageRun simulateStage(const std::vector<GroupKernels>& groups, const DeviceProfile& device) {
    Simulation sim(groups.size(), device, true);
    for (size_t g = 0; g < groups.size(); ++g)
        for (const OpKernels& op : groups[g])
            for (const KernelDesc& k : op.kernels)
                sim.add(k, static_cast<int>(g), &op);
    sim.run();
    return sim.timeline();
}

double stageLatencyUs(const std::vector<StageKernel>& kernels, size_t groupCount,
                      const DeviceProfile& device) {
    Simulation sim(groupCount, device, false);
    for (const StageKernel& k : kernels)
        sim.add(*k.kernel, k.group, nullptr);
    return sim.run();
}

} // namespace ios::cost
