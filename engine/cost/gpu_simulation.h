// SPDX-License-Identifier: Apache-2.0
// The discrete-event GPU simulation behind stage and program latencies (stage_simulator.h,
// program_simulator.h): kernels issued by the host one every launchOverheadUs, run in order
// per stream, optionally after kernels of other streams (events); their CTAs fill free SM
// slots in launch order and share the SMs' issue slots, the L2 and the DRAM bandwidth
// (kernel_model.h, ctaRates). Internal to the cost layer.
#pragma once

#include "cost/device_profile.h"
#include "cost/kernel_model.h"
#include "cost/kernel_timeline.h"
#include "cost/simulation_mode.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ios::cost::detail {

inline constexpr size_t kNoKernel = static_cast<size_t>(-1);
inline constexpr uint32_t kNoCohort = static_cast<uint32_t>(-1);
// The event loop's tolerance: an admission up to kEventEps µs early is due, a cohort at
// 1 - kEventEps of its work has retired, kEventEps of room short of a CTA still fits it.
inline constexpr double kEventEps = 1e-9;

struct KernelState {
    const KernelDesc* desc = nullptr;
    int group = 0;
    int op = 0;
    const std::string* label = nullptr; // null when only the latency is simulated
    size_t next = kNoKernel;            // the stream's next kernel
    uint32_t unmet = 0;                 // dependencies on other streams not finished yet
    double depReady =
        -std::numeric_limits<double>::infinity(); // earliest start allowed by finished dependencies
    CtaRateModel::Kernel rate;
    int ctasPerSm = 0;
    double smPerCta = 0; // 1 / ctasPerSm: the SM share of one CTA (no division per event)
    double issue = 0;
    double arrival = 0; // reaches the GPU
    int64_t pending = 0;
    int64_t resident = 0;
    bool admitted = false; // launched on the GPU: its CTAs may take free SM slots
    double start = -1;
    double end = -1;
    size_t rank = 0; // position in (arrival, index) order: the CTA scheduler's priority
    // Its resident CTAs as cohorts (Buffers::cohorts), oldest first: they all run at the
    // kernel's rate, so a cohort's progress is the kernel's clock (the integral of its rate
    // since it last had no cohort) less the clock at the cohort's dispatch, and the oldest
    // cohort is always the next of them to retire.
    uint32_t oldest = kNoCohort;
    uint32_t newest = kNoCohort;
    uint32_t cohortCount = 0;
    double clock = 0;
};

// What the simulation derives from a kernel alone (GpuSimulation::prepare): callers that
// simulate the same kernels many times keep it instead of deriving it per simulation.
struct PreparedKernel {
    const KernelDesc* desc = nullptr;
    CtaRateModel::Kernel rate;
    int ctasPerSm = 0;
    // No run of the kernel, alone or beside others, is shorter (stage lower bounds): its
    // waves at the device's capacity, each CTA at the rate no sharing can beat.
    double minUs = 0;
    // Its share of the device's compute: the time its CTAs' work keeps every SM's issue slots
    // busy (CtaRateModel: the resident CTAs' warps share activeSms × the saturation warps).
    double computeUs = 0;
};
PreparedKernel prepareKernel(const KernelDesc& k, const DeviceProfile& device,
                             const CtaRateModel& rateModel);

// CTAs of one kernel dispatched together: they progress together and retire together.
struct Cohort {
    int64_t count = 0;
    double start = 0;          // the kernel's clock at the dispatch (progress = clock - start)
    uint32_t next = kNoCohort; // the kernel's next younger cohort, or the next free entry
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
    // Room for ranks 0..n-1, members kept.
    void grow(size_t n) {
        words_.resize(std::max(words_.size(), (n + 63) / 64), 0);
        summary_.resize(std::max(summary_.size(), (words_.size() + 63) / 64), 0);
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
    // Stream s runs its kernels in issue order (a list through KernelState::next); head[s] is
    // the next one to finish, tail[s] the last issued.
    std::vector<size_t> head;
    std::vector<size_t> tail;
    // Cross-stream dependencies: kernel i's dependents are dependents[depFirst[i] ..
    // depFirst[i + 1]) once start() built them from depEdges (dependency, dependent).
    std::vector<std::pair<size_t, size_t>> depEdges;
    std::vector<size_t> depFirst;
    std::vector<size_t> dependents;
    std::vector<size_t> depCursor;
    std::vector<double> ready; // earliest start of the stream's next kernel
    // Min-heap of (admission time, stream) over the streams whose head kernel waits to be
    // admitted: admission time = max(arrival, ready) of the head.
    std::vector<std::pair<double, size_t>> waiting;
    // The admitted kernels with pending CTAs, by rank; byRank[rank] = kernel index.
    RankSet queued;
    std::vector<size_t> byRank;
    std::vector<int> cpsCount; // queued kernels per ctasPerSm
    // Every kernel's cohorts, in per-kernel lists (KernelState::oldest); retired entries are
    // reused (freeCohort heads their list).
    std::vector<Cohort> cohorts;
    uint32_t freeCohort = kNoCohort;
    size_t cohortTotal = 0; // cohorts held
    // The kernels with resident CTAs, by rank, and their rates: a rate depends on the kernel
    // and on every resident kernel's CTA count, not on how its CTAs split into cohorts, so it
    // is evaluated once per kernel (updateRates).
    std::vector<int> residentKernels;
    std::vector<double> kernelRates;
    // Queued kernels per ctasPerSm as bits (bit c of word c / 64: cpsCount[c] > 0), so the
    // largest is found without walking down the counts.
    std::vector<uint64_t> cpsBits;
};

// Cohort lists (Buffers::cohorts). A new cohort of `count` CTAs of kernel `kernel`, dispatched
// now (progress 0); a kernel without cohorts joins the resident kernels, kept in rank order.
inline void pushCohort(Buffers& b, int kernel, int64_t count) {
    KernelState& k = b.kernels[static_cast<size_t>(kernel)];
    uint32_t e = b.freeCohort;
    if (e != kNoCohort) {
        b.freeCohort = b.cohorts[e].next;
    } else {
        e = static_cast<uint32_t>(b.cohorts.size());
        b.cohorts.emplace_back();
    }
    b.cohorts[e] = Cohort{count, k.clock, kNoCohort};
    if (k.newest == kNoCohort) {
        k.oldest = e;
        std::vector<int>& resident = b.residentKernels;
        resident.push_back(kernel);
        for (size_t j = resident.size() - 1;
             j > 0 && b.kernels[static_cast<size_t>(resident[j - 1])].rank > k.rank; --j)
            std::swap(resident[j], resident[j - 1]);
    } else {
        b.cohorts[k.newest].next = e;
    }
    k.newest = e;
    ++k.cohortCount;
    ++b.cohortTotal;
}

// The progress of k's oldest cohort (it has one).
inline double oldestProgress(const Buffers& b, const KernelState& k) {
    return k.clock - b.cohorts[k.oldest].start;
}

// Removes k's oldest cohort; returns its CTAs. A kernel left without cohorts restarts its
// clock (the caller drops it from the resident kernels).
inline int64_t popOldestCohort(Buffers& b, KernelState& k) {
    const uint32_t e = k.oldest;
    const int64_t count = b.cohorts[e].count;
    k.oldest = b.cohorts[e].next;
    b.cohorts[e].next = b.freeCohort;
    b.freeCohort = e;
    --k.cohortCount;
    --b.cohortTotal;
    if (k.oldest == kNoCohort) {
        k.newest = kNoCohort;
        k.clock = 0;
    }
    return count;
}

// A paused simulation (GpuSimulation::save / restore): its buffers and clocks, copied.
struct Checkpoint {
    Buffers buffers;
    double latency = 0;
    uint64_t hostHalves = 0;
    bool arrivalOrdered = true;
    bool cohortsChanged = true;
    double usedSms = 0;
    int queuedMaxCps = 0;
    double t = 0;
    size_t guard = 0;
    size_t pauseStream = kNoKernel;
    size_t steadyWait = 0;
};

class GpuSimulation {
public:
    // `streamCount` dense streams 0..n-1. `launchLatency`: the first kernels arrive
    // launchLatencyUs after their issue (the host had been blocked); `joinOverhead`: the run
    // ends with a cross-stream join costing syncOverheadUs. `timeline`: also record samples
    // and per-kernel runs (kernels then need labels). `mode`: steady stretches in one step
    // (Fast) or event by event (Exact).
    GpuSimulation(size_t streamCount, const DeviceProfile& device, bool timeline,
                  bool launchLatency, bool joinOverhead, SimulationMode mode);

    // Issues a kernel on `stream` in the host's next launch slot; returns its index.
    size_t add(const KernelDesc& k, int stream, int op, const std::string* label);
    // The same with prepare(k) already at hand.
    size_t add(const PreparedKernel& k, int stream, int op, const std::string* label);
    PreparedKernel prepare(const KernelDesc& k) const;
    // The last added kernel `after` waits for the earlier kernel `before` (another stream).
    void addDependency(size_t before, size_t after);
    // The host spends half a launch slot (an event record or wait).
    void hostHalfSlot() { ++hostHalves_; }

    // Simulates; returns the latency in µs: the last kernel's end or the host's issue end,
    // whichever is later, plus the join overhead.
    double run();

    // Paused runs, for stages that extend another by one stream (stage_simulator.h,
    // PrefixStageSimulator). The stream `next`, still without kernels, is made to look, to
    // the run, exactly as it will once its first kernel is added in the host's next launch
    // slot: its admission (that kernel's arrival) waits in the heap. The run pauses when that
    // admission is due, before anything else happens at that time; until then a run with the
    // stream's kernels would have done the same, step for step. Stages only: no dependencies.

    // Starts a run and runs it until it pauses before stream `next` is admitted.
    bool startPaused(size_t next);
    // Gives the paused stream its kernels (in issue order), then pauses before `next` is
    // admitted, or runs to the end when next == kNoKernel. Returns true when paused, false
    // with the latency in latencyUs() once finished.
    bool resume(const PreparedKernel* const* kernels, size_t count, size_t next);
    double latencyUs() const { return run_.latencyUs; }
    void save(Checkpoint& to) const;
    void restore(const Checkpoint& from, size_t streamCount);
    StageRun timeline();
    double kernelStartUs(size_t kernel) const;
    double kernelEndUs(size_t kernel) const;
    size_t kernelCount() const { return b_.kernels.size(); }

private:
    void start();
    void pauseBefore(size_t next);
    bool advance();
    double finish();
    void wait(size_t s);
    void enqueue(const KernelState& k);
    void dequeue(const KernelState& k);
    // Whether any queued kernel could place a CTA in the free SM slots (fit grows with
    // ctasPerSm, so the largest decides). Inline: called on every event.
    bool anyFits() const {
        const double free = device_.smCount - usedSms_;
        return free * queuedMaxCps_ + kEventEps >= 1.0; // floor(x) > 0, without the call
    }
    void dispatch(double t);
    double nextArrival(double t) const;
    double repeatWaves(double t, int kernel, int64_t count, double dt);
    void retireKernel(KernelState& k, int kernel, double t);
    double skipSteady(double t);
    void updateRates();
    void sample(double t);
    void retire(double t);
    void summarise();

    Buffers& b_;
    const DeviceProfile& device_;
    const SmModel& model_;
    const CtaRateModel rateModel_;
    const bool timeline_;
    const bool joinOverhead_;
    const SimulationMode mode_;
    size_t steadyWait_ = 0; // steps until the next look for a steady stretch
    double latency_ = 0;
    uint64_t hostHalves_ = 0; // host issue clock in half launch slots
    bool arrivalOrdered_ = true;
    bool cohortsChanged_ = true;
    double usedSms_ = 0;
    int queuedMaxCps_ = 0; // the largest ctasPerSm among queued kernels (0: none)
    double t_ = 0;
    size_t guard_ = 16;
    size_t pauseStream_ = kNoKernel; // the stream whose admission pauses the run
    bool paused_ = false;
    StageRun run_;
};

} // namespace ios::cost::detail
