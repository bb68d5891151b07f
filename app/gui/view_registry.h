// The one list of the main window's registered tabs (view_registry.cpp). A tab is its own files
// (a widget implementing views::ResultView, wired to the window's shared state in its factory)
// plus one line in that list; the window adds each as a tab in order, with its stale overlay,
// and reaches it only through views::ResultView (pictures, shortcuts).
#pragma once

#include "stale_overlay.h"

#include <vector>

class QWidget;

namespace ios::views {
class ResultView;
}

namespace ios::gui {

class MainWindow;

struct ViewRegistration {
    const char* key;     // the tab's object name, and its Selection::Source key
    const char* title;   // the tab's text (translated in the "ios::gui::MainWindow" context)
    const char* toolTip; // likewise
    // How the tab says that its result is not the current settings' or of a rewritten graph.
    StaleOverlay::Mode stale;
    // Makes the tab (a child of `parent`) and connects it to `window`.
    views::ResultView* (*make)(MainWindow& window, QWidget* parent);
};

const std::vector<ViewRegistration>& registeredViews();

} // namespace ios::gui
