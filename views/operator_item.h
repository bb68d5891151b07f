// One operator box in the graph scene. Draws a plain rectangle when zoomed out (level of
// detail) so NasNet-sized graphs stay fluid; name, kind and shape when readable.
#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QString>

namespace ios::views {

class OperatorItem : public QGraphicsItem {
public:
    OperatorItem(int flatIndex, QString name, QString detail, QColor kindColor, QSizeF size);

    int flatIndex() const { return flatIndex_; }
    const QString& name() const { return name_; }
    void setFill(const QColor& fill, const QString& badge);
    void setHighlighted(bool on);
    bool isHighlighted() const { return highlighted_; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    static constexpr int Type = UserType + 1;
    int type() const override { return Type; }

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    int flatIndex_;
    QString name_;
    QString detail_;
    QColor kindColor_;
    QColor fill_;
    QString badge_;
    QSizeF size_;
    bool highlighted_ = false;
    bool hovered_ = false;
};

} // namespace ios::views
