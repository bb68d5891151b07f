// SPDX-License-Identifier: Apache-2.0
// The specialization heat map (charts.h HeatMapChart): one colour scale per matrix, by
// slow-down against the column's best, with a legend bar.
#include "chart_axes.h"
#include "chart_style.h"
#include "charts.h"
#include "units.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace ios::views {

namespace {

constexpr int kLegendH = 12;     // the colour bar
constexpr double kMinTop = 1.05; // the least top of a scale: ×1.05

const QColor kBestOutline(0x20, 0x20, 0x20);

// The legend's axis: from ×1 to at least kMinTop, ending on a tick.
NiceRange legendRange(double maxSlowdown) {
    return NiceRange::of(1, std::max(maxSlowdown, kMinTop), 4);
}

QString slowdownText(double slowdown, int decimals) {
    return QStringLiteral("×%1").arg(slowdown, 0, 'f', decimals);
}

} // namespace

double HeatMatrix::slowdown(size_t row, size_t column) const {
    double best = 1e300;
    for (const std::vector<double>& r : values)
        if (column < r.size())
            best = std::min(best, r[column]);
    const double v = values[row][column];
    return best > 0 && best < 1e300 ? v / best : 1;
}

double HeatMatrix::maxSlowdown() const {
    double m = 1;
    for (size_t i = 0; i < values.size(); ++i)
        for (size_t j = 0; j < values[i].size(); ++j)
            m = std::max(m, slowdown(i, j));
    return m;
}

double HeatMapChart::scaleTop(size_t m) const {
    return legendRange(matrices_[m].maxSlowdown()).hi;
}

QColor HeatMapChart::slowdownColor(double slowdown, double top) {
    // White (the best) → orange → red (the scale's top): lightness falls monotonically.
    const double t = std::clamp((slowdown - 1) / std::max(top - 1, 1e-12), 0.0, 1.0);
    const QColor a = t < 0.5 ? QColor(0xff, 0xff, 0xff) : QColor(0xfc, 0x8d, 0x59);
    const QColor b = t < 0.5 ? QColor(0xfc, 0x8d, 0x59) : QColor(0xc0, 0x1f, 0x1f);
    const double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * u),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * u),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * u));
}

QColor HeatMapChart::cellColor(size_t m, size_t row, size_t column) const {
    return slowdownColor(matrices_[m].slowdown(row, column), scaleTop(m));
}

void HeatMapChart::setData(std::vector<HeatMatrix> matrices) {
    matrices_ = std::move(matrices);
    placeholder_.clear();
    update();
}

HeatMapChart::MatrixLayout HeatMapChart::matrixLayout(const QRect& box, const HeatMatrix& m) const {
    MatrixLayout l;
    l.box = box;
    const QFont font = pixelFont(kChartLabelPx);
    const QFontMetrics fm(font);
    const int lineH = fm.height();
    l.headingH = ChartHeading{m.title, {}, 15}.height(box.width());
    const int n = static_cast<int>(m.labels.size());
    QStringList rowLabels{tr("optimised for ↓")};
    for (const QString& label : m.labels)
        rowLabels << label;
    const int labelW = widestLabel(font, rowLabels) + 10;
    // Under the grid: the legend's bar, its tick labels and the note (two lines).
    const int below = 8 + kLegendH + lineH + 6 + 2 * lineH + 4;
    const int top = box.top() + l.headingH + 2 * lineH + 8; // "executed at →", column labels
    l.cellW = n > 0 ? std::min((box.width() - labelW) / n, 150) : 0;
    l.cellH = n > 0 ? std::clamp((box.bottom() - below - top) / n, 2 * lineH + 6, l.cellW) : 0;
    l.grid = QRect(box.left() + labelW, top, l.cellW * n, l.cellH * n);
    l.legend = QRect(l.grid.left(), l.grid.bottom() + 8, std::min(l.grid.width(), 320),
                     kLegendH + lineH + 2);
    return l;
}

std::vector<HeatMapChart::MatrixLayout> HeatMapChart::layouts(const QRect& area) const {
    std::vector<MatrixLayout> out;
    const int n = static_cast<int>(matrices_.size());
    if (n == 0)
        return out;
    size_t cells = 1;
    for (const HeatMatrix& m : matrices_)
        cells = std::max(cells, m.labels.size());
    // Side by side when each cell stays wide enough for "123.456 ms", else stacked.
    const bool sideBySide = area.width() / n / static_cast<int>(cells + 1) >= 95;
    for (int i = 0; i < n; ++i) {
        const QRect box = sideBySide ? QRect(area.left() + i * (area.width() / n), area.top(),
                                             area.width() / n - 24, area.height())
                                     : QRect(area.left(), area.top() + i * (area.height() / n),
                                             area.width(), area.height() / n - 12);
        out.push_back(matrixLayout(box, matrices_[static_cast<size_t>(i)]));
    }
    return out;
}

void HeatMapChart::render(QPainter& p, const QRect& area) const {
    beginLabels(p, area);
    const std::vector<MatrixLayout> all = layouts(area);
    for (size_t i = 0; i < all.size(); ++i)
        renderMatrix(p, all[i], i);
}

void HeatMapChart::renderMatrix(QPainter& p, const MatrixLayout& l, size_t index) const {
    ChartLabels& labels = labels_;
    const HeatMatrix& m = matrices_[index];
    ChartHeading{m.title, {}, 15}.draw(p, l.box, labels);
    setPixelFont(p, kChartLabelPx);
    const QFontMetrics fm = p.fontMetrics();
    const int lineH = fm.height();
    const int n = static_cast<int>(m.labels.size());
    if (n == 0)
        return;
    const QRect& grid = l.grid;
    p.setPen(kChartText);
    labels.draw(p, QRect(grid.left(), grid.top() - 2 * lineH - 4, grid.width(), lineH),
                Qt::AlignHCenter, tr("executed at →"));
    labels.draw(p,
                QRect(l.box.left(), grid.top() - lineH - 2, grid.left() - l.box.left() - 6, lineH),
                Qt::AlignRight, tr("optimised for ↓"));
    for (int j = 0; j < n; ++j)
        labels.draw(
            p, QRect(grid.left() + j * l.cellW + 2, grid.top() - lineH - 2, l.cellW - 4, lineH),
            Qt::AlignHCenter, m.labels[static_cast<size_t>(j)]);
    const double top = scaleTop(index);
    // Three decimals tell ×1.002 from ×1.006 (and ×1.003 from the best's ×1.000).
    const int decimals = 3;
    for (int j = 0; j < n; ++j) {
        double best = 1e300;
        for (int i = 0; i < n; ++i)
            best = std::min(best, m.values[static_cast<size_t>(i)][static_cast<size_t>(j)]);
        for (int i = 0; i < n; ++i) {
            const double v = m.values[static_cast<size_t>(i)][static_cast<size_t>(j)];
            const double slowdown = m.slowdown(static_cast<size_t>(i), static_cast<size_t>(j));
            const QRect cell(grid.left() + j * l.cellW, grid.top() + i * l.cellH, l.cellW, l.cellH);
            const QColor c = slowdownColor(slowdown, top);
            p.fillRect(cell, c);
            p.setPen(QColor(0xd0, 0xd0, 0xd0));
            p.drawRect(cell);
            const bool isBest = v <= best;
            if (isBest) {
                p.setPen(QPen(kBestOutline, 2));
                p.drawRect(cell.adjusted(2, 2, -2, -2));
            }
            setPixelFont(p, kChartLabelPx, isBest);
            p.setPen(c.lightnessF() < 0.45 ? Qt::white : Qt::black);
            const QString ratio = isBest ? tr("%1 best").arg(slowdownText(1, decimals))
                                         : slowdownText(slowdown, decimals);
            const QRect inner = cell.adjusted(4, 3, -4, -3);
            const QString both = formatMs(v) + QLatin1Char('\n') + ratio;
            if (labels.fits(p, inner, Qt::AlignCenter, both))
                labels.draw(p, inner, Qt::AlignCenter, both);
            else
                labels.draw(p, inner, Qt::AlignCenter, ratio);
        }
    }
    setPixelFont(p, kChartLabelPx);
    p.setPen(kChartText);
    for (int i = 0; i < n; ++i)
        labels.draw(
            p,
            QRect(l.box.left(), grid.top() + i * l.cellH, grid.left() - l.box.left() - 6, l.cellH),
            Qt::AlignRight | Qt::AlignVCenter, m.labels[static_cast<size_t>(i)]);
    renderLegend(p, l.legend, top);
    p.setPen(kChartMuted);
    labels.draw(p,
                QRect(l.box.left(), l.legend.bottom() + 4, l.box.width(),
                      l.box.bottom() - l.legend.bottom() - 4),
                Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                tr("Cell: latency and slow-down against the best schedule of its column "
                   "(outlined). One colour scale for the whole matrix."));
}

void HeatMapChart::renderLegend(QPainter& p, const QRect& box, double top) const {
    ChartLabels& labels = labels_;
    const QRectF bar(box.left(), box.top(), box.width(), kLegendH);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (int k = 0; k <= 10; ++k)
        gradient.setColorAt(k / 10.0, slowdownColor(1 + (top - 1) * k / 10.0, top));
    p.fillRect(bar, gradient);
    p.setPen(QColor(0xa0, 0xa0, 0xa0));
    p.setBrush(Qt::NoBrush);
    p.drawRect(bar);
    const NiceRange range = legendRange(top);
    std::vector<double> xs;
    QStringList texts;
    for (double v : range.ticks()) {
        if (v < 1 - 1e-9 || v > top + 1e-9)
            continue;
        const double x = bar.left() + bar.width() * (v - 1) / (top - 1);
        p.setPen(QColor(0x60, 0x60, 0x60));
        p.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + 3));
        xs.push_back(x);
        texts << QStringLiteral("×") + tickLabel(v, range.step) +
                     (v >= top - 1e-9 ? QStringLiteral("+") : QString());
    }
    setPixelFont(p, 11);
    drawXTicks(p, labels, bar, xs, texts, 3);
    p.setPen(kChartMuted);
    labels.draw(p,
                QRectF(bar.right() + 8, bar.top() - 2, labels.bounds().right() - bar.right() - 8,
                       p.fontMetrics().height()),
                Qt::AlignLeft | Qt::AlignVCenter, tr("slow-down against the column's best"));
}

QString HeatMapChart::tooltipAt(const QPointF& pos) const {
    const std::vector<MatrixLayout> all = layouts(chartArea());
    for (size_t k = 0; k < all.size(); ++k) {
        const MatrixLayout& l = all[k];
        if (!l.grid.contains(pos.toPoint()) || l.cellW <= 0 || l.cellH <= 0)
            continue;
        const auto j = static_cast<size_t>((pos.x() - l.grid.left()) / l.cellW);
        const auto i = static_cast<size_t>((pos.y() - l.grid.top()) / l.cellH);
        const HeatMatrix& m = matrices_[k];
        if (i >= m.labels.size() || j >= m.labels.size())
            return {};
        return tr("optimised for %1, executed at %2<br>%3, ×%4 the best of its column")
            .arg(m.labels[i], m.labels[j], formatMs(m.values[i][j]))
            .arg(m.slowdown(i, j), 0, 'f', 4);
    }
    return {};
}

} // namespace ios::views
