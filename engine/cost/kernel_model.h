// SPDX-License-Identifier: Apache-2.0
// The kernels a cuDNN-like library launches for one operator, their launch geometry
// (CTAs, threads, registers, shared memory), occupancy and per-CTA work; and the SM
// throughput model the stage simulator shares (IOS paper §2-3 and §6.3: a kernel too small to
// fill the SMs leaves them idle; more resident warps hide more latency).
#pragma once

#include "cost/device_profile.h"
#include "ir/graph.h"
#include "ir/validate.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ios::cost {

struct KernelDesc {
    std::string name; // e.g. "conv_igemm_128x64", "relu", "concat_copy"
    int64_t ctas = 0; // grid size
    int threadsPerCta = 0;
    int registersPerThread = 0;
    int64_t sharedMemPerCta = 0; // bytes
    double flops = 0;            // fp32 flops executed by all CTAs (tile padding included)
    double efficiency = 1;       // fraction of an SM's peak (see peakScale) the inner loop reaches
    double peakScale = 1;        // the kernel's peak over the fp32 peak (TF32 tensor cores: > 1)
    double dramBytes = 0;        // compulsory DRAM traffic: inputs, weights, outputs
    double reuseBytes = 0;       // re-reads served by L2 while the working set fits in it
    double workingSetBytes = 0;  // inputs + weights the CTAs share through L2

    int warpsPerCta() const { return (threadsPerCta + 31) / 32; }
};

// Occupancy of one kernel alone on the device (CUDA occupancy rules, whole CTAs per SM).
struct Occupancy {
    int ctasPerSm = 0;        // resident CTAs per SM: min over the four limits below
    int64_t residentCtas = 0; // ctasPerSm × SMs: CTAs resident at once (one wave)
    int64_t waves = 0;        // ceil(ctas / residentCtas)
    int64_t tailCtas = 0;     // CTAs of the last wave (a whole wave when the grid divides evenly)
    std::string limiter;      // "ctas", "threads", "registers" or "shared memory"
};

Occupancy occupancy(const KernelDesc& kernel, const DeviceProfile& device);

// A set of CTAs of one kernel that became resident together (they progress together).
struct ResidentCtas {
    const KernelDesc* kernel = nullptr;
    int64_t count = 0;
};

// Progress rate (fraction of one CTA's work per µs) of a CTA of each entry, when exactly the
// given CTAs share the device: SM issue slots and DRAM bandwidth are shared, the L2 holds
// the combined working set or misses in proportion. The constants are the device's
// (DeviceProfile::sm). Deterministic, no state.
std::vector<double> ctaRates(const std::vector<ResidentCtas>& resident,
                             const DeviceProfile& device);

// ctaRates for callers that price many sets of resident CTAs over the same kernels (the stage
// simulator): the device constants and each kernel's terms are computed once, the rates with
// exactly ctaRates' floating-point operations in ctaRates' order (bit-identical results, no
// allocation). ctaRates itself is implemented with it.
class CtaRateModel {
public:
    explicit CtaRateModel(const DeviceProfile& device);

    // One kernel's share of the formula that does not depend on its neighbours.
    struct Kernel {
        double warps = 0;       // min(warps per CTA, compute saturation warps)
        double workingSet = 0;  // KernelDesc::workingSetBytes
        double flopsPerCta = 0; // flops / CTAs
        double computeRate = 0; // flop/µs of one CTA before the compute share
        double computeWork = 0; // flopsPerCta / computeRate: µs per CTA at a share of 1
        double dramBytes = 0;
        double reuseBytes = 0;
        double ctas = 1;       // max(1, grid size)
        double memoryRate = 0; // B/µs of one CTA before the bandwidth share
        // rates() memo: the terms last computed for this L2 miss ratio, compute stretch
        // (1 / compute share) and memory stretch (NaN: none yet); equal inputs give equal
        // results. Waves of the same kernels repeat the same evaluation.
        double memoL2Miss = std::numeric_limits<double>::quiet_NaN();
        double bytes = 0;        // per CTA
        double memory = 0;       // µs per CTA before the bandwidth share
        double bytesPerWork = 0; // bytes / computeWork
        double memoComputeStretch = std::numeric_limits<double>::quiet_NaN();
        double compute = 0; // µs per CTA
        double memoMemoryStretch = std::numeric_limits<double>::quiet_NaN();
        double rate = 0;
    };
    Kernel prepare(const KernelDesc& kernel) const;

    struct Resident {
        Kernel* kernel = nullptr; // its memo is updated
        int64_t count = 0;
        // The kernel's first entry: its working set joins the L2's (ctaRates counts each
        // distinct kernel once).
        bool firstOfKernel = true;
    };
    // rates[i] for resident[i] (n entries). Updates the entries' Kernel memos: a Kernel
    // belongs to one thread (the simulator keeps its own per simulation).
    void rates(const Resident* resident, size_t n, double* rates) const;
    // rates() over entries held elsewhere (the stage simulator's cohorts, without copying
    // them into Residents): `entries.kernel(i)`, `.count(i)` and `.firstOfKernel(i)`, the
    // last called once per entry, in order. The one implementation of the formula.
    template <class Entries> void ratesOf(const Entries& entries, size_t n, double* rates) const;
    // Resident warps per SM at which its fp32 pipelines saturate (the compute share's scale).
    double saturationWarps() const { return satC_; }

private:
    double sms_, satC_, satM_, bandwidth_, inverseBandwidth_, smFlops_, smBandwidth_, l2_,
        ctaLatencyUs_, computeEfficiency_;
};

template <class Entries>
void CtaRateModel::ratesOf(const Entries& entries, size_t n, double* rates) const {
    double ctas = 0;
    double warpDemand = 0;
    double workingSet = 0;
    for (size_t i = 0; i < n; ++i) {
        const Kernel& k = entries.kernel(i);
        const auto count = static_cast<double>(entries.count(i));
        ctas += count;
        warpDemand += count * k.warps;
        if (entries.firstOfKernel(i))
            workingSet += k.workingSet;
    }
    // The compute share and its inverse, side by side (min(1, activeSms × W_c / demand)):
    // the per-kernel terms below multiply, so a rate waits on two divisions, not six.
    const double capacity = std::min(sms_, ctas) * satC_;
    const bool computeShared = warpDemand > capacity;
    const double computeShare = computeShared ? capacity / warpDemand : 1.0;
    const double computeStretch = computeShared ? warpDemand / capacity : 1.0;
    const double l2Miss = workingSet > l2_ ? 1.0 - l2_ / workingSet : 0.0;

    // Each kernel's CTAs ask for bytes / max(compute, memory) per µs: their memory rate when
    // memory-bound, their bytes per µs of compute work × the share otherwise.
    double bandwidthDemand = 0;
    for (size_t i = 0; i < n; ++i) {
        Kernel& k = entries.kernel(i);
        if (!(k.memoL2Miss == l2Miss)) {
            k.memoL2Miss = l2Miss;
            k.bytes = (k.dramBytes + k.reuseBytes * l2Miss) / k.ctas;
            k.memory = k.bytes > 0 ? k.bytes / k.memoryRate : 0.0;
            k.bytesPerWork = k.computeWork > 0 ? k.bytes / k.computeWork : 0.0;
            k.memoMemoryStretch = std::numeric_limits<double>::quiet_NaN();
        }
        if (!(k.memoComputeStretch == computeStretch)) {
            k.memoComputeStretch = computeStretch;
            k.compute = k.flopsPerCta > 0 ? k.computeWork * computeStretch : 0.0;
            k.memoMemoryStretch = std::numeric_limits<double>::quiet_NaN();
        }
        const auto count = static_cast<double>(entries.count(i));
        if (k.compute > k.memory)
            bandwidthDemand += count * k.bytesPerWork * computeShare;
        else if (k.memory > 0)
            bandwidthDemand += count * k.memoryRate;
    }
    // Over the bandwidth, memory time stretches by demand / bandwidth.
    const double memoryStretch =
        bandwidthDemand > bandwidth_ ? bandwidthDemand * inverseBandwidth_ : 1.0;
    for (size_t i = 0; i < n; ++i) {
        Kernel& k = entries.kernel(i);
        if (!(k.memoMemoryStretch == memoryStretch)) {
            k.memoMemoryStretch = memoryStretch;
            k.rate = 1.0 / (ctaLatencyUs_ + std::max(k.compute, k.memory * memoryStretch));
        }
        rates[i] = k.rate;
    }
}

// Time in µs the kernel runs on an otherwise idle GPU (waves of ctaRates), launch excluded.
double soloKernelUs(const KernelDesc& kernel, const DeviceProfile& device);

// The kernels of one schedule operator, in launch order (a sequential node: its nodes'
// kernels in order). Input assembly follows the IOS runtime: a term of several values is one
// sum kernel, several terms are one copy kernel each (concat) except in-place ones, a channel slice
// is free at batch 1 and a strided copy otherwise. `producerShape` resolves input value names.
std::vector<KernelDesc> operatorKernels(const ir::Node& node, const ir::ShapeLookup& producerShape,
                                        int batch, const DeviceProfile& device);

} // namespace ios::cost
