// SPDX-License-Identifier: Apache-2.0
#include "timeline_canvas.h"

#include "timeline_painter.h"
#include "timeline_texts.h"
#include "timeline_view.h"
#include "units.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace ios::views {

namespace {

// One W/S press zooms by this factor, one A/D press pans this fraction of the window.
constexpr double kKeyZoom = 1.5;
constexpr double kKeyPan = 0.2;

} // namespace

TimelineCanvas::TimelineCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumHeight(260);
    setAutoFillBackground(true);
    QStringList help;
    for (const auto& [keys, what] : TimelineView::shortcutHelp())
        help << QStringLiteral("<b>%1</b>: %2").arg(keys, what);
    setToolTip(help.join(QStringLiteral("<br>")));
}

void TimelineCanvas::clear() {
    setTimeline(nullptr, nullptr, QString());
}

void TimelineCanvas::setTimeline(LoadedModelPtr model,
                                 std::shared_ptr<const eval::Timeline> timeline,
                                 const QString& title, const QString& warpLegend) {
    // The model and the timeline arrive together and are replaced together, so a click never
    // maps a kernel through another model's operator indices.
    model_ = std::move(model);
    timeline_ = std::move(timeline);
    title_ = title;
    warpLegend_ = timeline_ ? warpLegend : QString();
    warpScale_ = measured() ? fitWarpScale(*timeline_) : WarpScale{};
    axis_ = TimeAxis(timeline_ ? eval::timelineEndUs(*timeline_) : 1.0, kLabelWidth,
                     width() - kLabelWidth - kRightMargin);
    range_.reset();
    highlighted_.clear();
    scroll_ = 0;
    hoverX_.reset();
    hoverReadout_.clear();
    layout_.build(timeline_.get());
    flows_ = timeline_ && model_ ? eval::kernelFlows(*timeline_, model_->dags())
                                 : std::vector<eval::KernelFlow>{};
    showFlows_ = flows_.size() <= kMaxDefaultFlows;
    recomputeGaps();
    Q_EMIT rangeChanged();
    Q_EMIT flowsToggled(showFlows_);
    update();
}

void TimelineCanvas::recomputeGaps() {
    busy_ = {};
    gaps_.clear();
    streamGaps_.clear();
    if (timeline_) {
        const double end = eval::timelineEndUs(*timeline_);
        busy_ = eval::busySummary(*timeline_, 0, end);
        gaps_ = eval::idleGaps(*timeline_, -1, gapThresholdUs_, 0, end);
        streamGaps_.resize(layout_.streamRows().size());
        for (const eval::StreamBusy& s : busy_.streams)
            if (s.stream >= 0)
                streamGaps_[static_cast<size_t>(s.stream)] =
                    eval::idleGaps(*timeline_, s.stream, gapThresholdUs_, 0, end);
    }
    Q_EMIT gapsChanged();
}

void TimelineCanvas::setGapThresholdUs(double us) {
    if (us == gapThresholdUs_ || !(us >= 0))
        return;
    gapThresholdUs_ = us;
    recomputeGaps();
    update();
}

TimelineCanvas::Geometry TimelineCanvas::geometry(const QRect& area) const {
    int legendHeight = 0;
    for (const TimelineLegendEntry& e :
         timelineLegend(area, 0, warpLegend_, timeline_ ? std::max(timeline_->smCount, 1) : 1,
                        gapThresholdUs_))
        legendHeight = std::max(legendHeight, e.label.bottom() + 1);
    return layout_.geometry(area, legendHeight);
}

int TimelineCanvas::plotWidth() const {
    return geometry(rect()).plot.width();
}
QRect TimelineCanvas::rulerRect() const {
    return geometry(rect()).ruler;
}
QRect TimelineCanvas::plotRect() const {
    return geometry(rect()).plot;
}
QRect TimelineCanvas::lanesRect() const {
    return geometry(rect()).lanes;
}

QRectF TimelineCanvas::kernelRect(int kernel) const {
    if (!timeline_ || kernel < 0 || static_cast<size_t>(kernel) >= timeline_->kernels.size())
        return {};
    return layout_.kernelRect(geometry(rect()), axis_, *timeline_, kernel, scroll_);
}

void TimelineCanvas::clampScroll() {
    const Geometry g = geometry(rect());
    scroll_ = std::clamp(scroll_, 0, std::max(g.lanesContent - g.lanes.height(), 0));
}

void TimelineCanvas::resizeEvent(QResizeEvent*) {
    axis_.setPixelRange(kLabelWidth, width() - kLabelWidth - kRightMargin);
    clampScroll();
}

QString TimelineCanvas::fullTitle() const {
    // The latency first: when the title must be elided, the device and batch go before it.
    return tr("%1 — %2 · %3 kernels on %4, batch %5")
        .arg(title_, formatMs(timeline_->latencyUs / 1000.0))
        .arg(static_cast<int>(timeline_->kernels.size()))
        .arg(QString::fromStdString(timeline_->device))
        .arg(timeline_->batch);
}

QStringList TimelineCanvas::legendTexts() const {
    QStringList texts;
    for (const TimelineLegendEntry& e :
         timelineLegend(rect(), 0, warpLegend_, timeline_ ? std::max(timeline_->smCount, 1) : 1,
                        gapThresholdUs_))
        texts << e.text;
    return texts;
}

void TimelineCanvas::render(QPainter& p, const QRect& area) {
    labelRects_.clear();
    curvePoints_ = 0;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.fillRect(area, QColor(0xfc, 0xfc, 0xfc));
    p.setFont(timelineLabelFont());
    if (!timeline_) {
        p.setPen(Qt::darkGray);
        p.drawText(area, Qt::AlignCenter, tr("Run a search to see its simulated timeline."));
        p.restore();
        return;
    }
    const Geometry g = geometry(area);
    TimeAxis axis = axis_;
    axis.setPixelRange(g.x0, g.x1 - g.x0);
    TimelinePainter painter(p, *this, g, axis);
    painter.paint(area == rect());
    labelRects_ = painter.labelRects();
    curvePoints_ = painter.curvePoints();
    p.restore();
}

void TimelineCanvas::paintEvent(QPaintEvent*) {
    QPainter p(this);
    render(p, rect());
}

void TimelineCanvas::setVisibleRange(double startUs, double endUs) {
    axis_.setVisible(startUs, endUs);
    update();
}

void TimelineCanvas::setAxisSpanUs(double us) {
    const double end = timeline_ ? eval::timelineEndUs(*timeline_) : 1.0;
    axis_ = TimeAxis(std::max(us, end), kLabelWidth, width() - kLabelWidth - kRightMargin);
    update();
}

void TimelineCanvas::fit() {
    axis_.reset();
    update();
}

void TimelineCanvas::zoomAround(double pixel, double factor) {
    axis_.zoomAt(pixel, factor);
    update();
}

void TimelineCanvas::panFraction(double fraction) {
    axis_.setVisible(axis_.visibleStart() + fraction * axis_.visibleDuration(),
                     axis_.visibleEnd() + fraction * axis_.visibleDuration());
    update();
}

void TimelineCanvas::zoomToGap(const eval::IdleGap& gap) {
    const double pad = std::max(gap.durationUs() / 2, TimeAxis::kMinWindowUs / 2);
    setVisibleRange(gap.startUs - pad, gap.endUs + pad);
    setRange(gap.startUs, gap.endUs);
}

void TimelineCanvas::setRange(double startUs, double endUs) {
    if (!timeline_)
        return;
    range_ = eval::rangeStats(*timeline_, std::min(startUs, endUs), std::max(startUs, endUs));
    Q_EMIT rangeChanged();
    update();
}

void TimelineCanvas::clearRange() {
    if (!range_)
        return;
    range_.reset();
    Q_EMIT rangeChanged();
    update();
}

bool TimelineCanvas::kernelLinked(const eval::TimelineKernel& k) const {
    return model_ && k.op >= 0 && k.block >= 0 &&
           k.block < static_cast<int>(model_->dags().size()) &&
           k.op < static_cast<int>(model_->dags()[static_cast<size_t>(k.block)].ops.size());
}

int TimelineCanvas::flatIndexOf(const eval::TimelineKernel& k) const {
    return kernelLinked(k) ? model_->flatIndex({k.block, k.op}) : -1;
}

void TimelineCanvas::selectOperators(const std::vector<int>& flatIndices) {
    highlighted_.clear();
    if (timeline_ && !flatIndices.empty()) {
        const std::unordered_set<int> wanted(flatIndices.begin(), flatIndices.end());
        highlighted_.assign(timeline_->kernels.size(), 0);
        for (size_t k = 0; k < timeline_->kernels.size(); ++k)
            highlighted_[k] = wanted.count(flatIndexOf(timeline_->kernels[k])) ? 1 : 0;
        revealSelection();
    }
    update();
}

TimelineCanvas::KernelStyle TimelineCanvas::kernelStyle(int kernel) const {
    if (highlighted_.empty() || kernel < 0 || static_cast<size_t>(kernel) >= highlighted_.size())
        return KernelStyle::Normal;
    return highlighted_[static_cast<size_t>(kernel)] ? KernelStyle::Highlighted
                                                     : KernelStyle::Dimmed;
}

void TimelineCanvas::revealSelection() {
    // Zoom out (or over) to the highlighted kernels only when none of them is on screen, so a
    // selection made elsewhere never leaves the user looking at dimmed kernels only.
    double lo = 0, hi = 0;
    int firstRow = -1;
    bool any = false, visible = false;
    for (size_t k = 0; k < highlighted_.size(); ++k) {
        if (!highlighted_[k])
            continue;
        const eval::TimelineKernel& kern = timeline_->kernels[k];
        lo = any ? std::min(lo, kern.startUs) : kern.startUs;
        hi = any ? std::max(hi, kern.endUs) : kern.endUs;
        firstRow = firstRow < 0 ? layout_.kernelRow(k) : std::min(firstRow, layout_.kernelRow(k));
        any = true;
        visible =
            visible || (kern.endUs >= axis_.visibleStart() && kern.startUs <= axis_.visibleEnd());
    }
    if (!any)
        return;
    if (!visible) {
        const double pad = std::max((hi - lo) * 0.1, TimeAxis::kMinWindowUs);
        axis_.setVisible(lo - pad, hi + pad);
    }
    const Geometry g = geometry(rect());
    const int top = firstRow * g.rowHeight;
    if (top < scroll_ || top + g.rowHeight > scroll_ + g.lanes.height()) {
        scroll_ = top;
        clampScroll();
    }
}

void TimelineCanvas::setShowFlows(bool show) {
    if (show == showFlows_)
        return;
    showFlows_ = show;
    Q_EMIT flowsToggled(show);
    update();
}

QString TimelineCanvas::readoutAt(double x) const {
    const Geometry g = geometry(rect());
    if (!timeline_ || x < g.x0 || x > g.x1)
        return {};
    return timelineReadout(*timeline_, axis_.toTime(x), measured());
}

QString TimelineCanvas::kernelCount(int n) {
    return n == 1 ? tr("1 kernel") : tr("%1 kernels").arg(n);
}

double TimelineCanvas::cursorPixel() const {
    const Geometry g = geometry(rect());
    return hoverX_ ? std::clamp(*hoverX_, double(g.x0), double(g.x1)) : (g.x0 + g.x1) / 2.0;
}

void TimelineCanvas::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_W:
        zoomAround(cursorPixel(), kKeyZoom);
        break;
    case Qt::Key_S:
        zoomAround(cursorPixel(), 1 / kKeyZoom);
        break;
    case Qt::Key_A:
        panFraction(-kKeyPan);
        break;
    case Qt::Key_D:
        panFraction(kKeyPan);
        break;
    case Qt::Key_F:
        fit();
        break;
    case Qt::Key_Escape:
        clearRange();
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TimelineCanvas::wheelEvent(QWheelEvent* event) {
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ControlModifier) {
        zoomAround(event->position().x(), std::pow(1.0015, delta.y()));
    } else if ((event->modifiers() & Qt::ShiftModifier) || delta.x() != 0) {
        // Shift+wheel or a horizontal swipe pans time; 120 units (one notch) = 10 %.
        panFraction(-(delta.x() != 0 ? delta.x() : delta.y()) / 1200.0);
    } else {
        const Geometry g = geometry(rect());
        if (g.lanesContent <= g.lanes.height()) {
            event->ignore(); // nothing to scroll: let a scroll area around us have it
            return;
        }
        scroll_ -= delta.y() * g.rowHeight / 120;
        clampScroll();
        update();
    }
    event->accept();
}

void TimelineCanvas::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !timeline_)
        return;
    setFocus(Qt::MouseFocusReason);
    const Geometry g = geometry(rect());
    const QPointF pos = event->position();
    dragX_ = pos.x();
    const bool inPlotColumns = pos.x() >= g.x0 && pos.x() <= g.x1;
    if (inPlotColumns &&
        (g.ruler.contains(pos.toPoint()) || (event->modifiers() & Qt::ShiftModifier))) {
        drag_ = Drag::Range;
        rangeAnchorUs_ = axis_.toTime(pos.x());
        return;
    }
    drag_ = Drag::Pan;
    if (!inPlotColumns || !g.lanes.contains(pos.toPoint()))
        return;
    const TimelineLayout::Hit hit = layout_.hitAt(g, axis_, *timeline_, pos, scroll_);
    if (hit.kind == TimelineLayout::Hit::Stage) {
        const eval::TimelineStage& st = timeline_->stages[static_cast<size_t>(hit.index)];
        Q_EMIT stageSelected(st.block, st.stage);
    } else if (hit.kind == TimelineLayout::Hit::Kernel) {
        const int flat = flatIndexOf(timeline_->kernels[static_cast<size_t>(hit.index)]);
        if (flat >= 0) // a measured kernel that matched no operator stays unlinked
            Q_EMIT operatorSelected(flat);
    }
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent* event) {
    const double x = event->position().x();
    if (drag_ == Drag::Pan && (event->buttons() & Qt::LeftButton)) {
        axis_.panPixels(dragX_ - x);
        dragX_ = x;
    } else if (drag_ == Drag::Range && (event->buttons() & Qt::LeftButton)) {
        setRange(rangeAnchorUs_, axis_.toTime(x));
    }
    const Geometry g = geometry(rect());
    const bool over = x >= g.x0 && x <= g.x1 && event->position().y() >= g.ruler.top() &&
                      event->position().y() <= g.plot.bottom();
    if (!over && !hoverX_ && drag_ == Drag::None)
        return; // nothing drawn follows the pointer here: no repaint
    hoverX_ = over ? std::optional<double>(x) : std::nullopt;
    hoverReadout_ = over ? readoutAt(x) : QString();
    update();
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent* event) {
    // A click on the ruler without a drag clears the range, as in Perfetto.
    if (drag_ == Drag::Range && std::abs(event->position().x() - dragX_) < 3)
        clearRange();
    drag_ = Drag::None;
}

void TimelineCanvas::mouseDoubleClickEvent(QMouseEvent*) {
    fit();
}

void TimelineCanvas::leaveEvent(QEvent*) {
    hoverX_.reset();
    hoverReadout_.clear();
    update();
}

bool TimelineCanvas::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString text = tooltipAt(help->pos());
        QToolTip::showText(help->globalPos(), text.isEmpty() ? toolTip() : text, this);
        return true;
    }
    return QWidget::event(e);
}

QString TimelineCanvas::neighbourText(int kernel) const {
    return timelineNeighbourText(*timeline_, kernel);
}

QString TimelineCanvas::tooltipAt(const QPointF& pos) const {
    if (!timeline_)
        return {};
    const Geometry g = geometry(rect());
    const QPoint pt = pos.toPoint();
    if (g.title.contains(pt))
        return tr("%1<br>showing %2 – %3")
            .arg(fullTitle().toHtmlEscaped(), formatMs(axis_.visibleStart() / 1000.0),
                 formatMs(axis_.visibleEnd() / 1000.0));
    if (pos.x() < g.x0 && pos.y() >= g.lanes.top() && pos.y() <= g.lanes.bottom())
        return tr("Busy %: the share of the whole timeline in which the stream runs at least "
                  "one kernel (overlapping kernels counted once). \"GPU busy\" above counts "
                  "time in which any stream runs one.");
    if (!g.lanes.contains(pt) || layout_.rowAt(g, pt.y(), scroll_) < 0)
        return {};
    const TimelineLayout::Hit hit = layout_.hitAt(g, axis_, *timeline_, pos, scroll_);
    if (hit.kind == TimelineLayout::Hit::Stage)
        return timelineStageTooltip(timeline_->stages[static_cast<size_t>(hit.index)]);
    if (hit.kind == TimelineLayout::Hit::Kernel)
        return timelineKernelTooltip(timeline_->kernels[static_cast<size_t>(hit.index)]);
    const double t = axis_.toTime(pos.x());
    for (const eval::IdleGap& gap : gaps_)
        if (gap.startUs <= t && t < gap.endUs)
            return timelineGapTooltip(*timeline_, gap);
    return {};
}

} // namespace ios::views
