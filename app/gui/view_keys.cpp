// SPDX-License-Identifier: Apache-2.0
#include "view_keys.h"

#include "result_view.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTextEdit>

namespace ios::gui {

ViewKeyRouter::ViewKeyRouter(QTabWidget* tabs) : QObject(tabs), tabs_(tabs) {
    qApp->installEventFilter(this);
}

ViewKeyRouter::~ViewKeyRouter() {
    qApp->removeEventFilter(this);
}

bool ViewKeyRouter::takesText(const QWidget* focus) {
    if (focus == nullptr)
        return false;
    if (qobject_cast<const QLineEdit*>(focus) || qobject_cast<const QAbstractSpinBox*>(focus))
        return true;
    if (const auto* text = qobject_cast<const QTextEdit*>(focus))
        return !text->isReadOnly();
    if (const auto* text = qobject_cast<const QPlainTextEdit*>(focus))
        return !text->isReadOnly();
    // A combo box finds its items by their first letters.
    return qobject_cast<const QComboBox*>(focus) != nullptr;
}

bool ViewKeyRouter::eventFilter(QObject* watched, QEvent* event) {
    if (routing_ || event->type() != QEvent::KeyPress || !watched->isWidgetType())
        return false;
    auto* widget = static_cast<QWidget*>(watched);
    if (widget->window() != tabs_->window())
        return false; // dialogs keep their keys
    const auto* key = static_cast<QKeyEvent*>(event);
    const QString text = key->text();
    if (key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier) ||
        text.size() != 1 ||
        !(text.front().isLetterOrNumber() || QStringLiteral("+-=").contains(text)))
        return false;
    if (takesText(QApplication::focusWidget()))
        return false;
    views::ResultView* view = views::asResultView(tabs_->currentWidget());
    QWidget* target = view != nullptr ? view->keyTarget() : nullptr;
    if (target == nullptr || !target->isVisible() || target == widget ||
        target->isAncestorOf(widget))
        return false; // nothing to route to, or it is delivered there anyway
    QKeyEvent copy(key->type(), key->key(), key->modifiers(), text, key->isAutoRepeat(),
                   static_cast<quint16>(key->count()));
    routing_ = true;
    QCoreApplication::sendEvent(target, &copy);
    routing_ = false;
    return copy.isAccepted(); // not a key of the view: the focused widget has it
}

} // namespace ios::gui
