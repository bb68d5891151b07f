// TimelineCanvas's painting: header and ruler, lanes with gaps and kernels, flow arrows, the
// range selection, the decimated curves, the legend and the hover cursor. Positions come from
// geometry() so painting and hit testing agree.
#include "palette.h"
#include "timeline_canvas.h"
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

QString percent(double fraction) {
    return QStringLiteral("%1 %").arg(fraction * 100, 0, 'f', 1);
}

QFont labelFont() {
    QFont font;
    font.setPixelSize(12);
    return font;
}

// A dimmed kernel: its colour three quarters of the way to the lane background.
QColor dimmed(const QColor& c) {
    const QColor bg(0xf4, 0xf4, 0xf6);
    auto mix = [](int a, int b) { return (a + 3 * b) / 4; };
    return QColor(mix(c.red(), bg.red()), mix(c.green(), bg.green()), mix(c.blue(), bg.blue()));
}

} // namespace

QString TimelineCanvas::fullTitle() const {
    // The latency first: when the title must be elided, the device and batch go before it.
    return tr("%1 — %2 · %3 kernels on %4, batch %5")
        .arg(title_, formatMs(timeline_->latencyUs / 1000.0))
        .arg(static_cast<int>(timeline_->kernels.size()))
        .arg(QString::fromStdString(timeline_->device))
        .arg(timeline_->batch);
}

void TimelineCanvas::addLabel(QPainter& p, const QRect& rect, int flags, const QString& text) {
    QRect drawn;
    p.drawText(rect, flags, text, &drawn);
    labelRects_.push_back(drawn);
}

std::vector<TimelineCanvas::LegendEntry> TimelineCanvas::legendLayout(const QRect& area,
                                                                      int top) const {
    const int sms = timeline_ ? std::max(timeline_->smCount, 1) : 1;
    std::vector<LegendEntry> entries;
    if (measured()) { // a measured trace has no SM or FP32 data: only its active warps
        entries.push_back({kWarpColor, 0, warpLegend_, {}, {}});
    } else {
        entries = {
            {kSmColor, 0, tr("active SMs (%1 = 100 %)").arg(sms), {}, {}},
            {QColor(kSmColor.red(), kSmColor.green(), kSmColor.blue(), 60),
             4,
             tr("min–max within a pixel"),
             {},
             {}},
            {kWarpColor, 0, tr("warp occupancy"), {}, {}},
            {kFlopColor, 1, tr("FP32 utilisation"), {}, {}},
        };
    }
    entries.push_back(
        {kGapColor, 2, tr("GPU idle ≥ %1").arg(formatMs(gapThresholdUs_ / 1000.0)), {}, {}});
    entries.push_back({QColor(0xa0, 0xa0, 0xa0), 3, tr("stream idle"), {}, {}});
    for (ir::NodeKind k : {ir::NodeKind::Conv, ir::NodeKind::Pool, ir::NodeKind::Identity,
                           ir::NodeKind::Element, ir::NodeKind::Sequential})
        entries.push_back({kindColor(k), 2, kindLabel(k), {}, {}});
    const QFontMetrics fm(labelFont());
    const int line = fm.height() + 6;
    const int left = area.left() + 8, right = area.left() + area.width() - kRightMargin;
    int x = left, y = top;
    for (LegendEntry& e : entries) {
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

QStringList TimelineCanvas::legendTexts() const {
    QStringList texts;
    for (const LegendEntry& e : legendLayout(rect(), 0))
        texts << e.text;
    return texts;
}

void TimelineCanvas::render(QPainter& p, const QRect& area) {
    labelRects_.clear();
    curvePoints_ = 0;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.fillRect(area, QColor(0xfc, 0xfc, 0xfc));
    p.setFont(labelFont());
    if (!timeline_) {
        p.setPen(Qt::darkGray);
        p.drawText(area, Qt::AlignCenter, tr("Run a search to see its simulated timeline."));
        p.restore();
        return;
    }
    const Geometry g = geometry(area);
    TimeAxis axis = axis_;
    axis.setPixelRange(g.x0, g.x1 - g.x0);
    paintHeader(p, g, axis);
    paintLanes(p, g, axis);
    if (showFlows_)
        paintFlows(p, g, axis);
    paintCurves(p, g, axis);
    paintRange(p, g, axis);
    paintLegend(p, g);
    if (area == rect())
        paintCursor(p, g);
    p.restore();
}

void TimelineCanvas::paintHeader(QPainter& p, const Geometry& g, const TimeAxis& axis) {
    const QFontMetrics fm(p.font());
    // The window shown is right-aligned and never cut; the title gives way (elided, full text
    // in the view's tooltip) so nothing is clipped at 1280 px.
    const QString window = tr("%1 – %2").arg(formatMs(axis.visibleStart() / 1000.0),
                                             formatMs(axis.visibleEnd() / 1000.0));
    const int windowWidth = fm.horizontalAdvance(window);
    p.setPen(QColor(0x60, 0x60, 0x60));
    addLabel(p, QRect(g.title.right() - windowWidth, g.title.top(), windowWidth, g.title.height()),
             Qt::AlignRight | Qt::AlignVCenter, window);
    const QString title = fullTitle();
    const int titleWidth = g.title.width() - windowWidth - 16;
    if (titleWidth > 40) {
        QFont bold = p.font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(QColor(0x20, 0x20, 0x20));
        addLabel(p, QRect(g.title.left(), g.title.top(), titleWidth, g.title.height()),
                 Qt::AlignLeft | Qt::AlignVCenter,
                 QFontMetrics(bold).elidedText(title, Qt::ElideRight, titleWidth));
        p.setFont(labelFont());
    }

    // Overall busy % in the label column, level with the ruler's ticks.
    const int tickTop = g.ruler.bottom() - 18;
    const int left = g.x0 - kLabelWidth + 6;
    p.setPen(kText);
    addLabel(p, QRect(left, tickTop, 80, 16), Qt::AlignLeft | Qt::AlignVCenter, tr("GPU busy"));
    QFont bold = p.font();
    bold.setBold(true);
    p.setFont(bold);
    addLabel(p, QRect(g.x0 - 62, tickTop, 56, 16), Qt::AlignRight | Qt::AlignVCenter,
             percent(busy_.overall.fraction));
    p.setFont(labelFont());

    // Ruler: ticks and labels that fit, device gaps as red marks along its foot.
    p.setPen(QColor(0x90, 0x90, 0x90));
    p.drawLine(g.x0, g.ruler.bottom(), g.x1, g.ruler.bottom());
    int lastRight = g.x0 - 1000;
    for (const TimeAxis::Tick& t : axis.ticks(90)) {
        if (t.pixel < g.x0 - 0.5 || t.pixel > g.x1 + 0.5)
            continue;
        p.setPen(QColor(0x40, 0x40, 0x40));
        p.drawLine(QPointF(t.pixel, g.ruler.bottom() - 5), QPointF(t.pixel, g.ruler.bottom()));
        const int w = fm.horizontalAdvance(t.label);
        const QRect label(static_cast<int>(t.pixel) + 3, tickTop, w, 16);
        if (label.right() <= g.x1 && label.left() > lastRight + 6) {
            addLabel(p, label, Qt::AlignLeft | Qt::AlignVCenter, t.label);
            lastRight = label.right();
        }
    }
    for (const eval::IdleGap& gap : gaps_) {
        const double a = axis.toPixel(gap.startUs), b = axis.toPixel(gap.endUs);
        if (b < g.x0 || a > g.x1)
            continue;
        p.fillRect(QRectF(std::max(a, double(g.x0)), g.ruler.bottom() - 3,
                          std::max(std::min(b, double(g.x1)) - std::max(a, double(g.x0)), 2.0), 3),
                   kFlopColor);
    }
}

void TimelineCanvas::paintLanes(QPainter& p, const Geometry& g, const TimeAxis& axis) {
    const QFontMetrics fm(p.font());
    const int left = g.x0 - kLabelWidth;
    p.setClipRect(QRect(left, g.lanes.top(), g.x1 - left + 1, g.lanes.height()));
    std::vector<double> busyOf(streamRow_.size(), 0);
    for (const eval::StreamBusy& s : busy_.streams)
        if (s.stream >= 0 && static_cast<size_t>(s.stream) < busyOf.size())
            busyOf[static_cast<size_t>(s.stream)] = s.busy.fraction;
    for (size_t r = 0; r < rows_.size(); ++r) {
        const int y = rowTop(g, static_cast<int>(r));
        if (y + g.rowHeight < g.lanes.top() || y > g.lanes.bottom())
            continue;
        if (r % 2 == 0)
            p.fillRect(QRect(g.x0, y, g.x1 - g.x0, g.rowHeight), QColor(0xf2, 0xf2, 0xf6));
        const Row& row = rows_[r];
        if (row.label.isEmpty() || y < g.lanes.top() || y + g.rowHeight > g.lanes.bottom() + 1)
            continue;
        p.setPen(kText);
        addLabel(p, QRect(left + 6, y, 84, g.rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                 fm.elidedText(row.label, Qt::ElideRight, 84));
        if (row.stream >= 0) {
            p.setPen(QColor(0x55, 0x55, 0x55));
            addLabel(p, QRect(g.x0 - 62, y, 56, g.rowHeight), Qt::AlignRight | Qt::AlignVCenter,
                     percent(busyOf[static_cast<size_t>(row.stream)]));
        }
    }
    p.setClipRect(g.lanes);
    for (const TimeAxis::Tick& t : axis.ticks(90)) {
        p.setPen(kGrid);
        p.drawLine(QPointF(t.pixel, g.lanes.top()), QPointF(t.pixel, g.lanes.bottom()));
    }
    auto span = [&axis](double a, double b) {
        const double x = axis.toPixel(a);
        return std::pair(x, std::max(axis.toPixel(b) - x, 1.0));
    };
    // Stream gaps hatched on their lanes, device gaps as a red band over all lanes (at least
    // 2 px wide so the short ones stay visible when zoomed out).
    const QBrush hatch(QColor(0xb4, 0xb4, 0xb4), Qt::BDiagPattern);
    for (size_t s = 0; s < streamGaps_.size(); ++s) {
        const int first = streamRow_[s];
        if (first < 0)
            continue;
        int rowsOfStream = 0;
        while (first + rowsOfStream < static_cast<int>(rows_.size()) &&
               rows_[static_cast<size_t>(first + rowsOfStream)].stream == static_cast<int>(s))
            ++rowsOfStream;
        for (const eval::IdleGap& gap : streamGaps_[s]) {
            const auto [x, w] = span(gap.startUs, gap.endUs);
            if (x + w >= g.x0 && x <= g.x1)
                p.fillRect(QRectF(x, rowTop(g, first), w, rowsOfStream * g.rowHeight), hatch);
        }
    }
    for (const eval::IdleGap& gap : gaps_) {
        const auto [x, w] = span(gap.startUs, gap.endUs);
        if (x + w >= g.x0 && x <= g.x1)
            p.fillRect(QRectF(x, g.lanes.top(), std::max(w, 2.0), g.lanes.height()), kGapColor);
    }
    // Stage lane and boundaries.
    const int stageY = rowTop(g, 0);
    for (size_t i = 0; i < timeline_->stages.size(); ++i) {
        const eval::TimelineStage& st = timeline_->stages[i];
        const auto [sx, sw] = span(st.startUs, st.endUs);
        if (sx + sw < g.x0 || sx > g.x1)
            continue;
        const QRectF box(sx, stageY + 2, sw, g.rowHeight - 4);
        const QColor c = categoricalColor(static_cast<int>(i));
        p.fillRect(box, c);
        p.setPen(QColor(0x50, 0x50, 0x50, 90));
        p.drawLine(QPointF(sx, g.lanes.top()), QPointF(sx, g.lanes.bottom()));
        const QString label =
            QStringLiteral("B%1 S%2%3")
                .arg(st.block)
                .arg(st.stage)
                .arg(st.kind == schedule::StageKind::Merge ? QStringLiteral(" merge") : QString());
        if (sw > fm.horizontalAdvance(label) + 6) {
            p.setPen(c.lightnessF() < 0.55 ? Qt::white : Qt::black);
            p.drawText(box.adjusted(3, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
        }
    }
    // Kernels coloured by their operator's kind; highlighted ones last, outlined, on top.
    for (int pass = 0; pass < 2; ++pass)
        for (size_t k = 0; k < timeline_->kernels.size(); ++k) {
            const eval::TimelineKernel& kern = timeline_->kernels[k];
            const KernelStyle style = kernelStyle(static_cast<int>(k));
            if ((style == KernelStyle::Highlighted) != (pass == 1) ||
                kern.endUs < axis.visibleStart() || kern.startUs > axis.visibleEnd())
                continue;
            const auto [kx, kw] = span(kern.startUs, kern.endUs);
            const int y = rowTop(g, kernelRow_[k]);
            const QRectF box(kx, y + 3, kw, g.rowHeight - 6);
            QColor c = kernelLinked(kern) ? kindColor(model_->node({kern.block, kern.op}).kind)
                                          : QColor(0x4c, 0x78, 0xa8);
            if (style == KernelStyle::Dimmed)
                c = dimmed(c);
            p.fillRect(box, c);
            if (style == KernelStyle::Highlighted) {
                p.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
                p.drawRect(box.adjusted(-1, -1, 1, 1));
            } else if (kw > 3) {
                p.setPen(c.darker(150));
                p.drawRect(box);
            }
            if (kw > 40) {
                p.setPen(c.lightnessF() < 0.55 ? Qt::white : Qt::black);
                const QString label = QString::fromStdString(kern.opName + " " + kern.kernel);
                p.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                           fm.elidedText(label, Qt::ElideRight, static_cast<int>(kw - 5)));
            }
        }
    p.setClipping(false);
}

void TimelineCanvas::paintFlows(QPainter& p, const Geometry& g, const TimeAxis& axis) {
    p.setClipRect(g.lanes);
    p.setRenderHint(QPainter::Antialiasing, true);
    const bool selection = !highlighted_.empty();
    for (const eval::KernelFlow& f : flows_) {
        const auto& a = timeline_->kernels[static_cast<size_t>(f.from)];
        const auto& b = timeline_->kernels[static_cast<size_t>(f.to)];
        const QPointF from(axis.toPixel(a.endUs),
                           rowTop(g, kernelRow_[static_cast<size_t>(f.from)]) + g.rowHeight / 2.0);
        const QPointF to(axis.toPixel(b.startUs),
                         rowTop(g, kernelRow_[static_cast<size_t>(f.to)]) + g.rowHeight / 2.0);
        if ((from.x() < g.x0 && to.x() < g.x0) || (from.x() > g.x1 && to.x() > g.x1))
            continue;
        // With a selection, the flows of the selected kernels stand out.
        const bool mine = selection && (highlighted_[static_cast<size_t>(f.from)] ||
                                        highlighted_[static_cast<size_t>(f.to)]);
        const QColor c =
            mine ? QColor(0x10, 0x10, 0x10) : QColor(0x40, 0x40, 0x40, selection ? 50 : 140);
        const double bend = std::max((to.x() - from.x()) / 2, 12.0);
        QPainterPath path(from);
        path.cubicTo(from + QPointF(bend, 0), to - QPointF(bend, 0), to);
        p.strokePath(path, QPen(c, mine ? 1.6 : 1.0));
        QPainterPath head;
        head.moveTo(to);
        head.lineTo(to + QPointF(-6, -3.5));
        head.lineTo(to + QPointF(-6, 3.5));
        head.closeSubpath();
        p.fillPath(head, c);
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setClipping(false);
}

void TimelineCanvas::paintCurves(QPainter& p, const Geometry& g, const TimeAxis& axis) {
    const QRect& plot = g.plot;
    const int left = g.x0 - kLabelWidth;
    // The y scale: percentages of each curve's peak, labelled in the label column; a measured
    // trace's scale is fitted to its active warps (spikes above it are clipped, and said so).
    const double top = warpScale_.top;
    QString chartText = measured() ? tr("Active warps (% of peak)") : tr("Utilisation (%)");
    if (measured() && warpScale_.peak > top)
        chartText += tr("\npeaks to %1 % clipped").arg(warpScale_.peak * 100, 0, 'f', 1);
    p.setPen(kText);
    QRect chartLabel = p.boundingRect(QRect(left + 6, 0, 90, 100), Qt::TextWordWrap, chartText);
    chartLabel.moveTop(plot.top() + (plot.height() - chartLabel.height()) / 2);
    addLabel(p, chartLabel, Qt::AlignLeft | Qt::TextWordWrap, chartText);
    // Quarters, or fifths of a 5 % / 50 % top (ticks at whole percents: 1 % is labelled).
    const int steps = plot.height() < 100 ? 2 : (top == 0.05 || top == 0.5 ? 5 : 4);
    for (int i = 0; i <= steps; ++i) {
        const double q = static_cast<double>(i) / steps;
        const int y = plot.bottom() - static_cast<int>(std::lround(plot.height() * q));
        p.setPen(kGrid);
        p.drawLine(plot.left(), y, plot.right(), y);
        p.setPen(QColor(0x50, 0x50, 0x50));
        addLabel(p, QRect(g.x0 - 44, y - 8, 40, 16), Qt::AlignRight | Qt::AlignVCenter,
                 QStringLiteral("%1 %").arg(QString::number(q * top * 100, 'g', 3)));
    }
    for (const TimeAxis::Tick& t : axis.ticks(90)) {
        p.setPen(kGrid);
        p.drawLine(QPointF(t.pixel, plot.top()), QPointF(t.pixel, plot.bottom()));
    }
    p.setPen(QColor(0xa0, 0xa0, 0xa0));
    p.drawRect(plot.adjusted(0, 0, -1, -1));

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
    p.setClipRect(plot);
    if (measured()) { // the active-warp curve alone, filled so low values stay visible
        const QPolygonF warps =
            meanLine(eval::decimateCurve(*timeline_, eval::TimelineCurve::WarpOccupancy,
                                         axis.visibleStart(), axis.visibleEnd(), buckets));
        QPolygonF under = warps;
        under << QPointF(plot.right() + 1, plot.bottom()) << QPointF(plot.left(), plot.bottom());
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(kWarpColor.red(), kWarpColor.green(), kWarpColor.blue(), 70));
        p.drawPolygon(under);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(kWarpColor, 1.5));
        p.drawPolyline(warps);
        curvePoints_ = static_cast<int>(warps.size());
        p.setClipping(false);
        return;
    }
    const auto sm = eval::decimateCurve(*timeline_, eval::TimelineCurve::ActiveSms,
                                        axis.visibleStart(), axis.visibleEnd(), buckets);
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
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(kSmColor.red(), kSmColor.green(), kSmColor.blue(), kBandAlpha));
    p.drawPolygon(band);
    p.setBrush(QColor(kSmColor.red(), kSmColor.green(), kSmColor.blue(), 90));
    p.drawPolygon(under);
    p.setBrush(Qt::NoBrush);
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setPen(QPen(kSmColor, 1.5));
    p.drawPolyline(smLine);
    curvePoints_ = static_cast<int>(smLine.size());
    p.setPen(QPen(kWarpColor, 1.5));
    p.drawPolyline(meanLine(eval::decimateCurve(*timeline_, eval::TimelineCurve::WarpOccupancy,
                                                axis.visibleStart(), axis.visibleEnd(), buckets)));
    p.setPen(QPen(kFlopColor, 1.2, Qt::DashLine));
    p.drawPolyline(meanLine(eval::decimateCurve(*timeline_, eval::TimelineCurve::FlopUtilisation,
                                                axis.visibleStart(), axis.visibleEnd(), buckets)));
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setClipping(false);
}

void TimelineCanvas::paintRange(QPainter& p, const Geometry& g, const TimeAxis& axis) {
    if (!range_)
        return;
    const double a = std::max(axis.toPixel(range_->startUs), double(g.x0));
    const double b = std::min(axis.toPixel(range_->endUs), double(g.x1));
    if (b >= a) {
        const double top = g.ruler.top() + 16, bottom = g.plot.bottom();
        p.fillRect(QRectF(a, top, std::max(b - a, 1.0), bottom - top),
                   QColor(kRangeColor.red(), kRangeColor.green(), kRangeColor.blue(), 36));
        p.setPen(QPen(kRangeColor, 1));
        p.drawLine(QPointF(a, top), QPointF(a, bottom));
        p.drawLine(QPointF(b, top), QPointF(b, bottom));
    }
    // The figures in the band above the ticks, centred on the range and kept inside the plot.
    QString text = tr("%1 · %2 · busy %3")
                       .arg(formatMs(range_->durationUs / 1000.0), kernelCount(range_->kernels),
                            percent(range_->busy.fraction));
    if (!measured()) // a measured trace has no SM data
        text += tr(" · SMs %1").arg(percent(range_->meanActiveSmFraction));
    const QFontMetrics fm(p.font());
    const int w = std::min(fm.horizontalAdvance(text) + 12, g.x1 - g.x0);
    const int centre = static_cast<int>(
        (std::clamp(a, double(g.x0), double(g.x1)) + std::clamp(b, double(g.x0), double(g.x1))) /
        2);
    const int x = std::clamp(centre - w / 2, g.x0, g.x1 - w);
    const QRect box(x, g.ruler.top() + 1, w, 15);
    p.fillRect(box, kRangeColor);
    p.setPen(Qt::white);
    addLabel(p, box, Qt::AlignCenter, fm.elidedText(text, Qt::ElideRight, w - 8));
}

void TimelineCanvas::paintLegend(QPainter& p, const Geometry& g) {
    for (const LegendEntry& e : legendLayout(g.area, g.legendTop)) {
        switch (e.style) {
        case 0:
        case 1:
            p.setPen(QPen(e.color, 2, e.style == 1 ? Qt::DashLine : Qt::SolidLine));
            p.drawLine(e.swatch.left(), e.swatch.center().y(), e.swatch.right(),
                       e.swatch.center().y());
            break;
        case 3:
            p.fillRect(e.swatch, QBrush(e.color, Qt::BDiagPattern));
            break;
        default:
            p.fillRect(e.swatch, e.color);
        }
        p.setPen(kText);
        addLabel(p, e.label, Qt::AlignLeft | Qt::AlignVCenter, e.text);
    }
}

void TimelineCanvas::paintCursor(QPainter& p, const Geometry& g) {
    if (!hoverX_ || hoverReadout_.isEmpty())
        return;
    const double x = *hoverX_;
    p.setPen(QPen(QColor(0x20, 0x20, 0x20, 160), 1, Qt::DashLine));
    p.drawLine(QPointF(x, g.ruler.bottom()), QPointF(x, g.plot.bottom()));
    // The readout sits at the top of the plot, beside the cursor, flipped left near the end.
    const QFontMetrics fm(p.font());
    const int w = std::min(fm.horizontalAdvance(hoverReadout_) + 16, g.x1 - g.x0);
    int left = static_cast<int>(x) + 8;
    if (left + w > g.x1)
        left = std::max(static_cast<int>(x) - 8 - w, g.x0);
    const QRect box(left, g.plot.top() + 4, w, fm.height() + 6);
    p.fillRect(box, QColor(0xff, 0xff, 0xff, 235));
    p.setPen(QColor(0x80, 0x80, 0x80));
    p.drawRect(box.adjusted(0, 0, -1, -1));
    p.setPen(kText);
    p.drawText(box.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(hoverReadout_, Qt::ElideRight, w - 10));
}

} // namespace ios::views
