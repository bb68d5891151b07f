// SPDX-License-Identifier: Apache-2.0
// The Memory view's main chart (Serenity Fig. 3(a) and 12): one block's live activation memory
// per step of an order or a stage schedule, stacked by tensor (a colour per tensor), the peak
// marked, TFLite's arena high-water mark as a line, an optional budget; a selected step lists
// its live tensors beside the plot (click, or ← / →), hovering names the tensor under the
// cursor.
#pragma once

#include "chart_style.h"
#include "charts.h"
#include "memory_plot.h"
#include "memory_report.h"

#include <QString>
#include <memory>
#include <optional>
#include <vector>

namespace ios::views {

struct StepChartData {
    std::shared_ptr<const MemoryReport> report; // keeps `problem` alive
    const ir::MemoryProblem* problem = nullptr;
    MemorySeries series;
    QString title;                   // "block 7 · Serenity order"
    QString stepNoun;                // "operator" or "stage"
    std::vector<QString> stepLabels; // per step: what it runs
    int64_t budget = 0;              // drawn when > 0
};

class MemoryStepChart : public ChartWidget {
    Q_OBJECT
public:
    explicit MemoryStepChart(QWidget* parent = nullptr);

    void setData(StepChartData data); // keeps the selected step when it still exists
    void clear();
    const StepChartData& data() const { return data_; }
    int stepCount() const { return static_cast<int>(data_.series.steps.size()); }
    int selectedStep() const { return selected_; }
    void selectStep(int step); // -1 clears; emits stepSelected when it changes

    void render(QPainter& painter, const QRect& area) const override;
    // The step drawn at x (widget coordinates), or -1, and where step `step`'s bar is drawn
    // (its middle, half way up).
    int stepAt(const QPointF& pos) const;
    QPointF stepCenter(int step) const;
    // The stacked segment drawn at pos, its tensor (-1: none, or the step's temporaries), and
    // the tooltip there.
    std::optional<StackSegment> segmentAt(const QPointF& pos) const;
    int tensorAt(const QPointF& pos) const;
    QString tooltipAt(const QPointF& pos) const override;
    QSize sizeHint() const override { return {900, 360}; }

Q_SIGNALS:
    void stepSelected(int step);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    struct Geometry {
        QRectF plot;
        QRectF legend;
        double band = 1; // pixels per step
    };
    ChartHeading heading() const;
    Geometry geometry(const QRect& area) const;
    double yMax() const;
    BytesScale yAxis(const Geometry& g) const;
    void renderBars(QPainter& p, const Geometry& g) const;
    void renderAxes(QPainter& p, const Geometry& g) const;
    void renderLegend(QPainter& p, const QRectF& box) const;
    QString tensorText(int tensor) const;

    StepChartData data_;
    int selected_ = -1;
};

} // namespace ios::views
