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

// ctaRates of the resident CTAs, once per resident kernel (its cohorts share its rate), in
// rank order.
void GpuSimulation::updateRates() {
    cohortsChanged_ = false;
    const size_t m = b_.residentKernels.size();
    if (b_.kernelRates.size() < m)
        b_.kernelRates.resize(m);
    evaluateRates(b_.residentKernels.data(), m, b_.kernelRates.data());
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
