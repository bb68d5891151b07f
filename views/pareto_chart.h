// SPDX-License-Identifier: Apache-2.0
// Latency against peak activation memory (docs/memory.md "The latency–memory trade-off"): the
// budgeted IOS search's front, the least peak any schedule reaches, the current result, and a
// budget line the user drags (or sets by clicking a point); on release it asks for a search
// under that budget (budgetChosen).
#pragma once

#include "chart_style.h"
#include "charts.h"
#include "memory_plot.h"
#include "schedulers/pareto.h"

#include <QString>
#include <memory>

namespace ios::views {

class ParetoChart : public ChartWidget {
    Q_OBJECT
public:
    explicit ParetoChart(QWidget* parent = nullptr);

    // `strategy`: the label of the scheduler that searched the front.
    void setFront(std::shared_ptr<const schedulers::ParetoFront> front, QString strategy);
    const std::shared_ptr<const schedulers::ParetoFront>& front() const { return front_; }
    // The shown result (a cross) and the budget it ran under (0: none; the line then rests at
    // the unconstrained peak).
    void setCurrent(int64_t peakBytes, double latencyMs, int64_t budget);
    void clearCurrent();

    // The budget the line shows (while dragging: where it is).
    int64_t budget() const { return lineBudget_; }
    bool hasTradeOff() const; // more than one budget gives a different schedule
    // Pixel x (widget coordinates) of a budget, and the budget a pixel x picks (snapped,
    // clamped to [smallest, unconstrained] peak).
    double xOfBudget(int64_t bytes) const;
    int64_t budgetAtX(double x) const;
    // Where point i of the front is drawn (widget coordinates).
    QPointF pointCenter(size_t i) const;
    // The fastest point of the front whose peak fits `budget`, or nullptr.
    const schedulers::ParetoPoint* pointWithin(int64_t budget) const;

    void render(QPainter& painter, const QRect& area) const override;

Q_SIGNALS:
    void budgetChosen(qint64 bytes);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    ChartHeading heading() const;
    QRectF plotRect(const QRect& area) const;
    double xLo() const;
    double xHi() const;
    BytesScale xAxis(const QRectF& plot) const; // peak bytes
    NiceRange yScale() const;                   // latency, ms
    int pointAt(const QPointF& pos) const;
    void renderFront(QPainter& p, const QRectF& plot) const;
    void renderBudget(QPainter& p, const QRectF& plot) const;

    std::shared_ptr<const schedulers::ParetoFront> front_;
    QString strategy_;
    int64_t currentPeak_ = 0;
    double currentLatency_ = 0;
    int64_t budget_ = 0;     // of the current result
    int64_t lineBudget_ = 0; // where the line is
    bool dragging_ = false;
};

} // namespace ios::views
