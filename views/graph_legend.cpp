// SPDX-License-Identifier: Apache-2.0
#include "graph_legend.h"

#include <QPainter>

namespace ios::views {

namespace {
constexpr int kPad = 8;
constexpr int kSwatch = 14;
} // namespace

GraphLegend::GraphLegend(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("graphLegend"));
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
    setToolTip(tr("Legend (L hides it)"));
}

void GraphLegend::setEntries(std::vector<Entry> entries) {
    entries_ = std::move(entries);
    updateGeometry();
    update();
}

QSize GraphLegend::sizeHint() const {
    const QFontMetrics fm(font());
    int width = 0;
    for (const auto& e : entries_)
        width = std::max(width, fm.horizontalAdvance(e.second));
    const int rows = static_cast<int>(entries_.size());
    return {width + kSwatch + 3 * kPad, rows * (fm.height() + 4) + 2 * kPad};
}

void GraphLegend::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    p.setPen(palette().mid().color());
    p.drawLine(0, 0, 0, height());
    const QFontMetrics fm(font());
    int y = kPad;
    for (const auto& [color, label] : entries_) {
        if (color.alpha() > 0) {
            p.setPen(color.darker(150));
            p.setBrush(color);
            p.drawRect(kPad, y + 2, kSwatch, fm.height() - 4);
        }
        p.setPen(palette().text().color());
        p.drawText(kPad + (color.alpha() > 0 ? kSwatch + kPad : 0), y + fm.ascent(), label);
        y += fm.height() + 4;
    }
}

} // namespace ios::views
