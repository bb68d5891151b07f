// SPDX-License-Identifier: Apache-2.0
// One operator box in the graph scene, labelled as Netron does: operator type and key
// parameters, then shape and parameters, then the name elided from the left. Level of
// detail: a plain box when too small to read, the type alone when small, every line when
// readable; text is elided to the box, so nothing spills at any zoom.
#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QPen>
#include <QString>

namespace ios::views {

class OperatorItem : public QGraphicsItem {
public:
    // How the operator relates to the current selection (distinct outlines).
    enum class Emphasis { None, StageContext, Selected };

    struct Label {
        QString title;  // "Conv 3×3/2 +Relu"
        QString detail; // "64×56×56 · pad 1 · 118 MFLOP"
        QString name;   // full operator name, elided from the left when drawn
    };

    OperatorItem(int flatIndex, Label label, QColor kindColor, QSizeF size);

    int flatIndex() const { return flatIndex_; }
    const QString& name() const { return label_.name; }
    const Label& label() const { return label_; }
    void setFill(const QColor& fill, const QString& badge);
    QColor fill() const { return fill_; }
    const QString& badge() const { return badge_; }
    void setEmphasis(Emphasis emphasis);
    Emphasis emphasis() const { return emphasis_; }
    bool isHighlighted() const { return emphasis_ != Emphasis::None; }
    // The outline paint() draws, for the given selection state (tests compare styles).
    QPen outlinePen(bool selectedInScene) const;

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    static constexpr int Type = UserType + 1;
    int type() const override { return Type; }

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    int flatIndex_;
    Label label_;
    QColor kindColor_;
    QColor fill_;
    QString badge_;
    QSizeF size_;
    Emphasis emphasis_ = Emphasis::None;
    bool hovered_ = false;
};

} // namespace ios::views
