// SPDX-License-Identifier: Apache-2.0
// GpuSimulation's rate evaluation: the CTA rates of the resident kernels (CtaRateModel), with
// a memo of the last few evaluations.
#include "cost/gpu_simulation.h"

#include <algorithm>

namespace ios::cost::detail {

namespace {

// CtaRateModel::ratesOf's view of the resident kernels, read in place: each once, with all
// its resident CTAs (the sum of its cohorts' counts).
struct RatedEntries {
    const int* resident;
    KernelState* kernels;
    CtaRateModel::Kernel& kernel(size_t i) const {
        return kernels[static_cast<size_t>(resident[i])].rate;
    }
    int64_t count(size_t i) const { return kernels[static_cast<size_t>(resident[i])].resident; }
    bool firstOfKernel(size_t) const { return true; }
};

} // namespace

// ctaRates of the resident CTAs, once per resident kernel (its cohorts share its rate).
void GpuSimulation::updateRates() {
    const size_t n = b_.cohorts.size();
    cohortsChanged_ = false;
    if (b_.rates.size() < n)
        b_.rates.resize(n);
    const Cohort* cohorts = b_.cohorts.data();
    KernelState* kernels = b_.kernels.data();
    // The resident kernels in their first cohort's order.
    const uint64_t evaluation = ++evaluation_;
    std::vector<int>& resident = b_.residentKernels;
    resident.clear();
    for (size_t i = 0; i < n; ++i) {
        KernelState& k = kernels[static_cast<size_t>(cohorts[i].kernel)];
        if (k.counted != evaluation) {
            k.counted = evaluation;
            k.rateSlot = static_cast<uint32_t>(resident.size());
            resident.push_back(cohorts[i].kernel);
        }
    }
    const size_t m = resident.size();
    if (m == n) { // one group per kernel (most stages at batch 1): in the groups' order
        evaluateRates(resident.data(), m, b_.rates.data());
        return;
    }
    if (b_.kernelRates.size() < m)
        b_.kernelRates.resize(m);
    double* kernelRates = b_.kernelRates.data();
    evaluateRates(resident.data(), m, kernelRates);
    for (size_t i = 0; i < n; ++i)
        b_.rates[i] = kernelRates[kernels[static_cast<size_t>(cohorts[i].kernel)].rateSlot];
}

// The rates of m distinct resident kernels: one of the last few evaluations when the same
// (kernel, CTAs) recur (waves of the same kernels), else CtaRateModel::ratesOf.
void GpuSimulation::evaluateRates(const int* resident, size_t m, double* rates) {
    KernelState* kernels = b_.kernels.data();
    if (!manyWaves_) {
        rateModel_.ratesOf(RatedEntries{resident, kernels}, m, rates);
        return;
    }
    // Most evaluations of a search's small stages are new: one hash and a compare per kept
    // set decide that without a data-dependent branch per kernel.
    uint64_t key = m;
    for (size_t i = 0; i < m; ++i)
        key = ((key ^ static_cast<uint64_t>(resident[i])) * 0x9E3779B97F4A7C15ull ^
               static_cast<uint64_t>(kernels[static_cast<size_t>(resident[i])].resident)) *
              0xC2B2AE3D27D4EB4Full;
    const RatedCohorts* found = nullptr;
    for (const RatedCohorts& r : b_.rated)
        found = r.key == key ? &r : found;
    if (found != nullptr && found->size == m) {
        size_t same = 0;
        while (same < m && found->kernel[same] == resident[same] &&
               found->count[same] == kernels[static_cast<size_t>(resident[same])].resident)
            ++same;
        if (same == m) {
            std::copy(found->rates.begin(), found->rates.begin() + static_cast<std::ptrdiff_t>(m),
                      rates);
            return;
        }
    }
    rateModel_.ratesOf(RatedEntries{resident, kernels}, m, rates);
    if (m > RatedCohorts::kMax)
        return; // rare (more kernels at once than a stage of the searches has groups)
    RatedCohorts& kept = b_.rated[b_.ratedNext];
    b_.ratedNext = (b_.ratedNext + 1) % b_.rated.size();
    kept.key = key;
    kept.size = m;
    for (size_t i = 0; i < m; ++i) {
        kept.kernel[i] = resident[i];
        kept.count[i] = kernels[static_cast<size_t>(resident[i])].resident;
        kept.rates[i] = rates[i];
    }
}

} // namespace ios::cost::detail
