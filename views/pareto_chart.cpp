// SPDX-License-Identifier: Apache-2.0
#include "pareto_chart.h"

#include "chart_axes.h"
#include "chart_style.h"
#include "memory_plot.h"
#include "units.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace ios::views {

namespace {

const QColor kPoint(0x1f, 0x77, 0xb4);
const QColor kCurrent(0xd6, 0x27, 0x28);
const QColor kLine(0x6a, 0x3d, 0x9a);
const QColor kAxis(0xa0, 0xa0, 0xa0);

} // namespace

ParetoChart::ParetoChart(QWidget* parent) : ChartWidget(parent) {
    setMouseTracking(true);
    setPlaceholder(tr("The trade-off is computed when the Memory tab is shown."));
}

void ParetoChart::setFront(std::shared_ptr<const schedulers::ParetoFront> front, QString strategy) {
    front_ = std::move(front);
    strategy_ = std::move(strategy);
    lineBudget_ = budget_ > 0 || !front_ ? budget_ : front_->unconstrainedPeak;
    placeholder_.clear();
    update();
}

void ParetoChart::setCurrent(int64_t peakBytes, double latencyMs, int64_t budget) {
    currentPeak_ = peakBytes;
    currentLatency_ = latencyMs;
    budget_ = budget;
    if (!dragging_)
        lineBudget_ = budget > 0 || !front_ ? budget : front_->unconstrainedPeak;
    update();
}

void ParetoChart::clearCurrent() {
    setCurrent(0, 0, 0);
}

bool ParetoChart::hasTradeOff() const {
    return front_ && front_->points.size() > 1 && front_->unconstrainedPeak > front_->smallestPeak;
}

double ParetoChart::xLo() const {
    const double lo = static_cast<double>(front_->smallestPeak);
    return lo - std::max((xHi() - lo) * 0.06, lo * 0.01);
}

double ParetoChart::xHi() const {
    double hi = static_cast<double>(front_->unconstrainedPeak);
    hi = std::max({hi, static_cast<double>(currentPeak_), static_cast<double>(budget_)});
    const double lo = static_cast<double>(front_->smallestPeak);
    return hi + std::max((hi - lo) * 0.06, hi * 0.01);
}

ChartHeading ParetoChart::heading() const {
    if (!front_)
        return {};
    return {tr("Latency vs peak memory (%1, %2 points, %3)")
                .arg(strategy_)
                .arg(front_->points.size())
                .arg(formatSeconds(front_->seconds)),
            hasTradeOff() ? tr("drag the budget line or click a point to search under that budget")
                          : QString()};
}

QRectF ParetoChart::plotRect(const QRect& area) const {
    // The left margin fits the widest latency label; below: tick labels and the axis title.
    QStringList texts;
    if (front_) {
        const NiceRange y = yScale();
        for (double v : y.ticks())
            texts << tickLabel(v, y.step);
    }
    const int lineH = QFontMetrics(pixelFont(11)).height();
    return QRectF(area).adjusted(widestLabel(pixelFont(11), texts) + 8,
                                 heading().height(area.width()) + lineH + 20, -16,
                                 -(2 * lineH + 8));
}

BytesScale ParetoChart::xAxis(const QRectF& plot) const {
    return BytesScale::forRange(xLo(), xHi(),
                                std::clamp(static_cast<int>(plot.width() / 80), 2, 5));
}

double ParetoChart::xOfBudget(int64_t bytes) const {
    if (!front_)
        return 0;
    const QRectF plot = plotRect(chartArea());
    return xAxis(plot).toPixel(static_cast<double>(bytes), plot.left(), plot.right());
}

int64_t ParetoChart::budgetAtX(double x) const {
    if (!front_)
        return 0;
    const QRectF plot = plotRect(chartArea());
    const double bytes = xAxis(plot).fromPixel(x, plot.left(), plot.right());
    return snapBudget(bytes, front_->smallestPeak, front_->unconstrainedPeak);
}

const schedulers::ParetoPoint* ParetoChart::pointWithin(int64_t budget) const {
    const schedulers::ParetoPoint* best = nullptr;
    if (front_)
        for (const schedulers::ParetoPoint& pt : front_->points)
            if (pt.peakBytes <= budget && (best == nullptr || pt.latencyMs < best->latencyMs))
                best = &pt;
    return best;
}

NiceRange ParetoChart::yScale() const {
    double lo = currentLatency_ > 0 ? currentLatency_ : 1e300;
    double hi = currentLatency_;
    for (const schedulers::ParetoPoint& pt : front_->points) {
        lo = std::min(lo, pt.latencyMs);
        hi = std::max(hi, pt.latencyMs);
    }
    const double pad = std::max((hi - lo) * 0.1, hi * 0.002);
    return NiceRange::of(lo - pad, hi + pad, 4); // few ticks: ms labels are wide
}

QPointF ParetoChart::pointCenter(size_t i) const {
    const QRectF plot = plotRect(chartArea());
    const schedulers::ParetoPoint& pt = front_->points[i];
    return {xOfBudget(pt.peakBytes), yScale().toPixel(pt.latencyMs, plot.bottom(), plot.top())};
}

int ParetoChart::pointAt(const QPointF& pos) const {
    if (!front_)
        return -1;
    for (size_t i = 0; i < front_->points.size(); ++i) {
        const QPointF c = pointCenter(i);
        if (std::hypot(c.x() - pos.x(), c.y() - pos.y()) <= 8)
            return static_cast<int>(i);
    }
    return -1;
}

void ParetoChart::render(QPainter& p, const QRect& area) const {
    ChartLabels& labels = beginLabels(p, area);
    if (!front_)
        return;
    heading().draw(p, area, labels);
    p.setRenderHint(QPainter::Antialiasing, true);
    const QRectF plot = plotRect(area);
    renderFront(p, plot);
    if (hasTradeOff())
        renderBudget(p, plot);
    else {
        setPixelFont(p, 12);
        p.setPen(kChartText);
        labels.draw(p, plot.adjusted(10, 10, -10, -10),
                    Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap,
                    tr("No trade-off: the fastest schedule already reaches the least peak any "
                       "schedule of this model reaches (%1), set by a block no schedule can "
                       "shrink.")
                        .arg(formatBytes(static_cast<double>(front_->smallestPeak))));
    }
}

void ParetoChart::renderFront(QPainter& p, const QRectF& plot) const {
    const BytesScale x = xAxis(plot);
    const NiceRange y = yScale();
    auto toX = [&](double b) { return x.toPixel(b, plot.left(), plot.right()); };
    auto toY = [&](double ms) { return y.toPixel(ms, plot.bottom(), plot.top()); };
    // No schedule below the smallest peak.
    const double wall = toX(static_cast<double>(front_->smallestPeak));
    const QRectF none(QPointF(plot.left(), plot.top()), QPointF(wall, plot.bottom()));
    p.fillRect(none, QColor(0xf6, 0xdd, 0xdd));
    p.fillRect(none, QBrush(QColor(0xe0, 0xb0, 0xb0), Qt::BDiagPattern));
    ChartLabels& labels = labels_;
    setPixelFont(p, 11);
    const double lineH = p.fontMetrics().height();
    std::vector<double> ys, xs;
    QStringList yTexts, xTexts;
    for (double v : y.ticks()) {
        ys.push_back(toY(v));
        yTexts << tickLabel(v, y.step);
    }
    drawYTicks(p, labels, plot, ys, yTexts);
    for (double v : x.ticks()) {
        xs.push_back(toX(v));
        xTexts << x.label(v);
    }
    drawXTicks(p, labels, plot, xs, xTexts);
    p.setPen(kChartText);
    labels.draw(p, QRectF(plot.left(), plot.bottom() + lineH + 5, plot.width(), lineH),
                Qt::AlignHCenter, tr("peak activation memory →"));
    labels.draw(p, QRectF(labels.bounds().left(), plot.top() - lineH - 18, plot.width(), lineH),
                Qt::AlignLeft, tr("latency (ms)"));
    if (none.width() >= 14) { // the shaded band, named along its edge
        p.save();
        p.translate(none.right() - 4, plot.bottom() - 6);
        p.rotate(-90);
        p.setPen(QColor(0xa0, 0x40, 0x40));
        labels.draw(p, QRectF(0, -lineH, plot.height() - 12, lineH),
                    Qt::AlignLeft | Qt::AlignVCenter, tr("no schedule fits"));
        p.restore();
    }
    p.setPen(kAxis);
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    p.drawLine(plot.bottomLeft(), plot.topLeft());
    // The staircase: under a budget between two points, the cheaper-memory point's latency.
    std::vector<const schedulers::ParetoPoint*> byPeak;
    for (const schedulers::ParetoPoint& pt : front_->points)
        byPeak.push_back(&pt);
    std::sort(byPeak.begin(), byPeak.end(),
              [](const auto* a, const auto* b) { return a->peakBytes < b->peakBytes; });
    QPolygonF stairs;
    for (size_t i = 0; i < byPeak.size(); ++i) {
        const double px = toX(static_cast<double>(byPeak[i]->peakBytes));
        if (i > 0)
            stairs << QPointF(px, stairs.back().y());
        stairs << QPointF(px, toY(byPeak[i]->latencyMs));
    }
    stairs << QPointF(plot.right(), stairs.back().y());
    p.setPen(QPen(QColor(0x1f, 0x77, 0xb4, 140), 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(stairs);
    for (const schedulers::ParetoPoint& pt : front_->points) {
        const QPointF c(toX(static_cast<double>(pt.peakBytes)), toY(pt.latencyMs));
        p.setPen(QPen(pt.dominated ? QColor(0x90, 0x90, 0x90) : kPoint, 2));
        p.setBrush(pt.dominated ? QBrush(Qt::white) : QBrush(kPoint));
        p.drawEllipse(c, 5, 5);
    }
    if (currentPeak_ > 0) {
        const QPointF c(toX(static_cast<double>(currentPeak_)), toY(currentLatency_));
        p.setPen(QPen(kCurrent, 2.5));
        p.drawLine(c + QPointF(-6, -6), c + QPointF(6, 6));
        p.drawLine(c + QPointF(-6, 6), c + QPointF(6, -6));
        setPixelFont(p, 11, true);
        p.setPen(kCurrent);
        const QString label = tr("current");
        const double w = p.fontMetrics().horizontalAdvance(label) + 4;
        const double lx = c.x() + 8 + w <= plot.right() ? c.x() + 8 : c.x() - 8 - w;
        if (!labels.draw(p, QRectF(lx, c.y() + 2, w, lineH), Qt::AlignLeft, label))
            labels.draw(p, QRectF(lx, c.y() - 2 - lineH, w, lineH), Qt::AlignLeft, label);
    }
}

void ParetoChart::renderBudget(QPainter& p, const QRectF& plot) const {
    const double lx = xOfBudget(lineBudget_);
    p.setPen(QPen(kLine, dragging_ ? 2.5 : 2, Qt::DashLine));
    p.drawLine(QPointF(lx, plot.top() - 6), QPointF(lx, plot.bottom()));
    p.setPen(Qt::NoPen);
    p.setBrush(kLine);
    p.drawPolygon(QPolygonF({QPointF(lx - 7, plot.top() - 14), QPointF(lx + 7, plot.top() - 14),
                             QPointF(lx, plot.top() - 4)}));
    const schedulers::ParetoPoint* within = pointWithin(lineBudget_);
    const bool none = budget_ == 0 && !dragging_;
    const QString label =
        none ? tr("no budget: drag to set one")
             : tr("budget %1 → %2")
                   .arg(formatBytes(static_cast<double>(lineBudget_)),
                        within ? tr("%1 at %2")
                                     .arg(formatMs(within->latencyMs),
                                          formatBytes(static_cast<double>(within->peakBytes)))
                               : tr("no point of the front"));
    setPixelFont(p, 11, true);
    const double w = std::min(p.fontMetrics().horizontalAdvance(label) + 8.0, plot.width() - 4);
    const double x = std::clamp(lx - w - 10, plot.left() + 2, plot.right() - w);
    const QRectF box(x, plot.top() + 4, w, p.fontMetrics().height() + 2);
    if (labels_.fits(p, box, Qt::AlignCenter, label))
        p.fillRect(box, QColor(0xff, 0xff, 0xff, 230));
    p.setPen(kLine);
    labels_.draw(p, box, Qt::AlignCenter, label);
}

void ParetoChart::mousePressEvent(QMouseEvent* event) {
    if (!hasTradeOff() || event->button() != Qt::LeftButton)
        return;
    const QRectF plot = plotRect(chartArea());
    const QPointF pos = event->position();
    if (!plot.adjusted(-8, -16, 8, 0).contains(pos))
        return;
    if (const int i = pointAt(pos); i >= 0) {
        lineBudget_ = front_->points[static_cast<size_t>(i)].peakBytes;
        update();
        Q_EMIT budgetChosen(lineBudget_);
        return;
    }
    dragging_ = true;
    lineBudget_ = budgetAtX(pos.x());
    update();
}

void ParetoChart::mouseMoveEvent(QMouseEvent* event) {
    if (dragging_) {
        lineBudget_ = budgetAtX(event->position().x());
        update();
        return;
    }
    const bool nearLine =
        hasTradeOff() && std::abs(event->position().x() - xOfBudget(lineBudget_)) <= 6;
    setCursor(nearLine                          ? Qt::SizeHorCursor
              : pointAt(event->position()) >= 0 ? Qt::PointingHandCursor
                                                : Qt::ArrowCursor);
}

void ParetoChart::mouseReleaseEvent(QMouseEvent* event) {
    if (!dragging_)
        return;
    dragging_ = false;
    lineBudget_ = budgetAtX(event->position().x());
    update();
    Q_EMIT budgetChosen(lineBudget_);
}

} // namespace ios::views
