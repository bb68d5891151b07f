// SPDX-License-Identifier: Apache-2.0
// The explorer's main window, as assembly: the menus, the settings, stage and operator docks,
// the registered tabs (view_registry.h), the overlays that say a result is out of date or of a
// rewritten graph, and the status bar. The shared state is the Session (session.h); each tab
// and dock is wired to it in its own files.
#pragma once

#include "job.h"
#include "loaded_model.h"
#include "selection.h"
#include "shortcut_help.h"
#include "stale_overlay.h"

#include <QMainWindow>
#include <functional>
#include <vector>

class QLabel;
class QMenu;
class QTabWidget;
class QTableView;
class QTreeView;

namespace ios::views {
class GraphView;
class MemoryView;
class StreamsView;
class TimelineView;
} // namespace ios::views

namespace ios::gui {

class JobController;
class MetaflowPanel;
class RecentFiles;
class ScheduleDocumentUi;
class Session;
class SettingsPanel;
class StageDock;
class TimelineTab;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // Bump when docks/toolbars change so an old saved layout is not restored onto new widgets.
    static constexpr int kWindowStateVersion = 2; // 2: the Properties dock

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Loads a file path or bundled model name. On failure shows a message box naming the file
    // and node (unless dialogs are disabled, as in tests) and keeps the current model. An ONNX
    // model with operators the IR cannot describe loads them as opaque operators when
    // allowOpaque() (File ▸ Import Unsupported ONNX Operators as Opaque); otherwise the error
    // offers to open it so.
    bool openModel(const QString& pathOrName);
    bool allowOpaque() const;
    void setAllowOpaque(bool allow); // persisted

    // The shared state the tabs read: model, search, shown result, selection.
    Session* session() const { return session_; }
    Selection* selection() const;
    const views::LoadedModelPtr& model() const;
    const SearchResultPtr& lastResult() const;
    // True when the shown result is what the open model and the panel's settings give.
    bool isResultCurrent() const;
    // The note over the views showing a result (empty when current or nothing is open).
    QString staleMessage() const;
    // The note over the views while a rewritten result is shown (empty otherwise).
    QString rewrittenNote() const;
    // Starts the optimisation with the panel's settings (Run, F5); see Session.
    void runOptimize();
    JobController* jobs() const;
    JobController* estimateJobs() const;

    // Help ▸ Keyboard Shortcuts: the menus' actions, the panel's buttons and the tabs' keys.
    std::vector<ShortcutHelp> shortcuts() const;
    void showShortcuts();

    // The Timeline tab's source: a measured Chrome trace (errors reported like openModel's),
    // or back to the last result's simulated timeline (timeline_tab.h).
    bool openMeasuredTrace(const QString& path);
    void showSimulatedTimeline();
    bool showsMeasuredTrace() const;

    // A saved schedule of the open model, shown exactly instead of searching
    // (schedule_document.h); errors reported like openModel's.
    bool openSchedule(const QString& path);
    ScheduleDocumentUi* scheduleDocument() const { return scheduleDocument_; }

    // Runs an export of the last result; errors go to a message box (or lastError()).
    bool exportTo(const QString& path, const std::function<void(const QString&)>& write);
    // Where the running export notes what its format could not express (exportTo shows it).
    QStringList* exportWarnings() { return &exportWarnings_; }
    // A message box (unless dialogs are disabled), the status bar and lastError().
    void showError(const QString& title, const QString& message);
    QString lastError() const { return lastError_; }
    // Tests and the screenshot mode run without modal dialogs.
    void setDialogsEnabled(bool enabled) { dialogsEnabled_ = enabled; }

    // What the graph was last asked to highlight (flat indices), and the asking.
    const std::vector<int>& graphHighlight() const { return graphHighlight_; }
    void highlightInGraph(const std::vector<int>& flat, const std::vector<int>& context = {},
                          bool center = true);
    // Makes a stage the current row of the Stages dock (a click on the timeline's stage lane).
    void selectStage(int block, int stage);

    // The widgets, for tests and the screenshot mode.
    SettingsPanel* settingsPanel() const { return settings_; }
    QTabWidget* tabs() const { return tabs_; }
    QTreeView* stageTree() const;
    QTableView* operatorTable() const;
    views::GraphView* graphView() const;
    views::TimelineView* timelineView() const;
    views::StreamsView* streamsView() const;
    views::MemoryView* memoryView() const;
    MetaflowPanel* metaflowPanel() const;
    // The Memory tab's jobs: its report, and the latency–memory trade-off.
    JobController* memoryJobs() const;
    JobController* paretoJobs() const;
    // True when tab `index` shows what the current settings give (views::ResultView).
    bool isAnalysisCurrent(int tabIndex) const;
    // "ANSWER — MODEL — TAB — IOS Explorer": the visible tab's titleNote (views::ResultView)
    // when it has one, the open model and the tab; called on a tab change, a model change and
    // by views whose answer changed.
    void updateTitle();

Q_SIGNALS:
    void modelChanged();
    void errorOccurred(const QString& message);
    void resultShown();   // the latest optimisation result is on screen
    void analysisShown(); // an analysis tab shows a new result
    void memoryShown();   // a memory report is on the Memory tab
    void paretoShown();   // a trade-off is on the Memory tab

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createMenus();
    void createDocks();
    void createTabs();
    void connectSession();
    void updateOverlays();

    SettingsPanel* settings_ = nullptr;
    Session* session_ = nullptr;
    StageDock* stages_ = nullptr;
    QTableView* operatorTable_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    TimelineTab* timeline_ = nullptr;
    RecentFiles* recent_ = nullptr;
    ScheduleDocumentUi* scheduleDocument_ = nullptr;
    // Over the views that show the search's result: stale notes and rewritten-graph notes.
    std::vector<StaleOverlay*> staleNotes_, rewrittenNotes_;
    std::vector<int> graphHighlight_;
    QAction* allowOpaqueAction_ = nullptr;
    QAction* simulatedTimelineAction_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    QLabel* modelLabel_ = nullptr;
    QLabel* resultLabel_ = nullptr;
    QString modelName_; // the open model's name (its file when it has none), for the title
    QString lastError_;
    QStringList exportWarnings_; // filled by the export exportTo runs
    bool dialogsEnabled_ = true;
};

} // namespace ios::gui
