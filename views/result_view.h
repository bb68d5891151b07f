// SPDX-License-Identifier: Apache-2.0
// What every tab of the explorer is (issue 30): a widget that shows one kind of result, can be
// drawn as a picture (File ▸ Export ▸ Picture: SVG or PNG) and lists the keys it handles itself
// (Help ▸ Keyboard Shortcuts). The main window reaches its tabs only through this interface;
// the tabs come from one list (app/gui/view_registry.cpp) and are wired to the window's shared
// state (the model, the last result, the one selection, staleness) by their own code.
#pragma once

#include <QRect>
#include <QSize>
#include <QString>
#include <functional>
#include <utility>
#include <vector>

class QPainter;
class QWidget;

namespace ios::views {

// Keys and what they do: {"W / S", "Zoom in / out"}.
using ShortcutTable = std::vector<std::pair<QString, QString>>;

class ResultView {
public:
    virtual ~ResultView() = default;

    // The widget itself (the object that implements this interface).
    virtual QWidget* widget() = 0;
    // Draws what the view shows into `area` (an SVG or PNG of pictureSize()). By default the
    // widget as it is on screen.
    virtual void renderPicture(QPainter& painter, const QRect& area);
    // The picture's size: by default the widget's, at least 800 × 500.
    virtual QSize pictureSize();
    // The keys the view handles in its own event handlers (its buttons' and menus' shortcuts
    // are read from the widgets).
    virtual ShortcutTable shortcuts() const { return {}; }
    // The widget whose key handlers implement those keys: the window sends it the view's keys
    // while the view is the visible tab, whatever has focus (app/gui/view_keys.h). None by
    // default.
    virtual QWidget* keyTarget() { return nullptr; }
    // What the tab shows, for its tooltip.
    virtual QString description() const { return {}; }
    // Its answer in a line, for the window's title while it is the visible tab (the Diff tab:
    // "IOS-Both is 1.65× faster than Sequential"); empty by default. A view whose answer
    // changes asks the window to update its title (MainWindow::updateTitle).
    virtual QString titleNote() const { return {}; }

    // Whether it shows what the current settings give (a tab computing on demand: its own
    // check, set by whoever wires it); true by default.
    bool isCurrent() const { return !currentCheck_ || currentCheck_(); }
    void setCurrentCheck(std::function<bool()> check) { currentCheck_ = std::move(check); }

private:
    std::function<bool()> currentCheck_;
};

// `widget` as a ResultView, or nullptr.
ResultView* asResultView(QWidget* widget);

} // namespace ios::views
