// SPDX-License-Identifier: Apache-2.0
// The time left of a running job, for progress bars (docs/estimates.md): the
// job's up-front estimate blended with what its progress says so far, and never more than
// twice the least time left it has already said (an ETA that climbs 13 s → 41 s while the
// user waits is no estimate).
#pragma once

#include <optional>

namespace ios::util {

class EtaTracker {
public:
    // upfrontSeconds: the job's estimate before it started (0: none).
    explicit EtaTracker(double upfrontSeconds = 0) : upfront_(upfrontSeconds) {}

    // Seconds left after `elapsedSeconds` at progress `fraction` (0..1), or nullopt while
    // there is nothing honest to say (no estimate, and too little progress to extrapolate; or
    // past the estimate with too little progress: then held() is true).
    // The total is the estimate and the progress' extrapolation (elapsed / fraction) blended
    // geometrically, the progress weighing `fraction`; then held at twice the least answer
    // so far.
    std::optional<double> update(double fraction, double elapsedSeconds);

    // The last answer was held at twice the least one, or withheld past the estimate: the job
    // runs longer than estimated.
    bool held() const { return held_; }

    // Progress this small, or this early, says nothing about the rate.
    static constexpr double kMinFraction = 0.02;
    static constexpr double kMinSeconds = 0.2;

private:
    double upfront_ = 0;
    std::optional<double> least_;
    bool held_ = false;
};

} // namespace ios::util
