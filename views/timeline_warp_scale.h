// SPDX-License-Identifier: Apache-2.0
// The y-scale of a measured trace's active-warp chart (issue 16 item 4): PM-sampled active
// warps of small-batch inference are mostly 0–3 % of the peak with rare spikes to 20–35 %
// (the committed H100 InceptionV3 traces), so a 0–100 % axis shows a flat line. The scale is
// fitted to the bulk of the data and says when spikes are clipped.
#pragma once

#include "eval/timeline.h"

namespace ios::views {

struct WarpScale {
    double top = 1;  // the chart's top, a fraction of the peak (0.01 … 1, a 1-2-5 step)
    double peak = 0; // the largest sample over the run (drawn clipped when above `top`)
};

// Over the samples inside the run [0, timelineEndUs): the smallest 1-2-5 step ≥ 1.1 × the
// time-weighted 95th percentile of the sample values, at least 1 % (so 1 % is labelled).
WarpScale fitWarpScale(const eval::Timeline& timeline);

} // namespace ios::views
