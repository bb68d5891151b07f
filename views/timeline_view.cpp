#include "timeline_view.h"

#include "palette.h"
#include "units.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

namespace ios::views {

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(200);
    setAutoFillBackground(true);
    setToolTip(tr("Wheel: zoom time · drag: pan · double-click: show all"));
}

void TimelineView::clear() {
    timeline_.reset();
    model_.reset();
    rows_.clear();
    hits_.clear();
    update();
}

void TimelineView::setTimeline(LoadedModelPtr model, std::shared_ptr<const eval::Timeline> timeline,
                               const QString& title) {
    model_ = std::move(model);
    timeline_ = std::move(timeline);
    title_ = title;
    axis_ =
        TimeAxis(timeline_ ? timeline_->latencyUs : 1.0, kLabelWidth, width() - kLabelWidth - 10);
    layoutRows();
    update();
}

void TimelineView::layoutRows() {
    rows_.clear();
    kernelRow_.clear();
    if (!timeline_)
        return;
    rows_.push_back({tr("Stages"), -1, 0});
    const int streams = std::max(timeline_->streams, 1);
    // Kernels of one stream are sequential in the simulator; pack anyway so overlapping
    // intervals (measured traces) get sub-lanes instead of hiding each other.
    std::vector<std::vector<int>> perStream(static_cast<size_t>(streams));
    for (int k = 0; k < static_cast<int>(timeline_->kernels.size()); ++k) {
        const int s = std::clamp(timeline_->kernels[static_cast<size_t>(k)].stream, 0, streams - 1);
        perStream[static_cast<size_t>(s)].push_back(k);
    }
    kernelRow_.assign(timeline_->kernels.size(), 0);
    for (int s = 0; s < streams; ++s) {
        // A program's streams need not start at 0 (RAF's do not): no lane for an unused one.
        if (perStream[static_cast<size_t>(s)].empty() && streams > 1)
            continue;
        std::vector<Interval> intervals;
        for (int k : perStream[static_cast<size_t>(s)])
            intervals.push_back({timeline_->kernels[static_cast<size_t>(k)].startUs,
                                 timeline_->kernels[static_cast<size_t>(k)].endUs});
        int lanes = 1;
        const std::vector<int> lane = packLanes(intervals, &lanes);
        const int first = static_cast<int>(rows_.size());
        for (int l = 0; l < std::max(lanes, 1); ++l)
            rows_.push_back({l == 0 ? tr("Stream %1").arg(s) : QString(), s, l});
        for (size_t i = 0; i < lane.size(); ++i)
            kernelRow_[static_cast<size_t>(perStream[static_cast<size_t>(s)][i])] = first + lane[i];
    }
}

void TimelineView::updateAxisRange() {
    axis_.setPixelRange(kLabelWidth, width() - kLabelWidth - 10);
}

void TimelineView::resizeEvent(QResizeEvent*) {
    updateAxisRange();
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    render(p, rect());
}

void TimelineView::render(QPainter& p, const QRect& area) {
    p.setRenderHint(QPainter::Antialiasing, false);
    p.fillRect(area, QColor(0xfc, 0xfc, 0xfc));
    QFont font = p.font();
    font.setPixelSize(12);
    p.setFont(font);
    const QFontMetrics fm(font);
    hits_.clear();
    if (!timeline_) {
        p.setPen(Qt::darkGray);
        p.drawText(area, Qt::AlignCenter, tr("Run a search to see its simulated timeline."));
        return;
    }
    TimeAxis axis = axis_;
    axis.setPixelRange(area.left() + kLabelWidth, area.width() - kLabelWidth - 10);
    const double x0 = area.left() + kLabelWidth, x1 = area.right() - 10;
    const int top = area.top() + kRulerHeight + 20;
    const int lanesBottom = top + static_cast<int>(rows_.size()) * kRowHeight;
    const int curveTop = lanesBottom + 30;
    const int curveBottom = std::max(curveTop + kCurveHeight / 2,
                                     std::min(area.bottom() - 56, curveTop + 2 * kCurveHeight));

    // Title and ruler.
    p.setPen(QColor(0x20, 0x20, 0x20));
    p.drawText(QRect(area.left() + 8, area.top() + 2, area.width() - 16, 18), Qt::AlignLeft,
               tr("%1 — %2 kernels on %3, batch %4: %5 total; showing %6 – %7")
                   .arg(title_)
                   .arg(static_cast<int>(timeline_->kernels.size()))
                   .arg(QString::fromStdString(timeline_->device))
                   .arg(timeline_->batch)
                   .arg(formatMs(timeline_->latencyUs / 1000.0),
                        formatMs(axis.visibleStart() / 1000.0),
                        formatMs(axis.visibleEnd() / 1000.0)));
    const int rulerY = area.top() + 20 + kRulerHeight;
    p.setPen(QColor(0x90, 0x90, 0x90));
    p.drawLine(QPointF(x0, rulerY), QPointF(x1, rulerY));
    for (const TimeAxis::Tick& t : axis.ticks(90)) {
        if (t.pixel < x0 - 0.5 || t.pixel > x1 + 0.5)
            continue;
        p.setPen(QColor(0xe4, 0xe4, 0xe4));
        p.drawLine(QPointF(t.pixel, rulerY), QPointF(t.pixel, curveBottom));
        p.setPen(QColor(0x40, 0x40, 0x40));
        p.drawLine(QPointF(t.pixel, rulerY - 5), QPointF(t.pixel, rulerY));
        p.drawText(QPointF(t.pixel + 3, rulerY - 8), t.label);
    }

    // Lane labels and backgrounds.
    for (size_t r = 0; r < rows_.size(); ++r) {
        const int y = top + static_cast<int>(r) * kRowHeight;
        if (r % 2 == 0)
            p.fillRect(QRectF(x0, y, x1 - x0, kRowHeight), QColor(0xf2, 0xf2, 0xf6));
        p.setPen(QColor(0x30, 0x30, 0x30));
        p.drawText(QRect(area.left() + 6, y, kLabelWidth - 10, kRowHeight),
                   Qt::AlignVCenter | Qt::AlignLeft, rows_[r].label);
    }
    p.setClipRect(QRectF(x0, area.top(), x1 - x0, area.height()));

    auto span = [&axis](double a, double b) {
        return std::pair(axis.toPixel(a), std::max(axis.toPixel(b) - axis.toPixel(a), 1.0));
    };
    // Stage lane and boundaries.
    int globalStage = 0;
    for (const eval::TimelineStage& st : timeline_->stages) {
        const auto [sx, sw] = span(st.startUs, st.endUs);
        const QRectF box(sx, top + 2, sw, kRowHeight - 4);
        const QColor c = categoricalColor(globalStage);
        p.fillRect(box, c);
        p.setPen(QColor(0x50, 0x50, 0x50, 90));
        p.drawLine(QPointF(sx, top), QPointF(sx, lanesBottom));
        const QString label =
            QStringLiteral("B%1 S%2%3")
                .arg(st.block)
                .arg(st.stage)
                .arg(st.kind == schedule::StageKind::Merge ? QStringLiteral(" merge") : QString());
        if (sw > fm.horizontalAdvance(label) + 6) {
            p.setPen(c.lightnessF() < 0.55 ? Qt::white : Qt::black);
            p.drawText(box.adjusted(3, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
        }
        hits_.push_back({box, -1, globalStage});
        ++globalStage;
    }
    // Kernels, coloured by their operator's kind.
    for (size_t k = 0; k < timeline_->kernels.size(); ++k) {
        const eval::TimelineKernel& kern = timeline_->kernels[k];
        if (kern.endUs < axis.visibleStart() || kern.startUs > axis.visibleEnd())
            continue;
        const auto [kx, kw] = span(kern.startUs, kern.endUs);
        const int y = top + kernelRow_[k] * kRowHeight;
        const QRectF box(kx, y + 3, kw, kRowHeight - 6);
        QColor c(0x4c, 0x78, 0xa8);
        if (model_ && kern.op >= 0 && kern.block < static_cast<int>(model_->dags().size()) &&
            kern.op < static_cast<int>(model_->dags()[static_cast<size_t>(kern.block)].ops.size()))
            c = kindColor(model_->node({kern.block, kern.op}).kind);
        p.fillRect(box, c);
        if (kw > 3) {
            p.setPen(c.darker(150));
            p.drawRect(box);
        }
        const QString label = QString::fromStdString(kern.opName + " " + kern.kernel);
        if (kw > 40) {
            p.setPen(c.lightnessF() < 0.55 ? Qt::white : Qt::black);
            p.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       fm.elidedText(label, Qt::ElideRight, static_cast<int>(kw - 5)));
        }
        hits_.push_back({box, static_cast<int>(k), -1});
    }

    // Utilisation curves (piecewise constant samples).
    p.setClipping(false);
    p.setPen(QColor(0x30, 0x30, 0x30));
    p.drawText(QRect(area.left() + 6, curveTop, kLabelWidth - 10, 36),
               Qt::AlignLeft | Qt::TextWordWrap, tr("SM activity"));
    p.setPen(QColor(0xa0, 0xa0, 0xa0));
    p.drawRect(QRectF(x0, curveTop, x1 - x0, curveBottom - curveTop));
    for (int pct : {0, 50, 100}) {
        const double y = curveBottom - (curveBottom - curveTop) * pct / 100.0;
        p.setPen(QColor(0xdd, 0xdd, 0xdd));
        p.drawLine(QPointF(x0, y), QPointF(x1, y));
        p.setPen(QColor(0x50, 0x50, 0x50));
        p.drawText(QRectF(x0 - 48, y - 8, 44, 16), Qt::AlignRight | Qt::AlignVCenter,
                   QStringLiteral("%1 %").arg(pct));
    }
    p.setClipRect(QRectF(x0, curveTop, x1 - x0, curveBottom - curveTop + 1));
    p.setRenderHint(QPainter::Antialiasing, true);
    const auto& samples = timeline_->samples;
    const double h = curveBottom - curveTop;
    auto curve = [&](auto value) {
        QPainterPath path;
        for (size_t i = 0; i < samples.size(); ++i) {
            const double xs = axis.toPixel(samples[i].timeUs);
            const double xe = i + 1 < samples.size() ? axis.toPixel(samples[i + 1].timeUs)
                                                     : axis.toPixel(timeline_->latencyUs);
            const double y = curveBottom - h * std::clamp(value(samples[i]), 0.0, 1.0);
            if (i == 0)
                path.moveTo(xs, y);
            else
                path.lineTo(xs, y);
            path.lineTo(xe, y);
        }
        return path;
    };
    const int sms = std::max(timeline_->smCount, 1);
    QPainterPath active = curve(
        [sms](const eval::TimelineSample& s) { return static_cast<double>(s.activeSms) / sms; });
    QPainterPath filled = active;
    if (!samples.empty()) {
        filled.lineTo(axis.toPixel(timeline_->latencyUs), curveBottom);
        filled.lineTo(axis.toPixel(samples.front().timeUs), curveBottom);
        filled.closeSubpath();
    }
    p.fillPath(filled, QColor(0x2c, 0xa0, 0x2c, 70));
    p.strokePath(active, QPen(QColor(0x2c, 0xa0, 0x2c), 1.5));
    p.strokePath(curve([](const eval::TimelineSample& s) { return s.warpOccupancy; }),
                 QPen(QColor(0x94, 0x67, 0xbd), 1.5));
    p.strokePath(curve([](const eval::TimelineSample& s) { return s.flopUtilisation; }),
                 QPen(QColor(0xd6, 0x27, 0x28), 1.2, Qt::DashLine));
    p.setClipping(false);
    // Curve legend.
    int lx = static_cast<int>(x0);
    const int ly = curveBottom + 18;
    for (const auto& [color, text] :
         {std::pair{QColor(0x2c, 0xa0, 0x2c), tr("active SMs (% of %1)").arg(sms)},
          std::pair{QColor(0x94, 0x67, 0xbd), tr("warp occupancy")},
          std::pair{QColor(0xd6, 0x27, 0x28), tr("FP32 utilisation")}}) {
        p.fillRect(QRect(lx, ly - 9, 18, 4), color);
        p.setPen(QColor(0x30, 0x30, 0x30));
        p.drawText(lx + 24, ly - 3, text);
        lx += 24 + fm.horizontalAdvance(text) + 24;
    }
    // Kind legend for kernels (on its own line when the curve legend leaves no room).
    int ky = ly;
    if (lx + 420 > x1) {
        lx = static_cast<int>(x0);
        ky = ly + fm.height() + 4;
    }
    for (ir::NodeKind k : {ir::NodeKind::Conv, ir::NodeKind::Pool, ir::NodeKind::Identity,
                           ir::NodeKind::Element, ir::NodeKind::Sequential}) {
        p.fillRect(QRect(lx, ky - 12, 12, 10), kindColor(k));
        p.setPen(QColor(0x30, 0x30, 0x30));
        p.drawText(lx + 16, ky - 3, kindLabel(k));
        lx += 16 + fm.horizontalAdvance(kindLabel(k)) + 14;
    }
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    axis_.zoomAt(event->position().x(), std::pow(1.0015, event->angleDelta().y()));
    update();
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    dragX_ = event->position().x();
    for (const Hit& hit : hits_)
        if (hit.kernel >= 0 && hit.rect.contains(event->position()) && model_) {
            const auto& k = timeline_->kernels[static_cast<size_t>(hit.kernel)];
            if (k.op >= 0) // a measured kernel that matched no operator stays unlinked
                Q_EMIT operatorSelected(model_->flatIndex({k.block, k.op}));
        }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    if (event->buttons() & Qt::LeftButton) {
        axis_.panPixels(dragX_ - event->position().x());
        dragX_ = event->position().x();
        update();
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) {
    axis_.reset();
    update();
}

bool TimelineView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString text = tooltipAt(help->pos());
        if (text.isEmpty())
            QToolTip::showText(help->globalPos(), toolTip(), this);
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(e);
}

QString TimelineView::tooltipAt(const QPointF& pos) const {
    if (!timeline_)
        return {};
    for (auto it = hits_.rbegin(); it != hits_.rend(); ++it) {
        if (!it->rect.contains(pos))
            continue;
        if (it->kernel >= 0) {
            const auto& k = timeline_->kernels[static_cast<size_t>(it->kernel)];
            return tr("<b>%1</b> — kernel %2<br>block %3, stage %4, stream %5<br>%6 CTAs<br>"
                      "start %7, duration %8")
                .arg(QString::fromStdString(k.opName), QString::fromStdString(k.kernel))
                .arg(k.block)
                .arg(k.stage)
                .arg(k.stream)
                .arg(k.ctas)
                .arg(formatMs(k.startUs / 1000.0), formatMs((k.endUs - k.startUs) / 1000.0));
        }
        const auto& st = timeline_->stages[static_cast<size_t>(it->stage)];
        return tr("<b>Block %1, stage %2</b> (%3, %4 groups)<br>%5<br>active SMs %6 %, warp "
                  "occupancy %7 %, FP32 %8 %")
            .arg(st.block)
            .arg(st.stage)
            .arg(st.kind == schedule::StageKind::Merge ? tr("merge") : tr("parallel"))
            .arg(st.groups)
            .arg(formatMs((st.endUs - st.startUs) / 1000.0))
            .arg(st.meanActiveSmFraction * 100, 0, 'f', 0)
            .arg(st.meanWarpOccupancy * 100, 0, 'f', 0)
            .arg(st.meanFlopUtilisation * 100, 0, 'f', 0);
    }
    return {};
}

} // namespace ios::views
