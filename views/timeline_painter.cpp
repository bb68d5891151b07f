// SPDX-License-Identifier: Apache-2.0
// TimelinePainter and the timeline's legend (timeline_painter.h).
#include "timeline_painter.h"

#include "palette.h"
#include "timeline_canvas.h"
#include "timeline_texts.h"
#include "units.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace ios::views {

namespace {

const QColor kText(0x30, 0x30, 0x30);
const QColor kGrid(0xe4, 0xe4, 0xe4);
const QColor kSmColor(0x2c, 0xa0, 0x2c);
const QColor kWarpColor(0x94, 0x67, 0xbd);
const QColor kFlopColor(0xd6, 0x27, 0x28);
const QColor kGapColor(0xd6, 0x27, 0x28, 48);
const QColor kRangeColor(0x1f, 0x77, 0xb4);
// The SM curve's min–max band stays faint: zoomed out, most pixels hold both 0 and 100 %.
constexpr int kBandAlpha = 28;

// A dimmed kernel: its colour three quarters of the way to the lane background.
QColor dimmed(const QColor& c) {
    const QColor bg(0xf4, 0xf4, 0xf6);
    auto mix = [](int a, int b) { return (a + 3 * b) / 4; };
    return QColor(mix(c.red(), bg.red()), mix(c.green(), bg.green()), mix(c.blue(), bg.blue()));
}

} // namespace

QFont timelineLabelFont() {
    QFont font;
    font.setPixelSize(12);
    return font;
}

std::vector<TimelineLegendEntry> timelineLegend(const QRect& area, int top,
                                                const QString& warpLegend, int sms,
                                                double gapThresholdUs) {
    std::vector<TimelineLegendEntry> entries;
    if (!warpLegend.isEmpty()) { // a measured trace has no SM or FP32 data: only its active warps
        entries.push_back({kWarpColor, 0, warpLegend, {}, {}});
    } else {
        entries = {
            {kSmColor, 0, TimelineCanvas::tr("active SMs (%1 = 100 %)").arg(sms), {}, {}},
            {QColor(kSmColor.red(), kSmColor.green(), kSmColor.blue(), 60),
             4,
             TimelineCanvas::tr("min–max within a pixel"),
             {},
             {}},
            {kWarpColor, 0, TimelineCanvas::tr("warp occupancy"), {}, {}},
            {kFlopColor, 1, TimelineCanvas::tr("FP32 utilisation"), {}, {}},
        };
    }
    entries.push_back({kGapColor,
                       2,
                       TimelineCanvas::tr("GPU idle ≥ %1").arg(formatMs(gapThresholdUs / 1000.0)),
                       {},
                       {}});
    entries.push_back({QColor(0xa0, 0xa0, 0xa0), 3, TimelineCanvas::tr("stream idle"), {}, {}});
    for (ir::NodeKind k : {ir::NodeKind::Conv, ir::NodeKind::Pool, ir::NodeKind::Identity,
                           ir::NodeKind::Element, ir::NodeKind::Sequential})
        entries.push_back({kindColor(k), 2, kindLabel(k), {}, {}});
    const QFontMetrics fm(timelineLabelFont());
    const int line = fm.height() + 6;
    const int left = area.left() + 8,
              right = area.left() + area.width() - TimelineLayout::kRightMargin;
    int x = left, y = top;
    for (TimelineLegendEntry& e : entries) {
        const int w = 22 + fm.horizontalAdvance(e.text);
        if (x > left && x + w > right) {
            x = left;
            y += line;
        }
        e.swatch = QRect(x, y + (fm.height() - 10) / 2, 16, 10);
        e.label = QRect(x + 22, y, w - 22, fm.height());
        x += w + 18;
    }
    return entries;
}

TimelinePainter::TimelinePainter(QPainter& painter, const TimelineCanvas& canvas,
                                 const TimelineLayout::Geometry& g, const TimeAxis& axis)
    : p_(painter), canvas_(canvas), timeline_(*canvas.timeline()), layout_(canvas.layout()), g_(g),
      axis_(axis) {}

void TimelinePainter::paint(bool withCursor) {
    paintHeader();
    paintLanes();
    if (canvas_.showFlows())
        paintFlows();
    paintCurves();
    paintRange();
    paintLegend();
    if (withCursor)
        paintCursor();
}

void TimelinePainter::addLabel(const QRect& rect, int flags, const QString& text) {
    QRect drawn;
    p_.drawText(rect, flags, text, &drawn);
    labelRects_.push_back(drawn);
}

int TimelinePainter::rowTop(int row) const {
    return TimelineLayout::rowTop(g_, row, canvas_.scroll());
}

std::pair<double, double> TimelinePainter::span(double startUs, double endUs) const {
    const double x = axis_.toPixel(startUs);
    return {x, std::max(axis_.toPixel(endUs) - x, 1.0)};
}

void TimelinePainter::paintHeader() {
    const QFontMetrics fm(p_.font());
    // The window shown is right-aligned and never cut; the title gives way (elided, full text
    // in the view's tooltip) so nothing is clipped at 1280 px.
    const QString window = TimelineCanvas::tr("%1 – %2").arg(
        formatMs(axis_.visibleStart() / 1000.0), formatMs(axis_.visibleEnd() / 1000.0));
    const int windowWidth = fm.horizontalAdvance(window);
    p_.setPen(QColor(0x60, 0x60, 0x60));
    addLabel(QRect(g_.title.right() - windowWidth, g_.title.top(), windowWidth, g_.title.height()),
             Qt::AlignRight | Qt::AlignVCenter, window);
    const QString title = canvas_.fullTitle();
    const int titleWidth = g_.title.width() - windowWidth - 16;
    if (titleWidth > 40) {
        QFont bold = p_.font();
        bold.setBold(true);
        p_.setFont(bold);
        p_.setPen(QColor(0x20, 0x20, 0x20));
        addLabel(QRect(g_.title.left(), g_.title.top(), titleWidth, g_.title.height()),
                 Qt::AlignLeft | Qt::AlignVCenter,
                 QFontMetrics(bold).elidedText(title, Qt::ElideRight, titleWidth));
        p_.setFont(timelineLabelFont());
    }

    // Overall busy % in the label column, level with the ruler's ticks.
    const int tickTop = g_.ruler.bottom() - 18;
    const int left = g_.x0 - TimelineLayout::kLabelWidth + 6;
    p_.setPen(kText);
    addLabel(QRect(left, tickTop, 80, 16), Qt::AlignLeft | Qt::AlignVCenter,
             TimelineCanvas::tr("GPU busy"));
    QFont bold = p_.font();
    bold.setBold(true);
    p_.setFont(bold);
    addLabel(QRect(g_.x0 - 62, tickTop, 56, 16), Qt::AlignRight | Qt::AlignVCenter,
             timelinePercent(canvas_.busy().overall.fraction));
    p_.setFont(timelineLabelFont());

    // Ruler: ticks and labels that fit, device gaps as red marks along its foot.
    p_.setPen(QColor(0x90, 0x90, 0x90));
    p_.drawLine(g_.x0, g_.ruler.bottom(), g_.x1, g_.ruler.bottom());
    int lastRight = g_.x0 - 1000;
    for (const TimeAxis::Tick& t : axis_.ticks(90)) {
        if (t.pixel < g_.x0 - 0.5 || t.pixel > g_.x1 + 0.5)
            continue;
        p_.setPen(QColor(0x40, 0x40, 0x40));
        p_.drawLine(QPointF(t.pixel, g_.ruler.bottom() - 5), QPointF(t.pixel, g_.ruler.bottom()));
        const int w = fm.horizontalAdvance(t.label);
        const QRect label(static_cast<int>(t.pixel) + 3, tickTop, w, 16);
        if (label.right() <= g_.x1 && label.left() > lastRight + 6) {
            addLabel(label, Qt::AlignLeft | Qt::AlignVCenter, t.label);
            lastRight = label.right();
        }
    }
    for (const eval::IdleGap& gap : canvas_.gaps()) {
        const double a = axis_.toPixel(gap.startUs), b = axis_.toPixel(gap.endUs);
        if (b < g_.x0 || a > g_.x1)
            continue;
        p_.fillRect(QRectF(std::max(a, double(g_.x0)), g_.ruler.bottom() - 3,
                           std::max(std::min(b, double(g_.x1)) - std::max(a, double(g_.x0)), 2.0),
                           3),
                    kFlopColor);
    }
}

void TimelinePainter::paintLanes() {
    const QFontMetrics fm(p_.font());
    const int left = g_.x0 - TimelineLayout::kLabelWidth;
    p_.setClipRect(QRect(left, g_.lanes.top(), g_.x1 - left + 1, g_.lanes.height()));
    std::vector<double> busyOf(layout_.streamRows().size(), 0);
    for (const eval::StreamBusy& s : canvas_.busy().streams)
        if (s.stream >= 0 && static_cast<size_t>(s.stream) < busyOf.size())
            busyOf[static_cast<size_t>(s.stream)] = s.busy.fraction;
    for (size_t r = 0; r < layout_.rows().size(); ++r) {
        const int y = rowTop(static_cast<int>(r));
        if (y + g_.rowHeight < g_.lanes.top() || y > g_.lanes.bottom())
            continue;
        if (r % 2 == 0)
            p_.fillRect(QRect(g_.x0, y, g_.x1 - g_.x0, g_.rowHeight), QColor(0xf2, 0xf2, 0xf6));
        const TimelineLayout::Row& row = layout_.rows()[r];
        if (row.label.isEmpty() || y < g_.lanes.top() || y + g_.rowHeight > g_.lanes.bottom() + 1)
            continue;
        p_.setPen(kText);
        addLabel(QRect(left + 6, y, 84, g_.rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                 fm.elidedText(row.label, Qt::ElideRight, 84));
        if (row.stream >= 0) {
            p_.setPen(QColor(0x55, 0x55, 0x55));
            addLabel(QRect(g_.x0 - 62, y, 56, g_.rowHeight), Qt::AlignRight | Qt::AlignVCenter,
                     timelinePercent(busyOf[static_cast<size_t>(row.stream)]));
        }
    }
    p_.setClipRect(g_.lanes);
    for (const TimeAxis::Tick& t : axis_.ticks(90)) {
        p_.setPen(kGrid);
        p_.drawLine(QPointF(t.pixel, g_.lanes.top()), QPointF(t.pixel, g_.lanes.bottom()));
    }
    paintGaps();
    paintStages();
    paintKernels();
    p_.setClipping(false);
}

void TimelinePainter::paintGaps() {
    // Stream gaps hatched on their lanes, device gaps as a red band over all lanes (at least
    // 2 px wide so the short ones stay visible when zoomed out).
    const QBrush hatch(QColor(0xb4, 0xb4, 0xb4), Qt::BDiagPattern);
    for (size_t s = 0; s < canvas_.streamGaps().size(); ++s) {
        const int first = layout_.streamRows()[s];
        if (first < 0)
            continue;
        const int rowsOfStream = layout_.rowsOfStream(static_cast<int>(s));
        for (const eval::IdleGap& gap : canvas_.streamGaps()[s]) {
            const auto [x, w] = span(gap.startUs, gap.endUs);
            if (x + w >= g_.x0 && x <= g_.x1)
                p_.fillRect(QRectF(x, rowTop(first), w, rowsOfStream * g_.rowHeight), hatch);
        }
    }
    for (const eval::IdleGap& gap : canvas_.gaps()) {
        const auto [x, w] = span(gap.startUs, gap.endUs);
        if (x + w >= g_.x0 && x <= g_.x1)
            p_.fillRect(QRectF(x, g_.lanes.top(), std::max(w, 2.0), g_.lanes.height()), kGapColor);
    }
}

void TimelinePainter::paintStages() {
    // Stage lane and boundaries.
    const QFontMetrics fm(p_.font());
    const int stageY = rowTop(0);
    for (size_t i = 0; i < timeline_.stages.size(); ++i) {
        const eval::TimelineStage& st = timeline_.stages[i];
        const auto [sx, sw] = span(st.startUs, st.endUs);
        if (sx + sw < g_.x0 || sx > g_.x1)
            continue;
        const QRectF box(sx, stageY + 2, sw, g_.rowHeight - 4);
        const QColor c = categoricalColor(static_cast<int>(i));
        p_.fillRect(box, c);
        p_.setPen(QColor(0x50, 0x50, 0x50, 90));
        p_.drawLine(QPointF(sx, g_.lanes.top()), QPointF(sx, g_.lanes.bottom()));
        const QString label =
            QStringLiteral("B%1 S%2%3")
                .arg(st.block)
                .arg(st.stage)
                .arg(st.kind == schedule::StageKind::Merge ? QStringLiteral(" merge") : QString());
        if (sw > fm.horizontalAdvance(label) + 6) {
            p_.setPen(c.lightnessF() < 0.55 ? Qt::white : Qt::black);
            p_.drawText(box.adjusted(3, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
        }
    }
}

void TimelinePainter::paintKernels() {
    // Kernels coloured by their operator's kind; highlighted ones last, outlined, on top.
    const QFontMetrics fm(p_.font());
    for (int pass = 0; pass < 2; ++pass)
        for (size_t k = 0; k < timeline_.kernels.size(); ++k) {
            const eval::TimelineKernel& kern = timeline_.kernels[k];
            const TimelineCanvas::KernelStyle style = canvas_.kernelStyle(static_cast<int>(k));
            if ((style == TimelineCanvas::KernelStyle::Highlighted) != (pass == 1) ||
                kern.endUs < axis_.visibleStart() || kern.startUs > axis_.visibleEnd())
                continue;
            const auto [kx, kw] = span(kern.startUs, kern.endUs);
            const int y = rowTop(layout_.kernelRow(k));
            const QRectF box(kx, y + 3, kw, g_.rowHeight - 6);
            QColor c = canvas_.kernelLinked(kern)
                           ? kindColor(canvas_.model()->node({kern.block, kern.op}).kind)
                           : QColor(0x4c, 0x78, 0xa8);
            if (style == TimelineCanvas::KernelStyle::Dimmed)
                c = dimmed(c);
            p_.fillRect(box, c);
            if (style == TimelineCanvas::KernelStyle::Highlighted) {
                p_.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
                p_.drawRect(box.adjusted(-1, -1, 1, 1));
            } else if (kw > 3) {
                p_.setPen(c.darker(150));
                p_.drawRect(box);
            }
            if (kw > 40) {
                p_.setPen(c.lightnessF() < 0.55 ? Qt::white : Qt::black);
                const QString label = QString::fromStdString(kern.opName + " " + kern.kernel);
                p_.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                            fm.elidedText(label, Qt::ElideRight, static_cast<int>(kw - 5)));
            }
        }
}

void TimelinePainter::paintFlows() {
    p_.setClipRect(g_.lanes);
    p_.setRenderHint(QPainter::Antialiasing, true);
    // With a selection every kernel is highlighted or dimmed.
    const bool selection =
        !timeline_.kernels.empty() && canvas_.kernelStyle(0) != TimelineCanvas::KernelStyle::Normal;
    const auto highlighted = [this](int k) {
        return canvas_.kernelStyle(k) == TimelineCanvas::KernelStyle::Highlighted;
    };
    for (const eval::KernelFlow& f : canvas_.flows()) {
        const auto& a = timeline_.kernels[static_cast<size_t>(f.from)];
        const auto& b = timeline_.kernels[static_cast<size_t>(f.to)];
        const QPointF from(axis_.toPixel(a.endUs),
                           rowTop(layout_.kernelRow(static_cast<size_t>(f.from))) +
                               g_.rowHeight / 2.0);
        const QPointF to(axis_.toPixel(b.startUs),
                         rowTop(layout_.kernelRow(static_cast<size_t>(f.to))) + g_.rowHeight / 2.0);
        if ((from.x() < g_.x0 && to.x() < g_.x0) || (from.x() > g_.x1 && to.x() > g_.x1))
            continue;
        // With a selection, the flows of the selected kernels stand out.
        const bool mine = selection && (highlighted(f.from) || highlighted(f.to));
        const QColor c =
            mine ? QColor(0x10, 0x10, 0x10) : QColor(0x40, 0x40, 0x40, selection ? 50 : 140);
        const double bend = std::max((to.x() - from.x()) / 2, 12.0);
        QPainterPath path(from);
        path.cubicTo(from + QPointF(bend, 0), to - QPointF(bend, 0), to);
        p_.strokePath(path, QPen(c, mine ? 1.6 : 1.0));
        QPainterPath head;
        head.moveTo(to);
        head.lineTo(to + QPointF(-6, -3.5));
        head.lineTo(to + QPointF(-6, 3.5));
        head.closeSubpath();
        p_.fillPath(head, c);
    }
    p_.setRenderHint(QPainter::Antialiasing, false);
    p_.setClipping(false);
}

void TimelinePainter::paintCurves() {
    const QRect& plot = g_.plot;
    const int left = g_.x0 - TimelineLayout::kLabelWidth;
    // The y scale: percentages of each curve's peak, labelled in the label column; a measured
    // trace's scale is fitted to its active warps (spikes above it are clipped, and said so).
    const double top = canvas_.warpScale().top;
    QString chartText = canvas_.measured() ? TimelineCanvas::tr("Active warps (% of peak)")
                                           : TimelineCanvas::tr("Utilisation (%)");
    if (canvas_.measured() && canvas_.warpScale().peak > top)
        chartText += TimelineCanvas::tr("\npeaks to %1 % clipped")
                         .arg(canvas_.warpScale().peak * 100, 0, 'f', 1);
    p_.setPen(kText);
    QRect chartLabel = p_.boundingRect(QRect(left + 6, 0, 90, 100), Qt::TextWordWrap, chartText);
    chartLabel.moveTop(plot.top() + (plot.height() - chartLabel.height()) / 2);
    addLabel(chartLabel, Qt::AlignLeft | Qt::TextWordWrap, chartText);
    // Quarters, or fifths of a 5 % / 50 % top (ticks at whole percents: 1 % is labelled).
    const int steps = plot.height() < 100 ? 2 : (top == 0.05 || top == 0.5 ? 5 : 4);
    for (int i = 0; i <= steps; ++i) {
        const double q = static_cast<double>(i) / steps;
        const int y = plot.bottom() - static_cast<int>(std::lround(plot.height() * q));
        p_.setPen(kGrid);
        p_.drawLine(plot.left(), y, plot.right(), y);
        p_.setPen(QColor(0x50, 0x50, 0x50));
        addLabel(QRect(g_.x0 - 44, y - 8, 40, 16), Qt::AlignRight | Qt::AlignVCenter,
                 QStringLiteral("%1 %").arg(QString::number(q * top * 100, 'g', 3)));
    }
    for (const TimeAxis::Tick& t : axis_.ticks(90)) {
        p_.setPen(kGrid);
        p_.drawLine(QPointF(t.pixel, plot.top()), QPointF(t.pixel, plot.bottom()));
    }
    p_.setPen(QColor(0xa0, 0xa0, 0xa0));
    p_.drawRect(plot.adjusted(0, 0, -1, -1));

    // One bucket per pixel: the SM curve as its mean with the min–max band behind, the other
    // curves as their means (NasNet's 1 500 kernels would otherwise alias into noise).
    const int buckets = plot.width();
    const double h = plot.height() - 1;
    auto yOf = [&](double v) { return plot.bottom() - h * std::clamp(v / top, 0.0, 1.0); };
    auto meanLine = [&](const std::vector<eval::CurveBucket>& bs) {
        QPolygonF line;
        for (size_t i = 0; i < bs.size(); ++i) {
            const double y = yOf(bs[i].mean);
            line << QPointF(plot.left() + double(i), y) << QPointF(plot.left() + double(i + 1), y);
        }
        return line;
    };
    p_.setClipRect(plot);
    if (canvas_.measured()) { // the active-warp curve alone, filled so low values stay visible
        const QPolygonF warps =
            meanLine(eval::decimateCurve(timeline_, eval::TimelineCurve::WarpOccupancy,
                                         axis_.visibleStart(), axis_.visibleEnd(), buckets));
        QPolygonF under = warps;
        under << QPointF(plot.right() + 1, plot.bottom()) << QPointF(plot.left(), plot.bottom());
        p_.setPen(Qt::NoPen);
        p_.setBrush(QColor(kWarpColor.red(), kWarpColor.green(), kWarpColor.blue(), 70));
        p_.drawPolygon(under);
        p_.setBrush(Qt::NoBrush);
        p_.setPen(QPen(kWarpColor, 1.5));
        p_.drawPolyline(warps);
        curvePoints_ = static_cast<int>(warps.size());
        p_.setClipping(false);
        return;
    }
    const auto sm = eval::decimateCurve(timeline_, eval::TimelineCurve::ActiveSms,
                                        axis_.visibleStart(), axis_.visibleEnd(), buckets);
    QPolygonF band, under;
    for (size_t i = 0; i < sm.size(); ++i)
        band << QPointF(plot.left() + double(i), yOf(sm[i].max))
             << QPointF(plot.left() + double(i + 1), yOf(sm[i].max));
    for (size_t i = sm.size(); i-- > 0;)
        band << QPointF(plot.left() + double(i + 1), yOf(sm[i].min))
             << QPointF(plot.left() + double(i), yOf(sm[i].min));
    const QPolygonF smLine = meanLine(sm);
    under = smLine;
    under << QPointF(plot.right() + 1, plot.bottom()) << QPointF(plot.left(), plot.bottom());
    p_.setPen(Qt::NoPen);
    p_.setBrush(QColor(kSmColor.red(), kSmColor.green(), kSmColor.blue(), kBandAlpha));
    p_.drawPolygon(band);
    p_.setBrush(QColor(kSmColor.red(), kSmColor.green(), kSmColor.blue(), 90));
    p_.drawPolygon(under);
    p_.setBrush(Qt::NoBrush);
    p_.setRenderHint(QPainter::Antialiasing, false);
    p_.setPen(QPen(kSmColor, 1.5));
    p_.drawPolyline(smLine);
    curvePoints_ = static_cast<int>(smLine.size());
    p_.setPen(QPen(kWarpColor, 1.5));
    p_.drawPolyline(
        meanLine(eval::decimateCurve(timeline_, eval::TimelineCurve::WarpOccupancy,
                                     axis_.visibleStart(), axis_.visibleEnd(), buckets)));
    p_.setPen(QPen(kFlopColor, 1.2, Qt::DashLine));
    p_.drawPolyline(
        meanLine(eval::decimateCurve(timeline_, eval::TimelineCurve::FlopUtilisation,
                                     axis_.visibleStart(), axis_.visibleEnd(), buckets)));
    p_.setRenderHint(QPainter::Antialiasing, false);
    p_.setClipping(false);
}

void TimelinePainter::paintRange() {
    if (!canvas_.range())
        return;
    const double a = std::max(axis_.toPixel(canvas_.range()->startUs), double(g_.x0));
    const double b = std::min(axis_.toPixel(canvas_.range()->endUs), double(g_.x1));
    if (b >= a) {
        const double top = g_.ruler.top() + 16, bottom = g_.plot.bottom();
        p_.fillRect(QRectF(a, top, std::max(b - a, 1.0), bottom - top),
                    QColor(kRangeColor.red(), kRangeColor.green(), kRangeColor.blue(), 36));
        p_.setPen(QPen(kRangeColor, 1));
        p_.drawLine(QPointF(a, top), QPointF(a, bottom));
        p_.drawLine(QPointF(b, top), QPointF(b, bottom));
    }
    // The figures in the band above the ticks, centred on the range and kept inside the plot.
    QString text = TimelineCanvas::tr("%1 · %2 · busy %3")
                       .arg(formatMs(canvas_.range()->durationUs / 1000.0),
                            TimelineCanvas::kernelCount(canvas_.range()->kernels),
                            timelinePercent(canvas_.range()->busy.fraction));
    if (!canvas_.measured()) // a measured trace has no SM data
        text += TimelineCanvas::tr(" · SMs %1")
                    .arg(timelinePercent(canvas_.range()->meanActiveSmFraction));
    const QFontMetrics fm(p_.font());
    const int w = std::min(fm.horizontalAdvance(text) + 12, g_.x1 - g_.x0);
    const int centre = static_cast<int>((std::clamp(a, double(g_.x0), double(g_.x1)) +
                                         std::clamp(b, double(g_.x0), double(g_.x1))) /
                                        2);
    const int x = std::clamp(centre - w / 2, g_.x0, g_.x1 - w);
    const QRect box(x, g_.ruler.top() + 1, w, 15);
    p_.fillRect(box, kRangeColor);
    p_.setPen(Qt::white);
    addLabel(box, Qt::AlignCenter, fm.elidedText(text, Qt::ElideRight, w - 8));
}

void TimelinePainter::paintLegend() {
    for (const TimelineLegendEntry& e :
         timelineLegend(g_.area, g_.legendTop, canvas_.warpLegend(), std::max(timeline_.smCount, 1),
                        canvas_.gapThresholdUs())) {
        switch (e.style) {
        case 0:
        case 1:
            p_.setPen(QPen(e.color, 2, e.style == 1 ? Qt::DashLine : Qt::SolidLine));
            p_.drawLine(e.swatch.left(), e.swatch.center().y(), e.swatch.right(),
                        e.swatch.center().y());
            break;
        case 3:
            p_.fillRect(e.swatch, QBrush(e.color, Qt::BDiagPattern));
            break;
        default:
            p_.fillRect(e.swatch, e.color);
        }
        p_.setPen(kText);
        addLabel(e.label, Qt::AlignLeft | Qt::AlignVCenter, e.text);
    }
}

void TimelinePainter::paintCursor() {
    if (!canvas_.hoverX() || canvas_.hoverReadout().isEmpty())
        return;
    const double x = *canvas_.hoverX();
    p_.setPen(QPen(QColor(0x20, 0x20, 0x20, 160), 1, Qt::DashLine));
    p_.drawLine(QPointF(x, g_.ruler.bottom()), QPointF(x, g_.plot.bottom()));
    // The readout sits at the top of the plot, beside the cursor, flipped left near the end.
    const QFontMetrics fm(p_.font());
    const int w = std::min(fm.horizontalAdvance(canvas_.hoverReadout()) + 16, g_.x1 - g_.x0);
    int left = static_cast<int>(x) + 8;
    if (left + w > g_.x1)
        left = std::max(static_cast<int>(x) - 8 - w, g_.x0);
    const QRect box(left, g_.plot.top() + 4, w, fm.height() + 6);
    p_.fillRect(box, QColor(0xff, 0xff, 0xff, 235));
    p_.setPen(QColor(0x80, 0x80, 0x80));
    p_.drawRect(box.adjusted(0, 0, -1, -1));
    p_.setPen(kText);
    p_.drawText(box.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
                fm.elidedText(canvas_.hoverReadout(), Qt::ElideRight, w - 10));
}

} // namespace ios::views
