// SPDX-License-Identifier: Apache-2.0
// QPainter charts for the analysis tabs (no Qt Charts): the strategy comparison (IOS paper
// Figure 5/6 style bars), the pruning sweep (Figure 9: latency and the DP's transitions over
// r × s), and a heat map for the batch/device specialization matrix (Table 3). Every label goes
// through one tick/label engine (chart_labels.h, chart_axes.h).
#pragma once

#include "chart_labels.h"

#include <QColor>
#include <QString>
#include <QWidget>
#include <vector>

namespace ios::views {

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

    // Test hook (issue 17): the labels the last render() drew, in device coordinates, and the
    // rect they were kept in (render()'s area).
    const std::vector<ChartLabel>& lastLabels() const { return labels_.labels(); }
    std::vector<QRectF> lastLabelRects() const;
    QRectF lastLabelBounds() const { return labels_.bounds(); }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    // Starts the labels of one render over `area`; every render() calls it first.
    ChartLabels& beginLabels(const QPainter& p, const QRect& area) const;
    QString placeholder_;
    mutable ChartLabels labels_;
};

struct ComparisonEntry {
    QString label;
    double latencyMs = 0;
    double searchSeconds = 0;
    double states = 0;      // 0 for baselines
    double transitions = 0; // 0 for baselines
    double peakBytes = 0;   // peak activation memory of its schedule
    // Why it could not run under the cost model or settings (schedulers/not_applicable.h);
    // empty when it ran. Its row then says "not applicable" and the heading says why.
    QString notApplicable{};
    // For the bar's tooltip and click (0 / empty: unknown): the scheduler's registry key, its
    // schedule's stages, and its mean kernels in flight over the whole run.
    QString key{};
    int stages{};
    double meanConcurrency{};
    bool rewritten{}; // its schedule is of a rewritten graph (MetaFlow): not diffable
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
    // The entry whose bars are under `pos` as last painted, or -1.
    int rowAt(const QPointF& pos) const;
    // The entry that ran with the least latency among those scheduling the open graph (not
    // rewritten: only those can be diffed against another), or -1.
    int fastestRow() const;
    QString tooltipAt(const QPointF& pos) const override;

Q_SIGNALS:
    // A left click on a row that ran: its entry and the keyboard modifiers held.
    void barClicked(int row, Qt::KeyboardModifiers modifiers);

protected:
    void mousePressEvent(QMouseEvent* event) override;

private:
    QString title_;
    std::vector<ComparisonEntry> entries_;
    mutable std::vector<QRectF> rows_; // every panel's row bands, panel by panel
    double sequentialMs_ = 0;
    double budgetBytes_ = 0;
};

// IOS paper Figure 9: the schedule's latency and the search's cost over r × s. The cost is the
// DP's transition count (deterministic, as the paper plots it); the wall-clock seconds, which
// vary run to run, are in the tooltip.
class SweepChart : public ChartWidget {
    Q_OBJECT
public:
    explicit SweepChart(QWidget* parent = nullptr);
    // Each vector is r-major: index (ri * s.size() + si).
    void setData(QString title, std::vector<int> r, std::vector<int> s,
                 std::vector<double> latencyMs, std::vector<double> transitions,
                 std::vector<double> seconds);
    void render(QPainter& painter, const QRect& area) const override;
    QString tooltipAt(const QPointF& pos) const override;
    // The panels' axis titles ("Latency (ms)", "DP transitions (×10³)").
    QString latencyTitle() const;
    QString costTitle() const;
    // Where point (ri, si) of panel 0 (latency) or 1 (transitions) is drawn in `area`.
    QPointF pointAt(const QRect& area, int panel, size_t ri, size_t si) const;

private:
    struct Layout {
        QRect heading, legend;
        QRectF plots[2];
        int panelLeft[2] = {0, 0}; // where each panel (its tick labels) starts
    };
    Layout layout(const QRect& area) const;
    void renderPanel(QPainter& p, const QRectF& plot, int panel) const;
    const std::vector<double>& values(int panel) const {
        return panel == 0 ? latency_ : transitions_;
    }
    QString title_;
    std::vector<int> r_, s_;
    std::vector<double> latency_, transitions_, seconds_;
};

struct HeatMatrix {
    QString title;
    std::vector<QString> labels;             // rows = optimised for, columns = run on
    std::vector<std::vector<double>> values; // ms

    // A cell's slow-down against the best schedule of its column (1 = the best).
    double slowdown(size_t row, size_t column) const;
    double maxSlowdown() const;
};

// The specialization matrices (IOS paper Table 3). Each cell is coloured by its slow-down
// against its column's best on one scale for the whole matrix (×1.000 white → red at the
// scale's top, shown by a legend bar with ticks), shows its latency and slow-down, and the
// best of each column is outlined.
class HeatMapChart : public ChartWidget {
    Q_OBJECT
public:
    using ChartWidget::ChartWidget;
    void setData(std::vector<HeatMatrix> matrices);
    const std::vector<HeatMatrix>& matrices() const { return matrices_; }
    void render(QPainter& painter, const QRect& area) const override;
    QString tooltipAt(const QPointF& pos) const override;

    // The top of matrix m's colour scale: its largest slow-down rounded up to a legend tick,
    // at least ×1.05 (so a few per mille never reads as "worst").
    double scaleTop(size_t m) const;
    // The colour of a slow-down on a scale ending at `top`.
    static QColor slowdownColor(double slowdown, double top);
    QColor cellColor(size_t m, size_t row, size_t column) const;

private:
    struct MatrixLayout {
        QRect box;
        QRect grid;
        int cellW = 0;
        int cellH = 0;
        int headingH = 0;
        QRect legend;
    };
    std::vector<MatrixLayout> layouts(const QRect& area) const;
    MatrixLayout matrixLayout(const QRect& box, const HeatMatrix& m) const;
    void renderMatrix(QPainter& p, const MatrixLayout& l, size_t index) const;
    void renderLegend(QPainter& p, const QRect& box, double top) const;
    std::vector<HeatMatrix> matrices_;
};

} // namespace ios::views
