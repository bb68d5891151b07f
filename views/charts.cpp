#include "charts.h"

#include "palette.h"
#include "time_axis.h"
#include "units.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace ios::views {

namespace {

const QColor kText(0x20, 0x20, 0x20);
const QColor kGrid(0xe0, 0xe0, 0xe0);

void setPixelFont(QPainter& p, int px, bool bold = false) {
    QFont f = p.font();
    f.setPixelSize(px);
    f.setBold(bold);
    p.setFont(f);
}

// Horizontal bars with a value axis; returns nothing, draws into `area`.
void barPanel(QPainter& p, const QRect& area, const QString& title, const QStringList& labels,
              const std::vector<double>& values, const std::vector<QColor>& colors,
              const std::function<QString(double)>& format) {
    setPixelFont(p, 14, true);
    p.setPen(kText);
    p.drawText(area.adjusted(0, 0, 0, -area.height() + 22), Qt::AlignLeft | Qt::AlignVCenter,
               title);
    setPixelFont(p, 12);
    const QFontMetrics fm(p.font());
    int labelWidth = 0;
    for (const QString& l : labels)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(l));
    const QRect plot(area.left() + labelWidth + 12, area.top() + 28, area.width() - labelWidth - 90,
                     area.height() - 52);
    const double maximum = values.empty() ? 1 : *std::max_element(values.begin(), values.end());
    const ValueScale scale = ValueScale::forMaximum(maximum > 0 ? maximum : 1);
    for (double v = 0; v <= scale.max * (1 + 1e-9); v += scale.step) {
        const double x = plot.left() + plot.width() * v / scale.max;
        p.setPen(kGrid);
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        p.setPen(QColor(0x60, 0x60, 0x60));
        p.drawText(QRectF(x - 50, plot.bottom() + 2, 100, 16), Qt::AlignHCenter, format(v));
    }
    const int n = static_cast<int>(values.size());
    if (n == 0)
        return;
    const double rowH = plot.height() / static_cast<double>(n);
    for (int i = 0; i < n; ++i) {
        const double y = plot.top() + i * rowH;
        const double w = plot.width() * values[static_cast<size_t>(i)] / scale.max;
        const QRectF bar(plot.left(), y + rowH * 0.18, std::max(w, 1.0), rowH * 0.64);
        p.fillRect(bar, colors[static_cast<size_t>(i) % colors.size()]);
        p.setPen(kText);
        p.drawText(QRectF(area.left(), y, labelWidth + 4, rowH), Qt::AlignRight | Qt::AlignVCenter,
                   labels[i]);
        p.drawText(QRectF(bar.right() + 6, y, 90, rowH), Qt::AlignLeft | Qt::AlignVCenter,
                   format(values[static_cast<size_t>(i)]));
    }
}

} // namespace

ValueScale ValueScale::forMaximum(double maximum, int targetTicks) {
    ValueScale s;
    if (!(maximum > 0) || !std::isfinite(maximum))
        return s;
    s.step = TimeAxis::niceStep(maximum / std::max(targetTicks, 1));
    s.max = std::ceil(maximum / s.step - 1e-9) * s.step;
    return s;
}

void ChartWidget::setPlaceholder(const QString& text) {
    placeholder_ = text;
    update();
}

void ChartWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(0xfc, 0xfc, 0xfc));
    if (!placeholder_.isEmpty()) {
        setPixelFont(p, 14);
        p.setPen(Qt::darkGray);
        p.drawText(rect(), Qt::AlignCenter, placeholder_);
        return;
    }
    render(p, rect().adjusted(16, 12, -16, -12));
}

void ComparisonChart::setData(QString title, std::vector<ComparisonEntry> entries,
                              double sequentialMs) {
    title_ = std::move(title);
    entries_ = std::move(entries);
    sequentialMs_ = sequentialMs;
    placeholder_.clear();
    update();
}

void ComparisonChart::render(QPainter& p, const QRect& area) const {
    p.setRenderHint(QPainter::Antialiasing, true);
    setPixelFont(p, 16, true);
    p.setPen(kText);
    p.drawText(QRect(area.left(), area.top(), area.width(), 24), Qt::AlignLeft, title_);
    QStringList labels;
    std::vector<double> latency, speedup, seconds, transitions;
    std::vector<QColor> colors;
    for (size_t i = 0; i < entries_.size(); ++i) {
        const ComparisonEntry& e = entries_[i];
        labels << e.label;
        latency.push_back(e.latencyMs);
        speedup.push_back(e.latencyMs > 0 ? sequentialMs_ / e.latencyMs : 0);
        seconds.push_back(e.searchSeconds);
        transitions.push_back(e.transitions);
        colors.push_back(categoricalColor(static_cast<int>(i)));
    }
    const QRect body = area.adjusted(0, 34, 0, 0);
    const int w = body.width() / 2 - 12, h = body.height() / 2 - 12;
    barPanel(p, QRect(body.left(), body.top(), w, h), tr("Latency (lower is better)"), labels,
             latency, colors, [](double v) { return formatMs(v); });
    barPanel(p, QRect(body.left() + w + 24, body.top(), w, h), tr("Speed-up over sequential"),
             labels, speedup, colors,
             [](double v) { return QStringLiteral("×%1").arg(v, 0, 'f', 2); });
    barPanel(p, QRect(body.left(), body.top() + h + 24, w, h), tr("Search time"), labels, seconds,
             colors, [](double v) { return formatSeconds(v); });
    barPanel(p, QRect(body.left() + w + 24, body.top() + h + 24, w, h),
             tr("DP transitions evaluated (states in tooltip / status)"), labels, transitions,
             colors, [](double v) { return formatCount(v); });
}

void SweepChart::setData(QString title, std::vector<int> r, std::vector<int> s,
                         std::vector<double> latencyMs, std::vector<double> seconds) {
    title_ = std::move(title);
    r_ = std::move(r);
    s_ = std::move(s);
    latency_ = std::move(latencyMs);
    seconds_ = std::move(seconds);
    placeholder_.clear();
    update();
}

void SweepChart::render(QPainter& p, const QRect& area) const {
    p.setRenderHint(QPainter::Antialiasing, true);
    setPixelFont(p, 16, true);
    p.setPen(kText);
    p.drawText(QRect(area.left(), area.top(), area.width(), 24), Qt::AlignLeft, title_);
    const QRect body = area.adjusted(0, 34, 0, -30);
    const int w = body.width() / 2 - 16;
    renderPanel(p, QRect(body.left(), body.top(), w, body.height()), latency_, tr("Latency (ms)"),
                false);
    renderPanel(p, QRect(body.left() + w + 32, body.top(), w, body.height()), seconds_,
                tr("Search time (s)"), true);
    // Legend: one line per r.
    setPixelFont(p, 12);
    int x = body.left() + 60;
    p.setPen(kText);
    const QString legendTitle = tr("max operators per group:");
    p.drawText(x, area.bottom() - 3, legendTitle);
    x += p.fontMetrics().horizontalAdvance(legendTitle) + 16;
    for (size_t i = 0; i < r_.size(); ++i) {
        const QColor c = categoricalColor(static_cast<int>(i));
        p.setPen(QPen(c, 2.5));
        p.drawLine(x, area.bottom() - 8, x + 24, area.bottom() - 8);
        p.setBrush(c);
        p.drawEllipse(QPointF(x + 12, area.bottom() - 8), 3.5, 3.5);
        p.setPen(kText);
        const QString label = tr("r = %1").arg(r_[i]);
        p.drawText(x + 30, area.bottom() - 3, label);
        x += 30 + p.fontMetrics().horizontalAdvance(label) + 28;
    }
}

void SweepChart::renderPanel(QPainter& p, const QRect& area, const std::vector<double>& values,
                             const QString& yTitle, bool seconds) const {
    setPixelFont(p, 13, true);
    p.setPen(kText);
    p.drawText(QRect(area.left(), area.top(), area.width(), 20), Qt::AlignLeft, yTitle);
    setPixelFont(p, 12);
    const QRect plot = area.adjusted(64, 28, -10, -36);
    double lo = 1e300, hi = 0;
    for (double v : values) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (values.empty() || s_.empty())
        return;
    // Latency differences are small relative to the value: start the axis near the minimum.
    const double floor = seconds ? 0.0 : std::max(0.0, lo - (hi - lo) * 0.25 - 1e-6);
    const ValueScale scale = ValueScale::forMaximum(std::max(hi - floor, 1e-9));
    auto toY = [&](double v) { return plot.bottom() - plot.height() * (v - floor) / scale.max; };
    auto toX = [&](size_t si) {
        return s_.size() < 2 ? plot.center().x()
                             : plot.left() + plot.width() * si / static_cast<double>(s_.size() - 1);
    };
    for (double v = 0; v <= scale.max * (1 + 1e-9); v += scale.step) {
        const double y = toY(floor + v);
        p.setPen(kGrid);
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        p.setPen(QColor(0x60, 0x60, 0x60));
        p.drawText(QRectF(area.left(), y - 8, 60, 16), Qt::AlignRight | Qt::AlignVCenter,
                   seconds ? formatSeconds(floor + v) : formatMs(floor + v));
    }
    for (size_t si = 0; si < s_.size(); ++si) {
        p.setPen(QColor(0x60, 0x60, 0x60));
        p.drawText(QRectF(toX(si) - 20, plot.bottom() + 4, 40, 16), Qt::AlignHCenter,
                   QString::number(s_[si]));
    }
    p.setPen(kText);
    p.drawText(QRect(plot.left(), plot.bottom() + 18, plot.width(), 16), Qt::AlignHCenter,
               tr("s (max groups per stage)"));
    p.setPen(QColor(0xa0, 0xa0, 0xa0));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot);
    for (size_t ri = 0; ri < r_.size(); ++ri) {
        const QColor c = categoricalColor(static_cast<int>(ri));
        QPolygonF line;
        for (size_t si = 0; si < s_.size(); ++si) {
            const size_t k = ri * s_.size() + si;
            if (k < values.size())
                line << QPointF(toX(si), toY(values[k]));
        }
        p.setPen(QPen(c, 2.5));
        p.drawPolyline(line);
        p.setBrush(c);
        for (const QPointF& pt : line)
            p.drawEllipse(pt, 3.5, 3.5);
    }
}

void HeatMapChart::setData(std::vector<HeatMatrix> matrices) {
    matrices_ = std::move(matrices);
    placeholder_.clear();
    update();
}

void HeatMapChart::render(QPainter& p, const QRect& area) const {
    if (matrices_.empty())
        return;
    const int n = static_cast<int>(matrices_.size());
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
        renderMatrix(p, box, matrices_[static_cast<size_t>(i)]);
    }
}

void HeatMapChart::renderMatrix(QPainter& p, const QRect& area, const HeatMatrix& m) const {
    setPixelFont(p, 15, true);
    p.setPen(kText);
    p.drawText(QRect(area.left(), area.top(), area.width(), 22), Qt::AlignLeft, m.title);
    setPixelFont(p, 12);
    const int n = static_cast<int>(m.labels.size());
    if (n == 0)
        return;
    const QFontMetrics fm(p.font());
    int labelW = 0;
    for (const QString& l : m.labels)
        labelW = std::max(labelW, fm.horizontalAdvance(l));
    labelW = std::max(labelW, fm.horizontalAdvance(tr("optimised for ↓")));
    // Cells may be wider than tall: the text needs width, rows only two lines.
    const int cellW = std::min((area.width() - labelW - 30) / n, 150);
    const int cellH = std::max(std::min((area.height() - 110) / n, cellW), 2 * fm.height() + 4);
    const QRect grid(area.left() + labelW + 16, area.top() + 66, cellW * n, cellH * n);
    p.drawText(QRect(grid.left(), area.top() + 26, grid.width(), 16), Qt::AlignHCenter,
               tr("executed at →"));
    p.drawText(QRect(area.left(), grid.top() - 20, labelW + 10, 16), Qt::AlignRight,
               tr("optimised for ↓"));
    for (int j = 0; j < n; ++j)
        p.drawText(QRect(grid.left() + j * cellW, grid.top() - 20, cellW, 16), Qt::AlignHCenter,
                   m.labels[static_cast<size_t>(j)]);
    // Colour each column relative to its best (the specialised schedule should win its
    // column: the diagonal is darkest when specialization helps).
    for (int j = 0; j < n; ++j) {
        double best = 1e300, worst = 0;
        for (int i = 0; i < n; ++i) {
            best = std::min(best, m.values[static_cast<size_t>(i)][static_cast<size_t>(j)]);
            worst = std::max(worst, m.values[static_cast<size_t>(i)][static_cast<size_t>(j)]);
        }
        for (int i = 0; i < n; ++i) {
            const double v = m.values[static_cast<size_t>(i)][static_cast<size_t>(j)];
            const double t = worst > best ? (v - best) / (worst - best) : 0.0;
            const QRect cell(grid.left() + j * cellW, grid.top() + i * cellH, cellW, cellH);
            const QColor c = heatColor(1.0 - t);
            p.fillRect(cell, c);
            p.setPen(Qt::white);
            p.drawRect(cell);
            p.setPen(c.lightnessF() < 0.5 ? Qt::white : Qt::black);
            const double slowdown = best > 0 ? v / best : 1;
            p.drawText(cell, Qt::AlignCenter,
                       QStringLiteral("%1\n×%2").arg(formatMs(v)).arg(slowdown, 0, 'f', 3));
        }
    }
    p.setPen(kText);
    for (int i = 0; i < n; ++i)
        p.drawText(QRect(area.left(), grid.top() + i * cellH, labelW + 8, cellH),
                   Qt::AlignRight | Qt::AlignVCenter, m.labels[static_cast<size_t>(i)]);
    p.drawText(QRect(grid.left(), grid.bottom() + 8, area.width(), 36),
               Qt::AlignLeft | Qt::TextWordWrap,
               tr("Cell: latency and slow-down vs the best schedule of its column. "
                  "Yellow = best in column."));
}

} // namespace ios::views
