// SPDX-License-Identifier: Apache-2.0
// How fast Serenity's DP runs on this machine, measured in this process (docs/performance.md
// "Estimates"): what turns counted expansions (downset_count.h) into seconds.
#pragma once

#include "ir/memory.h"
#include "schedulers/serenity/memory_dp.h"

#include <cstdint>

namespace ios::schedulers::serenity {

// Adds a finished DP run (memoryDp records each of its own). Thread-safe.
void recordDpRun(uint64_t expansions, double seconds);

// Expansions per second over the DP runs of this process so far that examined at least 2^20
// expansions together (their rate, bound by memory latency, is what a large run sees); before
// that, a pilot run on the longest prefix of `segment` whose DP makes at most 2^20
// expansions, whose rate counts too. Never 0.
double dpExpansionsPerSecond(const ir::MemoryProblem& problem, const Segment& segment);

} // namespace ios::schedulers::serenity
