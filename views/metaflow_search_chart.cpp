// SPDX-License-Identifier: Apache-2.0
#include "metaflow_search_chart.h"

#include "chart_axes.h"
#include "chart_style.h"
#include "palette.h"
#include "units.h"

#include <QFontMetrics>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace ios::views {

namespace {

constexpr int kLabelPx = 12;
constexpr int kPanelTitlePx = 13;
const QColor kBestColor(0x1f, 0x77, 0xb4);
const QColor kPoppedColor(0xd6, 0x27, 0x28);
const QColor kQueueColor(0x2c, 0xa0, 0x2c);

ValueAxis costAxis(const std::vector<SearchTracePoint>& points, double pixels) {
    double lo = 1e300, hi = 0;
    for (const SearchTracePoint& p : points) {
        lo = std::min({lo, p.bestMs, p.poppedMs});
        hi = std::max({hi, p.bestMs, p.poppedMs});
    }
    if (points.empty())
        lo = hi = 0;
    const int ticks = std::clamp(static_cast<int>(pixels / 45), 2, 6);
    const AxisUnit unit = durationUnit(hi / 1000);
    const AxisUnit ms{unit.per * 1000, unit.name}; // values are in ms
    const double pad = std::max((hi - lo) * 0.1, hi * 1e-3);
    return ValueAxis::of(std::max(0.0, lo - pad), hi + pad, ticks, ms);
}

ValueAxis countAxis(double hi, double pixels) {
    const int ticks = std::clamp(static_cast<int>(pixels / 45), 2, 6);
    return ValueAxis::of(0, std::max(hi, 1.0), ticks, countUnit(hi));
}

} // namespace

MetaflowSearchChart::MetaflowSearchChart(QWidget* parent) : ChartWidget(parent) {
    setMouseTracking(true);
    setPlaceholder(tr("Run the search to see its progress."));
}

void MetaflowSearchChart::setData(QString title, std::vector<SearchTracePoint> points) {
    title_ = std::move(title);
    points_ = std::move(points);
    placeholder_.clear();
    update();
}

QString MetaflowSearchChart::costTitle() const {
    double hi = 0;
    for (const SearchTracePoint& p : points_)
        hi = std::max({hi, p.bestMs, p.poppedMs});
    return durationUnit(hi / 1000).title(tr("Cost of the whole graph"));
}

std::vector<double> MetaflowSearchChart::xs() const {
    std::vector<double> out;
    for (const SearchTracePoint& p : points_)
        out.push_back(p.expanded);
    return out;
}

MetaflowSearchChart::Layout MetaflowSearchChart::layout(const QRect& area) const {
    Layout l;
    const QFont font = pixelFont(kLabelPx);
    const int lineH = QFontMetrics(font).height();
    const int headingH = ChartHeading{title_, {}, 14}.height(area.width());
    l.legend = QRect(area.left(), area.bottom() - lineH - 2, area.width(), lineH + 2);
    // Per panel: its title above, the x ticks and the x title below.
    const int top = area.top() + headingH;
    const int bottom = l.legend.top() - 4;
    const int panelH = (bottom - top) / 2;
    double queueHi = 0;
    for (const SearchTracePoint& p : points_)
        queueHi = std::max(queueHi, p.queued);
    for (int panel = 0; panel < 2; ++panel) {
        const int pTop = top + panel * panelH + lineH + 8 + lineH / 2;
        const int pBottom = top + (panel + 1) * panelH - 2 * lineH - 8;
        const double h = std::max(pBottom - pTop, 10);
        const ValueAxis axis = panel == 0 ? costAxis(points_, h) : countAxis(queueHi, h);
        QStringList texts;
        for (double v : axis.ticks())
            texts << axis.label(v);
        const int margin = widestLabel(font, texts) + 8;
        l.panelLeft[panel] = area.left();
        l.plots[panel] = QRectF(area.left() + margin, pTop, area.width() - margin - 24, h);
    }
    return l;
}

void MetaflowSearchChart::render(QPainter& p, const QRect& area) const {
    ChartLabels& labels = beginLabels(p, area);
    p.setRenderHint(QPainter::Antialiasing, true);
    ChartHeading{title_, {}, 14}.draw(p, area, labels);
    const Layout l = layout(area);
    const std::vector<double> x = xs();
    const double xHi = x.empty() ? 1.0 : std::max(x.back(), 1.0);
    double queueHi = 0;
    for (const SearchTracePoint& pt : points_)
        queueHi = std::max(queueHi, pt.queued);
    const ValueAxis xAxis = ValueAxis::of(0, xHi, 6, countUnit(xHi));
    for (int panel = 0; panel < 2; ++panel) {
        const QRectF plot = l.plots[panel];
        const ValueAxis axis =
            panel == 0 ? costAxis(points_, plot.height()) : countAxis(queueHi, plot.height());
        setPixelFont(p, kPanelTitlePx, true);
        p.setPen(kChartText);
        const double titleH = p.fontMetrics().height();
        const double tickH = QFontMetrics(pixelFont(kLabelPx)).height();
        labels.draw(p,
                    QRectF(l.panelLeft[panel], plot.top() - titleH - tickH / 2 - 4,
                           plot.right() - l.panelLeft[panel], titleH),
                    Qt::AlignLeft | Qt::AlignVCenter,
                    panel == 0 ? costTitle()
                               : countUnit(queueHi).title(tr("Queue (graphs waiting)")));
        setPixelFont(p, kLabelPx);
        std::vector<double> ys;
        QStringList texts;
        for (double v : axis.ticks()) {
            ys.push_back(axis.toPixel(v, plot.bottom(), plot.top()));
            texts << axis.label(v);
        }
        drawYTicks(p, labels, plot, ys, texts);
        std::vector<double> tx;
        QStringList xTexts;
        for (double v : xAxis.ticks()) {
            tx.push_back(xAxis.toPixel(v, plot.left(), plot.right()));
            xTexts << xAxis.label(v);
        }
        drawXTicks(p, labels, plot, tx, xTexts, 4);
        p.setPen(kChartText);
        labels.draw(p, QRectF(plot.left(), plot.bottom() + tickH + 6, plot.width(), tickH),
                    Qt::AlignHCenter, xAxis.unit.title(tr("Graphs expanded")));
        p.setPen(QColor(0xa0, 0xa0, 0xa0));
        p.setBrush(Qt::NoBrush);
        p.drawRect(plot);
        auto line = [&](auto value, const QColor& c, double width) {
            QPolygonF poly;
            for (size_t i = 0; i < points_.size(); ++i)
                poly << QPointF(xAxis.toPixel(x[i], plot.left(), plot.right()),
                                axis.toPixel(value(points_[i]), plot.bottom(), plot.top()));
            p.setPen(QPen(c, width));
            p.drawPolyline(poly);
            if (poly.size() < 60) { // few reports (a quick search): show each one
                p.setBrush(c);
                for (const QPointF& pt : poly)
                    p.drawEllipse(pt, 2.5, 2.5);
                p.setBrush(Qt::NoBrush);
            }
        };
        if (panel == 0) {
            line([](const SearchTracePoint& pt) { return pt.poppedMs; },
                 QColor(kPoppedColor.red(), kPoppedColor.green(), kPoppedColor.blue(), 160), 1.2);
            line([](const SearchTracePoint& pt) { return pt.bestMs; }, kBestColor, 2.5);
        } else {
            line([](const SearchTracePoint& pt) { return pt.queued; }, kQueueColor, 2.0);
        }
    }
    setPixelFont(p, kLabelPx);
    const QFontMetrics fm = p.fontMetrics();
    int lx = l.legend.left();
    const double cy = l.legend.center().y();
    // The cost panel's two lines (the queue panel has one, named by its title); a swatch only
    // with its text.
    for (const auto& [c, text] : {std::pair{kBestColor, tr("best graph")},
                                  std::pair{kPoppedColor, tr("graph just popped")}}) {
        const int w = fm.horizontalAdvance(text) + 2;
        const QRectF box(lx + 28, l.legend.top(), w, l.legend.height());
        p.setPen(kChartText);
        if (!labels.draw(p, box, Qt::AlignLeft | Qt::AlignVCenter, text))
            break;
        p.setPen(QPen(c, 2.5));
        p.drawLine(QPointF(lx, cy), QPointF(lx + 22, cy));
        lx += 28 + w + 18;
    }
}

QString MetaflowSearchChart::tooltipAt(const QPointF& pos) const {
    if (points_.empty())
        return {};
    const Layout l = layout(chartArea());
    const QRectF plot = l.plots[0].united(l.plots[1]);
    if (!plot.contains(pos))
        return {};
    const std::vector<double> x = xs();
    const double xHi = std::max(x.back(), 1.0);
    const ValueAxis xAxis = ValueAxis::of(0, xHi, 6, countUnit(xHi));
    size_t best = 0;
    double bestD = 1e300;
    for (size_t i = 0; i < x.size(); ++i) {
        const double d = std::abs(xAxis.toPixel(x[i], plot.left(), plot.right()) - pos.x());
        if (d < bestD) {
            bestD = d;
            best = i;
        }
    }
    const SearchTracePoint& pt = points_[best];
    return tr("%1 graphs expanded · queue %2<br>best %3 · popped %4")
        .arg(formatCount(pt.expanded), formatCount(pt.queued), formatMs(pt.bestMs),
             formatMs(pt.poppedMs));
}

} // namespace ios::views
