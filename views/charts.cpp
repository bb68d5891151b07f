#include "charts.h"

#include "chart_style.h"
#include "memory_plot.h"
#include "palette.h"
#include "time_axis.h"
#include "units.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <functional>

namespace ios::views {

namespace {

const QColor& kText = kChartText;
const QColor& kGrid = kChartGrid;

// One panel of horizontal bars: its title, how values read, and an optional limit marked.
struct BarPanel {
    BarPanel(QString t, std::function<QString(double)> f)
        : title(std::move(t)), format(std::move(f)) {}
    QString title;
    std::function<QString(double)> format;
    bool bytes = false; // a binary-unit axis (BytesScale) instead of a decimal one
    bool names = true;  // the row labels left of the bars
    double marker = 0;  // > 0: a dashed vertical line at that value, labelled markerLabel
    QString markerLabel;
};

// Horizontal bars with a value axis, drawn into `area`; as many ticks as fit their labels.
void barPanel(QPainter& p, const QRect& area, const BarPanel& panel, const QStringList& labels,
              const std::vector<double>& values, const std::vector<QColor>& colors) {
    setPixelFont(p, 14, true);
    p.setPen(kText);
    p.drawText(area.adjusted(0, 0, 0, -area.height() + 22), Qt::AlignLeft | Qt::AlignVCenter,
               p.fontMetrics().elidedText(panel.title, Qt::ElideRight, area.width()));
    setPixelFont(p, 12);
    const QFontMetrics fm(p.font());
    int labelWidth = -12;
    if (panel.names)
        for (const QString& l : labels)
            labelWidth = std::max(labelWidth, fm.horizontalAdvance(l));
    const QRect plot(area.left() + labelWidth + 12, area.top() + 28,
                     area.width() - labelWidth - 12 - 78, area.height() - 52);
    const double maximum = std::max(
        panel.marker, values.empty() ? 1 : *std::max_element(values.begin(), values.end()));
    const int ticks = std::clamp(plot.width() / 90, 2, 5);
    double axisMax = 1;
    std::vector<double> tickValues;
    std::function<QString(double)> tickLabel = panel.format;
    if (panel.bytes) {
        const BytesScale scale = BytesScale::forRange(0, maximum > 0 ? maximum : 1, ticks);
        axisMax = scale.hi;
        tickValues = scale.ticks();
        tickLabel = [scale](double v) { return scale.label(v); };
    } else {
        const ValueScale scale = ValueScale::forMaximum(maximum > 0 ? maximum : 1, ticks);
        axisMax = scale.max;
        for (double v = 0; v <= scale.max * (1 + 1e-9); v += scale.step)
            tickValues.push_back(v);
    }
    double labelledTo = -1e9; // a tick's label is left out where it would overlap the last one
    for (double v : tickValues) {
        const double x = plot.left() + plot.width() * v / axisMax;
        p.setPen(kGrid);
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        const QString label = tickLabel(v);
        const double half = fm.horizontalAdvance(label) / 2.0 + 4;
        if (x - half < labelledTo)
            continue;
        labelledTo = x + half;
        p.setPen(QColor(0x60, 0x60, 0x60));
        p.drawText(QRectF(x - half, plot.bottom() + 2, 2 * half, 16), Qt::AlignHCenter, label);
    }
    const int n = static_cast<int>(values.size());
    if (n == 0)
        return;
    const double rowH = plot.height() / static_cast<double>(n);
    for (int i = 0; i < n; ++i) {
        const double y = plot.top() + i * rowH;
        const double w = plot.width() * values[static_cast<size_t>(i)] / axisMax;
        const QRectF bar(plot.left(), y + rowH * 0.18, std::max(w, 1.0), rowH * 0.64);
        p.fillRect(bar, colors[static_cast<size_t>(i) % colors.size()]);
        p.setPen(kText);
        if (panel.names)
            p.drawText(QRectF(area.left(), y, labelWidth + 4, rowH),
                       Qt::AlignRight | Qt::AlignVCenter, labels[i]);
        p.drawText(QRectF(bar.right() + 6, y, 90, rowH), Qt::AlignLeft | Qt::AlignVCenter,
                   panel.format(values[static_cast<size_t>(i)]));
    }
    if (panel.marker > 0) {
        const double x = plot.left() + plot.width() * panel.marker / axisMax;
        p.setPen(QPen(QColor(0xc0, 0x20, 0x20), 1.5, Qt::DashLine));
        p.drawLine(QPointF(x, plot.top() - 4), QPointF(x, plot.bottom()));
        p.setPen(QColor(0xc0, 0x20, 0x20));
        p.drawText(QRectF(x - 150, plot.top() - 20, 300, 16), Qt::AlignHCenter, panel.markerLabel);
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

bool ChartWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = tooltipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void ChartWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(0xfc, 0xfc, 0xfc));
    if (!placeholder_.isEmpty()) {
        setPixelFont(p, 14);
        p.setPen(Qt::darkGray);
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                   placeholder_);
        return;
    }
    render(p, chartArea());
}

void ComparisonChart::setData(QString title, std::vector<ComparisonEntry> entries,
                              double sequentialMs, double budgetBytes) {
    title_ = std::move(title);
    entries_ = std::move(entries);
    sequentialMs_ = sequentialMs;
    budgetBytes_ = budgetBytes;
    placeholder_.clear();
    update();
}

void ComparisonChart::render(QPainter& p, const QRect& area) const {
    p.setRenderHint(QPainter::Antialiasing, true);
    setPixelFont(p, 16, true);
    p.setPen(kText);
    p.drawText(QRect(area.left(), area.top(), area.width(), 24), Qt::AlignLeft, title_);
    QStringList labels;
    std::vector<double> latency, peak, speedup, seconds, transitions;
    std::vector<QColor> colors;
    for (size_t i = 0; i < entries_.size(); ++i) {
        const ComparisonEntry& e = entries_[i];
        labels << e.label;
        latency.push_back(e.latencyMs);
        peak.push_back(e.peakBytes);
        speedup.push_back(e.latencyMs > 0 ? sequentialMs_ / e.latencyMs : 0);
        seconds.push_back(e.searchSeconds);
        transitions.push_back(e.transitions);
        colors.push_back(categoricalColor(static_cast<int>(i)));
    }
    // Top: the two figures a schedule is chosen by, side by side; below: how it was found.
    // Rows line up across a row of panels, so only its first panel names them.
    const QRect body = area.adjusted(0, 34, 0, 0);
    const int h = body.height() / 2 - 12;
    const auto rowOfPanels = [&](int top, std::vector<BarPanel> panels,
                                 const std::vector<const std::vector<double>*>& values) {
        setPixelFont(p, 12);
        int names = 0;
        for (const QString& l : labels)
            names = std::max(names, p.fontMetrics().horizontalAdvance(l) + 12);
        const int n = static_cast<int>(panels.size());
        const int w = (body.width() - names - 24 * (n - 1)) / n;
        for (int i = 0; i < n; ++i) {
            panels[static_cast<size_t>(i)].names = i == 0;
            const int x = body.left() + (i == 0 ? 0 : names + i * (w + 24));
            barPanel(p, QRect(x, top, i == 0 ? names + w : w, h), panels[static_cast<size_t>(i)],
                     labels, *values[static_cast<size_t>(i)], colors);
        }
    };
    BarPanel memory(tr("Peak memory (lower is better)"), [](double v) { return formatBytes(v); });
    memory.bytes = true;
    memory.marker = budgetBytes_;
    memory.markerLabel = tr("budget %1 (IOS strategies)").arg(formatBytes(budgetBytes_));
    rowOfPanels(
        body.top(),
        {BarPanel(tr("Latency (lower is better)"), [](double v) { return formatMs(v); }), memory},
        {&latency, &peak});
    rowOfPanels(body.top() + h + 24,
                {BarPanel(tr("Speed-up over sequential"),
                          [](double v) { return QStringLiteral("×%1").arg(v, 0, 'f', 2); }),
                 BarPanel(tr("Search time"), [](double v) { return formatSeconds(v); }),
                 BarPanel(tr("DP transitions"), [](double v) { return formatCount(v); })},
                {&speedup, &seconds, &transitions});
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
