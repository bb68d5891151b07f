// SPDX-License-Identifier: Apache-2.0
// StreamsView's drawing: the header (title and the block's counts), the ruler, the lanes with
// their launches, barriers and syncs, the record → wait arrows and marks, the launch labels
// and the legend. One painter per paint: it reads the view through its const interface and
// returns where it drew what (StreamsHit), which the view hit-tests for clicks and tooltips.
#pragma once

#include "stream_layout.h"
#include "time_axis.h"

#include <QPointF>
#include <QRect>
#include <QRectF>
#include <QString>
#include <vector>

class QPainter;

namespace ios::views {

class StreamsView;

// Where a paint drew a launch, an arrow, a record/wait mark or a barrier/sync line.
struct StreamsHit {
    enum Kind { Launch, Arrow, Mark, Divider } kind = Launch;
    int index = -1;
    QRectF rect;
    std::vector<QPointF> path; // arrows: the drawn curve, for distance tests
};

class StreamsPainter {
public:
    struct Geometry {
        QRectF plot; // lanes area (x range of the axis; y of the lanes)
        double laneHeight = 30;
        double top = 0; // y of lane 0 (after the vertical scroll)
    };

    explicit StreamsPainter(const StreamsView& view);
    // The lanes' place in `area`, below the header and ruler, above the legend.
    Geometry geometry(const QRect& area) const;
    double laneY(const Geometry& g, int lane) const;
    // Header, ruler, lanes, arrows, labels and legend of the shown block (the view has one);
    // `axis` is placed on the plot's columns. Returns what was drawn where, in drawing order.
    std::vector<StreamsHit> paint(QPainter& p, const QRect& area, const TimeAxis& axis);

    static constexpr int kLabelWidth = 84;
    static constexpr int kRulerHeight = 24;
    static constexpr int kMinLaneHeight = 26;
    static constexpr int kMaxLaneHeight = 54;

private:
    int headerHeight(const QRect& area) const;
    void renderHeader(QPainter& p, const QRect& area) const;
    void renderRuler(QPainter& p, const Geometry& g, const TimeAxis& axis) const;
    void renderLanes(QPainter& p, const Geometry& g, const TimeAxis& axis);
    void renderArrows(QPainter& p, const Geometry& g, const TimeAxis& axis);
    void renderLabels(QPainter& p, const Geometry& g) const;
    QString launchDetail(const StreamLaunch& launch) const;
    // The legend's height; draws it too when `p` is given.
    int renderLegend(QPainter* p, const QRect& area) const;

    const StreamsView& view_;
    const StreamLayout& layout_;
    std::vector<StreamsHit> hits_;
};

} // namespace ios::views
