// SPDX-License-Identifier: Apache-2.0
#include "operator_item.h"

#include "palette.h"
#include "units.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace ios::views {

// Selected: a thick black outline; in the highlighted stage: a dashed violet one (palette.h), so
// a stage and the operator picked inside it read apart (issue 17 item 3), and neither reads as
// a stage's fill (issue 32).

OperatorItem::OperatorItem(int flatIndex, Label label, QColor kindColor, QSizeF size)
    : flatIndex_(flatIndex), label_(std::move(label)), kindColor_(kindColor), fill_(kindColor),
      size_(size) {
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    // Device-coordinate cache: re-rendered per zoom level, so text stays sharp when zoomed in.
    setCacheMode(DeviceCoordinateCache);
}

void OperatorItem::setFill(const QColor& fill, const QString& badge) {
    fill_ = fill;
    badge_ = badge;
    update();
}

void OperatorItem::setEmphasis(Emphasis emphasis) {
    if (emphasis_ == emphasis)
        return;
    emphasis_ = emphasis;
    setZValue(emphasis == Emphasis::Selected ? 3 : emphasis == Emphasis::StageContext ? 2 : 0);
    update();
}

QPen OperatorItem::outlinePen(bool selectedInScene) const {
    if (selectedInScene || emphasis_ == Emphasis::Selected) {
        QPen pen(selectionColor(), 4.0);
        pen.setCosmetic(true);
        return pen;
    }
    if (emphasis_ == Emphasis::StageContext) {
        QPen pen(stageContextColor(), 2.5, Qt::DashLine);
        pen.setCosmetic(true);
        return pen;
    }
    return QPen(fill_.darker(160), 1.0);
}

QRectF OperatorItem::boundingRect() const {
    return QRectF(-size_.width() / 2 - 3, -size_.height() / 2 - 3, size_.width() + 6,
                  size_.height() + 6);
}

void OperatorItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const QRectF r(-size_.width() / 2, -size_.height() / 2, size_.width(), size_.height());
    const qreal lod =
        QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
    QColor fill = fill_;
    if (hovered_)
        fill = fill.lighter(115);
    painter->setPen(outlinePen(option->state & QStyle::State_Selected));
    painter->setBrush(fill);
    if (lod < 0.3) { // too small to read: a plain box is all that helps
        painter->drawRect(r);
        return;
    }
    painter->drawRoundedRect(r, 5, 5);
    // Kind strip on the left, so kind stays visible when filled by stage colour.
    painter->setPen(Qt::NoPen);
    painter->setBrush(kindColor_);
    painter->drawRect(QRectF(r.left() + 1, r.top() + 4, 6, r.height() - 8));

    const bool dark = fill.lightnessF() < 0.55;
    const QColor ink = dark ? QColor(Qt::white) : QColor(0x20, 0x20, 0x20);
    const QRectF text = r.adjusted(11, 3, -5, -3);
    QFont font = painter->font();
    font.setBold(true);
    QString badge = badge_;
    if (lod < 0.7) {
        // Small on screen: the type alone, in a larger font, centred; the badge stays.
        font.setPixelSize(17);
        painter->setFont(font);
        painter->setPen(ink);
        const QFontMetrics fm(font);
        const int badgeWidth = badge.isEmpty() ? 0 : fm.horizontalAdvance(badge) + 6;
        const QRectF titleRect = text.adjusted(0, 0, -badgeWidth, 0);
        // Too long for the box: the type without its window ("SepConv×2", not "SepConv…").
        QString title = label_.title;
        if (fm.horizontalAdvance(title) > titleRect.width())
            title = title.section(QLatin1Char(' '), 0, 0);
        painter->drawText(
            titleRect, Qt::AlignLeft | Qt::AlignVCenter,
            fm.elidedText(title, Qt::ElideRight, static_cast<int>(titleRect.width())));
        if (!badge.isEmpty())
            painter->drawText(text, Qt::AlignRight | Qt::AlignVCenter, badge);
        return;
    }
    font.setPixelSize(13);
    painter->setFont(font);
    painter->setPen(ink);
    const QFontMetrics bold(font);
    const int badgeWidth = badge.isEmpty() ? 0 : bold.horizontalAdvance(badge) + 6;
    const qreal line = text.height() / 3;
    const QRectF first(text.left(), text.top(), text.width(), line);
    painter->drawText(
        first.adjusted(0, 0, -badgeWidth, 0), Qt::AlignLeft | Qt::AlignVCenter,
        bold.elidedText(label_.title, Qt::ElideRight, static_cast<int>(text.width()) - badgeWidth));
    if (!badge.isEmpty())
        painter->drawText(first, Qt::AlignRight | Qt::AlignVCenter, badge);
    font.setBold(false);
    font.setPixelSize(11);
    painter->setFont(font);
    const QFontMetrics small(font);
    painter->drawText(
        QRectF(text.left(), text.top() + line, text.width(), line),
        Qt::AlignLeft | Qt::AlignVCenter,
        small.elidedText(label_.detail, Qt::ElideRight, static_cast<int>(text.width())));
    QColor faint = ink;
    faint.setAlphaF(0.75f);
    painter->setPen(faint);
    painter->drawText(QRectF(text.left(), text.top() + 2 * line, text.width(), line),
                      Qt::AlignLeft | Qt::AlignVCenter,
                      elideLeft(label_.name, small, static_cast<int>(text.width())));
}

void OperatorItem::hoverEnterEvent(QGraphicsSceneHoverEvent*) {
    hovered_ = true;
    update();
}

void OperatorItem::hoverLeaveEvent(QGraphicsSceneHoverEvent*) {
    hovered_ = false;
    update();
}

} // namespace ios::views
