// MainWindow: the views, the settings dock and the job wiring (menus and files are in
// main_window.cpp).
#include "analysis_tab.h"
#include "graph_view.h"
#include "io/trace_import.h"
#include "job_controller.h"
#include "main_window.h"
#include "memory_view.h"
#include "operator_table_model.h"
#include "schedule_index.h"
#include "settings_panel.h"
#include "stage_tree_model.h"
#include "state_space_view.h"
#include "streams_view.h"
#include "timeline_view.h"
#include "units.h"
#include "util/error.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>

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
    // A click on a kernel or a launch selects its operator in the graph and the stage tree.
    auto pick = [this](int flat) {
        graph_->highlightOperators({flat});
        selectOperator(flat);
    };
    connect(timeline_, &views::TimelineView::operatorSelected, this, pick);
    connect(streams_, &views::StreamsView::operatorSelected, this, pick);
    setCentralWidget(tabs_);
    connect(graph_, &views::GraphView::operatorSelected, this, &MainWindow::selectOperator);
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
}

void MainWindow::connectJobs() {
    jobs_ = new JobController(&engine_, this);
    rerunTimer_ = new QTimer(this);
    rerunTimer_->setSingleShot(true);
    rerunTimer_->setInterval(120); // coalesce spin-box key repeats into one run
    connect(rerunTimer_, &QTimer::timeout, this, &MainWindow::runOptimize);
    connect(settings_, &SettingsPanel::settingsChanged, this, [this] {
        settings_->save();
        if (model_)
            rerunTimer_->start();
    });
    connect(settings_, &SettingsPanel::runRequested, this, &MainWindow::runOptimize);
    connect(settings_, &SettingsPanel::cancelRequested, jobs_, &JobController::cancel);
    connect(jobs_, &JobController::started, this, [this] {
        settings_->setRunning(true);
        statusBar()->showMessage(tr("Searching…"));
    });
    connect(jobs_, &JobController::progressChanged, this,
            [this](quint64, double f) { settings_->setProgress(f); });
    connect(jobs_, &JobController::cancelled, this, [this] {
        settings_->setRunning(false);
        statusBar()->showMessage(tr("Search cancelled"), 5000);
    });
    connect(jobs_, &JobController::failed, this,
            [this](quint64, const QString& message, qint64 smallestPeak) {
                settings_->setRunning(false);
                showSearchFailure(message, smallestPeak);
            });
    connect(jobs_, &JobController::finished, this, [this](quint64, const JobResultPtr& result) {
        settings_->setRunning(false);
        showResult(result);
    });
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
    JobSettings settings = settings_->settings();
    settings.model = modelForSettings(settings);
    jobs_->submit(JobKind::Optimize, settings);
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

void MainWindow::showResult(const JobResultPtr& result) {
    if (!result || result->runs.empty() || result->settings.model != model_)
        return;
    lastResult_ = result;
    const RunResult& run = result->runs.front();
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
                            views::formatCount(run.stats->schedules.toDouble()),
                            views::formatSeconds(run.searchSeconds));
    }
    details += tr("<br><i>%1</i>").arg(result->costModel.toHtmlEscaped());
    resultLabel_->setText(text);
    statusBar()->clearMessage();
    settings_->setResultText(details);
    Q_EMIT resultShown();
}

void MainWindow::selectStageOperators(const QModelIndex& index) {
    if (!index.isValid())
        return;
    const auto ops = index.data(views::StageTreeModel::OperatorsRole).value<QList<int>>();
    const std::vector<int> flat(ops.begin(), ops.end());
    graph_->highlightOperators(flat);
    streams_->selectOperators(flat);
}

void MainWindow::selectOperator(int flatIndex) {
    streams_->selectOperator(flatIndex);
    memory_->selectOperator(flatIndex);
    const QModelIndex index = stageModel_->operatorIndex(flatIndex);
    if (!index.isValid())
        return;
    const QSignalBlocker block(stageTree_->selectionModel());
    stageTree_->setCurrentIndex(index);
    stageTree_->scrollTo(index);
}

bool MainWindow::openMeasuredTrace(const QString& path) {
    // Traces are < 1 MB (docs/performance.md): parsing on the UI thread takes milliseconds.
    io::TraceInfo info;
    eval::Timeline timeline;
    try {
        timeline = io::readChromeTrace(path.toStdString(), &info);
    } catch (const std::exception& e) {
        showError(tr("Cannot open trace"), QString::fromStdString(e.what()));
        return false;
    }
    // Kernels carry block and operator names: link them to the open model when it is the
    // traced one (colours by kind, click selects the operator in the graph and stage table).
    views::LoadedModelPtr linkedModel;
    if (model_ && (info.model.empty() || info.model == model_->graph().name) &&
        eval::linkKernelsToOperators(timeline, model_->dags()) > 0)
        linkedModel = model_;
    measuredTrace_ = path;
    QString title =
        tr("%1: %2").arg(QString::fromStdString(info.source), QFileInfo(path).fileName());
    if (!info.model.empty())
        title +=
            QStringLiteral(" (%1 · %2)")
                .arg(QString::fromStdString(info.model), QString::fromStdString(info.strategy));
    if (model_ && !linkedModel)
        title += tr(" — not linked to %1").arg(QString::fromStdString(model_->graph().name));
    timeline_->setTimeline(linkedModel, std::make_shared<const eval::Timeline>(std::move(timeline)),
                           title);
    simulatedTimelineAction_->setEnabled(true);
    tabs_->setCurrentWidget(timeline_);
    statusBar()->showMessage(tr("Timeline: %1").arg(title));
    return true;
}

void MainWindow::showSimulatedTimeline() {
    measuredTrace_.clear();
    simulatedTimelineAction_->setEnabled(false);
    if (!lastResult_ || lastResult_->runs.empty() || !model_) {
        timeline_->clear();
        return;
    }
    const RunResult& run = lastResult_->runs.front();
    timeline_->setTimeline(
        model_, run.timeline,
        run.timeline
            ? tr("%1: %2 · %3") // the view adds the device and batch
                  .arg(costModelKey(lastResult_->settings.costModel),
                       QString::fromStdString(model_->graph().name), strategyLabel(run.strategy))
            : tr("No kernel timeline: %1 knows stage latencies only (choose the simulated or "
                 "analytic cost model)")
                  .arg(lastResult_->costModel));
}

} // namespace ios::gui
