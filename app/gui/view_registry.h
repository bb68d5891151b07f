// SPDX-License-Identifier: Apache-2.0
// The main window's tabs register themselves. A tab is its own files: a widget implementing
// views::ResultView, made and wired to the window's Session by a factory in those files, and
// one line there, IOS_REGISTER_VIEW(ident, ViewRegistration{...}). The window adds every
// registered view as a tab, in rank order, with the overlays its entry asks for, and reaches it
// only through views::ResultView (pictures, shortcuts, whether it is current, its tooltip).
#pragma once

#include <QtGlobal>
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
    const char* key;   // the tab's object name, and its Selection::Source key; unique
    const char* title; // the tab's text: IOS_TAB_TITLE("...") (translated as MainWindow's)
    Overlay overlay;
    int rank; // tab order, ascending; unique (the built-in tabs use 10, 20, ... 100)
    // Makes the tab (a child of `parent`) and connects it to `window` (MainWindow::session()).
    views::ResultView* (*make)(MainWindow& window, QWidget* parent);
};

// Adds `view` to the registry (at static initialisation, through IOS_REGISTER_VIEW). A second
// view with the same key or rank is a programming error: the process stops, naming both.
bool registerView(const ViewRegistration& view);

// Every registered view, by rank.
const std::vector<ViewRegistration>& registeredViews();

} // namespace ios::gui

#define IOS_TAB_TITLE(text) QT_TRANSLATE_NOOP("ios::gui::MainWindow", text)

// In the view's own .cpp (ios_gui_lib is linked whole, so nothing else has to name the file):
//   IOS_REGISTER_VIEW(kernels, ViewRegistration{"kernelsTab", IOS_TAB_TITLE("Kernels"),
//                                              ViewRegistration::Overlay::Cover, 60, &make});
#define IOS_REGISTER_VIEW(ident, ...)                                                              \
    [[maybe_unused]] static const bool ios_view_registered_##ident =                               \
        ::ios::gui::registerView(__VA_ARGS__)
