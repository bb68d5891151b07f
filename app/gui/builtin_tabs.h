// The factories of the built-in tabs: each makes its view, wires it to the window's Session and
// registers it (IOS_REGISTER_VIEW, view_registry.h) in its own file.
#pragma once

class QWidget;

namespace ios::views {
class ResultView;
}

namespace ios::gui {

class MainWindow;

views::ResultView* makeGraphTab(MainWindow& window, QWidget* parent);      // graph_tab.cpp
views::ResultView* makeTimelineTab(MainWindow& window, QWidget* parent);   // timeline_tab.cpp
views::ResultView* makeStreamsTab(MainWindow& window, QWidget* parent);    // schedule_tabs.cpp
views::ResultView* makeStateSpaceTab(MainWindow& window, QWidget* parent); // schedule_tabs.cpp
views::ResultView* makeMemoryTab(MainWindow& window, QWidget* parent);     // memory_tab.cpp
views::ResultView* makeComparisonTab(MainWindow& window, QWidget* parent); // analysis_tabs.cpp
views::ResultView* makeSweepTab(MainWindow& window, QWidget* parent);      // analysis_tabs.cpp
views::ResultView* makeSpecializeTab(MainWindow& window, QWidget* parent); // analysis_tabs.cpp
views::ResultView* makeMetaflowTab(MainWindow& window, QWidget* parent);   // schedule_tabs.cpp

} // namespace ios::gui
