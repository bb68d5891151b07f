// SPDX-License-Identifier: Apache-2.0
#include "memory_charts.h"

#include "chart_axes.h"
#include "chart_style.h"
#include "memory_plot.h"
#include "units.h"

#include <QPainter>
#include <algorithm>
#include <cmath>
#include <functional>

namespace ios::views {

namespace sy = schedulers::serenity;

namespace {

const QColor kOptimum(0x2c, 0xa0, 0x2c);
const QColor kFileOrder(0xe0, 0x6c, 0x00);
const QColor kAxis(0xa0, 0xa0, 0xa0);

// Horizontal grid and labels of a y axis, and the axis lines.
void drawYAxis(QPainter& p, ChartLabels& labels, const QRectF& plot,
               const std::vector<double>& ticks, const std::function<double(double)>& toY,
               const std::function<QString(double)>& label) {
    setPixelFont(p, 11);
    std::vector<double> ys;
    QStringList texts;
    for (double v : ticks) {
        ys.push_back(toY(v));
        texts << label(v);
    }
    drawYTicks(p, labels, plot, ys, texts);
    p.setPen(kAxis);
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    p.drawLine(plot.bottomLeft(), plot.topLeft());
}

} // namespace

QColor dpStatusColor(sy::DpStatus status) {
    switch (status) {
    case sy::DpStatus::Solution:
        return kOptimum;
    case sy::DpStatus::NoSolution:
        return kFileOrder;
    case sy::DpStatus::Timeout:
        return QColor(0x80, 0x80, 0x80);
    }
    return Qt::black;
}

TauTraceChart::TauTraceChart(QWidget* parent) : ChartWidget(parent) {
    setMouseTracking(true);
    setPlaceholder(tr("No memory report yet."));
}

void TauTraceChart::setData(QString title, std::vector<DpPartition> partitions) {
    title_ = std::move(title);
    partitions_ = std::move(partitions);
    placeholder_.clear();
    update();
}

int TauTraceChart::runCount() const {
    int n = 0;
    for (const DpPartition& part : partitions_)
        n += static_cast<int>(part.trace.size());
    return n;
}

ChartHeading TauTraceChart::heading() const {
    return {title_, tr("τ of each DP run (Serenity Fig. 8(b)); green line: the partition's peak")};
}

int TauTraceChart::legendRows(int width) const {
    const QFontMetrics fm(pixelFont(11));
    int x = fm.horizontalAdvance(tr("DP run →")) + 12, rows = 1;
    for (sy::DpStatus s :
         {sy::DpStatus::Solution, sy::DpStatus::NoSolution, sy::DpStatus::Timeout}) {
        const int w = 13 + fm.horizontalAdvance(QString::fromUtf8(sy::toString(s))) + 14;
        if (x + w > width) {
            ++rows;
            x = 0;
        }
        x += w;
    }
    return rows;
}

QRectF TauTraceChart::plotRect(const QRect& area) const {
    const auto [lo, hi] = tauRange();
    const int margin = widestBytesLabel(pixelFont(11), lo, hi) + 8;
    const int lineH = QFontMetrics(pixelFont(11)).height();
    return QRectF(area).adjusted(margin, heading().height(area.width()) + lineH + 2, -8,
                                 -(lineH + 6 + (lineH + 2) * legendRows(area.width() - margin)));
}

std::pair<double, double> TauTraceChart::tauRange() const {
    double lo = 1e300, hi = 0;
    for (const DpPartition& part : partitions_)
        for (const sy::BudgetStep& s : part.trace) {
            lo = std::min(lo, static_cast<double>(s.tau));
            hi = std::max(hi, static_cast<double>(s.tau));
        }
    return {hi > 0 ? lo : 0, hi};
}

void TauTraceChart::render(QPainter& p, const QRect& area) const {
    ChartLabels& labels = beginLabels(p, area);
    heading().draw(p, area, labels);
    const int runs = runCount();
    if (runs == 0)
        return;
    p.setRenderHint(QPainter::Antialiasing, true);
    const QRectF plot = plotRect(area);
    const auto [lo, hi] = tauRange();
    const BytesScale y =
        BytesScale::forRange(lo, hi, std::clamp(static_cast<int>(plot.height() / 40), 2, 5));
    auto toY = [&](double v) { return y.toPixel(v, plot.bottom(), plot.top()); };
    auto toX = [&](double run) { return plot.left() + plot.width() * (run + 0.5) / runs; };
    drawYAxis(p, labels, plot, y.ticks(), toY, [&](double v) { return y.label(v); });
    const double lineH = p.fontMetrics().height();
    int run = 0;
    for (size_t k = 0; k < partitions_.size(); ++k) {
        const DpPartition& part = partitions_[k];
        const int first = run;
        if (k > 0) {
            const double x = plot.left() + plot.width() * first / runs;
            p.setPen(QPen(kAxis, 1, Qt::DashLine));
            p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        }
        // The partition's final peak, across its runs.
        const double py = toY(static_cast<double>(part.peak));
        if (py >= plot.top() && py <= plot.bottom()) {
            p.setPen(QPen(QColor(0x2c, 0xa0, 0x2c, 110), 1.5));
            p.drawLine(
                QPointF(plot.left() + plot.width() * first / runs, py),
                QPointF(plot.left() + plot.width() * (first + part.trace.size()) / runs, py));
        }
        QPolygonF line;
        for (size_t i = 0; i < part.trace.size(); ++i)
            line << QPointF(toX(run + static_cast<double>(i)),
                            toY(static_cast<double>(part.trace[i].tau)));
        p.setPen(QPen(QColor(0x90, 0x90, 0x90), 1));
        p.drawPolyline(line);
        const double radius = std::clamp(plot.width() / runs / 3, 2.0, 4.5);
        for (size_t i = 0; i < part.trace.size(); ++i) {
            p.setPen(Qt::NoPen);
            p.setBrush(dpStatusColor(part.trace[i].status));
            p.drawEllipse(line[static_cast<qsizetype>(i)], radius, radius);
        }
        const double width = plot.width() * part.trace.size() / runs;
        if (width >= 34 || partitions_.size() == 1) {
            setPixelFont(p, 11);
            p.setPen(kChartMuted);
            labels.draw(p,
                        QRectF(plot.left() + plot.width() * first / runs, plot.top() - lineH,
                               std::max(width, 34.0), lineH),
                        Qt::AlignHCenter, tr("%1 ops").arg(part.ops.size()));
        }
        run += static_cast<int>(part.trace.size());
    }
    // Run ticks and the legend.
    setPixelFont(p, 11);
    p.setPen(kChartMuted);
    std::vector<double> xs;
    QStringList texts;
    for (int r = 0; r < runs; ++r) {
        xs.push_back(toX(r));
        texts << QString::number(r + 1);
    }
    drawXTicks(p, labels, plot, xs, texts, 2);
    double x = plot.left();
    double ly = plot.bottom() + lineH * 1.5 + 6;
    const QString runLabel = tr("DP run →");
    labels.draw(p,
                QRectF(x, ly - lineH / 2, p.fontMetrics().horizontalAdvance(runLabel) + 2, lineH),
                Qt::AlignLeft | Qt::AlignVCenter, runLabel);
    x += p.fontMetrics().horizontalAdvance(runLabel) + 12;
    for (sy::DpStatus s :
         {sy::DpStatus::Solution, sy::DpStatus::NoSolution, sy::DpStatus::Timeout}) {
        const QString label = QString::fromUtf8(sy::toString(s));
        const double w = 13 + p.fontMetrics().horizontalAdvance(label) + 14;
        if (x + w > area.right() + 1 && x > plot.left()) { // as legendRows wraps
            x = plot.left();
            ly += lineH + 2;
        }
        p.setPen(Qt::NoPen);
        p.setBrush(dpStatusColor(s));
        p.drawEllipse(QPointF(x + 5, ly), 4.5, 4.5);
        p.setPen(kChartText);
        labels.draw(p, QRectF(x + 13, ly - lineH / 2, w - 14, lineH),
                    Qt::AlignLeft | Qt::AlignVCenter, label);
        x += w;
    }
}

QString TauTraceChart::tooltipAt(const QPointF& pos) const {
    const int runs = runCount();
    const QRectF plot = plotRect(chartArea());
    if (runs == 0 || pos.x() < plot.left() || pos.x() >= plot.right())
        return {};
    int run = static_cast<int>((pos.x() - plot.left()) * runs / plot.width());
    for (size_t k = 0; k < partitions_.size(); ++k) {
        const DpPartition& part = partitions_[k];
        if (run < static_cast<int>(part.trace.size())) {
            const sy::BudgetStep& s = part.trace[static_cast<size_t>(run)];
            return tr("partition %1 (%2 ops), run %3: τ = %4 (%5 B): %6<br>partition peak %7%8")
                .arg(k + 1)
                .arg(part.ops.size())
                .arg(run + 1)
                .arg(formatBytes(static_cast<double>(s.tau)))
                .arg(s.tau)
                .arg(QString::fromUtf8(sy::toString(s.status)))
                .arg(formatBytes(static_cast<double>(part.peak)))
                .arg(part.optimal ? QString() : tr(" (not optimal: every run timed out)"));
        }
        run -= static_cast<int>(part.trace.size());
    }
    return {};
}

PeakDistributionChart::PeakDistributionChart(QWidget* parent) : ChartWidget(parent) {
    setPlaceholder(tr("No memory report yet."));
}

void PeakDistributionChart::setData(QString title, PeakWindow window, QString which) {
    title_ = std::move(title);
    window_ = std::move(window);
    which_ = std::move(which);
    placeholder_.clear();
    update();
}

void PeakDistributionChart::render(QPainter& p, const QRect& area) const {
    ChartLabels& labels = beginLabels(p, area);
    const int top = ChartHeading{title_, which_}.draw(p, area, labels);
    if (window_.peaks.empty())
        return;
    p.setRenderHint(QPainter::Antialiasing, true);
    setPixelFont(p, 11);
    const double lineH = p.fontMetrics().height();
    const QRectF plot = QRectF(area).adjusted(widestLabel(p.font(), {QStringLiteral("100%")}) + 8,
                                              top + lineH + 4, -12, -(2 * lineH + 8));
    const double lo = static_cast<double>(window_.optimum());
    const double hi = static_cast<double>(window_.peaks.back().first);
    const double pad = std::max((hi - lo) * 0.08, lo * 0.02);
    const BytesScale x = BytesScale::forRange(
        lo - pad, hi + pad, std::clamp(static_cast<int>(plot.width() / 75), 2, 5));
    auto toX = [&](double v) { return x.toPixel(v, plot.left(), plot.right()); };
    auto toY = [&](double share) { return plot.bottom() - plot.height() * share; };
    drawYAxis(p, labels, plot, {0, 0.25, 0.5, 0.75, 1.0}, toY,
              [](double v) { return QStringLiteral("%1%").arg(v * 100, 0, 'f', 0); });
    setPixelFont(p, 11);
    std::vector<double> xs;
    QStringList texts;
    for (double v : x.ticks()) {
        xs.push_back(toX(v));
        texts << x.label(v);
    }
    drawXTicks(p, labels, plot, xs, texts);
    p.setPen(kChartText);
    labels.draw(p, QRectF(plot.left(), plot.bottom() + lineH + 5, plot.width(), lineH),
                Qt::AlignHCenter, tr("peak of an order →"));
    // Bars as wide as the closest pair of peaks allows.
    double gap = plot.width() / 8;
    for (size_t i = 1; i < window_.peaks.size(); ++i)
        gap = std::min(gap, toX(static_cast<double>(window_.peaks[i].first)) -
                                toX(static_cast<double>(window_.peaks[i - 1].first)));
    const double width = std::clamp(gap * 0.7, 3.0, 28.0);
    for (const auto& [peak, orders] : window_.peaks) {
        const double share = window_.orders > 0 ? orders / window_.orders : 0;
        const double cx = toX(static_cast<double>(peak));
        p.fillRect(QRectF(QPointF(cx - width / 2, toY(share)), QPointF(cx + width / 2, toY(0))),
                   QColor(0x6b, 0x8e, 0xc4));
    }
    const std::vector<double> cumulative = cumulativeShare(window_);
    QPolygonF line{QPointF(plot.left(), toY(0))};
    for (size_t i = 0; i < cumulative.size(); ++i) {
        const double cx = toX(static_cast<double>(window_.peaks[i].first));
        line << QPointF(cx, line.back().y()) << QPointF(cx, toY(cumulative[i]));
    }
    line << QPointF(plot.right(), line.back().y());
    p.setPen(QPen(QColor(0x1f, 0x3a, 0x6e), 2));
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(line);
    // Key: bars are the share of orders with a peak, the line the share with at most it.
    setPixelFont(p, 11);
    const QString barKey = tr("share");
    const QString lineKey = tr("cumulative");
    const QFontMetrics fm = p.fontMetrics();
    const double keyWidth =
        14 + fm.horizontalAdvance(barKey) + 12 + 18 + fm.horizontalAdvance(lineKey);
    const QPointF key(plot.left() + 6, plot.top() + 44);
    p.fillRect(QRectF(key.x() - 3, key.y() - 9, keyWidth + 6, 18), QColor(0xfc, 0xfc, 0xfc, 220));
    p.fillRect(QRectF(key.x(), key.y() - 5, 10, 10), QColor(0x6b, 0x8e, 0xc4));
    p.setPen(kChartText);
    labels.draw(p,
                QRectF(key.x() + 14, key.y() - lineH / 2, fm.horizontalAdvance(barKey) + 2, lineH),
                Qt::AlignLeft | Qt::AlignVCenter, barKey);
    const double keyLine = key.x() + 14 + fm.horizontalAdvance(barKey) + 12;
    p.setPen(QPen(QColor(0x1f, 0x3a, 0x6e), 2));
    p.drawLine(QPointF(keyLine, key.y()), QPointF(keyLine + 14, key.y()));
    p.setPen(kChartText);
    labels.draw(p,
                QRectF(keyLine + 18, key.y() - lineH / 2, fm.horizontalAdvance(lineKey) + 2, lineH),
                Qt::AlignLeft | Qt::AlignVCenter, lineKey);
    // The optimum and the file order.
    // Labels on two rows (above the plot, inside its top) so close markers stay readable.
    auto marker = [&](double bytes, const QColor& c, const QString& label, bool right, int row) {
        const double mx = toX(bytes);
        p.setPen(QPen(c, 2, Qt::DashLine));
        p.drawLine(QPointF(mx, plot.top() - 4), QPointF(mx, plot.bottom()));
        setPixelFont(p, 11, true);
        p.setPen(c);
        const QString text =
            p.fontMetrics().elidedText(label, Qt::ElideRight, static_cast<int>(plot.width()) - 6);
        const double w = p.fontMetrics().horizontalAdvance(text) + 6;
        const double lx = std::clamp(right ? mx + 3 : mx - 3 - w, plot.left(), plot.right() - w);
        const QRectF box(lx, plot.top() - lineH - 2 + row * (lineH + 4), w, lineH);
        if (row > 0 && labels.fits(p, box, Qt::AlignCenter, text))
            p.fillRect(box, QColor(0xfc, 0xfc, 0xfc, 220));
        labels.draw(p, box, Qt::AlignCenter, text);
    };
    const bool same = window_.filePeak == window_.optimum();
    marker(lo, kOptimum,
           (same ? tr("optimum = file order %1") : tr("optimum %1")).arg(formatBytes(lo)), true, 0);
    if (!same)
        marker(static_cast<double>(window_.filePeak), kFileOrder,
               tr("file order %1").arg(formatBytes(static_cast<double>(window_.filePeak))),
               static_cast<double>(window_.filePeak) < (lo + hi) / 2, 1);
}

} // namespace ios::views
