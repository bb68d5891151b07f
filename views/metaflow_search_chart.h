// SPDX-License-Identifier: Apache-2.0
// The MetaFlow search as it runs ([MF] Fig. 10's view of the backtracking search): the best
// graph's cost and the cost of the graph just popped against the graphs expanded so far (the
// popped cost rising above the best is the search going through worse graphs, α > 1), and the
// queue's size below. Drawn on the one tick/label engine (chart_axes.h) like the other charts.
#pragma once

#include "charts.h"

#include <vector>

namespace ios::views {

struct SearchTracePoint {
    double expanded = 0;
    double queued = 0;
    double bestMs = 0;
    double poppedMs = 0;
};

class MetaflowSearchChart : public ChartWidget {
    Q_OBJECT
public:
    explicit MetaflowSearchChart(QWidget* parent = nullptr);
    // Points in arrival order; `expanded` may restart at 0 when the search moves to the next
    // block or part (the engine reports per searched region), so the x axis is the report's
    // running index of expansions summed over regions.
    void setData(QString title, std::vector<SearchTracePoint> points);
    const std::vector<SearchTracePoint>& points() const { return points_; }
    void render(QPainter& painter, const QRect& area) const override;
    QString tooltipAt(const QPointF& pos) const override;
    // The panels' axis titles ("Cost (ms)", "Queue (graphs)").
    QString costTitle() const;

private:
    struct Layout {
        QRectF plots[2]; // cost, queue
        int panelLeft[2] = {0, 0};
        QRect legend;
    };
    Layout layout(const QRect& area) const;
    // The x of each point: expansions so far over all regions.
    std::vector<double> xs() const;
    QString title_;
    std::vector<SearchTracePoint> points_;
};

} // namespace ios::views
