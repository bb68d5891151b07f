// SPDX-License-Identifier: Apache-2.0
#include "stale_overlay.h"

#include <QEvent>
#include <QPainter>

namespace ios::gui {

namespace {
constexpr int kPadding = 10;
}

StaleOverlay::StaleOverlay(QWidget* target, Mode mode)
    : QWidget(target), target_(target), mode_(mode) {
    setObjectName(QStringLiteral("staleOverlay"));
    // A banner must not steal the clicks of the view under it (the open model's operators).
    setAttribute(Qt::WA_TransparentForMouseEvents, mode == Mode::Banner);
    setFocusPolicy(Qt::NoFocus);
    target->installEventFilter(this);
    hide();
}

void StaleOverlay::setMessage(const QString& text) {
    message_ = text;
    setToolTip(text);
    if (text.isEmpty()) {
        hide();
        return;
    }
    follow();
    raise();
    show();
    update();
}

void StaleOverlay::follow() {
    const QRect all = target_->rect();
    if (mode_ == Mode::Cover) {
        setGeometry(all);
        return;
    }
    // One line per line of the message (the second says what changed).
    const int lines = static_cast<int>(message_.count(QLatin1Char('\n'))) + 1;
    const int h = lines * fontMetrics().height() + 2 * kPadding;
    // Along the bottom: the views keep their tool rows at the top.
    setGeometry(all.left(), all.bottom() + 1 - h, all.width(), h);
}

bool StaleOverlay::eventFilter(QObject* watched, QEvent* event) {
    if (watched == target_ && (event->type() == QEvent::Resize || event->type() == QEvent::Show)) {
        follow();
        raise();
    }
    return QWidget::eventFilter(watched, event);
}

void StaleOverlay::paintEvent(QPaintEvent*) {
    QPainter p(this);
    QColor veil = palette().color(QPalette::Window);
    veil.setAlpha(mode_ == Mode::Cover ? 170 : 225);
    p.fillRect(rect(), veil);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    const QFontMetrics fm(bold);
    // The text wraps inside the box, the box (text + padding) inside the widget.
    const QRect room = rect().adjusted(2 * kPadding, kPadding, -2 * kPadding, -kPadding);
    const QRect text = fm.boundingRect(room, Qt::AlignCenter | Qt::TextWordWrap, message_);
    const QColor ink(0xa1, 0x5c, 0x00);
    if (mode_ == Mode::Cover) {
        p.setPen(ink);
        p.setBrush(palette().color(QPalette::Base));
        p.drawRoundedRect(text.adjusted(-kPadding, -kPadding / 2, kPadding, kPadding / 2), 6, 6);
    }
    p.setPen(ink);
    p.drawText(mode_ == Mode::Cover ? text : rect(), Qt::AlignCenter | Qt::TextWordWrap, message_);
}

} // namespace ios::gui
