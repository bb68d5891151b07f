// SPDX-License-Identifier: Apache-2.0
#include "schedulers/work_estimate.h"

#include "schedulers/search_estimate.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ios::schedulers {

double TimeRange::point() const {
    return low > 0 && high > 0 ? std::sqrt(low * high) : std::max(low, high);
}

TimeRange& TimeRange::operator+=(const TimeRange& other) {
    low += other.low;
    high += other.high;
    return *this;
}

TimeRange rangeOf(const SearchEstimate& e) {
    if (e.high > 0)
        return {std::min(e.low, e.seconds), e.high};
    const double least = std::max(e.low, e.seconds);
    return {least, 4 * least};
}

EstimateCalibration& EstimateCalibration::process() {
    static EstimateCalibration calibration;
    return calibration;
}

void EstimateCalibration::record(std::string_view kind, const TimeRange& estimated,
                                 double actualSeconds) {
    const double point = estimated.point();
    if (point <= 0 || actualSeconds < kMinSeconds)
        return;
    const std::lock_guard lock(mutex_);
    auto it = ratios_.find(kind);
    if (it == ratios_.end())
        it = ratios_.emplace(std::string(kind), std::deque<double>{}).first;
    it->second.push_back(actualSeconds / point);
    if (it->second.size() > kRecords)
        it->second.pop_front();
}

TimeRange EstimateCalibration::corrected(std::string_view kind, const TimeRange& raw) const {
    std::vector<double> ratios;
    {
        const std::lock_guard lock(mutex_);
        if (const auto it = ratios_.find(kind); it != ratios_.end())
            ratios.assign(it->second.begin(), it->second.end());
    }
    if (ratios.empty() || raw.point() <= 0)
        return raw;
    std::sort(ratios.begin(), ratios.end());
    // The median; of an even count, the geometric mean of the middle two.
    const double median = std::sqrt(ratios[(ratios.size() - 1) / 2] * ratios[ratios.size() / 2]);
    const double point = raw.point() * median;
    // The raw range moved by the median and widened, evenly on a log scale (so that its
    // geometric mean stays the corrected point), to the ratios seen. One or two runs say
    // little about the spread: the raw one stays (at least ×/÷ 1.25); from three, theirs
    // replaces it (at least ×/÷ 1.1).
    double spread = std::max(ratios.back() / median, median / ratios.front());
    if (ratios.size() < 3)
        spread = std::max({spread, 1.25, raw.high / raw.point(), raw.point() / raw.low});
    spread = std::max(spread, 1.1);
    return {point / spread, point * spread};
}

void EstimateCalibration::clear() {
    const std::lock_guard lock(mutex_);
    ratios_.clear();
}

TimeRange estimateRun(const Scheduler& scheduler, const ir::PreparedModel& model,
                      const Params& params, const cost::CostModel& cost, double countLimitSeconds,
                      const SearchControl* control) {
    TimeRange raw;
    if (scheduler.hasEstimate()) {
        if (const std::optional<SearchEstimate> e =
                scheduler.estimate(model, params, cost, countLimitSeconds, control))
            raw = rangeOf(*e);
    } else {
        const double once = static_cast<double>(operatorCount(model)) *
                            secondsPerStage(cost, operatorStages(model), control);
        raw = {once, 4 * once};
    }
    return raw;
}

} // namespace ios::schedulers
