// The one list of the main window's tabs (view_registry.cpp). A tab is its own files (a widget
// implementing views::ResultView, made and wired to the window's Session by a factory in those
// files) plus one line in that list; the window adds each as a tab, in order, with the overlays
// its entry asks for, and reaches it only through views::ResultView (pictures, shortcuts,
// whether it is current, its tooltip).
#pragma once

#include <vector>

class QWidget;

namespace ios::views {
class ResultView;
}

namespace ios::gui {

class MainWindow;

struct ViewRegistration {
    enum class Overlay {
        None,   // shows no result of the search settings (its own keys: the analysis tabs)
        Cover,  // its result's view is covered while stale or rewritten (input blocked)
        Banner, // draws the open model's operators: a strip, input passes (graph, memory)
    };
    const char* key;   // the tab's object name, and its Selection::Source key
    const char* title; // the tab's text (translated in the "ios::gui::MainWindow" context)
    Overlay overlay;
    // Makes the tab (a child of `parent`) and connects it to `window` (MainWindow::session()).
    views::ResultView* (*make)(MainWindow& window, QWidget* parent);
};

const std::vector<ViewRegistration>& registeredViews();

} // namespace ios::gui
