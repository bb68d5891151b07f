// SPDX-License-Identifier: Apache-2.0
#include "memory_step_chart.h"

#include "chart_axes.h"
#include "chart_style.h"
#include "memory_plot.h"
#include "palette.h"
#include "time_axis.h"
#include "units.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <optional>

namespace ios::views {

namespace {

const QColor kPeak(0xc0, 0x20, 0x20);
const QColor kSelected(0x1f, 0x77, 0xb4);
const QColor kArena(0x26, 0x26, 0x26);
const QColor kBudget(0xd6, 0x27, 0x28);

// The sample beyond live tensors (transients, accumulation, weights): hatched grey.
void fillSegment(QPainter& p, const QRectF& r, int tensor) {
    if (tensor >= 0) {
        p.fillRect(r, tensorColor(tensor));
        return;
    }
    p.fillRect(r, QColor(0xdd, 0xdd, 0xdd));
    p.fillRect(r, QBrush(QColor(0x88, 0x88, 0x88), Qt::BDiagPattern));
}

} // namespace

MemoryStepChart::MemoryStepChart(QWidget* parent) : ChartWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setPlaceholder(tr("No memory report yet."));
}

void MemoryStepChart::setData(StepChartData data) {
    data_ = std::move(data);
    placeholder_.clear();
    if (selected_ >= stepCount())
        selected_ = -1;
    update();
}

void MemoryStepChart::clear() {
    data_ = {};
    selected_ = -1;
    update();
}

void MemoryStepChart::selectStep(int step) {
    if (step < -1 || step >= stepCount())
        step = -1;
    if (step == selected_)
        return;
    selected_ = step;
    update();
    Q_EMIT stepSelected(step);
}

BytesScale MemoryStepChart::yAxis(const Geometry& g) const {
    return BytesScale::forRange(0, yMax(),
                                std::clamp(static_cast<int>(g.plot.height() / 45), 2, 6));
}

double MemoryStepChart::yMax() const {
    const MemorySeries& s = data_.series;
    double top = static_cast<double>(data_.budget);
    for (int64_t v : s.walk.stepPeak)
        top = std::max(top, static_cast<double>(v));
    for (int64_t v : s.arenaAfter)
        top = std::max(top, static_cast<double>(v));
    return top * 1.12; // room for the peak's label
}

ChartHeading MemoryStepChart::heading() const {
    const ir::MemoryWalk& walk = data_.series.walk;
    return {tr("%1 — peak %2 at %3 %4 of %5")
                .arg(data_.title, formatBytes(static_cast<double>(walk.peak)), data_.stepNoun)
                .arg(walk.peakStep + 1)
                .arg(stepCount()),
            tr("a colour per live tensor · dark line: TFLite arena high-water mark (Serenity "
               "Fig. 12) · click a step or use ← → to list its tensors and highlight their "
               "producers in the graph"),
            15, 12};
}

MemoryStepChart::Geometry MemoryStepChart::geometry(const QRect& area) const {
    Geometry g;
    const double legendWidth = std::clamp(area.width() * 0.24, 190.0, 300.0);
    const int top = heading().height(area.width());
    const QFont font = pixelFont(12);
    const int lineH = QFontMetrics(font).height();
    const int margin = widestBytesLabel(font, 0, yMax()) + 10;
    g.plot =
        QRectF(area.left() + margin, area.top() + top + 4, area.width() - margin - legendWidth - 20,
               area.height() - top - 4 - 2 * lineH - 10);
    g.legend = QRectF(g.plot.right() + 20, g.plot.top(), legendWidth, area.bottom() - g.plot.top());
    g.band = g.plot.width() / std::max(stepCount(), 1);
    return g;
}

void MemoryStepChart::render(QPainter& p, const QRect& area) const {
    if (data_.problem == nullptr || stepCount() == 0)
        return;
    p.setRenderHint(QPainter::Antialiasing, false);
    ChartLabels& labels = beginLabels(p, area);
    const Geometry g = geometry(area);
    heading().draw(p, area, labels);
    renderAxes(p, g);
    renderBars(p, g);
    renderLegend(p, g.legend);
}

void MemoryStepChart::renderAxes(QPainter& p, const Geometry& g) const {
    const BytesScale y = yAxis(g);
    setPixelFont(p, 12);
    std::vector<double> ys;
    QStringList yTexts;
    for (double v : y.ticks()) {
        ys.push_back(y.toPixel(v, g.plot.bottom(), g.plot.top()));
        yTexts << y.label(v);
    }
    drawYTicks(p, labels_, g.plot, ys, yTexts);
    // Step ticks: 1-based, at least 56 px apart.
    const int n = stepCount();
    const double every = std::max(1.0, TimeAxis::niceStep(56.0 / std::max(g.band, 1e-9)));
    std::vector<double> xs;
    QStringList xTexts;
    for (double k = every; k <= n + 1e-9; k += every) {
        const double x = g.plot.left() + (k - 0.5) * g.band;
        p.setPen(kChartMuted);
        p.drawLine(QPointF(x, g.plot.bottom()), QPointF(x, g.plot.bottom() + 4));
        xs.push_back(x);
        xTexts << QString::number(static_cast<int>(k));
    }
    drawXTicks(p, labels_, g.plot, xs, xTexts, 4);
    const double lineH = p.fontMetrics().height();
    p.setPen(kChartText);
    labels_.draw(p, QRectF(g.plot.left(), g.plot.bottom() + lineH + 8, g.plot.width(), lineH),
                 Qt::AlignHCenter, tr("%1 (in execution order) →").arg(data_.stepNoun));
    p.setPen(QColor(0xa0, 0xa0, 0xa0));
    p.drawLine(g.plot.bottomLeft(), g.plot.bottomRight());
    p.drawLine(g.plot.bottomLeft(), g.plot.topLeft());
}

void MemoryStepChart::renderBars(QPainter& p, const Geometry& g) const {
    const BytesScale y = yAxis(g);
    auto toY = [&](double bytes) { return y.toPixel(bytes, g.plot.bottom(), g.plot.top()); };
    const ir::MemoryWalk& walk = data_.series.walk;
    const double width = g.band >= 4 ? g.band * 0.8 : g.band;
    const int n = stepCount();
    if (selected_ >= 0) {
        const QRectF column(g.plot.left() + selected_ * g.band, g.plot.top(), g.band,
                            g.plot.height());
        p.fillRect(column.adjusted(-1, 0, 1, 0), QColor(0x1f, 0x77, 0xb4, 40));
    }
    for (int i = 0; i < n; ++i) {
        const double x = g.plot.left() + i * g.band + (g.band - width) / 2;
        for (const StackSegment& s : stackStep(*data_.problem, walk, i)) {
            const QRectF r(QPointF(x, toY(static_cast<double>(s.top))),
                           QPointF(x + width, toY(static_cast<double>(s.bottom))));
            fillSegment(p, r, s.tensor);
            if (width >= 8 && r.height() >= 3) {
                p.setPen(QPen(Qt::white, 1));
                p.drawLine(r.bottomLeft(), r.bottomRight());
            }
        }
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    auto outline = [&](int step, const QColor& c) {
        const double x = g.plot.left() + step * g.band + (g.band - width) / 2;
        p.setPen(QPen(c, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(QPointF(x - 1, toY(static_cast<double>(walk.stepPeak[step]))),
                          QPointF(x + width + 1, toY(0))));
    };
    if (selected_ >= 0)
        outline(selected_, kSelected);
    // The peak: its bar outlined, a marker and its bytes above it.
    if (walk.peakStep >= 0) {
        outline(walk.peakStep, kPeak);
        const double cx = g.plot.left() + (walk.peakStep + 0.5) * g.band;
        const double top = toY(static_cast<double>(walk.peak));
        p.setPen(Qt::NoPen);
        p.setBrush(kPeak);
        p.drawPolygon(QPolygonF(
            {QPointF(cx, top - 3), QPointF(cx - 6, top - 13), QPointF(cx + 6, top - 13)}));
        setPixelFont(p, 12, true);
        p.setPen(kPeak);
        const QString label = tr("peak %1").arg(formatBytes(static_cast<double>(walk.peak)));
        const double w = p.fontMetrics().horizontalAdvance(label) + 8;
        const double lx = std::clamp(cx - w / 2, g.plot.left(), g.plot.right() - w);
        labels_.draw(p, QRectF(lx, std::max(top - 32, g.plot.top() - 4), w, 18), Qt::AlignCenter,
                     label);
    }
    // TFLite's arena (Serenity Fig. 12): a step line over the bars.
    const std::vector<int64_t>& arena = data_.series.arenaAfter;
    QPolygonF line;
    for (size_t i = 0; i < arena.size(); ++i) {
        const double ay = toY(static_cast<double>(arena[i]));
        line << QPointF(g.plot.left() + static_cast<double>(i) * g.band, ay)
             << QPointF(g.plot.left() + static_cast<double>(i + 1) * g.band, ay);
    }
    p.setPen(QPen(kArena, 1.8));
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(line);
    setPixelFont(p, 12);
    if (!arena.empty()) {
        p.setPen(kArena);
        const QString label = tr("arena %1").arg(formatBytes(static_cast<double>(arena.back())));
        labels_.draw(
            p, QRectF(g.plot.right() - 160, toY(static_cast<double>(arena.back())) - 18, 156, 16),
            Qt::AlignRight | Qt::AlignVCenter, label);
    }
    if (data_.budget > 0) {
        const double by = toY(static_cast<double>(data_.budget));
        p.setPen(QPen(kBudget, 1.5, Qt::DashLine));
        p.drawLine(QPointF(g.plot.left(), by), QPointF(g.plot.right(), by));
        p.setPen(kBudget);
        labels_.draw(p,
                     QRectF(g.plot.left() + 6, by - 18, std::min(300.0, g.plot.width() - 12), 16),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     tr("budget %1").arg(formatBytes(static_cast<double>(data_.budget))));
    }
}

void MemoryStepChart::renderLegend(QPainter& p, const QRectF& box) const {
    const ir::MemoryWalk& walk = data_.series.walk;
    const int step = selected_ >= 0 ? selected_ : walk.peakStep;
    if (step < 0)
        return;
    const auto i = static_cast<size_t>(step);
    p.setPen(QColor(0xc8, 0xc8, 0xc8));
    p.setBrush(QColor(0xff, 0xff, 0xff));
    p.drawRect(box);
    const QRectF in = box.adjusted(10, 8, -10, -8);
    setPixelFont(p, 12, true);
    p.setPen(step == walk.peakStep ? kPeak : kChartText);
    p.drawText(
        QRectF(in.left(), in.top(), in.width(), 18), Qt::AlignLeft,
        p.fontMetrics().elidedText(tr("%1 %2 of %3%4")
                                       .arg(data_.stepNoun)
                                       .arg(step + 1)
                                       .arg(stepCount())
                                       .arg(step == walk.peakStep ? tr(" · the peak") : QString()),
                                   Qt::ElideRight, static_cast<int>(in.width())));
    setPixelFont(p, 12);
    const QFontMetrics fm = p.fontMetrics();
    p.setPen(kChartText);
    const QString runs = i < data_.stepLabels.size() ? data_.stepLabels[i] : QString();
    p.drawText(
        QRectF(in.left(), in.top() + 20, in.width(), 16), Qt::AlignLeft,
        fm.elidedText(tr("runs %1").arg(runs), Qt::ElideRight, static_cast<int>(in.width())));
    const std::vector<int>& live = walk.liveAt[i];
    p.setPen(kChartMuted);
    p.drawText(QRectF(in.left(), in.top() + 38, in.width(), 16), Qt::AlignLeft,
               fm.elidedText(tr("%1 live in %2 tensors")
                                 .arg(formatBytes(static_cast<double>(walk.stepPeak[i])))
                                 .arg(live.size()),
                             Qt::ElideRight, static_cast<int>(in.width())));
    p.drawText(QRectF(in.left(), in.top() + 54, in.width(), 16), Qt::AlignLeft,
               tr("arena %1").arg(formatBytes(static_cast<double>(data_.series.arenaAfter[i]))));
    // Largest first; new = produced by this step, last use = freed after it.
    std::vector<int> sorted = live;
    std::stable_sort(sorted.begin(), sorted.end(), [&](int a, int b) {
        return data_.problem->tensors[static_cast<size_t>(a)].bytes >
               data_.problem->tensors[static_cast<size_t>(b)].bytes;
    });
    const std::vector<int>* next = i + 1 < walk.liveAt.size() ? &walk.liveAt[i + 1] : nullptr;
    const int row = fm.height() + 4;
    double y = in.top() + 78;
    for (size_t k = 0; k < sorted.size(); ++k) {
        if (y + 2 * row > in.bottom() && k + 1 < sorted.size()) {
            int64_t rest = 0;
            for (size_t j = k; j < sorted.size(); ++j)
                rest += data_.problem->tensors[static_cast<size_t>(sorted[j])].bytes;
            p.setPen(kChartMuted);
            p.drawText(QRectF(in.left(), y, in.width(), row), Qt::AlignLeft | Qt::AlignVCenter,
                       tr("+ %1 more, %2")
                           .arg(sorted.size() - k)
                           .arg(formatBytes(static_cast<double>(rest))));
            break;
        }
        const int t = sorted[k];
        const ir::MemoryProblem::Tensor& tensor = data_.problem->tensors[static_cast<size_t>(t)];
        bool made = false;
        for (int op : data_.series.steps[i])
            made = made || data_.problem->ops[static_cast<size_t>(op)].output == t;
        const bool lastUse =
            next != nullptr && std::find(next->begin(), next->end(), t) == next->end();
        p.fillRect(QRectF(in.left(), y + (row - 11) / 2.0, 11, 11), tensorColor(t));
        const QString bytes = formatBytes(static_cast<double>(tensor.bytes));
        const QString tag = made ? tr(" new") : lastUse ? tr(" last use") : QString();
        const int bytesWidth = fm.horizontalAdvance(bytes);
        const int tagWidth = fm.horizontalAdvance(tag);
        const int nameWidth = static_cast<int>(in.width()) - 18 - bytesWidth - tagWidth - 8;
        p.setPen(kChartText);
        const QString name =
            fm.elidedText(QString::fromStdString(tensor.name), Qt::ElideMiddle, nameWidth);
        p.drawText(QRectF(in.left() + 17, y, nameWidth, row), Qt::AlignLeft | Qt::AlignVCenter,
                   name);
        p.setPen(made ? kSelected : kChartMuted);
        p.drawText(QRectF(in.left() + 17 + fm.horizontalAdvance(name), y, tagWidth + 2, row),
                   Qt::AlignLeft | Qt::AlignVCenter, tag);
        p.setPen(kChartText);
        p.drawText(QRectF(in.right() - bytesWidth - 2, y, bytesWidth + 2, row),
                   Qt::AlignRight | Qt::AlignVCenter, bytes);
        y += row;
    }
}

int MemoryStepChart::stepAt(const QPointF& pos) const {
    if (data_.problem == nullptr || stepCount() == 0)
        return -1;
    const Geometry g = geometry(chartArea());
    if (pos.x() < g.plot.left() || pos.x() >= g.plot.right() || pos.y() < g.plot.top() - 40 ||
        pos.y() > g.plot.bottom())
        return -1;
    return std::clamp(static_cast<int>((pos.x() - g.plot.left()) / g.band), 0, stepCount() - 1);
}

QPointF MemoryStepChart::stepCenter(int step) const {
    const Geometry g = geometry(chartArea());
    const BytesScale y = yAxis(g);
    const double top =
        step >= 0 && step < stepCount()
            ? static_cast<double>(data_.series.walk.stepPeak[static_cast<size_t>(step)])
            : 0.0;
    return {g.plot.left() + (step + 0.5) * g.band,
            y.toPixel(top / 2, g.plot.bottom(), g.plot.top())};
}

std::optional<StackSegment> MemoryStepChart::segmentAt(const QPointF& pos) const {
    const int step = stepAt(pos);
    if (step < 0)
        return std::nullopt;
    const Geometry g = geometry(chartArea());
    const BytesScale y = yAxis(g);
    const double bytes = y.fromPixel(pos.y(), g.plot.bottom(), g.plot.top());
    for (const StackSegment& s : stackStep(*data_.problem, data_.series.walk, step))
        if (bytes >= static_cast<double>(s.bottom) && bytes < static_cast<double>(s.top))
            return s;
    return std::nullopt;
}

int MemoryStepChart::tensorAt(const QPointF& pos) const {
    const std::optional<StackSegment> s = segmentAt(pos);
    return s ? s->tensor : -1;
}

QString MemoryStepChart::tensorText(int tensor) const {
    if (tensor < 0)
        return tr("transients and temporaries of the step");
    const ir::MemoryProblem::Tensor& t = data_.problem->tensors[static_cast<size_t>(tensor)];
    QStringList readers;
    for (int op : t.consumers)
        readers << QString::fromStdString(data_.problem->ops[static_cast<size_t>(op)].name);
    return tr("<b>%1</b> %2<br>%3; read by %4")
        .arg(QString::fromStdString(t.name).toHtmlEscaped(),
             formatBytes(static_cast<double>(t.bytes)),
             t.producers.empty() ? tr("the block's input") : tr("output of its operator"),
             readers.isEmpty() ? tr("nothing (kept)") : readers.join(QStringLiteral(", ")))
        .replace(QLatin1Char('\n'), QLatin1Char(' '));
}

QString MemoryStepChart::tooltipAt(const QPointF& pos) const {
    const int step = stepAt(pos);
    if (step < 0)
        return {};
    const auto i = static_cast<size_t>(step);
    const QString text =
        tr("%1 %2: %3<br>live %4 · arena %5")
            .arg(data_.stepNoun)
            .arg(step + 1)
            .arg(i < data_.stepLabels.size() ? data_.stepLabels[i].toHtmlEscaped() : QString())
            .arg(formatBytes(static_cast<double>(data_.series.walk.stepPeak[i])))
            .arg(formatBytes(static_cast<double>(data_.series.arenaAfter[i])));
    const std::optional<StackSegment> segment = segmentAt(pos);
    return segment ? tensorText(segment->tensor) + QStringLiteral("<hr>") + text : text;
}

void MemoryStepChart::mousePressEvent(QMouseEvent* event) {
    setFocus(Qt::MouseFocusReason);
    const int step = stepAt(event->position());
    if (step >= 0)
        selectStep(step);
}

void MemoryStepChart::keyPressEvent(QKeyEvent* event) {
    const ir::MemoryWalk& walk = data_.series.walk;
    const int at = selected_ >= 0 ? selected_ : walk.peakStep;
    switch (event->key()) {
    case Qt::Key_Left:
        selectStep(std::max(0, at - 1));
        break;
    case Qt::Key_Right:
        selectStep(std::min(stepCount() - 1, at + 1));
        break;
    case Qt::Key_Home:
        selectStep(0);
        break;
    case Qt::Key_End:
        selectStep(stepCount() - 1);
        break;
    case Qt::Key_P:
        selectStep(walk.peakStep);
        break;
    default:
        ChartWidget::keyPressEvent(event);
    }
}

} // namespace ios::views
