// SPDX-License-Identifier: Apache-2.0
#include "chart_style.h"

#include <QFontMetrics>
#include <QGuiApplication>

namespace ios::views {

QFont pixelFont(int px, bool bold, bool italic) {
    QFont f = QGuiApplication::font();
    f.setPixelSize(px);
    f.setBold(bold);
    f.setItalic(italic);
    return f;
}

namespace {
constexpr int kGap = 6;

int wrappedHeight(const QString& text, const QFont& font, int width) {
    if (text.isEmpty())
        return 0;
    return QFontMetrics(font)
        .boundingRect(QRect(0, 0, std::max(width, 1), 10000), Qt::TextWordWrap, text)
        .height();
}
} // namespace

int ChartHeading::height(int width) const {
    return wrappedHeight(title, pixelFont(titlePx, true), width) +
           wrappedHeight(subtitle, pixelFont(subtitlePx), width) + kGap;
}

int ChartHeading::draw(QPainter& p, const QRect& area, ChartLabels& labels) const {
    const int titleHeight = wrappedHeight(title, pixelFont(titlePx, true), area.width());
    p.setFont(pixelFont(titlePx, true));
    p.setPen(kChartText);
    labels.draw(p, QRect(area.left(), area.top(), area.width(), titleHeight),
                Qt::AlignLeft | Qt::TextWordWrap, title);
    const int subtitleHeight = wrappedHeight(subtitle, pixelFont(subtitlePx), area.width());
    p.setFont(pixelFont(subtitlePx));
    p.setPen(kChartMuted);
    labels.draw(p, QRect(area.left(), area.top() + titleHeight, area.width(), subtitleHeight),
                Qt::AlignLeft | Qt::TextWordWrap, subtitle);
    return titleHeight + subtitleHeight + kGap;
}

} // namespace ios::views
