// SPDX-License-Identifier: Apache-2.0
// What a scheduler's run will cost before it runs, as a range of seconds (docs/estimates.md):
// the scheduler's own estimate (Scheduler::estimate: its work counted, the unit costs
// measured on this machine), or for one without, its operators priced; and the process's
// record that corrects later estimates: each finished job records its time against its
// estimate.
#pragma once

#include "cost/cost_model.h"
#include "ir/prepared_model.h"
#include "schedulers/scheduler.h"

#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace ios::schedulers {

struct TimeRange {
    double low = 0;
    double high = 0;

    double point() const; // the geometric mean (0 for an empty range)
    // Wider than 2×: the front ends show the range rather than one figure.
    bool unsure() const { return high > 2 * low; }
    TimeRange& operator+=(const TimeRange& other);
    TimeRange scaled(double factor) const { return {low * factor, high * factor}; }
};

// A scheduler's estimate as a range: [low, high]; an open one (high 0: the count ran out of
// time) up to 4 × its lower bound.
TimeRange rangeOf(const SearchEstimate& estimate);

// This process's record of estimates against the runs that followed, per kind (a scheduler
// key, or a job's step): later estimates of that kind are scaled by the median ratio of the
// last kRecords runs and widened, evenly on a log scale, to cover their spread. Runs under
// kMinSeconds are not recorded (their time is mostly noise). Thread-safe.
class EstimateCalibration {
public:
    static EstimateCalibration& process();

    void record(std::string_view kind, const TimeRange& estimated, double actualSeconds);
    TimeRange corrected(std::string_view kind, const TimeRange& raw) const;
    void clear(); // tests

    static constexpr size_t kRecords = 8;
    static constexpr double kMinSeconds = 0.02;

private:
    mutable std::mutex mutex_;
    std::map<std::string, std::deque<double>, std::less<>> ratios_; // actual / estimate
};

// What `scheduler.run(model, params, cost)` will take: its own estimate (counting for at most
// countLimitSeconds) or, for a scheduler without one, every operator priced once to four
// times (the baselines and RAF's policies price operators and simulate a program). Raw: the
// caller corrects it under the kind it records runs as. Throws as Scheduler::estimate does.
TimeRange estimateRun(const Scheduler& scheduler, const ir::PreparedModel& model,
                      const Params& params, const cost::CostModel& cost, double countLimitSeconds,
                      const SearchControl* control = nullptr);

} // namespace ios::schedulers
