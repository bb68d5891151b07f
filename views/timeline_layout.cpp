// SPDX-License-Identifier: Apache-2.0
#include "timeline_layout.h"

#include "timeline_canvas.h"

#include <algorithm>

namespace ios::views {

void TimelineLayout::build(const eval::Timeline* timeline) {
    rows_.clear();
    kernelRow_.clear();
    streamRow_.clear();
    if (!timeline)
        return;
    rows_.push_back({TimelineCanvas::tr("Stages"), -1, 0});
    int streams = std::max(timeline->streams, 1);
    for (const eval::TimelineKernel& k : timeline->kernels)
        streams = std::max(streams, k.stream + 1);
    // Kernels of one stream are sequential in the simulator; pack anyway so overlapping
    // intervals (measured traces) get sub-lanes instead of hiding each other.
    std::vector<std::vector<int>> perStream(static_cast<size_t>(streams));
    for (int k = 0; k < static_cast<int>(timeline->kernels.size()); ++k)
        perStream[static_cast<size_t>(
                      std::max(timeline->kernels[static_cast<size_t>(k)].stream, 0))]
            .push_back(k);
    kernelRow_.assign(timeline->kernels.size(), 0);
    streamRow_.assign(static_cast<size_t>(streams), -1);
    for (int s = 0; s < streams; ++s) {
        const auto& mine = perStream[static_cast<size_t>(s)];
        // A program's streams need not start at 0 (RAF's do not): no lane for an unused one.
        if (mine.empty() && streams > 1)
            continue;
        std::vector<Interval> intervals;
        for (int k : mine)
            intervals.push_back({timeline->kernels[static_cast<size_t>(k)].startUs,
                                 timeline->kernels[static_cast<size_t>(k)].endUs});
        int lanes = 1;
        const std::vector<int> lane = packLanes(intervals, &lanes);
        const int first = static_cast<int>(rows_.size());
        streamRow_[static_cast<size_t>(s)] = first;
        for (int l = 0; l < std::max(lanes, 1); ++l)
            rows_.push_back({l == 0 ? TimelineCanvas::tr("Stream %1").arg(s) : QString(), s, l});
        for (size_t i = 0; i < lane.size(); ++i)
            kernelRow_[static_cast<size_t>(mine[i])] = first + lane[i];
    }
}

int TimelineLayout::rowsOfStream(int stream) const {
    const int first = streamRow_[static_cast<size_t>(stream)];
    if (first < 0)
        return 0;
    int n = 0;
    while (first + n < static_cast<int>(rows_.size()) &&
           rows_[static_cast<size_t>(first + n)].stream == stream)
        ++n;
    return n;
}

TimelineLayout::Geometry TimelineLayout::geometry(const QRect& area, int legendHeight) const {
    Geometry g;
    g.x0 = area.left() + kLabelWidth;
    g.x1 = std::max(g.x0 + 1, area.left() + area.width() - kRightMargin);
    g.title = QRect(area.left() + 8, area.top() + 2, area.width() - 16, kTitleHeight - 4);
    g.ruler = QRect(g.x0, area.top() + kTitleHeight, g.x1 - g.x0, kRulerHeight);
    // The legend's lines below the plot, then lanes and plot share the rest: lanes grow up to
    // kMaxRowHeight, the plot takes what is left, so the pane is always full.
    g.area = area;
    g.legendTop = area.top() + area.height() - legendHeight - 6;
    const int lanesTop = g.ruler.bottom() + 7;
    const int available = std::max(g.legendTop - 22 - lanesTop, 0);
    const int rows = std::max(static_cast<int>(rows_.size()), 1);
    g.rowHeight = std::clamp((available - kMinPlotHeight) / rows, kMinRowHeight, kMaxRowHeight);
    g.lanesContent = rows * g.rowHeight;
    const int lanesHeight =
        std::max(std::min(g.lanesContent, available - kMinPlotHeight), kMinRowHeight);
    g.lanes = QRect(g.x0, lanesTop, g.x1 - g.x0, lanesHeight);
    const int plotTop = g.lanes.bottom() + 1 + 18;
    g.plot = QRect(g.x0, plotTop, g.x1 - g.x0, std::max(g.legendTop - 8 - plotTop, 20));
    return g;
}

int TimelineLayout::rowAt(const Geometry& g, int y, int scroll) const {
    const int row = (y - g.lanes.top() + scroll) / g.rowHeight;
    return row < 0 || row >= static_cast<int>(rows_.size()) ? -1 : row;
}

QRectF TimelineLayout::kernelRect(const Geometry& g, const TimeAxis& axis,
                                  const eval::Timeline& timeline, int kernel, int scroll) const {
    const eval::TimelineKernel& k = timeline.kernels[static_cast<size_t>(kernel)];
    const double x = axis.toPixel(k.startUs);
    const double w = std::max(axis.toPixel(k.endUs) - x, 1.0);
    return QRectF(x, rowTop(g, kernelRow_[static_cast<size_t>(kernel)], scroll) + 3, w,
                  g.rowHeight - 6);
}

TimelineLayout::Hit TimelineLayout::hitAt(const Geometry& g, const TimeAxis& axis,
                                          const eval::Timeline& timeline, const QPointF& pos,
                                          int scroll) const {
    const int row = rowAt(g, static_cast<int>(pos.y()), scroll);
    if (row < 0)
        return {};
    if (rows_[static_cast<size_t>(row)].stream < 0) {
        const double t = axis.toTime(pos.x());
        for (size_t i = 0; i < timeline.stages.size(); ++i)
            if (timeline.stages[i].startUs <= t && t < timeline.stages[i].endUs)
                return {Hit::Stage, static_cast<int>(i)};
        return {};
    }
    for (size_t k = 0; k < timeline.kernels.size(); ++k)
        if (kernelRow_[k] == row &&
            kernelRect(g, axis, timeline, static_cast<int>(k), scroll).contains(pos))
            return {Hit::Kernel, static_cast<int>(k)};
    return {};
}

} // namespace ios::views
