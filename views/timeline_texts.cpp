// SPDX-License-Identifier: Apache-2.0
#include "timeline_texts.h"

#include "eval/timeline_curves.h"
#include "timeline_canvas.h"
#include "units.h"

#include <algorithm>

namespace ios::views {

namespace {

QString tr(const char* text) {
    return TimelineCanvas::tr(text);
}

} // namespace

QString timelinePercent(double fraction) {
    return QStringLiteral("%1 %").arg(fraction * 100, 0, 'f', 1);
}

QString timelineKernelTooltip(const eval::TimelineKernel& k) {
    return tr("<b>%1</b> — kernel %2<br>block %3, stage %4, stream %5<br>%6 CTAs<br>"
              "start %7, duration %8")
        .arg(QString::fromStdString(k.opName), QString::fromStdString(k.kernel))
        .arg(k.block)
        .arg(k.stage)
        .arg(k.stream)
        .arg(k.ctas)
        .arg(formatMs(k.startUs / 1000.0), formatMs((k.endUs - k.startUs) / 1000.0));
}

QString timelineStageTooltip(const eval::TimelineStage& st) {
    return tr("<b>Block %1, stage %2</b> (%3, %4 groups)<br>%5<br>active SMs %6 %, "
              "warp occupancy %7 %, FP32 %8 %<br>Click to select the stage")
        .arg(st.block)
        .arg(st.stage)
        .arg(st.kind == schedule::StageKind::Merge ? tr("merge") : tr("parallel"))
        .arg(st.groups)
        .arg(formatMs((st.endUs - st.startUs) / 1000.0))
        .arg(st.meanActiveSmFraction * 100, 0, 'f', 0)
        .arg(st.meanWarpOccupancy * 100, 0, 'f', 0)
        .arg(st.meanFlopUtilisation * 100, 0, 'f', 0);
}

QString timelineGapTooltip(const eval::Timeline& timeline, const eval::IdleGap& gap) {
    return tr("<b>GPU idle %1</b> (no kernel on any stream)<br>%2 – %3<br>after %4<br>"
              "before %5")
        .arg(formatMs(gap.durationUs() / 1000.0), formatMs(gap.startUs / 1000.0),
             formatMs(gap.endUs / 1000.0), timelineNeighbourText(timeline, gap.before),
             timelineNeighbourText(timeline, gap.after));
}

QString timelineNeighbourText(const eval::Timeline& timeline, int kernel) {
    if (kernel < 0)
        return tr("the range's edge");
    const eval::TimelineKernel& k = timeline.kernels[static_cast<size_t>(kernel)];
    return tr("%1 (block %2, stage %3, stream %4)")
        .arg(QString::fromStdString(k.opName))
        .arg(k.block)
        .arg(k.stage)
        .arg(k.stream);
}

QString timelineReadout(const eval::Timeline& timeline, double t, bool measured) {
    const eval::TimelineSample s = eval::sampleAt(timeline, t);
    const int sms = std::max(timeline.smCount, 1);
    const int running = static_cast<int>(std::count_if(
        timeline.kernels.begin(), timeline.kernels.end(),
        [t](const eval::TimelineKernel& k) { return k.startUs <= t && t < k.endUs; }));
    if (measured) // PM sampling measures active warps only: no SM or FP32 figures
        return tr("%1 · active warps %2 % of peak · %3 running")
            .arg(formatMs(t / 1000.0), QString::number(s.warpOccupancy * 100, 'f', 1),
                 TimelineCanvas::kernelCount(running));
    return tr("%1 · active SMs %2 (%3 of %4) · warp occupancy %5 · FP32 %6 · %7 running")
        .arg(formatMs(t / 1000.0), timelinePercent(static_cast<double>(s.activeSms) / sms))
        .arg(s.activeSms)
        .arg(sms)
        .arg(timelinePercent(s.warpOccupancy), timelinePercent(s.flopUtilisation),
             TimelineCanvas::kernelCount(running));
}

} // namespace ios::views
