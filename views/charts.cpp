// SPDX-License-Identifier: Apache-2.0
#include "charts.h"

#include "chart_axes.h"
#include "chart_style.h"
#include "palette.h"
#include "units.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <functional>

namespace ios::views {

namespace {

// One panel of horizontal bars: what it shows, how a bar's value reads, the unit of its axis
// (chosen once from its largest value and named in its title), and an optional limit marked.
struct BarPanel {
    BarPanel(QString q, std::function<QString(double)> f, std::function<AxisUnit(double)> u = {})
        : quantity(std::move(q)), format(std::move(f)), unitFor(std::move(u)) {}
    QString quantity;
    std::function<QString(double)> format;   // a bar's value label
    std::function<AxisUnit(double)> unitFor; // the axis unit for the largest value
    QString tickPrefix;                      // "×" for ratios
    QString note;                            // after the title: "lower is better"
    bool bytes = false;   // a binary-unit axis (BytesScale, the unit in every tick) instead
    bool names = true;    // the row labels left of the bars
    double marker = 0;    // > 0: a dashed vertical line at that value (named in the note)
    QStringList rowNotes; // per row, when not empty: drawn instead of its bar and value
    std::vector<QRectF>* rowRects = nullptr; // when set: each row's band is appended
};

constexpr int kPanelTitlePx = 13;

// Width of the row names (with their gap) at the chart's label size.
int namesWidth(const QStringList& names) {
    return widestLabel(pixelFont(kChartLabelPx), names) + 10;
}

// Horizontal bars with a value axis, drawn into `area`. The value labels beside the bars get
// the room the widest needs; ticks are as many as fit their labels.
void barPanel(QPainter& p, ChartLabels& labels, const QRect& area, const BarPanel& panel,
              const QStringList& names, const std::vector<double>& values,
              const std::vector<QColor>& colors) {
    const double maximum = std::max(
        panel.marker, values.empty() ? 1 : *std::max_element(values.begin(), values.end()));
    const AxisUnit unit = panel.unitFor ? panel.unitFor(maximum) : AxisUnit{};
    setPixelFont(p, kPanelTitlePx, true);
    p.setPen(kChartText);
    const int titleH = p.fontMetrics().height();
    const QString title = unit.title(panel.quantity) +
                          (panel.note.isEmpty() ? QString() : QStringLiteral(" — ") + panel.note);
    labels.draw(p, QRectF(area.left(), area.top(), area.width(), titleH),
                Qt::AlignLeft | Qt::AlignVCenter, title);
    setPixelFont(p, kChartLabelPx);
    const QFontMetrics fm(p.font());
    QStringList valueTexts;
    for (double v : values)
        valueTexts << panel.format(v);
    const int nameW = panel.names ? namesWidth(names) : 0;
    const int valueW = widestLabel(p.font(), valueTexts) + 8;
    const QRectF plot(area.left() + nameW, area.top() + titleH + 8,
                      std::max(area.width() - nameW - valueW, 20),
                      std::max(area.height() - titleH - 8 - fm.height() - 6, 10));
    const int targetTicks = std::clamp(static_cast<int>(plot.width() / 90), 2, 5);
    double axisMax = 1;
    std::vector<double> ticks;
    QStringList tickTexts;
    if (panel.bytes) {
        const BytesScale scale = BytesScale::forRange(0, maximum > 0 ? maximum : 1, targetTicks);
        axisMax = scale.hi;
        ticks = scale.ticks();
        for (double v : ticks)
            tickTexts << scale.label(v);
    } else {
        const ValueAxis axis = ValueAxis::of(0, maximum > 0 ? maximum : 1, targetTicks, unit);
        axisMax = axis.hi();
        ticks = axis.ticks();
        for (double v : ticks)
            tickTexts << panel.tickPrefix + axis.label(v);
    }
    std::vector<double> xs;
    for (double v : ticks) {
        xs.push_back(plot.left() + plot.width() * v / axisMax);
        p.setPen(kChartGrid);
        p.drawLine(QPointF(xs.back(), plot.top()), QPointF(xs.back(), plot.bottom()));
    }
    drawXTicks(p, labels, plot, xs, tickTexts);
    if (panel.marker > 0) { // under the bars and their labels
        const double x = plot.left() + plot.width() * panel.marker / axisMax;
        p.setPen(QPen(QColor(0xc0, 0x20, 0x20), 1.5, Qt::DashLine));
        p.drawLine(QPointF(x, plot.top() - 4), QPointF(x, plot.bottom()));
    }
    const int n = static_cast<int>(values.size());
    if (n == 0)
        return;
    const double rowH = plot.height() / static_cast<double>(n);
    for (int i = 0; i < n; ++i) {
        const auto k = static_cast<size_t>(i);
        const double y = plot.top() + i * rowH;
        if (panel.rowRects != nullptr)
            panel.rowRects->push_back(QRectF(area.left(), y, area.width(), rowH));
        if (i < panel.rowNotes.size() && !panel.rowNotes[i].isEmpty()) {
            p.setPen(kChartText);
            if (panel.names)
                labels.draw(p, QRectF(area.left(), y, nameW - 6, rowH),
                            Qt::AlignRight | Qt::AlignVCenter, names[i]);
            p.setPen(Qt::darkGray);
            labels.draw(p, QRectF(plot.left() + 4, y, plot.width() + valueW - 4, rowH),
                        Qt::AlignLeft | Qt::AlignVCenter, panel.rowNotes[i]);
            continue;
        }
        const double w = plot.width() * values[k] / axisMax;
        const QRectF bar(plot.left(), y + rowH * 0.18, std::max(w, 1.0), rowH * 0.64);
        p.fillRect(bar, colors[k % colors.size()]);
        p.setPen(kChartText);
        if (panel.names)
            labels.draw(p, QRectF(area.left(), y, nameW - 6, rowH),
                        Qt::AlignRight | Qt::AlignVCenter, names[i]);
        // The value on a light patch, readable where the budget line crosses it.
        const QRectF valueBox(bar.right() + 4, y, valueW, rowH);
        if (labels.fits(p, valueBox, Qt::AlignLeft | Qt::AlignVCenter, valueTexts[i]))
            p.fillRect(QRectF(valueBox.left() - 1, y + (rowH - fm.height()) / 2,
                              fm.horizontalAdvance(valueTexts[i]) + 2, fm.height()),
                       QColor(0xfc, 0xfc, 0xfc, 210));
        labels.draw(p, valueBox, Qt::AlignLeft | Qt::AlignVCenter, valueTexts[i]);
    }
}

} // namespace

std::vector<QRectF> ChartWidget::lastLabelRects() const {
    std::vector<QRectF> out;
    for (const ChartLabel& l : labels_.labels())
        out.push_back(l.rect);
    return out;
}

ChartLabels& ChartWidget::beginLabels(const QPainter& p, const QRect& area) const {
    labels_.reset(p, area);
    return labels_;
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
    ChartLabels& labels = beginLabels(p, area);
    p.setRenderHint(QPainter::Antialiasing, true);
    // A row that could not run reads "not applicable" in every panel; the heading says why.
    QStringList names, notes, speedupNotes, why;
    std::vector<double> latency, peak, speedup, seconds, transitions;
    std::vector<QColor> colors;
    for (size_t i = 0; i < entries_.size(); ++i) {
        const ComparisonEntry& e = entries_[i];
        const bool ran = e.notApplicable.isEmpty();
        names << e.label;
        notes << (ran ? QString() : tr("not applicable"));
        // No speed-up where the sequential baseline itself could not run.
        speedupNotes << (ran && sequentialMs_ <= 0 ? tr("no baseline") : notes.back());
        if (!ran)
            why << tr("%1: not applicable — %2").arg(e.label, e.notApplicable);
        latency.push_back(e.latencyMs);
        peak.push_back(e.peakBytes);
        speedup.push_back(e.latencyMs > 0 ? sequentialMs_ / e.latencyMs : 0);
        seconds.push_back(e.searchSeconds);
        transitions.push_back(e.transitions);
        colors.push_back(categoricalColor(static_cast<int>(i)));
    }
    const int headingH =
        ChartHeading{title_, why.join(QLatin1Char('\n')), 16}.draw(p, area, labels);
    // Top: the two figures a schedule is chosen by, side by side; below: how it was found.
    // Rows line up across a row of panels, so only its first panel names them.
    const QRect body = area.adjusted(0, headingH, 0, 0);
    const int h = body.height() / 2 - 10;
    const int gap = 24;
    // Rows as the widget paints them (the tooltips and clicks); an export's render is elsewhere.
    const bool onScreen = area == chartArea();
    if (onScreen)
        rows_.clear();
    const auto rowOfPanels = [&](int top, std::vector<BarPanel> panels,
                                 const std::vector<const std::vector<double>*>& values) {
        const int nameW = namesWidth(names);
        const int n = static_cast<int>(panels.size());
        const int w = (body.width() - nameW - gap * (n - 1)) / n;
        for (int i = 0; i < n; ++i) {
            const auto k = static_cast<size_t>(i);
            panels[k].names = i == 0;
            panels[k].rowRects = onScreen ? &rows_ : nullptr;
            const int x = body.left() + (i == 0 ? 0 : nameW + i * (w + gap));
            barPanel(p, labels, QRect(x, top, i == 0 ? nameW + w : w, h), panels[k], names,
                     *values[k], colors);
        }
    };
    BarPanel latencyPanel(
        tr("Latency"), [](double v) { return formatMs(v); },
        [](double max) { return durationUnitMs(max); });
    latencyPanel.note = tr("lower is better");
    BarPanel memory(tr("Peak memory"), [](double v) { return formatBytes(v); });
    // The budget matters more than the reminder (and the title must fit a narrow panel).
    memory.note = budgetBytes_ > 0 ? tr("dashed: budget %1").arg(formatBytes(budgetBytes_))
                                   : tr("lower is better");
    memory.bytes = true;
    memory.marker = budgetBytes_;
    latencyPanel.rowNotes = memory.rowNotes = notes;
    rowOfPanels(body.top(), {latencyPanel, memory}, {&latency, &peak});
    BarPanel speedupPanel(tr("Speed-up over sequential"),
                          [](double v) { return QStringLiteral("×%1").arg(v, 0, 'f', 2); });
    speedupPanel.tickPrefix = QStringLiteral("×");
    speedupPanel.rowNotes = speedupNotes;
    BarPanel searchPanel(
        tr("Search time"), [](double v) { return formatSeconds(v); },
        [](double max) { return durationUnit(max); });
    BarPanel transitionsPanel(
        tr("DP transitions"), [](double v) { return formatCount(v); },
        [](double max) { return countUnit(max); });
    searchPanel.rowNotes = transitionsPanel.rowNotes = notes;
    rowOfPanels(body.top() + h + 20, {speedupPanel, searchPanel, transitionsPanel},
                {&speedup, &seconds, &transitions});
}

int ComparisonChart::rowAt(const QPointF& pos) const {
    const size_t n = entries_.size();
    for (size_t i = 0; i < rows_.size() && n > 0; ++i)
        if (rows_[i].contains(pos))
            return static_cast<int>(i % n);
    return -1;
}

QString ComparisonChart::tooltipAt(const QPointF& pos) const {
    const int row = rowAt(pos);
    if (row < 0)
        return {};
    const ComparisonEntry& e = entries_[static_cast<size_t>(row)];
    if (!e.notApplicable.isEmpty())
        return tr("%1: not applicable — %2").arg(e.label, e.notApplicable);
    QStringList lines{QStringLiteral("<b>%1</b>").arg(e.label.toHtmlEscaped()),
                      tr("Latency: %1").arg(formatMs(e.latencyMs))};
    if (sequentialMs_ > 0 && e.latencyMs > 0)
        lines << tr("Speed-up vs sequential: ×%1").arg(sequentialMs_ / e.latencyMs, 0, 'f', 2);
    if (e.stages > 0)
        lines << tr("Stages: %1").arg(e.stages);
    if (e.meanConcurrency > 0)
        lines << tr("Mean concurrency: %1 kernels in flight").arg(e.meanConcurrency, 0, 'f', 2);
    lines << tr("Click: its timeline · Ctrl+click: diff against the fastest");
    return lines.join(QStringLiteral("<br>"));
}

int ComparisonChart::fastestRow() const {
    int best = -1;
    for (size_t i = 0; i < entries_.size(); ++i) {
        const ComparisonEntry& e = entries_[i];
        if (e.notApplicable.isEmpty() && !e.rewritten && e.latencyMs > 0 &&
            (best < 0 || e.latencyMs < entries_[static_cast<size_t>(best)].latencyMs))
            best = static_cast<int>(i);
    }
    return best;
}

void ComparisonChart::mousePressEvent(QMouseEvent* event) {
    const int row = rowAt(event->position());
    if (event->button() == Qt::LeftButton && row >= 0 &&
        entries_[static_cast<size_t>(row)].notApplicable.isEmpty()) {
        Q_EMIT barClicked(row, event->modifiers());
        event->accept();
        return;
    }
    ChartWidget::mousePressEvent(event);
}

SweepChart::SweepChart(QWidget* parent) : ChartWidget(parent) {
    setMouseTracking(true);
}

void SweepChart::setData(QString title, std::vector<int> r, std::vector<int> s,
                         std::vector<double> latencyMs, std::vector<double> transitions,
                         std::vector<double> seconds) {
    title_ = std::move(title);
    r_ = std::move(r);
    s_ = std::move(s);
    latency_ = std::move(latencyMs);
    transitions_ = std::move(transitions);
    seconds_ = std::move(seconds);
    placeholder_.clear();
    update();
}

QString SweepChart::latencyTitle() const {
    double hi = 0;
    for (double v : latency_)
        hi = std::max(hi, v);
    return durationUnit(hi / 1000).title(tr("Latency"));
}

QString SweepChart::costTitle() const {
    double hi = 0;
    for (double v : transitions_)
        hi = std::max(hi, v);
    return countUnit(hi).title(tr("DP transitions"));
}

namespace {

// The axis of one sweep panel. Latency differences are small relative to the value: its
// axis spans the data; transitions start at 0.
ValueAxis sweepAxis(const std::vector<double>& values, int panel, double pixels) {
    double lo = 1e300, hi = 0;
    for (double v : values) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (values.empty())
        lo = hi = 0;
    const int ticks = std::clamp(static_cast<int>(pixels / 45), 2, 6);
    if (panel == 0) {
        const AxisUnit unit = durationUnit(hi / 1000);
        const AxisUnit ms{unit.per * 1000, unit.name}; // values are in ms
        const double pad = std::max((hi - lo) * 0.1, hi * 1e-4);
        return ValueAxis::of(lo - pad, hi + pad, ticks, ms);
    }
    return ValueAxis::of(0, std::max(hi, 1.0), ticks, countUnit(hi));
}

} // namespace

SweepChart::Layout SweepChart::layout(const QRect& area) const {
    Layout l;
    const ChartHeading heading{title_, {}, 16};
    l.heading = QRect(area.left(), area.top(), area.width(), heading.height(area.width()));
    const QFont font = pixelFont(kChartLabelPx);
    const int lineH = QFontMetrics(font).height();
    // The legend wraps to as many rows as it needs.
    const QFontMetrics fm(font);
    int x = fm.horizontalAdvance(tr("max operators per group:")) + 16, rows = 1;
    for (int r : r_) {
        const int w = 30 + fm.horizontalAdvance(tr("r = %1").arg(r)) + 20;
        if (x + w > area.width()) {
            ++rows;
            x = 0;
        }
        x += w;
    }
    l.legend =
        QRect(area.left(), area.bottom() - rows * (lineH + 2), area.width(), rows * (lineH + 2));
    const int top = l.heading.bottom() + lineH + 10;    // the panel titles
    const int bottom = l.legend.top() - 2 * lineH - 10; // the s ticks and the axis title
    const int w = (area.width() - 32) / 2;
    for (int panel = 0; panel < 2; ++panel) {
        QStringList texts;
        const ValueAxis axis = sweepAxis(values(panel), panel, bottom - top);
        for (double v : axis.ticks())
            texts << axis.label(v);
        const int margin = widestLabel(font, texts) + 8;
        const int left = area.left() + panel * (w + 32);
        // Half a tick label to the right, so the last s label stays inside the panel.
        l.panelLeft[panel] = left;
        l.plots[panel] = QRectF(left + margin, top, w - margin - 12, std::max(bottom - top, 10));
    }
    return l;
}

QPointF SweepChart::pointAt(const QRect& area, int panel, size_t ri, size_t si) const {
    const QRectF plot = layout(area).plots[panel];
    const ValueAxis axis = sweepAxis(values(panel), panel, plot.height());
    const double x =
        s_.size() < 2 ? plot.center().x() : plot.left() + plot.width() * si / (s_.size() - 1.0);
    const size_t k = ri * s_.size() + si;
    const double v = k < values(panel).size() ? values(panel)[k] : 0;
    return {x, axis.toPixel(v, plot.bottom(), plot.top())};
}

void SweepChart::render(QPainter& p, const QRect& area) const {
    ChartLabels& labels = beginLabels(p, area);
    p.setRenderHint(QPainter::Antialiasing, true);
    const Layout l = layout(area);
    ChartHeading{title_, {}, 16}.draw(p, area, labels);
    const double tickH = QFontMetrics(pixelFont(kChartLabelPx)).height();
    for (int panel = 0; panel < 2; ++panel) {
        const QRectF plot = l.plots[panel];
        setPixelFont(p, kPanelTitlePx, true);
        p.setPen(kChartText);
        const double titleH = p.fontMetrics().height();
        // Clear of the top tick's label, which is centred on the plot's top edge.
        const QRectF box(l.panelLeft[panel], plot.top() - titleH - tickH / 2 - 4,
                         plot.right() - l.panelLeft[panel], titleH);
        const QString title = panel == 0 ? latencyTitle() : costTitle();
        const QString why = title + tr(" — deterministic search cost");
        if (panel == 0 ||
            !labels.draw(p, box, Qt::AlignLeft | Qt::AlignVCenter, why, Qt::ElideNone))
            labels.draw(p, box, Qt::AlignLeft | Qt::AlignVCenter, title);
        renderPanel(p, plot, panel);
    }
    // Legend: one line per r.
    setPixelFont(p, kChartLabelPx);
    const QFontMetrics fm = p.fontMetrics();
    const int lineH = fm.height() + 2;
    int x = l.legend.left(), y = l.legend.top();
    p.setPen(kChartText);
    const QString legendTitle = tr("max operators per group:");
    labels.draw(p, QRectF(x, y, fm.horizontalAdvance(legendTitle) + 2, lineH),
                Qt::AlignLeft | Qt::AlignVCenter, legendTitle);
    x += fm.horizontalAdvance(legendTitle) + 16;
    for (size_t i = 0; i < r_.size(); ++i) {
        const QString label = tr("r = %1").arg(r_[i]);
        const int w = 30 + fm.horizontalAdvance(label) + 20;
        if (x + w > l.legend.right() + 1) {
            x = l.legend.left();
            y += lineH;
        }
        const QColor c = categoricalColor(static_cast<int>(i));
        const double cy = y + lineH / 2.0;
        p.setPen(QPen(c, 2.5));
        p.drawLine(QPointF(x, cy), QPointF(x + 24, cy));
        p.setBrush(c);
        p.drawEllipse(QPointF(x + 12, cy), 3.5, 3.5);
        p.setPen(kChartText);
        labels.draw(p, QRectF(x + 30, y, fm.horizontalAdvance(label) + 2, lineH),
                    Qt::AlignLeft | Qt::AlignVCenter, label);
        x += w;
    }
}

void SweepChart::renderPanel(QPainter& p, const QRectF& plot, int panel) const {
    ChartLabels& labels = labels_;
    setPixelFont(p, kChartLabelPx);
    const std::vector<double>& vals = values(panel);
    if (vals.empty() || s_.empty())
        return;
    const ValueAxis axis = sweepAxis(vals, panel, plot.height());
    std::vector<double> ys;
    QStringList texts;
    for (double v : axis.ticks()) {
        ys.push_back(axis.toPixel(v, plot.bottom(), plot.top()));
        texts << axis.label(v);
    }
    drawYTicks(p, labels, plot, ys, texts);
    auto toX = [&](size_t si) {
        return s_.size() < 2 ? plot.center().x()
                             : plot.left() + plot.width() * si / (s_.size() - 1.0);
    };
    std::vector<double> xs;
    QStringList sTexts;
    for (size_t si = 0; si < s_.size(); ++si) {
        xs.push_back(toX(si));
        sTexts << QString::number(s_[si]);
    }
    drawXTicks(p, labels, plot, xs, sTexts, 4);
    const double lineH = p.fontMetrics().height();
    p.setPen(kChartText);
    labels.draw(p, QRectF(plot.left(), plot.bottom() + lineH + 8, plot.width(), lineH),
                Qt::AlignHCenter, tr("s (max groups per stage)"));
    p.setPen(QColor(0xa0, 0xa0, 0xa0));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot);
    for (size_t ri = 0; ri < r_.size(); ++ri) {
        const QColor c = categoricalColor(static_cast<int>(ri));
        QPolygonF line;
        for (size_t si = 0; si < s_.size(); ++si) {
            const size_t k = ri * s_.size() + si;
            if (k < vals.size())
                line << QPointF(toX(si), axis.toPixel(vals[k], plot.bottom(), plot.top()));
        }
        p.setPen(QPen(c, 2.5));
        p.drawPolyline(line);
        p.setBrush(c);
        for (const QPointF& pt : line)
            p.drawEllipse(pt, 3.5, 3.5);
    }
}

QString SweepChart::tooltipAt(const QPointF& pos) const {
    // The nearest point within 8 px of either panel.
    const QRect area = chartArea();
    double best = 8;
    size_t bestR = 0, bestS = 0;
    bool found = false;
    for (int panel = 0; panel < 2; ++panel)
        for (size_t ri = 0; ri < r_.size(); ++ri)
            for (size_t si = 0; si < s_.size(); ++si) {
                const QPointF c = pointAt(area, panel, ri, si);
                const double d = std::hypot(c.x() - pos.x(), c.y() - pos.y());
                if (d <= best) {
                    best = d;
                    bestR = ri;
                    bestS = si;
                    found = true;
                }
            }
    if (!found)
        return {};
    const size_t k = bestR * s_.size() + bestS;
    auto at = [k](const std::vector<double>& v) { return k < v.size() ? v[k] : 0.0; };
    return tr("r = %1, s = %2<br>latency %3<br>%4 DP transitions<br>search took %5 (wall clock, "
              "varies run to run)")
        .arg(r_[bestR])
        .arg(s_[bestS])
        .arg(formatMs(at(latency_)), formatCount(at(transitions_)), formatSeconds(at(seconds_)));
}

} // namespace ios::views
