// The explorer's main window: model loading (menu, dialog, recent files, drag and drop), the
// settings dock, the views as tabs and docks, and the status bar with the last result.
#pragma once

#include "job.h"
#include "loaded_model.h"
#include "selection.h"
#include "shortcut_help.h"
#include "stale_overlay.h"

#include <QElapsedTimer>
#include <QMainWindow>
#include <QStringList>
#include <functional>
#include <optional>

class QLabel;
class QMenu;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTreeView;

namespace ios::views {
class GraphView;
class MemoryView;
class OperatorTableModel;
class StageTreeModel;
class StateSpaceView;
class StreamsView;
class TimelineView;
} // namespace ios::views

namespace ios::gui {

class AnalysisTab;
class JobController;
class MetaflowPanel;
class SettingsPanel;
class StaleOverlay;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // Bump when docks/toolbars change so an old saved layout is not restored onto new widgets.
    static constexpr int kWindowStateVersion = 1;
    static constexpr int kMaxRecentFiles = 10;

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

    // The one selection every view shows (selection.h).
    Selection* selection() const { return selection_; }
    // What the graph was last asked to highlight (flat indices).
    const std::vector<int>& graphHighlight() const { return graphHighlight_; }
    QTreeView* stageTree() const { return stageTree_; }
    QTableView* operatorTable() const { return operatorTable_; }
    // True when the shown result is what the open model and the panel's settings give.
    bool isResultCurrent() const;
    // The note over the views showing a result (empty when current or nothing is open).
    QString staleMessage() const;
    // Help ▸ Keyboard Shortcuts: the menus' actions, the panel's buttons and the views' keys.
    std::vector<ShortcutHelp> shortcuts() const;
    void showShortcuts();

    // Shows a Chrome trace written by trace_export (measured on a GPU by profiling/, or a
    // simulated export) in the timeline tab, titled "measured: <file>", until
    // showSimulatedTimeline(). Errors are reported like openModel's.
    bool openMeasuredTrace(const QString& path);
    // Back to the last result's simulated timeline (empty when there is none yet).
    void showSimulatedTimeline();
    bool showsMeasuredTrace() const { return !measuredTrace_.isEmpty(); }
    views::TimelineView* timelineView() const { return timeline_; }
    views::StreamsView* streamsView() const { return streams_; }
    views::MemoryView* memoryView() const { return memory_; }

    const views::LoadedModelPtr& model() const { return model_; }
    QString lastError() const { return lastError_; }
    // Tests and the screenshot mode run without modal dialogs.
    void setDialogsEnabled(bool enabled) { dialogsEnabled_ = enabled; }

    // Starts the optimisation with the panel's settings (Run, F5). A settings change or a
    // newly opened model starts it only when its up-front estimate (estimateJobs()) is under
    // the panel's auto-run limit.
    void runOptimize();
    JobController* estimateJobs() const { return estimateJobs_; }
    const SearchResultPtr& lastResult() const { return lastResult_; }
    // Runs an export of the last result; errors go to a message box (or lastError()).
    bool exportTo(const QString& path, const std::function<void(const QString&)>& write);
    SettingsPanel* settingsPanel() const { return settings_; }
    JobController* jobs() const { return jobs_; }
    views::GraphView* graphView() const { return graph_; }
    QTabWidget* tabs() const { return tabs_; }
    // The Memory tab's jobs: its report, and the latency–memory trade-off.
    JobController* memoryJobs() const { return memoryJobs_; }
    JobController* paretoJobs() const { return paretoJobs_; }
    // True when tab `index` is not an analysis tab (Memory included) or shows the current
    // settings' result.
    bool isAnalysisCurrent(int tabIndex) const;
    // The MetaFlow tab (rewrite, then schedule; its own jobs).
    MetaflowPanel* metaflowPanel() const { return metaflow_; }
    // The note over the views while a rewritten result is shown (empty otherwise).
    QString rewrittenNote() const;

Q_SIGNALS:
    void modelChanged();
    void errorOccurred(const QString& message);
    void resultShown(); // the latest optimisation result is on screen
    void analysisShown(); // an analysis tab shows a new result
    void memoryShown(); // a memory report is on the Memory tab
    void paretoShown(); // a trade-off is on the Memory tab

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createActions();
    void createOperatorDock();
    void createSettingsDock();
    void createStageDock();
    void createCentralViews();
    // The tabs of view_registry.cpp, after the built-in ones.
    void addRegisteredViews();
    void connectJobs();
    void createAnalysisTabs();
    void connectMemoryView();
    // Submits the report and the trade-off when what they depend on changed, or when forced.
    void computeMemory(bool forceReport, bool forcePareto);
    void showMemoryReport(const std::shared_ptr<const MemoryJobResult>& result);
    void showPareto(const std::shared_ptr<const ParetoResult>& result);
    void chooseMemoryBudget(qint64 bytes);
    void showSearchFailure(const QString& message, qint64 smallestPeak);
    void computeAnalysis(AnalysisTab* tab, bool force);
    void createMetaflowTab();
    // A result whose scheduler rewrote the graph (RunResult::rewritten): the views of the open
    // model G0 show no schedule, and a note says why and points to the MetaFlow tab.
    void showRewrittenResult(const SearchResultPtr& result);
    void setRewrittenNote(const QString& text);
    QString settingsKey(const JobSettings& settings) const;
    void showResult(const SearchResultPtr& result);
    void selectStageOperators(const QModelIndex& index);
    void selectOperator(int flatIndex, Selection::Source source);
    void selectTableRow(const QModelIndex& proxyIndex);
    void showSelection();
    std::vector<int> stageContextOf(int flatIndex) const;
    void highlightInGraph(const std::vector<int>& flat, const std::vector<int>& context = {},
                          bool center = true);
    // `flat` and the other operators of the merge stages among them: the timeline draws a merged
    // convolution as one kernel of one of its operators.
    std::vector<int> withMergePartners(const std::vector<int>& flat) const;
    // A settings change or a new model: estimate, and run when the estimate is quick.
    void settingsEdited();
    void showEstimate(const std::shared_ptr<const EstimateResult>& result);
    void updateStaleness();
    void clearResultViews();
    // Empties the views that show a schedule of the open model (selection, stages, state
    // space, streams, memory, graph colours).
    void clearScheduleViews();
    void createHelpMenu();
    views::LoadedModelPtr modelForSettings(const JobSettings& settings);
    void updateRecentMenu();
    void addRecentFile(const QString& path);
    void showError(const QString& title, const QString& message);
    void restoreLayout();
    void saveLayout() const;
    void openFileDialog();
    void openTraceDialog();

    views::LoadedModelPtr model_;
    JobController* jobs_ = nullptr;
    std::vector<AnalysisTab*> analysisTabs_;
    JobController* memoryJobs_ = nullptr;
    JobController* paretoJobs_ = nullptr;
    MetaflowPanel* metaflow_ = nullptr;
    std::vector<StaleOverlay*> rewrittenNotes_; // over the views of G0 (setRewrittenNote)
    QString memoryShownKey_, memoryRunningKey_; // model, batch, DP limit
    QString paretoShownKey_, paretoRunningKey_; // settings without the budget
    QString paretoStrategy_;                    // the scheduler the shown front searched
    SettingsPanel* settings_ = nullptr;
    JobController* estimateJobs_ = nullptr;
    JobSettings runningSettings_; // the Optimize job in flight (jobs_->isRunning())
    QElapsedTimer runClock_;
    SearchResultPtr lastResult_;
    Selection* selection_ = nullptr;
    std::vector<int> graphHighlight_;
    std::vector<StaleOverlay*> overlays_;
    std::vector<std::pair<QWidget*, StaleOverlay::Mode>> registered_; // addRegisteredViews
    QAction* allowOpaqueAction_ = nullptr;
    views::LoadedModelPtr timelineModel_; // the model the timeline's kernels link to
    QTabWidget* tabs_ = nullptr;
    views::GraphView* graph_ = nullptr;
    views::TimelineView* timeline_ = nullptr;
    views::StreamsView* streams_ = nullptr;
    views::StateSpaceView* stateSpace_ = nullptr;
    views::MemoryView* memory_ = nullptr;
    views::StageTreeModel* stageModel_ = nullptr;
    QTreeView* stageTree_ = nullptr;
    views::OperatorTableModel* operatorModel_ = nullptr;
    QSortFilterProxyModel* operatorProxy_ = nullptr;
    QTableView* operatorTable_ = nullptr;
    QString measuredTrace_; // path of the trace shown in the timeline tab; empty = simulated
    QAction* simulatedTimelineAction_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    QLabel* modelLabel_ = nullptr;
    QLabel* resultLabel_ = nullptr;
    QString resultText_; // the shown result's summary (resultLabel_ adds "out of date")
    QString lastError_;
    QStringList exportWarnings_; // filled by the export exportTo runs
    bool dialogsEnabled_ = true;
};

} // namespace ios::gui
