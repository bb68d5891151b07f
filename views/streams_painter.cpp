// SPDX-License-Identifier: Apache-2.0
#include "streams_painter.h"

#include "chart_style.h"
#include "palette.h"
#include "streams_view.h"
#include "units.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace ios::views {

namespace {

const QColor& kText = kChartText;
const QColor& kMuted = kChartMuted;
const QColor kArrow(0x4a, 0x4a, 0x70);
const QColor kWaitHighlight(0xe0, 0x5a, 0x00);   // the events a selected launch waits on
const QColor kRecordHighlight(0x1f, 0x77, 0xb4); // the events it records
const QColor kRecordMark(0x1f, 0x3a, 0x6e);
const QColor kWaitMark(0x9c, 0x1c, 0x1c);
const QColor kBarrier(0x30, 0x30, 0x30);
const QColor kSync(0xc0, 0x20, 0x20);

void drawDiamond(QPainter& p, const QPointF& c, double r) {
    p.drawPolygon(
        QPolygonF({c + QPointF(0, -r), c + QPointF(r, 0), c + QPointF(0, r), c + QPointF(-r, 0)}));
}

void drawArrowHead(QPainter& p, const QPointF& tip, const QPointF& from, double size) {
    const QLineF dir(tip, from);
    QLineF a = dir, b = dir;
    a.setLength(size);
    b.setLength(size);
    a.setAngle(dir.angle() + 24);
    b.setAngle(dir.angle() - 24);
    p.drawPolygon(QPolygonF({tip, a.p2(), b.p2()}));
}

// `text` in 12 px, else 10 or 9 px, else elided (nothing when not even two characters fit); sets
// the painter's font to the size used.
QString fittedLabel(QPainter& p, const QString& text, int room, bool italic) {
    for (int px : {12, 10, 9}) {
        setPixelFont(p, px, false, italic);
        if (p.fontMetrics().horizontalAdvance(text) <= room)
            return text;
    }
    const QString elided = p.fontMetrics().elidedText(text, Qt::ElideRight, room);
    return elided.size() >= 3 ? elided : QString();
}

} // namespace

StreamsPainter::StreamsPainter(const StreamsView& view) : view_(view), layout_(view.layout()) {}

std::vector<StreamsHit> StreamsPainter::paint(QPainter& p, const QRect& area,
                                              const TimeAxis& axis) {
    hits_.clear();
    const Geometry g = geometry(area);
    renderHeader(p, area);
    renderRuler(p, g, axis);
    renderLanes(p, g, axis);
    renderArrows(p, g, axis);
    renderLabels(p, g);
    renderLegend(&p, area);
    return std::move(hits_);
}

StreamsPainter::Geometry StreamsPainter::geometry(const QRect& area) const {
    Geometry g;
    const double top = area.top() + headerHeight(area) + kRulerHeight;
    g.plot = QRectF(area.left() + kLabelWidth, top, std::max(area.width() - kLabelWidth - 12, 1),
                    std::max(area.bottom() - renderLegend(nullptr, area) - 4 - top, 40.0));
    const auto lanes = static_cast<double>(std::max<size_t>(layout_.laneStreams.size(), 1));
    g.laneHeight = std::clamp(std::floor(g.plot.height() / lanes), double{kMinLaneHeight},
                              double{kMaxLaneHeight});
    g.top = g.plot.top() - view_.scrollY();
    return g;
}

double StreamsPainter::laneY(const Geometry& g, int lane) const {
    return g.top + g.laneHeight * lane;
}

int StreamsPainter::headerHeight(const QRect& area) const {
    QFont font = view_.font();
    font.setPixelSize(12);
    const QRect wrapped = QFontMetrics(font).boundingRect(QRect(0, 0, area.width() - 16, 1000),
                                                          Qt::TextWordWrap, view_.countsText());
    return 26 + std::min(wrapped.height(), 3 * QFontMetrics(font).lineSpacing()) + 6;
}

void StreamsPainter::renderHeader(QPainter& p, const QRect& area) const {
    setPixelFont(p, 13, true);
    p.setPen(kText);
    const QRect line1(area.left() + 8, area.top() + 4, area.width() - 16, 18);
    p.drawText(line1, Qt::AlignLeft | Qt::AlignVCenter,
               p.fontMetrics().elidedText(view_.title(), Qt::ElideRight, line1.width()));
    setPixelFont(p, 12);
    p.drawText(QRect(area.left() + 8, area.top() + 26, area.width() - 16, headerHeight(area) - 32),
               Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, view_.countsText());
}

void StreamsPainter::renderRuler(QPainter& p, const Geometry& g, const TimeAxis& axis) const {
    const double rulerY = g.plot.top() - 4;
    const double bottom =
        std::min(g.plot.bottom(), laneY(g, static_cast<int>(layout_.laneStreams.size())));
    setPixelFont(p, 11);
    p.setPen(QColor(0x90, 0x90, 0x90));
    p.drawLine(QPointF(g.plot.left(), rulerY), QPointF(g.plot.right(), rulerY));
    p.setPen(kMuted);
    p.drawText(QRectF(g.plot.left() - kLabelWidth + 6, rulerY - 18, kLabelWidth - 10, 16),
               Qt::AlignLeft | Qt::AlignVCenter,
               layout_.axis == StreamAxis::IssueOrder ? StreamsView::tr("instruction")
                                                      : StreamsView::tr("time"));
    std::vector<TimeAxis::Tick> ticks;
    if (layout_.axis == StreamAxis::SimulatedTime) {
        ticks = axis.ticks(90);
    } else {
        // Ticks at slot centres, every nice number of instructions (slots average
        // extent / n wide).
        const auto& slots = layout_.slotStart;
        const size_t n = slots.empty() ? 0 : slots.size() - 1;
        const double perInstruction = n > 0 ? layout_.extent / static_cast<double>(n) : 1.0;
        const auto step = static_cast<size_t>(
            std::max(1.0, TimeAxis::niceStep(50 * axis.usPerPixel() / perInstruction)));
        for (size_t k = 0; k < n; k += step) {
            const double x = (slots[k] + slots[k + 1]) / 2;
            if (x >= axis.visibleStart() && x <= axis.visibleEnd())
                ticks.push_back({x, axis.toPixel(x), QStringLiteral("#%1").arg(k)});
        }
    }
    const QFontMetrics fm(p.font());
    for (const TimeAxis::Tick& t : ticks) {
        if (t.pixel < g.plot.left() - 0.5 || t.pixel > g.plot.right() + 0.5)
            continue;
        p.setPen(QColor(0xe6, 0xe6, 0xe6));
        p.drawLine(QPointF(t.pixel, rulerY), QPointF(t.pixel, bottom));
        p.setPen(kMuted);
        p.drawLine(QPointF(t.pixel, rulerY - 4), QPointF(t.pixel, rulerY));
        if (t.pixel + 3 + fm.horizontalAdvance(t.label) <= g.plot.right() + 8)
            p.drawText(QPointF(t.pixel + 3, rulerY - 6), t.label);
    }
}

void StreamsPainter::renderLanes(QPainter& p, const Geometry& g, const TimeAxis& axis) {
    const QRectF& plot = g.plot;
    const auto lanes = static_cast<int>(layout_.laneStreams.size());
    const double bottom = std::min(plot.bottom(), laneY(g, lanes));
    // Lane backgrounds and labels (labels clipped to the plot's height).
    p.setClipRect(
        QRectF(plot.left() - kLabelWidth, plot.top(), plot.width() + kLabelWidth, plot.height()));
    setPixelFont(p, 12);
    for (int l = 0; l < lanes; ++l) {
        const double y = laneY(g, l);
        if (l % 2 == 0)
            p.fillRect(QRectF(plot.left(), y, plot.width(), g.laneHeight),
                       QColor(0xf0, 0xf0, 0xf5));
        p.setPen(kText);
        p.drawText(QRectF(plot.left() - kLabelWidth + 6, y, kLabelWidth - 10, g.laneHeight),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   StreamsView::tr("stream %1").arg(layout_.laneStreams[static_cast<size_t>(l)]));
    }
    p.setClipRect(plot);

    // Barriers and syncs across every lane.
    for (size_t d = 0; d < layout_.dividers.size(); ++d) {
        const StreamDivider& div = layout_.dividers[d];
        const double x = axis.toPixel(div.x);
        if (x < plot.left() - 4 || x > plot.right() + 4)
            continue;
        p.setPen(div.sync ? QPen(kSync, 2, Qt::DashLine) : QPen(kBarrier, 2));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, bottom));
        hits_.push_back({StreamsHit::Divider,
                         static_cast<int>(d),
                         QRectF(x - 4, plot.top(), 8, bottom - plot.top()),
                         {}});
    }

    // Which launches to emphasise: the selection, and what its waited events captured.
    std::vector<int> sources;
    for (int a : view_.highlightedArrows())
        sources.push_back(layout_.arrows[static_cast<size_t>(a)].fromLaunch);
    for (size_t i = 0; i < layout_.launches.size(); ++i) {
        const StreamLaunch& l = layout_.launches[i];
        if (l.x1 < axis.visibleStart() || l.x0 > axis.visibleEnd())
            continue;
        double x0 = axis.toPixel(l.x0), x1 = axis.toPixel(l.x1);
        const double minWidth = l.synthetic ? 6 : 3;
        if (x1 - x0 < minWidth) {
            const double mid = (x0 + x1) / 2;
            x0 = mid - minWidth / 2;
            x1 = mid + minWidth / 2;
        }
        const double y = laneY(g, l.lane);
        const QRectF box(x0, y + 4, x1 - x0, g.laneHeight - 8);
        const bool selected =
            std::find(view_.selectedLaunches().begin(), view_.selectedLaunches().end(),
                      static_cast<int>(i)) != view_.selectedLaunches().end();
        const bool source =
            std::find(sources.begin(), sources.end(), static_cast<int>(i)) != sources.end();
        QColor fill = Qt::white;
        if (!l.synthetic && view_.model())
            fill = kindColor(view_.model()->node({view_.block(), l.ops.front()}).kind);
        p.setBrush(fill);
        if (l.synthetic)
            p.setPen(QPen(QColor(0x50, 0x50, 0x50), 1.2, Qt::DashLine));
        else
            p.setPen(QPen(fill.darker(160), 1));
        p.drawRect(box);
        if (l.ops.size() > 1) { // one merged kernel: a second, inner outline
            p.setBrush(Qt::NoBrush);
            p.setPen(QPen(fill.lighter(170), 1));
            p.drawRect(box.adjusted(2, 2, -2, -2));
        }
        if (selected || source) {
            p.setBrush(Qt::NoBrush);
            p.setPen(QPen(selected ? QColor(Qt::black) : kWaitHighlight, selected ? 3 : 2));
            p.drawRect(box.adjusted(-1, -1, 1, 1));
        }
        hits_.push_back({StreamsHit::Launch, static_cast<int>(i), box, {}});
    }
    p.setClipping(false);
}

// A second line under a launch's name: its kernel shape, or "merged".
QString StreamsPainter::launchDetail(const StreamLaunch& l) const {
    if (l.synthetic || !view_.model())
        return {};
    if (l.ops.size() > 1)
        return StreamsView::tr("merged ×%1").arg(l.ops.size());
    const ir::Node& node = view_.model()->node({view_.block(), l.ops.front()});
    const auto hw = [](const ir::Hw& k) { return QStringLiteral("%1×%2").arg(k.h).arg(k.w); };
    switch (node.kind) {
    case ir::NodeKind::Conv:
        return hw(node.conv.kernel);
    case ir::NodeKind::Pool:
        return node.pool.type == ir::PoolType::Max || node.pool.type == ir::PoolType::GlobalMax
                   ? StreamsView::tr("max %1").arg(hw(node.pool.kernel))
                   : StreamsView::tr("avg %1").arg(hw(node.pool.kernel));
    default:
        return kindLabel(node.kind);
    }
}

// Launch names last, over the record and wait marks (which sit on the boxes' edges in time).
void StreamsPainter::renderLabels(QPainter& p, const Geometry& g) const {
    p.setClipRect(g.plot);
    for (const StreamsHit& hit : hits_) {
        if (hit.kind != StreamsHit::Launch || hit.rect.width() < 12)
            continue;
        const StreamLaunch& l = layout_.launches[static_cast<size_t>(hit.index)];
        const bool dark =
            !l.synthetic && view_.model() &&
            kindColor(view_.model()->node({view_.block(), l.ops.front()}).kind).lightnessF() < 0.55;
        const QString label =
            l.synthetic ? StreamsView::tr("tuple") : QString::fromStdString(l.name);
        const QString shown =
            fittedLabel(p, label, static_cast<int>(hit.rect.width() - 4), l.synthetic);
        if (shown.isEmpty())
            continue;
        p.setPen(dark ? Qt::white : kText);
        const QRectF inner = hit.rect.adjusted(2, 0, -2, 0);
        const QString detail =
            hit.rect.height() >= 32 && shown == label ? launchDetail(l) : QString();
        const QFont nameFont = p.font();
        setPixelFont(p, 10);
        if (detail.isEmpty() || p.fontMetrics().horizontalAdvance(detail) > inner.width()) {
            p.setFont(nameFont);
            p.drawText(inner, Qt::AlignCenter, shown);
            continue;
        }
        const double mid = inner.center().y();
        p.drawText(QRectF(inner.left(), mid, inner.width(), inner.height() / 2 - 1),
                   Qt::AlignHCenter | Qt::AlignTop, detail);
        p.setFont(nameFont);
        p.drawText(QRectF(inner.left(), inner.top(), inner.width(), mid - inner.top()),
                   Qt::AlignHCenter | Qt::AlignBottom, shown);
    }
    p.setClipping(false);
}

void StreamsPainter::renderArrows(QPainter& p, const Geometry& g, const TimeAxis& axis) {
    p.setClipRect(g.plot);
    p.setRenderHint(QPainter::Antialiasing, true);
    const std::vector<int> waited = view_.highlightedArrows();
    std::vector<int> recorded;
    for (int l : view_.selectedLaunches())
        for (int a : layout_.launches[static_cast<size_t>(l)].recordArrows)
            recorded.push_back(a);
    const bool anySelected = !view_.selectedLaunches().empty();
    const double markRadius = std::clamp(g.laneHeight / 8, 3.0, 4.5);
    auto centre = [&](int lane) { return laneY(g, lane) + g.laneHeight / 2; };

    // Arrows first, marks on top. Highlighted arrows last so they stay visible.
    std::vector<int> order(layout_.arrows.size());
    for (size_t a = 0; a < order.size(); ++a)
        order[a] = static_cast<int>(a);
    auto rankOf = [&](int a) {
        if (std::binary_search(waited.begin(), waited.end(), a))
            return 2;
        return std::find(recorded.begin(), recorded.end(), a) != recorded.end() ? 1 : 0;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return rankOf(a) < rankOf(b); });
    for (int index : order) {
        const StreamArrow& a = layout_.arrows[static_cast<size_t>(index)];
        const QPointF from(axis.toPixel(a.x0), centre(a.fromLane));
        const QPointF to(axis.toPixel(a.x1), centre(a.toLane));
        if (std::max(from.x(), to.x()) < g.plot.left() ||
            std::min(from.x(), to.x()) > g.plot.right())
            continue;
        const int rank = rankOf(index);
        QColor color = rank == 2 ? kWaitHighlight : rank == 1 ? kRecordHighlight : kArrow;
        if (anySelected && rank == 0)
            color.setAlpha(60);
        else if (rank == 0)
            color.setAlpha(170);
        // An S-curve that leaves the record horizontally and enters the wait horizontally;
        // a vertical line when both happen at the same x (simulated time).
        const double dy = to.y() > from.y() ? 1 : -1;
        const QPointF start = from + QPointF(0, dy * markRadius);
        const QPointF end = to - QPointF(0, dy * (markRadius + 1));
        const double bend = std::min(std::abs(end.x() - start.x()) / 2, 40.0);
        const QPointF c1(start.x() + bend, start.y() + dy * g.laneHeight * 0.3);
        const QPointF c2(end.x() - bend, end.y() - dy * g.laneHeight * 0.3);
        QPainterPath path(start);
        path.cubicTo(c1, c2, end);
        // Points on the curve by parameter (QPainterPath::pointAtPercent measures its length).
        const auto at = [&](double t) {
            const double u = 1 - t;
            return u * u * u * start + 3 * u * u * t * c1 + 3 * u * t * t * c2 + t * t * t * end;
        };
        const double width = rank == 2 ? 2.6 : rank == 1 ? 2.0 : 1.3;
        p.setPen(QPen(color, width));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        drawArrowHead(p, end, at(0.9), rank > 0 ? 9 : 7);
        StreamsHit hit{StreamsHit::Arrow, index, {}, {}};
        for (int k = 0; k <= 16; ++k)
            hit.path.push_back(at(k / 16.0));
        hits_.push_back(std::move(hit));
    }
    for (size_t m = 0; m < layout_.marks.size(); ++m) {
        const StreamMark& mark = layout_.marks[m];
        const QPointF c(axis.toPixel(mark.x), centre(mark.lane));
        if (c.x() < g.plot.left() - 6 || c.x() > g.plot.right() + 6)
            continue;
        p.setPen(QPen(Qt::white, 1));
        p.setBrush(mark.record ? kRecordMark : kWaitMark);
        if (mark.record)
            p.drawEllipse(c, markRadius, markRadius);
        else
            drawDiamond(p, c, markRadius + 1);
        hits_.push_back({StreamsHit::Mark,
                         static_cast<int>(m),
                         QRectF(c.x() - markRadius - 2, c.y() - markRadius - 2, 2 * markRadius + 4,
                                2 * markRadius + 4),
                         {}});
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setClipping(false);
}

// The legend's entries, wrapped into rows that fit `width`; draws them when `p` is given.
// Returns the legend's height.
int StreamsPainter::renderLegend(QPainter* p, const QRect& area) const {
    enum class Swatch { Kind, Merged, Synthetic, Record, Wait, Event, Waited, Barrier, Sync };
    struct Entry {
        Swatch swatch;
        QString text;
        ir::NodeKind kind = ir::NodeKind::Conv;
    };
    // The operator kinds the block launches (in the palette's order), merged launches.
    std::vector<bool> used(ir::kNodeKindCount, false);
    bool merged = false;
    for (const StreamLaunch& l : layout_.launches) {
        if (!l.synthetic && view_.model())
            used[static_cast<size_t>(view_.model()->node({view_.block(), l.ops.front()}).kind)] =
                true;
        merged = merged || l.ops.size() > 1;
    }
    std::vector<Entry> entries;
    for (size_t k = 0; k < used.size(); ++k)
        if (used[k])
            entries.push_back({Swatch::Kind, kindLabel(static_cast<ir::NodeKind>(k)),
                               static_cast<ir::NodeKind>(k)});
    if (merged)
        entries.push_back({Swatch::Merged, StreamsView::tr("merged convolution")});
    entries.push_back({Swatch::Synthetic, StreamsView::tr("synthetic tuple")});
    entries.push_back({Swatch::Record, StreamsView::tr("record")});
    entries.push_back({Swatch::Wait, StreamsView::tr("wait")});
    entries.push_back({Swatch::Event, StreamsView::tr("event (record → wait)")});
    entries.push_back({Swatch::Waited, StreamsView::tr("waited on by the selection")});
    entries.push_back({Swatch::Barrier, StreamsView::tr("barrier")});
    entries.push_back({Swatch::Sync, StreamsView::tr("device sync")});

    QFont font = view_.font();
    font.setPixelSize(12);
    const QFontMetrics fm(font);
    constexpr int kSwatch = 24, kGap = 14, kRow = 18;
    const int left = area.left() + 8, right = area.right() - 8;
    int rows = 1;
    for (int x = left; const Entry& e : entries) {
        const int w = kSwatch + fm.horizontalAdvance(e.text);
        if (x > left && x + w > right) {
            ++rows;
            x = left;
        }
        x += w + kGap;
    }
    const int height = rows * kRow + 10;
    if (p == nullptr)
        return height;

    p->save();
    p->setFont(font);
    p->setRenderHint(QPainter::Antialiasing, true);
    int x = left, y = area.bottom() - height + 6;
    for (const Entry& e : entries) {
        const int w = kSwatch + fm.horizontalAdvance(e.text);
        if (x > left && x + w > right) {
            x = left;
            y += kRow;
        }
        const double cy = y + 7;
        switch (e.swatch) {
        case Swatch::Kind:
        case Swatch::Merged:
        case Swatch::Synthetic: {
            const bool kind = e.swatch != Swatch::Synthetic;
            p->setPen(kind ? QPen(kindColor(e.kind).darker(160), 1)
                           : QPen(QColor(0x50, 0x50, 0x50), 1.2, Qt::DashLine));
            p->setBrush(kind ? kindColor(e.kind) : QColor(Qt::white));
            p->drawRect(QRectF(x, y + 1, 16, 12));
            if (e.swatch == Swatch::Merged) {
                p->setBrush(Qt::NoBrush);
                p->setPen(QPen(kindColor(e.kind).lighter(170), 1));
                p->drawRect(QRectF(x + 2, y + 3, 12, 8));
            }
            break;
        }
        case Swatch::Record:
            p->setPen(QPen(Qt::white, 1));
            p->setBrush(kRecordMark);
            p->drawEllipse(QPointF(x + 8, cy), 4, 4);
            break;
        case Swatch::Wait:
            p->setPen(QPen(Qt::white, 1));
            p->setBrush(kWaitMark);
            drawDiamond(*p, QPointF(x + 8, cy), 5);
            break;
        case Swatch::Event:
        case Swatch::Waited: {
            const QColor c = e.swatch == Swatch::Event ? kArrow : kWaitHighlight;
            p->setPen(QPen(c, e.swatch == Swatch::Event ? 1.5 : 2.6));
            p->drawLine(QPointF(x, cy), QPointF(x + 14, cy));
            p->setPen(Qt::NoPen);
            p->setBrush(c);
            drawArrowHead(*p, QPointF(x + 19, cy), QPointF(x, cy), 7);
            break;
        }
        case Swatch::Barrier:
        case Swatch::Sync:
            p->setPen(e.swatch == Swatch::Barrier ? QPen(kBarrier, 2)
                                                  : QPen(kSync, 2, Qt::DashLine));
            p->drawLine(QPointF(x + 8, y - 1), QPointF(x + 8, y + 15));
            break;
        }
        p->setPen(kText);
        p->drawText(x + kSwatch, y + 11, e.text);
        x += w + kGap;
    }
    p->restore();
    return height;
}

} // namespace ios::views
