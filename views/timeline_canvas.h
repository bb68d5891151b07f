// SPDX-License-Identifier: Apache-2.0
// The painted part of the timeline (Nsight Systems / Perfetto style): a stage lane and one lane
// per stream (sub-lanes when a stream's kernels overlap) with busy % per lane, idle gaps marked,
// flow arrows between dependent kernels on different streams, a range selection with its
// figures, and the SM-utilisation / warp / FP32 curves decimated per pixel with a hover readout.
// The figures come from eval/timeline_stats.h and eval/timeline_curves.h; this class only draws
// them and handles input: TimelineLayout places the rows and hit-tests, TimelinePainter draws.
// TimelineView puts it above the gap list.
#pragma once

#include "eval/timeline.h"
#include "eval/timeline_curves.h"
#include "eval/timeline_stats.h"
#include "loaded_model.h"
#include "time_axis.h"
#include "timeline_layout.h"
#include "timeline_warp_scale.h"

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

namespace ios::views {

class TimelineCanvas : public QWidget {
    Q_OBJECT
public:
    explicit TimelineCanvas(QWidget* parent = nullptr);

    // With a warpLegend the timeline is a measured trace: the chart shows only its active
    // warps (PM sampling), labelled warpLegend, on a y-scale fitted to the data
    // (timeline_warp_scale.h); the readout likewise. Without: the simulated curves (active
    // SMs, warp occupancy, FP32 utilisation) on 0–100 %.
    void setTimeline(LoadedModelPtr model, std::shared_ptr<const eval::Timeline> timeline,
                     const QString& title, const QString& warpLegend = {});
    void clear();
    bool measured() const { return !warpLegend_.isEmpty(); }
    const eval::Timeline* timeline() const { return timeline_.get(); }
    const QString& title() const { return title_; }
    // The header line as painted before eliding: the title, latency, kernels, and the
    // timeline's own device and batch (a measured trace's, never the window's settings).
    QString fullTitle() const;
    const TimeAxis& axis() const { return axis_; }
    void render(QPainter& painter, const QRect& area);

    // Idle gaps of the whole device at least this long are marked and listed (µs).
    void setGapThresholdUs(double us);
    double gapThresholdUs() const { return gapThresholdUs_; }
    // Over the whole timeline: overall and per stream busy time, the device's gaps ≥ threshold.
    const eval::BusySummary& busy() const { return busy_; }
    const std::vector<eval::IdleGap>& gaps() const { return gaps_; }
    // Zooms so the gap fills the middle half of the plot and selects it as the range.
    void zoomToGap(const eval::IdleGap& gap);

    void setVisibleRange(double startUs, double endUs);
    // The axis spans [0, max(us, the timeline's end)] and shows all of it: two timelines drawn
    // on one time axis (the Diff tab) get the longer one's span. setTimeline resets it.
    void setAxisSpanUs(double us);
    void fit();
    void zoomAround(double pixel, double factor);
    void panFraction(double fraction); // of the visible window; positive = later

    // The measured range (Shift+drag on the lanes, or a drag on the ruler); Esc clears it.
    void setRange(double startUs, double endUs);
    void clearRange();
    const std::optional<eval::RangeStats>& range() const { return range_; }

    // Operators (flat indices) whose kernels are highlighted; the rest are dimmed. Empty clears.
    void selectOperators(const std::vector<int>& flatIndices);
    enum class KernelStyle { Normal, Highlighted, Dimmed };
    KernelStyle kernelStyle(int kernel) const;

    // Flow arrows (u's last kernel → its consumer's first kernel on another stream). On by
    // default unless there are more than kMaxDefaultFlows of them.
    void setShowFlows(bool show);
    bool showFlows() const { return showFlows_; }
    const std::vector<eval::KernelFlow>& flows() const { return flows_; }
    static constexpr size_t kMaxDefaultFlows = 300;

    // A gap's neighbour: operator, block, stage and stream of a kernel; "the range's edge" for -1.
    QString neighbourText(int kernel) const;
    // "1 kernel", "57 kernels" (the readouts' wording; no translation catalogue for %n).
    static QString kernelCount(int n);

    // The curve values under x (the hover readout); empty outside the plot.
    QString readoutAt(double x) const;
    const QString& hoverReadout() const { return hoverReadout_; }

    // Test hooks, as of the last paint: every text label's rectangle (title, ruler, lane
    // labels, y-scale, legend, range figures), and the points of the SM curve's mean line.
    const std::vector<QRect>& labelRects() const { return labelRects_; }
    // The legend's texts in order, and the chart's top (a fraction of the peak: 1 = 100 %).
    QStringList legendTexts() const;
    double curveScale() const { return warpScale_.top; }
    int curvePointCount() const { return curvePoints_; }
    int plotWidth() const;
    // Geometry for the current size (what paintEvent uses): where a kernel is drawn, where the
    // ruler and the curve plot are.
    QRectF kernelRect(int kernel) const;
    QRect rulerRect() const;
    QRect plotRect() const;
    QRect lanesRect() const;

    // What TimelinePainter draws from (read-only).
    const LoadedModel* model() const { return model_.get(); }
    const TimelineLayout& layout() const { return layout_; }
    int scroll() const { return scroll_; } // lanes scrolled by this many pixels
    const std::optional<double>& hoverX() const { return hoverX_; }
    const WarpScale& warpScale() const { return warpScale_; }
    const QString& warpLegend() const { return warpLegend_; }
    // Per stream id, its idle gaps ≥ the threshold.
    const std::vector<std::vector<eval::IdleGap>>& streamGaps() const { return streamGaps_; }
    // Whether the kernel maps to an operator of the model.
    bool kernelLinked(const eval::TimelineKernel& k) const;

Q_SIGNALS:
    void operatorSelected(int flatIndex);
    void stageSelected(int block, int stage);
    void rangeChanged(); // range() set or cleared
    void gapsChanged();  // new timeline or threshold
    void flowsToggled(bool shown);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    using Geometry = TimelineLayout::Geometry;
    Geometry geometry(const QRect& area) const; // layout_'s, below the legend
    void recomputeGaps();
    void clampScroll();
    QString tooltipAt(const QPointF& pos) const;
    int flatIndexOf(const eval::TimelineKernel& k) const;
    void revealSelection();
    double cursorPixel() const;

    LoadedModelPtr model_;
    std::shared_ptr<const eval::Timeline> timeline_;
    QString title_;
    QString warpLegend_;  // non-empty: a measured trace (setTimeline)
    WarpScale warpScale_; // top 1 unless measured
    TimeAxis axis_;
    TimelineLayout layout_;

    eval::BusySummary busy_;
    double gapThresholdUs_ = kDefaultGapThresholdUs;
    std::vector<eval::IdleGap> gaps_;                    // device gaps ≥ threshold
    std::vector<std::vector<eval::IdleGap>> streamGaps_; // per stream id, ≥ threshold
    std::vector<eval::KernelFlow> flows_;
    bool showFlows_ = false;
    std::optional<eval::RangeStats> range_;
    std::vector<char> highlighted_; // per kernel; empty = no selection

    enum class Drag { None, Pan, Range };
    Drag drag_ = Drag::None;
    double dragX_ = 0;
    double rangeAnchorUs_ = 0;
    int scroll_ = 0; // lanes scrolled by this many pixels
    std::optional<double> hoverX_;
    QString hoverReadout_;

    std::vector<QRect> labelRects_;
    int curvePoints_ = 0;

public:
    static constexpr double kDefaultGapThresholdUs = 2.0;
    static constexpr int kLabelWidth = TimelineLayout::kLabelWidth;
    static constexpr int kRightMargin = TimelineLayout::kRightMargin;
    static constexpr int kMinRowHeight = TimelineLayout::kMinRowHeight;
    static constexpr int kMinPlotHeight = TimelineLayout::kMinPlotHeight;
};

} // namespace ios::views
