// SPDX-License-Identifier: Apache-2.0
// TimelineCanvas's drawing: header and ruler, lanes with gaps and kernels, flow arrows, the
// range selection, the decimated curves, the legend and the hover cursor. One painter per
// paint: it reads the canvas through its const interface and draws where TimelineLayout says,
// so painting and hit testing agree; it keeps what the tests inspect (label rectangles, curve
// points).
#pragma once

#include "timeline_layout.h"

#include <QColor>
#include <QFont>
#include <QRect>
#include <QString>
#include <utility>
#include <vector>

class QPainter;

namespace ios::views {

class TimelineCanvas;

// The legend under the plot: swatch and text per entry, wrapped to the area's width from `top`.
struct TimelineLegendEntry {
    QColor color;
    int style = 0; // 0 line, 1 dashed line, 2 box, 3 hatched box, 4 band
    QString text;
    QRect swatch, label;
};
// `warpLegend` non-empty: a measured trace (its active warps only); `smCount` of the timeline.
std::vector<TimelineLegendEntry> timelineLegend(const QRect& area, int top,
                                                const QString& warpLegend, int smCount,
                                                double gapThresholdUs);
// The font of the timeline's labels.
QFont timelineLabelFont();

class TimelinePainter {
public:
    // `axis`: the canvas's axis placed on g's plot columns.
    TimelinePainter(QPainter& painter, const TimelineCanvas& canvas,
                    const TimelineLayout::Geometry& g, const TimeAxis& axis);
    // Everything, in order; the cursor too when `withCursor` (the widget, not an export).
    void paint(bool withCursor);

    // As painted: every text label's rectangle, and the points of the SM curve's mean line.
    const std::vector<QRect>& labelRects() const { return labelRects_; }
    int curvePoints() const { return curvePoints_; }

private:
    void paintHeader();
    void paintLanes();
    void paintGaps();
    void paintStages();
    void paintKernels();
    void paintFlows();
    void paintCurves();
    void paintRange();
    void paintLegend();
    void paintCursor();
    void addLabel(const QRect& rect, int flags, const QString& text);
    int rowTop(int row) const;
    // x and width (at least 1 px) of [startUs, endUs].
    std::pair<double, double> span(double startUs, double endUs) const;

    QPainter& p_;
    const TimelineCanvas& canvas_;
    const eval::Timeline& timeline_;
    const TimelineLayout& layout_;
    const TimelineLayout::Geometry& g_;
    const TimeAxis& axis_;
    std::vector<QRect> labelRects_;
    int curvePoints_ = 0;
};

} // namespace ios::views
