// SPDX-License-Identifier: Apache-2.0
#include "widget_picture.h"

#include "chart_style.h"
#include "charts.h"

#include <QLabel>
#include <QPainter>
#include <QTextDocument>
#include <algorithm>

namespace ios::views {

WidgetPicture::WidgetPicture(const QWidget& view, const QRect& area)
    : view_(view), area_(area), sx_(static_cast<double>(area.width()) / std::max(view.width(), 1)),
      sy_(static_cast<double>(area.height()) / std::max(view.height(), 1)) {}

QRect WidgetPicture::place(const QWidget& child) const {
    const QRect r(child.mapTo(&view_, QPoint(0, 0)), child.size());
    return QRect(area_.left() + static_cast<int>(r.left() * sx_),
                 area_.top() + static_cast<int>(r.top() * sy_), static_cast<int>(r.width() * sx_),
                 static_cast<int>(r.height() * sy_));
}

void WidgetPicture::paintLabel(QPainter& p, const QLabel& label) const {
    QTextDocument text;
    text.setHtml(label.text());
    text.setTextWidth(area_.width() - 20);
    p.save();
    p.translate(place(label).topLeft() + QPoint(10, 0));
    text.drawContents(&p);
    p.restore();
}

void WidgetPicture::paintChart(QPainter& p, const ChartWidget& chart) const {
    const QRect r = place(chart);
    if (chart.placeholder().isEmpty()) {
        chart.render(p, r.adjusted(16, 12, -16, -12));
        return;
    }
    setPixelFont(p, 13);
    p.setPen(Qt::darkGray);
    p.drawText(r, Qt::AlignCenter | Qt::TextWordWrap, chart.placeholder());
}

} // namespace ios::views
