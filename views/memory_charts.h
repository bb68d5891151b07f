// SPDX-License-Identifier: Apache-2.0
// The Memory view's small charts: the soft budget's DP runs (Serenity Fig. 8(b): the budget τ
// of each run, coloured by solution / no solution / timeout, partition by partition) and the
// distribution of peaks over every order of a window of operators (Serenity Fig. 3(b): share
// of orders per peak and its cumulative share, the optimum and the file order marked).
#pragma once

#include "chart_style.h"
#include "charts.h"
#include "memory_report.h"

#include <QString>
#include <vector>

namespace ios::views {

class TauTraceChart : public ChartWidget {
    Q_OBJECT
public:
    explicit TauTraceChart(QWidget* parent = nullptr);
    // `partitions` of one block, in order (each with its runs).
    void setData(QString title, std::vector<DpPartition> partitions);
    void render(QPainter& painter, const QRect& area) const override;
    int runCount() const;
    QString tooltipAt(const QPointF& pos) const override;

private:
    ChartHeading heading() const;
    int legendRows(int width) const;
    QRectF plotRect(const QRect& area) const;
    std::pair<double, double> tauRange() const; // least and largest τ of every run
    QString title_;
    std::vector<DpPartition> partitions_;
};

class PeakDistributionChart : public ChartWidget {
    Q_OBJECT
public:
    explicit PeakDistributionChart(QWidget* parent = nullptr);
    // `which` names the window's operators for people ("ops 11–30: a … b").
    void setData(QString title, PeakWindow window, QString which);
    const PeakWindow& window() const { return window_; }
    void render(QPainter& painter, const QRect& area) const override;

private:
    QString title_;
    QString which_;
    PeakWindow window_;
};

// The colour of a DP run's outcome in the τ chart and its legend.
QColor dpStatusColor(schedulers::serenity::DpStatus status);

} // namespace ios::views
