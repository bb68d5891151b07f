// SPDX-License-Identifier: Apache-2.0
// The look shared by the QPainter charts and views: text and grid colours, pixel-sized fonts,
// and chart headings (a bold title and a muted subtitle, both wrapped to the chart's width, so
// narrow charts lose no words).
#pragma once

#include "chart_labels.h"

#include <QColor>
#include <QFont>
#include <QPainter>
#include <QString>

namespace ios::views {

inline const QColor kChartText(0x20, 0x20, 0x20);
inline const QColor kChartMuted(0x60, 0x60, 0x60);
inline const QColor kChartGrid(0xe0, 0xe0, 0xe0);
inline constexpr int kChartLabelPx = 12; // axis labels, row names, values

// The application's font at a pixel size (for measuring text where no painter is at hand).
QFont pixelFont(int px, bool bold = false, bool italic = false);

inline void setPixelFont(QPainter& p, int px, bool bold = false, bool italic = false) {
    QFont f = p.font();
    f.setPixelSize(px);
    f.setBold(bold);
    f.setItalic(italic);
    p.setFont(f);
}

struct ChartHeading {
    QString title;
    QString subtitle;
    int titlePx = 14;
    int subtitlePx = 11;

    // Height of both, wrapped to `width`, with the gap below them.
    int height(int width) const;
    // Draws them at the top of `area` through `labels`; returns height(area.width()).
    int draw(QPainter& p, const QRect& area, ChartLabels& labels) const;
};

} // namespace ios::views
