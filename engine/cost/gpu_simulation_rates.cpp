// SPDX-License-Identifier: Apache-2.0
// GpuSimulation's rate evaluation: the CTA rates of the resident kernels (CtaRateModel).
#include "cost/gpu_simulation.h"

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
// rank order. Not kept between evaluations: once steady stretches take the events that leave
// the counts unchanged, a few recent evaluations match one in ten (docs/performance.md).
void GpuSimulation::updateRates() {
    cohortsChanged_ = false;
    const size_t m = b_.residentKernels.size();
    if (b_.kernelRates.size() < m)
        b_.kernelRates.resize(m);
    rateModel_.ratesOf(RatedEntries{b_.residentKernels.data(), b_.kernels.data()}, m,
                       b_.kernelRates.data());
}

} // namespace ios::cost::detail
