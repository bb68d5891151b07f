// SPDX-License-Identifier: Apache-2.0
#include "schedulers/serenity/dp_rate.h"

#include "schedulers/serenity/downset_count.h"

#include <algorithm>
#include <mutex>

namespace ios::schedulers::serenity {

namespace {

constexpr uint64_t kEnoughExpansions = uint64_t{1} << 20;

struct Measured {
    std::mutex mutex;
    uint64_t expansions = 0;
    double seconds = 0;
};

Measured& measured() {
    static Measured m;
    return m;
}

} // namespace

void recordDpRun(uint64_t expansions, double seconds) {
    if (expansions == 0 || seconds <= 0)
        return;
    Measured& m = measured();
    const std::lock_guard lock(m.mutex);
    m.expansions += expansions;
    m.seconds += seconds;
}

double dpExpansionsPerSecond(const ir::MemoryProblem& problem, const Segment& segment) {
    Measured& m = measured();
    {
        const std::lock_guard lock(m.mutex);
        if (m.expansions >= kEnoughExpansions && m.seconds > 0)
            return static_cast<double>(m.expansions) / m.seconds;
    }
    // The pilot: the longest prefix of the segment whose DP makes at most kEnoughExpansions
    // (counted, downset_count.h), run whole, so that it times expansions, not set-up.
    Segment prefix = segment;
    size_t lo = 1, hi = segment.ops.size();
    while (lo < hi) {
        const size_t mid = (lo + hi + 1) / 2;
        prefix.ops.assign(segment.ops.begin(), segment.ops.begin() + static_cast<long>(mid));
        const DownSetCount c = countDownSets(problem, prefix);
        if (c.complete && c.expansions <= static_cast<double>(kEnoughExpansions))
            lo = mid;
        else
            hi = mid - 1;
    }
    prefix.ops.assign(segment.ops.begin(), segment.ops.begin() + static_cast<long>(lo));
    DpLimits pilot;
    pilot.maxExpansions = 2 * kEnoughExpansions; // memoryDp records it
    const DpResult run = memoryDp(problem, prefix, kNoBudget, pilot);
    const std::lock_guard lock(m.mutex);
    if (m.seconds > 0 && m.expansions > 0)
        return static_cast<double>(m.expansions) / m.seconds;
    // A segment too small to time: a run this small is over before any rate matters.
    return std::max(1.0, static_cast<double>(run.expansions)) / std::max(run.seconds, 1e-6);
}

} // namespace ios::schedulers::serenity
