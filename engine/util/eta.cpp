// SPDX-License-Identifier: Apache-2.0
#include "util/eta.h"

#include <algorithm>
#include <cmath>

namespace ios::util {

std::optional<double> EtaTracker::update(double fraction, double elapsedSeconds) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    elapsedSeconds = std::max(elapsedSeconds, 0.0);
    const bool measured = fraction >= kMinFraction && elapsedSeconds >= kMinSeconds;
    double total = 0;
    if (upfront_ > 0) {
        total = std::max(upfront_, elapsedSeconds);
        if (measured) {
            const double extrapolated = elapsedSeconds / fraction;
            total = std::exp((1 - fraction) * std::log(total) + fraction * std::log(extrapolated));
        }
    } else if (measured) {
        total = elapsedSeconds / fraction;
    } else {
        return std::nullopt;
    }
    double left = total - elapsedSeconds;
    if (left <= 0) { // past the estimate with no progress to go by
        held_ = fraction < 1;
        return fraction < 1 ? std::nullopt : std::optional<double>(0.0);
    }
    held_ = least_ && left > 2 * *least_;
    if (held_)
        left = 2 * *least_;
    least_ = least_ ? std::min(*least_, left) : left;
    return left;
}

} // namespace ios::util
