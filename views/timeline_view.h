// Per-stream lanes of the simulated kernels (Nsight Systems style): a stage lane, one lane
// per stream (sub-lanes when a stream's kernels overlap), the SM-utilisation and warp-
// occupancy curves under them, stage boundaries, zoom/pan on time and tooltips.
#pragma once

#include "eval/timeline.h"
#include "loaded_model.h"
#include "time_axis.h"

#include <QWidget>
#include <memory>

namespace ios::views {

class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    // `model` may be null (a measured trace of another model): kernels then keep the neutral
    // colour and clicks select nothing. The title says what the timeline is ("simulated: …").
    void setTimeline(LoadedModelPtr model, std::shared_ptr<const eval::Timeline> timeline,
                     const QString& title);
    void clear();
    const TimeAxis& axis() const { return axis_; }
    const eval::Timeline* timeline() const { return timeline_.get(); }
    const QString& title() const { return title_; }
    // Paints the whole view (also used for SVG/PNG export).
    void render(QPainter& painter, const QRect& area);

    QSize sizeHint() const override { return {1000, 500}; }

Q_SIGNALS:
    void operatorSelected(int flatIndex);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Row {
        QString label;
        int stream = -1; // -1 = the stage lane
        int subLane = 0;
    };
    struct Hit {
        QRectF rect;
        int kernel = -1; // index into timeline kernels; -1 = stage
        int stage = -1;
    };
    void layoutRows();
    void updateAxisRange();
    QString tooltipAt(const QPointF& pos) const;

    LoadedModelPtr model_;
    std::shared_ptr<const eval::Timeline> timeline_;
    QString title_;
    TimeAxis axis_;
    std::vector<Row> rows_;
    std::vector<int> kernelRow_; // per kernel
    std::vector<Hit> hits_;
    double dragX_ = 0;

    static constexpr int kLabelWidth = 110;
    static constexpr int kRulerHeight = 28;
    static constexpr int kRowHeight = 26;
    static constexpr int kCurveHeight = 120;
};

} // namespace ios::views
