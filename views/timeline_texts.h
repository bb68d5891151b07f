// SPDX-License-Identifier: Apache-2.0
// The timeline canvas's words (TimelineCanvas's translation context): the tooltips of a kernel,
// a stage and an idle gap, a gap's neighbouring kernel, and the hover readout under the cursor.
#pragma once

#include "eval/timeline.h"
#include "eval/timeline_stats.h"

#include <QString>

namespace ios::views {

// "12.3 %": a fraction as the timeline's figures show it.
QString timelinePercent(double fraction);
QString timelineKernelTooltip(const eval::TimelineKernel& kernel);
QString timelineStageTooltip(const eval::TimelineStage& stage);
QString timelineGapTooltip(const eval::Timeline& timeline, const eval::IdleGap& gap);
// Operator, block, stage and stream of a kernel; "the range's edge" for -1.
QString timelineNeighbourText(const eval::Timeline& timeline, int kernel);
// The curve values at time `t` (µs); a measured trace has only its active warps.
QString timelineReadout(const eval::Timeline& timeline, double t, bool measured);

} // namespace ios::views
