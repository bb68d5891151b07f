// SPDX-License-Identifier: Apache-2.0
#include "timeline_warp_scale.h"

#include "eval/timeline_stats.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace ios::views {

WarpScale fitWarpScale(const eval::Timeline& tl) {
    const double end = eval::timelineEndUs(tl);
    std::vector<std::pair<double, double>> weighted; // value, time it holds inside the run
    double total = 0;
    WarpScale scale;
    for (size_t i = 0; i + 1 < tl.samples.size(); ++i) {
        const double w =
            std::min(end, tl.samples[i + 1].timeUs) - std::max(0.0, tl.samples[i].timeUs);
        if (w <= 0)
            continue;
        weighted.emplace_back(tl.samples[i].warpOccupancy, w);
        total += w;
        scale.peak = std::max(scale.peak, tl.samples[i].warpOccupancy);
    }
    std::sort(weighted.begin(), weighted.end());
    double p95 = 0, seen = 0;
    for (const auto& [value, w] : weighted) {
        p95 = value;
        seen += w;
        if (seen >= 0.95 * total)
            break;
    }
    scale.top = 1;
    for (double top : {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0})
        if (top >= 1.1 * p95) {
            scale.top = top;
            break;
        }
    return scale;
}

} // namespace ios::views
