// SPDX-License-Identifier: Apache-2.0
// A random kernel for the stage simulator's tests (tst_stage_simulator_scaling,
// tst_prefix_stage_simulator): any CTA count up to maxCtas, block size, registers, shared
// memory, FLOPs, efficiency and traffic, so waves, occupancy limits and bandwidth all vary.
#pragma once

#include "cost/kernel_model.h"

#include <cstdint>
#include <random>

namespace ios::test {

inline cost::KernelDesc randomKernel(std::mt19937& rng, int64_t maxCtas) {
    std::uniform_int_distribution<int64_t> ctas(1, maxCtas);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    cost::KernelDesc k;
    k.name = "k";
    k.ctas = ctas(rng);
    k.threadsPerCta = 32 << (rng() % 6);
    k.registersPerThread = 16 + static_cast<int>(rng() % 112);
    k.sharedMemPerCta = static_cast<int64_t>(rng() % 4) * 12 * 1024;
    k.flops = static_cast<double>(k.ctas) * (1e3 + 1e6 * unit(rng));
    k.efficiency = 0.3 + 0.6 * unit(rng);
    k.dramBytes = static_cast<double>(k.ctas) * 1e4 * unit(rng);
    k.reuseBytes = k.dramBytes * unit(rng);
    k.workingSetBytes = 1e7 * unit(rng);
    return k;
}

} // namespace ios::test
