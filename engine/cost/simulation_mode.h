// SPDX-License-Identifier: Apache-2.0
// How the simulated GPU advances time (steady_state.h): Fast takes steady stretches (waves of
// the same kernels refilling their own SM room) in one step, Exact steps through every CTA
// cohort's retirement. Both give the same latencies to 1e-6 relative and the same schedules
// (tests/tst_fast_simulation.cpp); Exact is the reference the fast path is checked against.
#pragma once

#include <cstdint>

namespace ios::cost {

enum class SimulationMode : uint8_t { Fast, Exact };

} // namespace ios::cost
