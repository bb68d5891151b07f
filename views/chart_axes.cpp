// SPDX-License-Identifier: Apache-2.0
#include "chart_axes.h"

#include "chart_style.h"

#include <QFontMetrics>
#include <algorithm>

namespace ios::views {

ValueAxis ValueAxis::of(double lo, double hi, int targetTicks, AxisUnit unit) {
    return {NiceRange::of(unit.toUnit(lo), unit.toUnit(hi), targetTicks), std::move(unit)};
}

std::vector<double> ValueAxis::ticks() const {
    std::vector<double> out = range.ticks();
    for (double& v : out)
        v *= unit.per;
    return out;
}

QString ValueAxis::label(double value) const {
    return tickLabel(unit.toUnit(value), range.step);
}

double ValueAxis::toPixel(double value, double p0, double p1) const {
    return range.toPixel(unit.toUnit(value), p0, p1);
}

int widestLabel(const QFont& font, const QStringList& labels) {
    const QFontMetrics fm(font);
    int w = 0;
    for (const QString& l : labels)
        w = std::max(w, fm.horizontalAdvance(l));
    return w;
}

int widestBytesLabel(const QFont& font, double lo, double hi) {
    QStringList texts;
    for (int ticks = 2; ticks <= 6; ++ticks) {
        const BytesScale scale = BytesScale::forRange(lo, hi, ticks);
        for (double v : scale.ticks())
            texts << scale.label(v);
    }
    return widestLabel(font, texts);
}

void drawYTicks(QPainter& p, ChartLabels& labels, const QRectF& plot, const std::vector<double>& ys,
                const QStringList& texts) {
    const double h = p.fontMetrics().height();
    for (size_t i = 0; i < ys.size(); ++i) {
        p.setPen(kChartGrid);
        p.drawLine(QPointF(plot.left(), ys[i]), QPointF(plot.right(), ys[i]));
    }
    p.setPen(kChartMuted);
    const double left = labels.bounds().left();
    for (size_t i = 0; i < ys.size() && i < static_cast<size_t>(texts.size()); ++i)
        labels.draw(p, QRectF(left, ys[i] - h / 2, plot.left() - 4 - left, h),
                    Qt::AlignRight | Qt::AlignVCenter, texts[static_cast<qsizetype>(i)]);
}

void drawXTicks(QPainter& p, ChartLabels& labels, const QRectF& plot, const std::vector<double>& xs,
                const QStringList& texts, double gap) {
    const QFontMetrics fm = p.fontMetrics();
    const QRectF bounds = labels.bounds();
    p.setPen(kChartMuted);
    double lastRight = -1e300;
    for (size_t i = 0; i < xs.size() && i < static_cast<size_t>(texts.size()); ++i) {
        const QString& text = texts[static_cast<qsizetype>(i)];
        const double w = fm.horizontalAdvance(text) + 2;
        const double left = std::clamp(xs[i] - w / 2, bounds.left(), bounds.right() - w);
        if (left < lastRight + 6)
            continue; // thinned out: keeps a gap between neighbours
        if (labels.draw(p, QRectF(left, plot.bottom() + gap, w, fm.height()), Qt::AlignHCenter,
                        text))
            lastRight = left + w;
    }
}

} // namespace ios::views
