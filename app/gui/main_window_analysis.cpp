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
    const std::pair<AnalysisTab*, QString> tabs[] = {
        {new ComparisonTab(tabs_), tr("Comparison")},
        {new SweepTab(tabs_), tr("Sweep")},
        {new SpecializeTab(tabs_), tr("Specialize")}};
    const char* names[] = {"comparisonTab", "sweepTab", "specializeTab"};
    for (size_t i = 0; i < std::size(tabs); ++i) {
        AnalysisTab* tab = tabs[i].first;
        tab->setObjectName(QLatin1String(names[i]));
        tabs_->setTabToolTip(tabs_->addTab(tab, tabs[i].second), tab->description());
        analysisTabs_.push_back(tab);
        connect(tab, &AnalysisTab::computeRequested, this, [this, tab] { computeAnalysis(tab, true); });
        connect(tab, &AnalysisTab::shown, this, &MainWindow::analysisShown);
        connect(this, &MainWindow::modelChanged, tab, [this, tab] { tab->setModel(model_); });
    }
    createMetaflowTab();
    connect(tabs_, &QTabWidget::currentChanged, this, [this] {
        if (auto* tab = qobject_cast<AnalysisTab*>(tabs_->currentWidget()))
            computeAnalysis(tab, false);
    });
}

void MainWindow::createMetaflowTab() {
    metaflow_ = new MetaflowPanel(tabs_);
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
    for (const auto& [view, mode] : registered_)
        rewrittenNotes_.push_back(new StaleOverlay(view, mode));
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

void MainWindow::showRewrittenResult(const SearchResultPtr& result) {
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
               .arg(costModelKey(s.costModel) + QLatin1Char(':') + s.cacheFile +
                    (s.storeFallback ? QStringLiteral("+sim") : QString())) +
           QStringLiteral("|%1").arg(s.memoryBudget);
}

void MainWindow::computeAnalysis(AnalysisTab* tab, bool force) {
    if (!model_)
        return;
    JobSettings settings = settings_->settings();
    settings.model = modelForSettings(settings);
    settings.recordStateSpace = false;
    tab->setModel(model_);
    tab->compute(settings, settingsKey(settings), force);
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
