#include "operator_item.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace ios::views {

OperatorItem::OperatorItem(int flatIndex, QString name, QString detail, QColor kindColor,
                           QSizeF size)
    : flatIndex_(flatIndex), name_(std::move(name)), detail_(std::move(detail)),
      kindColor_(kindColor), fill_(kindColor), size_(size) {
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setCacheMode(DeviceCoordinateCache);
}

void OperatorItem::setFill(const QColor& fill, const QString& badge) {
    fill_ = fill;
    badge_ = badge;
    update();
}

void OperatorItem::setHighlighted(bool on) {
    if (highlighted_ == on)
        return;
    highlighted_ = on;
    setZValue(on ? 2 : 0);
    update();
}

QRectF OperatorItem::boundingRect() const {
    return QRectF(-size_.width() / 2 - 3, -size_.height() / 2 - 3, size_.width() + 6,
                  size_.height() + 6);
}

void OperatorItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const QRectF r(-size_.width() / 2, -size_.height() / 2, size_.width(), size_.height());
    const qreal lod =
        QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
    const bool selected = option->state & QStyle::State_Selected;
    QColor fill = fill_;
    if (hovered_)
        fill = fill.lighter(115);
    QPen pen(selected || highlighted_ ? QColor(0xff, 0xd7, 0x00) : fill.darker(160));
    pen.setWidthF(selected || highlighted_ ? 4.0 : 1.0);
    pen.setCosmetic(selected || highlighted_);
    painter->setPen(pen);
    painter->setBrush(fill);
    if (lod < 0.35) { // too small to read: a plain box is all that helps
        painter->drawRect(r);
        return;
    }
    painter->drawRoundedRect(r, 5, 5);
    // Kind strip on the left, so kind stays visible when filled by stage colour.
    painter->setPen(Qt::NoPen);
    painter->setBrush(kindColor_);
    painter->drawRect(QRectF(r.left() + 1, r.top() + 4, 6, r.height() - 8));

    const bool dark = fill.lightnessF() < 0.55;
    painter->setPen(dark ? Qt::white : QColor(0x20, 0x20, 0x20));
    QFont font = painter->font();
    font.setPixelSize(13);
    font.setBold(true);
    painter->setFont(font);
    const QRectF text = r.adjusted(11, 3, -4, -3);
    painter->drawText(text, Qt::AlignLeft | Qt::AlignTop,
                      painter->fontMetrics().elidedText(name_, Qt::ElideMiddle,
                                                        static_cast<int>(text.width() - 30)));
    font.setBold(false);
    font.setPixelSize(11);
    painter->setFont(font);
    painter->drawText(
        text, Qt::AlignLeft | Qt::AlignBottom,
        painter->fontMetrics().elidedText(detail_, Qt::ElideRight, static_cast<int>(text.width())));
    if (!badge_.isEmpty())
        painter->drawText(text, Qt::AlignRight | Qt::AlignTop, badge_);
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
