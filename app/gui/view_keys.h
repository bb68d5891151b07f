// SPDX-License-Identifier: Apache-2.0
// A view's keys work while it is the visible tab, whatever has focus (issue 32: W/A/S/D did
// nothing on the timeline until the chart was clicked). Installed on the application, it
// sends a plain key (a letter, digit or + − =, without Ctrl, Alt or Meta) pressed anywhere in
// the main window to the current tab's key target (views::ResultView::keyTarget) when it
// handles it. Text fields and combo boxes keep their letters; keys with other meanings in the
// focused widget (arrows, Tab, Enter, Esc) stay there.
#pragma once

#include <QObject>

class QTabWidget;
class QWidget;

namespace ios::gui {

class ViewKeyRouter : public QObject {
    Q_OBJECT
public:
    // Routes for the window of `tabs`; a child of it.
    explicit ViewKeyRouter(QTabWidget* tabs);
    ~ViewKeyRouter() override;

    // Whether `focus` keeps its letters (a text field or combo box) rather than the view.
    static bool takesText(const QWidget* focus);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QTabWidget* tabs_;
    bool routing_ = false; // the routed copy is delivered (and propagated) through us too
};

} // namespace ios::gui
