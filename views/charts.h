// QPainter charts for the analysis tabs (no Qt Charts): the strategy comparison (IOS paper
// Figure 5/6 style bars), the pruning sweep (Figure 9: latency and search time over r × s),
// and a heat map for the batch/device specialization matrix (Table 3).
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>
#include <vector>

namespace ios::views {

// A value axis from 0 (or min) to a "nice" maximum with evenly spaced ticks.
struct ValueScale {
    double max = 1;
    double step = 1;
    static ValueScale forMaximum(double maximum, int targetTicks = 5);
};

class ChartWidget : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;
    virtual void render(QPainter& painter, const QRect& area) const = 0;
    QSize sizeHint() const override { return {900, 500}; }
    void setPlaceholder(const QString& text);
    const QString& placeholder() const { return placeholder_; }
    // Where paintEvent renders the chart (inside the widget's margins).
    QRect chartArea() const { return rect().adjusted(16, 12, -16, -12); }
    // The tooltip at a widget position (empty: none); event() shows it.
    virtual QString tooltipAt(const QPointF& /*pos*/) const { return {}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    QString placeholder_;
};

struct ComparisonEntry {
    QString label;
    double latencyMs = 0;
    double searchSeconds = 0;
    double states = 0;      // 0 for baselines
    double transitions = 0; // 0 for baselines
    double peakBytes = 0;   // peak activation memory of its schedule
};

class ComparisonChart : public ChartWidget {
    Q_OBJECT
public:
    using ChartWidget::ChartWidget;
    // `budgetBytes` > 0: the memory budget the IOS strategies ran under (drawn on the peak
    // memory panel).
    void setData(QString title, std::vector<ComparisonEntry> entries, double sequentialMs,
                 double budgetBytes = 0);
    void render(QPainter& painter, const QRect& area) const override;
    const std::vector<ComparisonEntry>& entries() const { return entries_; }

private:
    QString title_;
    std::vector<ComparisonEntry> entries_;
    double sequentialMs_ = 0;
    double budgetBytes_ = 0;
};

class SweepChart : public ChartWidget {
    Q_OBJECT
public:
    using ChartWidget::ChartWidget;
    // latencyMs and seconds are r-major: index (ri * s.size() + si).
    void setData(QString title, std::vector<int> r, std::vector<int> s,
                 std::vector<double> latencyMs, std::vector<double> seconds);
    void render(QPainter& painter, const QRect& area) const override;

private:
    void renderPanel(QPainter& p, const QRect& area, const std::vector<double>& values,
                     const QString& yTitle, bool seconds) const;
    QString title_;
    std::vector<int> r_, s_;
    std::vector<double> latency_, seconds_;
};

struct HeatMatrix {
    QString title;
    std::vector<QString> labels;             // rows = optimised for, columns = run on
    std::vector<std::vector<double>> values; // ms
};

class HeatMapChart : public ChartWidget {
    Q_OBJECT
public:
    using ChartWidget::ChartWidget;
    void setData(std::vector<HeatMatrix> matrices);
    void render(QPainter& painter, const QRect& area) const override;

private:
    void renderMatrix(QPainter& p, const QRect& area, const HeatMatrix& m) const;
    std::vector<HeatMatrix> matrices_;
};

} // namespace ios::views
