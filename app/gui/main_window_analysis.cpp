// MainWindow: the analysis tabs (strategy comparison, pruning sweep, specialization), run on
// their own job controller so they never cancel the main optimisation.
#include "analysis_tab.h"
#include "charts.h"
#include "graph_view.h"
#include "job_controller.h"
#include "main_window.h"
#include "memory_view.h"
#include "metaflow_panel.h"
#include "settings_panel.h"
#include "stage_tree_model.h"
#include "stale_overlay.h"
#include "state_space_view.h"
#include "streams_view.h"
#include "timeline_view.h"
#include "units.h"

#include <QLabel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>

namespace ios::gui {

void MainWindow::createAnalysisTabs() {
    analysisJobs_ = new JobController(&engine_, this);
    auto add = [this](JobKind kind, views::ChartWidget* chart, const QString& title,
                      const QString& description, const QString& name) {
        auto* tab = new AnalysisTab(kind, chart, description, tabs_);
        tab->setObjectName(name);
        tabs_->setTabToolTip(tabs_->addTab(tab, title), description);
        analysisTabs_.push_back(tab);
        connect(tab, &AnalysisTab::computeRequested, this,
                [this, tab] { computeAnalysis(tab, true); });
        connect(tab, &AnalysisTab::cancelRequested, this, [this, tab] {
            if (runningAnalysis_ == tab)
                analysisJobs_->cancel(); // emits cancelled at once; the worker stops in 100 ms
        });
    };
    add(JobKind::Compare, new views::ComparisonChart, tr("Comparison"),
        tr("Every registered scheduler under the current cost model (ios-sched strategies)."),
        QStringLiteral("comparisonTab"));
    add(JobKind::Sweep, new views::SweepChart, tr("Sweep"),
        tr("Pruning sweep: latency and the DP's transitions (its deterministic search cost) for r "
           "= 1…4 and "
           "s = 1…8 (IOS paper Figure 9); hover a point for the wall-clock search time."),
        QStringLiteral("sweepTab"));
    add(JobKind::Specialize, new views::HeatMapChart, tr("Specialize"),
        tr("Specialization: a schedule optimised for one batch size / device, run on the others "
           "(IOS paper "
           "Table 3)."),
        QStringLiteral("specializeTab"));
    createMetaflowTab();
    connect(tabs_, &QTabWidget::currentChanged, this, [this] {
        if (auto* tab = qobject_cast<AnalysisTab*>(tabs_->currentWidget()))
            computeAnalysis(tab, false);
    });
    connect(analysisJobs_, &JobController::progressDetail, this,
            [this](quint64, double f, quint64, quint64, double elapsed) {
                if (runningAnalysis_)
                    runningAnalysis_->setProgress(f, elapsed);
            });
    connect(analysisJobs_, &JobController::cancelled, this, [this] {
        if (runningAnalysis_)
            runningAnalysis_->showCancelled(tr("Cancelled."));
        runningAnalysis_ = nullptr;
    });
    connect(analysisJobs_, &JobController::failed, this, [this](quint64, const QString& message) {
        if (runningAnalysis_) {
            runningAnalysis_->setRunning(false);
            runningAnalysis_->chart()->setPlaceholder(message);
            runningAnalysis_->setShownKey(runningKey_); // the error is this settings' result
        }
        runningAnalysis_ = nullptr;
    });
    connect(analysisJobs_, &JobController::finished, this,
            [this](quint64, const JobResultPtr& result) { showAnalysis(result); });
}

void MainWindow::createMetaflowTab() {
    metaflowJobs_ = new JobController(&engine_, this);
    metaflow_ = new MetaflowPanel(metaflowJobs_, tabs_);
    metaflow_->setObjectName(QStringLiteral("metaflowTab"));
    tabs_->setTabToolTip(tabs_->addTab(metaflow_, tr("MetaFlow")),
                         tr("MetaFlow: rewrite the graph (relaxed substitutions), then compare "
                            "Sequential and IOS-Both on the original and the rewritten graph"));
    // Notes for a rewritten result over every view of G0 (above the stale overlays); the views
    // that show a schedule are empty then, the others still show G0's operators.
    for (QWidget* view : {static_cast<QWidget*>(stageTree_), static_cast<QWidget*>(timeline_),
                          static_cast<QWidget*>(streams_), static_cast<QWidget*>(stateSpace_)})
        rewrittenNotes_.push_back(new StaleOverlay(view, StaleOverlay::Mode::Cover));
    for (QWidget* view : {static_cast<QWidget*>(graph_), static_cast<QWidget*>(memory_),
                          static_cast<QWidget*>(operatorTable_)})
        rewrittenNotes_.push_back(new StaleOverlay(view, StaleOverlay::Mode::Banner));
    connect(metaflow_, &MetaflowPanel::runRequested, this, [this] {
        JobSettings settings = settings_->settings();
        settings.model = modelForSettings(settings);
        metaflow_->run(settings);
    });
    connect(settings_, &SettingsPanel::settingsChanged, this,
            [this] { metaflow_->updateStaleness(model_, settings_->settings()); });
    connect(this, &MainWindow::modelChanged, this, [this] {
        metaflow_->clear(); // its graphs and rows are the old model's
        metaflow_->updateStaleness(model_, settings_->settings());
    });
}

void MainWindow::showRewrittenResult(const JobResultPtr& result) {
    const RunResult& run = result->runs.front();
    clearScheduleViews();
    if (!showsMeasuredTrace()) {
        timelineModel_.reset();
        timeline_->clear();
    }
    const QString label = strategyLabel(run.strategy);
    setRewrittenNote(tr("%1 rewrote the graph (%2 substitutions): its stages are of the rewritten "
                        "graph G*, not of this one. The MetaFlow tab shows G* and its schedules.")
                         .arg(label)
                         .arg(run.substitutions));
    const double speedup = run.latencyMs > 0 ? result->sequentialLatencyMs / run.latencyMs : 0;
    resultText_ = tr("%1: %2 (×%3 vs sequential) · peak %4 · graph rewritten (%5 substitutions)")
                      .arg(label, views::formatMs(run.latencyMs))
                      .arg(speedup, 0, 'f', 2)
                      .arg(views::formatBytes(static_cast<double>(run.peakBytes)))
                      .arg(run.substitutions);
    resultLabel_->setText(resultText_);
    statusBar()->clearMessage();
    settings_->setResultText(
        tr("<b>%1</b><br>latency %2 on the rewritten graph<br>speed-up ×%3 over sequential on "
           "the original (%4)<br>%5 substitutions — see the MetaFlow tab<br><i>%6</i>")
            .arg(label, views::formatMs(run.latencyMs))
            .arg(speedup, 0, 'f', 2)
            .arg(views::formatMs(result->sequentialLatencyMs))
            .arg(run.substitutions)
            .arg(result->costModel.toHtmlEscaped()));
    updateStaleness();
    Q_EMIT resultShown();
}

void MainWindow::setRewrittenNote(const QString& text) {
    for (StaleOverlay* note : rewrittenNotes_)
        note->setMessage(text);
}

QString MainWindow::rewrittenNote() const {
    return rewrittenNotes_.empty() ? QString() : rewrittenNotes_.front()->message();
}

QString MainWindow::settingsKey(const JobSettings& s) const {
    return QStringLiteral("%1|%2|%3|%4|%5|%6|%7|%8|%9")
               .arg(model_ ? model_->source() : QString())
               .arg(s.strategy)
               .arg(s.r)
               .arg(s.s)
               .arg(s.maxPartSize)
               .arg(s.batch)
               .arg(s.device)
               .arg(static_cast<int>(s.endings))
               .arg(s.costModel + QLatin1Char(':') + s.cacheFile +
                    (s.storeFallback ? QStringLiteral("+sim") : QString())) +
           QStringLiteral("|%1").arg(s.memoryBudget);
}

void MainWindow::computeAnalysis(AnalysisTab* tab, bool force) {
    if (!model_)
        return;
    JobSettings settings = settings_->settings();
    settings.model = modelForSettings(settings);
    settings.recordStateSpace = false;
    const QString key = settingsKey(settings);
    if (!force && (tab->shownKey() == key || (runningAnalysis_ == tab && runningKey_ == key)))
        return;
    if (runningAnalysis_ && runningAnalysis_ != tab)
        runningAnalysis_->showCancelled(tr("Interrupted by another analysis."));
    runningAnalysis_ = tab;
    runningKey_ = key;
    tab->setRunning(true);
    analysisJobs_->submit(tab->kind(), settings);
}

void MainWindow::showAnalysis(const JobResultPtr& result) {
    AnalysisTab* tab = runningAnalysis_;
    runningAnalysis_ = nullptr;
    if (tab)
        tab->setRunning(false);
    if (!tab || !result || result->settings.model != model_)
        return;
    tab->setShownKey(runningKey_);
    const QString model = QString::fromStdString(model_->graph().name);
    const QString where = tr("%1, batch %2, simulated %3")
                              .arg(model)
                              .arg(result->settings.batch)
                              .arg(result->settings.device);
    switch (result->kind) {
    case JobKind::Compare: {
        std::vector<views::ComparisonEntry> entries;
        for (const RunResult& run : result->runs)
            entries.push_back({strategyLabel(run.strategy), run.latencyMs, run.searchSeconds,
                               run.stats ? static_cast<double>(run.stats->states) : 0.0,
                               run.stats ? static_cast<double>(run.stats->transitions) : 0.0,
                               static_cast<double>(run.peakBytes)});
        const int64_t budget = result->settings.memoryBudget;
        static_cast<views::ComparisonChart*>(tab->chart())
            ->setData(tr("Strategies on %1 (r = %2, s = %3%4)")
                          .arg(where)
                          .arg(result->settings.r)
                          .arg(result->settings.s)
                          .arg(budget > 0
                                   ? tr(", memory budget %1")
                                         .arg(views::formatBytes(static_cast<double>(budget)))
                                   : QString()),
                      std::move(entries), result->sequentialLatencyMs, static_cast<double>(budget));
        break;
    }
    case JobKind::Sweep: {
        // The DP's transitions are the search cost the paper plots: deterministic, unlike the
        // wall clock (which goes in the tooltip).
        std::vector<double> latency, transitions, seconds;
        for (const RunResult& run : result->runs) {
            latency.push_back(run.latencyMs);
            transitions.push_back(run.stats ? static_cast<double>(run.stats->transitions) : 0.0);
            seconds.push_back(run.searchSeconds);
        }
        const QString s = result->runs.empty() ? kDefaultStrategy : result->runs.front().strategy;
        static_cast<views::SweepChart*>(tab->chart())
            ->setData(tr("Pruning sweep, %1 on %2").arg(strategyLabel(s), where), result->sweepR,
                      result->sweepS, std::move(latency), std::move(transitions),
                      std::move(seconds));
        break;
    }
    case JobKind::Specialize: {
        std::vector<views::HeatMatrix> matrices;
        for (const SpecializeMatrix& m : result->specialize)
            matrices.push_back({m.title, m.labels, m.latencyMs});
        static_cast<views::HeatMapChart*>(tab->chart())->setData(std::move(matrices));
        break;
    }
    case JobKind::Optimize:
    case JobKind::Memory:
    case JobKind::Pareto:
    case JobKind::Estimate:
    case JobKind::Metaflow:
        break;
    }
    Q_EMIT analysisShown(tab->kind());
}

bool MainWindow::isAnalysisCurrent(int tabIndex) const {
    if (tabs_->widget(tabIndex) == memory_)
        return !memoryJobs_->isRunning() && !paretoJobs_->isRunning() &&
               !memoryShownKey_.isEmpty() && !paretoShownKey_.isEmpty();
    auto* tab = qobject_cast<AnalysisTab*>(tabs_->widget(tabIndex));
    if (!tab)
        return true;
    JobSettings settings = settings_->settings();
    return tab->shownKey() == settingsKey(settings);
}

} // namespace ios::gui
