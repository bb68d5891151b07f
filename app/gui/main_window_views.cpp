// MainWindow: the views, the settings dock and the job wiring (menus and files are in
// main_window.cpp, measured traces in main_window_trace.cpp).
#include "analysis_tab.h"
#include "engine_jobs.h"
#include "graph_view.h"
#include "job_controller.h"
#include "main_window.h"
#include "memory_view.h"
#include "operator_table_model.h"
#include "schedule_index.h"
#include "settings_panel.h"
#include "stage_tree_model.h"
#include "stale_overlay.h"
#include "state_space_view.h"
#include "streams_view.h"
#include "timeline_view.h"
#include "units.h"
#include "util/error.h"
#include "view_registry.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <algorithm>

namespace ios::gui {

void MainWindow::createCentralViews() {
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("views"));
    tabs_->setDocumentMode(true);
    graph_ = new views::GraphView(tabs_);
    tabs_->addTab(graph_, tr("Graph"));
    timeline_ = new views::TimelineView(tabs_);
    timeline_->setObjectName(QStringLiteral("timelineView"));
    tabs_->addTab(timeline_, tr("Timeline"));
    streams_ = new views::StreamsView(tabs_);
    streams_->setObjectName(QStringLiteral("streamsView"));
    tabs_->addTab(streams_, tr("Streams"));
    stateSpace_ = new views::StateSpaceView(tabs_);
    stateSpace_->setObjectName(QStringLiteral("stateSpaceView"));
    tabs_->addTab(stateSpace_, tr("State space"));
    memory_ = new views::MemoryView(tabs_);
    memory_->setObjectName(QStringLiteral("memoryView"));
    tabs_->addTab(memory_, tr("Memory"));
    addRegisteredViews();
    // A click on a kernel or a launch selects its operator everywhere, but only through the
    // model the view shows: after a model switch an old kernel's index means nothing.
    connect(timeline_, &views::TimelineView::operatorSelected, this, [this](int flat) {
        if (timelineModel_ && timelineModel_ == model_)
            selectOperator(flat, Selection::Source::Timeline);
    });
    // A click on the stage lane selects that stage's row (and so its operators).
    connect(timeline_, &views::TimelineView::stageSelected, this, [this](int block, int stage) {
        if (!timelineModel_ || timelineModel_ != model_)
            return;
        const QModelIndex row = stageModel_->stageIndex(block, stage);
        if (row.isValid()) {
            stageTree_->setCurrentIndex(row);
            stageTree_->scrollTo(row);
        }
    });
    // A state or an ending clicked in the state space: its operators (the overlay swallows
    // clicks while the state space is out of date).
    connect(stateSpace_, &views::StateSpaceView::operatorsSelected, this,
            [this](std::vector<int> ops) {
                if (model_)
                    selection_->select(std::move(ops), {}, Selection::Source::StateSpace);
            });
    connect(streams_, &views::StreamsView::operatorSelected, this, [this](int flat) {
        if (lastResult_ && lastResult_->settings.model == model_)
            selectOperator(flat, Selection::Source::Streams);
    });
    setCentralWidget(tabs_);
    connect(graph_, &views::GraphView::operatorSelected, this,
            [this](int flat) { selectOperator(flat, Selection::Source::Graph); });
    selection_ = new Selection(this);
    connect(selection_, &Selection::changed, this, &MainWindow::showSelection);
    // Views that show a result say so when it is not the current settings' (updateStaleness).
    // The graph and the Memory view draw the open model's operators: a banner, input passes.
    for (QWidget* view : {static_cast<QWidget*>(timeline_), static_cast<QWidget*>(streams_),
                          static_cast<QWidget*>(stateSpace_)})
        overlays_.push_back(new StaleOverlay(view, StaleOverlay::Mode::Cover));
    for (QWidget* view : {static_cast<QWidget*>(graph_), static_cast<QWidget*>(memory_)})
        overlays_.push_back(new StaleOverlay(view, StaleOverlay::Mode::Banner));
    for (const auto& [view, mode] : registered_)
        overlays_.push_back(new StaleOverlay(view, mode));
}

void MainWindow::addRegisteredViews() {
    for (const ViewRegistration& r : registeredViews()) {
        QWidget* view = r.make(*this, tabs_)->widget();
        view->setObjectName(QLatin1String(r.key));
        tabs_->setTabToolTip(tabs_->addTab(view, tr(r.title)), tr(r.toolTip));
        registered_.push_back({view, r.stale});
    }
}

void MainWindow::createSettingsDock() {
    auto* dock = new QDockWidget(tr("Search"), this);
    dock->setObjectName(QStringLiteral("settingsDock"));
    settings_ = new SettingsPanel(dock);
    settings_->load();
    dock->setWidget(settings_);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    viewMenu_->addAction(dock->toggleViewAction());
}

void MainWindow::createStageDock() {
    auto* dock = new QDockWidget(tr("Stages"), this);
    dock->setObjectName(QStringLiteral("stagesDock"));
    stageModel_ = new views::StageTreeModel(this);
    stageTree_ = new QTreeView(dock);
    stageTree_->setObjectName(QStringLiteral("stageTree"));
    stageTree_->setModel(stageModel_);
    stageTree_->setAlternatingRowColors(true);
    stageTree_->setUniformRowHeights(true);
    stageTree_->header()->setStretchLastSection(false);
    dock->setWidget(stageTree_);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    viewMenu_->addAction(dock->toggleViewAction());
    connect(stageTree_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) { selectStageOperators(current); });
    // A click on the current row after the selection moved elsewhere (a state, a range) changes
    // the tree's selection only: it selects that row again.
    connect(stageTree_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const QModelIndex current = stageTree_->currentIndex();
        if (stageTree_->selectionModel()->isSelected(current))
            selectStageOperators(current);
    });
    overlays_.push_back(new StaleOverlay(stageTree_, StaleOverlay::Mode::Cover));
}

void MainWindow::connectJobs() {
    jobs_ = new JobController(this);
    estimateJobs_ = new JobController(this);
    connect(settings_, &SettingsPanel::settingsChanged, this, [this] {
        settings_->save();
        settingsEdited();
    });
    connect(settings_, &SettingsPanel::runRequested, this, &MainWindow::runOptimize);
    connect(settings_, &SettingsPanel::cancelRequested, jobs_, &JobController::cancel);
    connect(jobs_, &JobController::started, this, [this] {
        settings_->setRunning(true);
        statusBar()->showMessage(tr("Searching…"));
        updateStaleness();
    });
    connect(jobs_, &JobController::progressDetail, this,
            [this](quint64, double f, quint64 done, quint64 total, double elapsed) {
                settings_->setProgress(f, done, total, elapsed);
            });
    connect(jobs_, &JobController::cancelled, this, [this] {
        settings_->setRunning(false);
        statusBar()->showMessage(tr("Search cancelled"), 5000);
        updateStaleness(); // the panel and the views say which settings are shown
    });
    connect(jobs_, &JobController::failed, this,
            [this](quint64, const QString& message, qint64 smallestPeak) {
                settings_->setRunning(false);
                showSearchFailure(message, smallestPeak);
                updateStaleness();
            });
    connect(estimateJobs_, &JobController::failed, this,
            [this](quint64, const QString& message, qint64 smallestPeak) {
                // The search would fail the same way: say so as it would.
                settings_->setEstimateText(tr("The search would fail: %1").arg(message));
                if (smallestPeak > 0)
                    showSearchFailure(message, smallestPeak);
            });
}

void MainWindow::settingsEdited() {
    updateStaleness();
    if (!model_)
        return;
    JobSettings current = settings_->settings();
    current.model = model_;
    const bool shown = lastResult_ && lastResult_->matches(model_, current);
    const bool searching = jobs_->isRunning() && runningSettings_.model == model_ &&
                           sameSearch(runningSettings_, current);
    if (shown || searching) { // back to what is on screen, or on its way: nothing to start
        estimateJobs_->cancel();
        settings_->setEstimateText({});
        return;
    }
    settings_->setEstimateText(tr("Estimating the search…"));
    estimateJobs_->start(estimateJob(current), [this](const auto& r) { showEstimate(r); });
}

void MainWindow::showEstimate(const std::shared_ptr<const EstimateResult>& result) {
    JobSettings current = settings_->settings();
    if (!result || result->settings.model != model_ || !sameSearch(result->settings, current))
        return; // the settings moved on; their own estimate follows
    const double limit = settings_->autoRunSeconds();
    QString text;
    bool quick = false;
    if (result->estimate) {
        text = SettingsPanel::describeEstimate(*result->estimate);
        quick = SettingsPanel::runsUnder(*result->estimate, limit);
    } else {
        text = tr("%1: no up-front estimate (not the IOS DP)").arg(strategyLabel(current.strategy));
        quick = limit > 0;
    }
    if (!quick)
        text += SettingsPanel::notRunNote(result->estimate ? &*result->estimate : nullptr, limit);
    settings_->setEstimateText(text);
    if (quick)
        runOptimize();
}

bool MainWindow::isResultCurrent() const {
    return lastResult_ && lastResult_->matches(model_, settings_->settings());
}

QString MainWindow::staleMessage() const {
    // No result at all: the views are empty and say so themselves; the panel's estimate says
    // whether the search runs by itself or waits for F5.
    if (!model_ || !lastResult_ || isResultCurrent())
        return {};
    const QString diff = searchDifference(lastResult_->settings, settings_->settings());
    return (jobs_->isRunning() ? tr("Out of date — searching…\n%1")
                               : tr("Out of date — press F5 to run\n%1"))
        .arg(diff);
}

void MainWindow::updateStaleness() {
    const QString message = staleMessage();
    for (StaleOverlay* overlay : overlays_)
        // A measured trace is not a result of the settings: never stale.
        overlay->setMessage(overlay->parentWidget() == timeline_ && showsMeasuredTrace() ? QString()
                                                                                         : message);
    QString note;
    if (model_ && lastResult_ && !isResultCurrent())
        note = tr("Showing %1 · batch %2 — changed since: %3. F5 to run.")
                   .arg(strategyLabel(lastResult_->settings.strategy))
                   .arg(lastResult_->settings.batch)
                   .arg(searchDifference(lastResult_->settings, settings_->settings()));
    settings_->setStaleNote(note);
    // The status bar's summary too: it is the shown result's, and says when that is old.
    resultLabel_->setText(note.isEmpty() || resultText_.isEmpty()
                              ? resultText_
                              : tr("Out of date — %1").arg(resultText_));
}

void MainWindow::clearScheduleViews() {
    selection_->clear();
    stageModel_->clear();
    stateSpace_->setStateSpace(model_, std::shared_ptr<const schedulers::StateSpaceIndex>());
    streams_->clear();
    memory_->clear();
    graph_->setSchedule({});
}

void MainWindow::clearResultViews() {
    lastResult_.reset();
    setRewrittenNote({});
    clearScheduleViews();
    settings_->setResultText({});
    resultText_.clear();
    resultLabel_->clear();
    if (showsMeasuredTrace())
        openMeasuredTrace(
            measuredTrace_); // linked again, to the new model when it is the traced one
    else {
        timelineModel_.reset();
        timeline_->clear();
    }
}

views::LoadedModelPtr MainWindow::modelForSettings(const JobSettings& settings) {
    if (model_ && model_->maxPartSize() != settings.maxPartSize &&
        model_->graph().blocks.size() > 0) {
        // Parts depend on the max part size (docs/algorithms.md §1): rebuild the DAGs.
        try {
            model_ = std::make_shared<const views::LoadedModel>(model_->graph(), model_->source(),
                                                                settings.maxPartSize);
            operatorModel_->setModel(model_);
            graph_->setModel(model_);
        } catch (const UserError& e) {
            showError(tr("Invalid settings"), QString::fromStdString(e.what()));
        }
    }
    return model_;
}

void MainWindow::runOptimize() {
    if (!model_)
        return;
    if (estimateJobs_->isRunning()) { // running now: whatever it would say is moot
        estimateJobs_->cancel();
        settings_->setEstimateText({});
    }
    JobSettings settings = settings_->settings();
    settings.model = modelForSettings(settings);
    runningSettings_ = settings;
    jobs_->start(optimizeJob(settings), [this](const SearchResultPtr& result) {
        settings_->setRunning(false);
        showResult(result);
    });
    if (auto* tab = qobject_cast<AnalysisTab*>(tabs_->currentWidget()))
        computeAnalysis(tab, false);
    if (tabs_->currentWidget() == memory_)
        computeMemory(false, false);
}

void MainWindow::showSearchFailure(const QString& message, qint64 smallestPeak) {
    if (smallestPeak <= 0) {
        showError(tr("Search failed"), message);
        return;
    }
    // A budget below every schedule's peak: said under the budget field, with the least
    // feasible peak to take, rather than in a dialog.
    lastError_ = message;
    settings_->showBudgetTooSmall(settings_->settings().memoryBudget, smallestPeak);
    statusBar()->showMessage(message, 10000);
    Q_EMIT errorOccurred(message);
}

void MainWindow::showResult(const SearchResultPtr& result) {
    if (!result || result->runs.empty() || result->settings.model != model_)
        return;
    lastResult_ = result;
    const RunResult& run = result->runs.front();
    if (run.rewritten) {
        showRewrittenResult(result);
        return;
    }
    setRewrittenNote({});
    std::vector<std::vector<views::StageMetrics>> metrics;
    for (const auto& block : run.stageLatencyMs) {
        metrics.emplace_back();
        for (double ms : block)
            metrics.back().push_back({ms, -1});
    }
    // A program's own timeline has segments, not the stages of its issue-order schedule.
    if (run.timeline && !run.ownProgram)
        for (const eval::TimelineStage& st : run.timeline->stages)
            if (st.block < static_cast<int>(metrics.size()) &&
                st.stage < static_cast<int>(metrics[st.block].size()))
                metrics[st.block][st.stage].utilization = st.meanActiveSmFraction;
    stageModel_->setSchedule(model_, run.schedule, std::move(metrics));
    stageTree_->expandToDepth(0);
    for (int c = 0; c < views::StageTreeModel::ColumnCount; ++c)
        stageTree_->resizeColumnToContents(c); // a horizontal scroll bar when the dock is narrow
    graph_->setSchedule(views::ScheduleIndex(*model_, run.schedule));
    memory_->setSchedule(model_, run.schedule, strategyLabel(run.strategy), run.peakBytes,
                         run.latencyMs, result->settings.memoryBudget);
    stateSpace_->setStateSpace(model_, run.stateSpace);
    if (!showsMeasuredTrace())
        showSimulatedTimeline();
    streams_->setProgram(
        model_, run.program, run.programRuns,
        tr("%1 · %2 — %3")
                .arg(QString::fromStdString(model_->graph().name), strategyLabel(run.strategy),
                     run.ownProgram ? tr("its own stream program")
                                    : tr("its stage schedule lowered to a stream program")) +
            (run.programRuns.empty() ? QString() : tr(" · %1").arg(result->costModel)),
        run.programNote);

    const double speedup = run.latencyMs > 0 ? result->sequentialLatencyMs / run.latencyMs : 0;
    const QString budget =
        result->settings.memoryBudget > 0
            ? tr(" (budget %1)")
                  .arg(views::formatBytes(static_cast<double>(result->settings.memoryBudget)))
            : QString();
    QString text = tr("%1: %2 (×%3 vs sequential) · peak %4%5")
                       .arg(strategyLabel(run.strategy), views::formatMs(run.latencyMs))
                       .arg(speedup, 0, 'f', 2)
                       .arg(views::formatBytes(static_cast<double>(run.peakBytes)), budget);
    QString details = tr("<b>%1</b><br>latency %2<br>speed-up ×%3 over sequential (%4)<br>peak "
                         "activation memory %5%6")
                          .arg(strategyLabel(run.strategy), views::formatMs(run.latencyMs))
                          .arg(speedup, 0, 'f', 2)
                          .arg(views::formatMs(result->sequentialLatencyMs),
                               views::formatBytes(static_cast<double>(run.peakBytes)), budget);
    if (run.stats) {
        text += tr(" · %1 states, %2 transitions · search %3")
                    .arg(views::formatCount(static_cast<double>(run.stats->states)),
                         views::formatCount(static_cast<double>(run.stats->transitions)),
                         views::formatSeconds(run.searchSeconds));
        details += tr("<br>%1 states<br>%2 transitions<br>%3 schedules<br>search %4")
                       .arg(views::formatCount(static_cast<double>(run.stats->states)),
                            views::formatCount(static_cast<double>(run.stats->transitions)),
                            views::formatBigCount(run.stats->schedules),
                            views::formatSeconds(run.searchSeconds));
    }
    details += tr("<br><i>%1</i>").arg(result->costModel.toHtmlEscaped());
    resultText_ = text;
    resultLabel_->setText(text);
    statusBar()->clearMessage();
    settings_->setResultText(details);
    updateStaleness();
    Q_EMIT resultShown();
}

void MainWindow::selectStageOperators(const QModelIndex& index) {
    if (!index.isValid())
        return;
    const auto ops = index.data(views::StageTreeModel::OperatorsRole).value<QList<int>>();
    std::vector<int> flat(ops.begin(), ops.end());
    const auto type = static_cast<views::StageTreeModel::NodeType>(
        index.data(views::StageTreeModel::NodeTypeRole).toInt());
    // An operator or group row: those operators, in their stage; a stage or block row: all.
    std::vector<int> context = type == views::StageTreeModel::NodeType::Operator ||
                                       type == views::StageTreeModel::NodeType::Group
                                   ? stageContextOf(flat.empty() ? -1 : flat.front())
                                   : flat;
    selection_->select(std::move(flat), std::move(context), Selection::Source::StageTree);
}

void MainWindow::selectOperator(int flatIndex, Selection::Source source) {
    if (!model_ || flatIndex < 0 || flatIndex >= model_->operatorCount())
        return;
    selection_->select({flatIndex}, stageContextOf(flatIndex), source);
}

void MainWindow::selectTableRow(const QModelIndex& proxyIndex) {
    if (!proxyIndex.isValid() || !model_)
        return;
    // Rows of the table are the model's flat operator list (OperatorTableModel).
    selectOperator(operatorProxy_->mapToSource(proxyIndex).row(), Selection::Source::OperatorTable);
}

std::vector<int> MainWindow::stageContextOf(int flatIndex) const {
    QModelIndex row = stageModel_->operatorIndex(flatIndex);
    while (row.isValid() && static_cast<views::StageTreeModel::NodeType>(
                                row.data(views::StageTreeModel::NodeTypeRole).toInt()) !=
                                views::StageTreeModel::NodeType::Stage)
        row = row.parent();
    if (!row.isValid())
        return {};
    const auto ops = row.data(views::StageTreeModel::OperatorsRole).value<QList<int>>();
    return {ops.begin(), ops.end()};
}

std::vector<int> MainWindow::withMergePartners(const std::vector<int>& flat) const {
    if (!lastResult_ || lastResult_->runs.empty() || !model_ ||
        lastResult_->settings.model != model_)
        return flat;
    const schedule::Schedule& sched = lastResult_->runs.front().schedule;
    std::vector<int> out = flat;
    for (int f : flat) {
        if (f < 0 || f >= model_->operatorCount())
            continue;
        const views::OperatorRef ref = model_->operators()[static_cast<size_t>(f)];
        if (ref.block < 0 || static_cast<size_t>(ref.block) >= sched.blocks.size())
            continue;
        for (const schedule::Stage& stage : sched.blocks[static_cast<size_t>(ref.block)].stages) {
            if (stage.kind != schedule::StageKind::Merge)
                continue;
            const auto& group = stage.groups.front();
            if (std::find(group.begin(), group.end(), ref.op) == group.end())
                continue;
            for (int op : group)
                out.push_back(model_->flatIndex({ref.block, op}));
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void MainWindow::highlightInGraph(const std::vector<int>& flat, const std::vector<int>& context,
                                  bool center) {
    graphHighlight_ = flat;
    graph_->setSelection(flat, context, center);
}

void MainWindow::showSelection() {
    using Source = Selection::Source;
    const Source source = selection_->source();
    const std::vector<int>& ops = selection_->operators();
    // Selected operators in one style, the rest of their stage in another; the graph's own
    // click is not scrolled to (it is under the pointer).
    highlightInGraph(ops, selection_->stageContext(), source != Source::Graph);
    if (source != Source::Streams)
        streams_->selectOperators(ops);
    if (source != Source::Memory && ops.size() == 1)
        memory_->selectOperator(ops.front());
    if (source != Source::StageTree) {
        // One operator: its row becomes current; several (a state, a range): their rows are
        // selected, the current row left where it is.
        const QSignalBlocker block(stageTree_->selectionModel());
        const QModelIndex index =
            ops.size() == 1 ? stageModel_->operatorIndex(ops.front()) : QModelIndex();
        if (index.isValid()) {
            stageTree_->setCurrentIndex(index);
            stageTree_->scrollTo(index);
        } else {
            stageTree_->clearSelection();
            for (int flat : ops) {
                const QModelIndex row = stageModel_->operatorIndex(flat);
                if (!row.isValid())
                    continue;
                stageTree_->selectionModel()->select(row, QItemSelectionModel::Select |
                                                              QItemSelectionModel::Rows);
                if (flat == ops.front())
                    stageTree_->scrollTo(row);
            }
        }
    }
    if (source != Source::OperatorTable) {
        const QSignalBlocker block(operatorTable_->selectionModel());
        operatorTable_->clearSelection();
        for (int flat : ops) {
            const QModelIndex row = operatorProxy_->mapFromSource(operatorModel_->index(flat, 0));
            if (!row.isValid())
                continue; // filtered out
            operatorTable_->selectionModel()->select(row, QItemSelectionModel::Select |
                                                              QItemSelectionModel::Rows);
            if (ops.size() == 1)
                operatorTable_->selectionModel()->setCurrentIndex(row,
                                                                  QItemSelectionModel::NoUpdate);
            if (flat == ops.front()) // several: the first in view, the others follow it
                operatorTable_->scrollTo(row);
        }
    }
    // The timeline highlights the selected operators' kernels (its own click included) and dims
    // the rest; a timeline of another model (a measured trace) shows no selection.
    timeline_->selectOperators(timelineModel_ && timelineModel_ == model_ ? withMergePartners(ops)
                                                                          : std::vector<int>());
    if (source != Source::StateSpace)
        stateSpace_->selectOperators(ops);
}

} // namespace ios::gui
