// SPDX-License-Identifier: Apache-2.0
// Where the timeline canvas's parts go: its rows (a stage lane, then one lane per stream with
// sub-lanes where a stream's kernels overlap), the rectangles of the title, ruler, lanes, curve
// plot and legend in an area, and what lies under a point of the lanes. Geometry only: no
// painting, no input; TimelineCanvas owns one and TimelinePainter draws where it says.
#pragma once

#include "eval/timeline.h"
#include "time_axis.h"

#include <QRect>
#include <QRectF>
#include <QString>
#include <vector>

namespace ios::views {

class TimelineLayout {
public:
    struct Row {
        QString label;
        int stream = -1; // -1 = the stage lane
        int subLane = 0;
    };
    // Where everything goes in `area`: computed once per paint and per event, never stored
    // across a resize.
    struct Geometry {
        QRect area;         // what is painted
        int x0 = 0, x1 = 0; // the plot's horizontal extent
        QRect title, ruler; // title line; ruler with the range band above the ticks
        QRect lanes;        // the visible part of the lanes
        int rowHeight = 0;
        int lanesContent = 0; // height of all lanes (> lanes.height(): they scroll)
        QRect plot;           // the curves
        int legendTop = 0;
    };
    // What a point of the lanes is over: a stage of the stage lane or a kernel (indices into
    // the timeline's stages / kernels), else nothing.
    struct Hit {
        enum Kind { None, Stage, Kernel } kind = None;
        int index = -1;
    };

    // The rows of `timeline` (none for null). `stagesLabel` / `streamLabel(s)` name the lanes.
    void build(const eval::Timeline* timeline);
    const std::vector<Row>& rows() const { return rows_; }
    int kernelRow(size_t kernel) const { return kernelRow_[kernel]; }
    // First row of each stream id (-1: no lane) and the number of rows it has.
    const std::vector<int>& streamRows() const { return streamRow_; }
    int rowsOfStream(int stream) const;

    // `legendHeight`: the lines the legend under the plot takes.
    Geometry geometry(const QRect& area, int legendHeight) const;
    static int rowTop(const Geometry& g, int row, int scroll) {
        return g.lanes.top() + row * g.rowHeight - scroll;
    }
    // The row under y (lanes scrolled by `scroll`), -1 outside the rows.
    int rowAt(const Geometry& g, int y, int scroll) const;
    // Where `kernel` of `timeline` is drawn.
    QRectF kernelRect(const Geometry& g, const TimeAxis& axis, const eval::Timeline& timeline,
                      int kernel, int scroll) const;
    // What `pos` of the lanes hits (callers check that pos is in g.lanes).
    Hit hitAt(const Geometry& g, const TimeAxis& axis, const eval::Timeline& timeline,
              const QPointF& pos, int scroll) const;

    static constexpr int kLabelWidth = 150;
    static constexpr int kRightMargin = 12;
    static constexpr int kTitleHeight = 20;
    static constexpr int kRulerHeight = 40; // 16 px range band + ticks
    static constexpr int kMinRowHeight = 18;
    static constexpr int kMaxRowHeight = 40;
    static constexpr int kMinPlotHeight = 110;

private:
    std::vector<Row> rows_;
    std::vector<int> kernelRow_; // per kernel
    std::vector<int> streamRow_; // first row of each stream id (-1: no lane)
};

} // namespace ios::views
