// SPDX-License-Identifier: Apache-2.0
#include "schedulers/serenity/plan_estimate.h"

#include "schedulers/serenity/cuts.h"
#include "schedulers/serenity/downset_count.h"
#include "schedulers/serenity/dp_rate.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace ios::schedulers::serenity {

namespace {

// Expansions a segment's soft budget examines: [low, high].
struct Work {
    double low = 0;
    double high = 0;
};

Work segmentWork(const ir::MemoryProblem& p, const Segment& segment, const PlanOptions& options,
                 const DownSetCount& count) {
    const uint64_t first = firstRunExpansions(p, segment, options.limits, options.exactExpansions);
    if (count.complete && (first == 0 || count.expansions <= static_cast<double>(first)))
        return {count.expansions, count.expansions}; // the first run is the exact DP
    // Timed out first run, then the bisection's runs and the escalations, each doubling.
    const double limit = static_cast<double>(options.limits.maxExpansions);
    const int64_t tauMax = segmentPeak(p, segment, segmentKahnOrder(p, segment));
    double high = static_cast<double>(first) +
                  limit * static_cast<double>(maxBisectionRuns(tauMax, options.resolution));
    for (int e = 1; e <= options.escalations; ++e)
        high += limit * std::ldexp(1.0, e);
    if (count.complete)
        high = std::min(high, count.expansions * (2.0 + options.escalations) +
                                  static_cast<double>(first));
    return {static_cast<double>(first), high};
}

} // namespace

SearchEstimate estimatePlan(const std::vector<ir::MemoryProblem>& blocks,
                            const PlanOptions& options, const SearchControl* control) {
    const auto t0 = std::chrono::steady_clock::now();
    SearchEstimate out;
    out.statesUnit = "down-sets";
    out.transitionsUnit = "expansions";
    if (options.order != OrderKind::Serenity)
        return out;
    std::vector<ir::MemoryProblem> joined;
    if (options.partition == Partition::None)
        joined.push_back(ir::joinedMemoryProblem(blocks));
    const std::vector<ir::MemoryProblem>& problems = joined.empty() ? blocks : joined;
    Work total;
    const ir::MemoryProblem* largest = nullptr;
    Segment largestSegment;
    double largestWork = -1;
    for (const ir::MemoryProblem& p : problems) {
        std::vector<Segment> segments;
        if (options.partition == Partition::Cuts)
            segments = cutSegments(p);
        else if (!p.ops.empty())
            segments.push_back(wholeSegment(p));
        for (Segment& segment : segments) {
            if (control != nullptr && control->cancelled())
                throw Cancelled();
            const DownSetCount count =
                countDownSets(p, segment, size_t{1} << 16, options.limits.breakSymmetry);
            out.states += static_cast<uint64_t>(count.downSets);
            out.transitions += static_cast<uint64_t>(count.expansions);
            const Work w = segmentWork(p, segment, options, count);
            total.low += w.low;
            total.high += w.high;
            if (w.high > largestWork) {
                largestWork = w.high;
                largest = &p;
                largestSegment = std::move(segment);
            }
        }
    }
    out.countSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (largest == nullptr)
        return out;
    // The rate of a large run's tables, out of cache, is below a small run's: up to 2× slower.
    const double rate = dpExpansionsPerSecond(*largest, largestSegment);
    out.low = out.countSeconds + 0.8 * total.low / rate;
    out.high = out.countSeconds + 2.0 * total.high / rate;
    out.seconds = std::sqrt(out.low * out.high);
    out.complete = true; // the range holds either way; `high` bounds it
    return out;
}

} // namespace ios::schedulers::serenity
