// SPDX-License-Identifier: Apache-2.0
// A translucent note over a view whose result is not the current settings' ("Out of date —
// F5 to run"). Cover mode also takes the view's mouse and wheel input, so a click on a stale
// kernel or stage can select nothing; Banner mode draws a strip along the bottom and lets input
// through (the graph and the Memory view, whose operators are the open model's).
#pragma once

#include <QWidget>

namespace ios::gui {

class StaleOverlay : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Cover, Banner };

    // Becomes a child of `target` and follows its size; hidden until setMessage.
    StaleOverlay(QWidget* target, Mode mode);

    // Shows the overlay with this text; empty hides it.
    void setMessage(const QString& text);
    QString message() const { return message_; }
    Mode mode() const { return mode_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    void follow();

    QWidget* target_;
    Mode mode_;
    QString message_;
};

} // namespace ios::gui
