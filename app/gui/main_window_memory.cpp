// MainWindow: the Memory tab (docs/memory.md). Its report and its latency–memory trade-off
// run on their own job controllers when the tab is shown and what they depend on changed; a
// step selected there highlights the operators producing its live tensors in the graph; a
// budget picked on the trade-off chart goes to the settings, which re-run the search.
#include "engine_jobs.h"
#include "graph_view.h"
#include "job_controller.h"
#include "main_window.h"
#include "memory_jobs.h"
#include "memory_view.h"
#include "settings_panel.h"
#include "units.h"

#include <QStatusBar>
#include <QTabWidget>

namespace ios::gui {

void MainWindow::connectMemoryView() {
    memoryJobs_ = new JobController(this);
    paretoJobs_ = new JobController(this);
    connect(tabs_, &QTabWidget::currentChanged, this, [this] {
        if (tabs_->currentWidget() == memory_)
            computeMemory(false, false);
    });
    connect(memory_, &views::MemoryView::computeRequested, this,
            [this] { computeMemory(true, true); });
    connect(memory_, &views::MemoryView::dpLimitChanged, this,
            [this] { computeMemory(true, false); });
    connect(memory_, &views::MemoryView::cancelRequested, this, [this] {
        memoryJobs_->cancel();
        paretoJobs_->cancel();
    });
    connect(memory_, &views::MemoryView::budgetChosen, this, &MainWindow::chooseMemoryBudget);
    connect(memory_, &views::MemoryView::stepSelected, this,
            [this](const QList<int>& live, const QList<int>& ops) {
                if (!ops.isEmpty()) // the stage tree, the table and the Streams view follow
                    selectOperator(ops.front(), Selection::Source::Memory);
                highlightInGraph(std::vector<int>(live.begin(), live.end()));
                statusBar()->showMessage(
                    tr("Live tensors: produced by %1 operators, highlighted in the graph")
                        .arg(live.size()),
                    5000);
            });
    auto running = [this] {
        memory_->setRunning(memoryJobs_->isRunning() || paretoJobs_->isRunning());
    };
    for (JobController* jobs : {memoryJobs_, paretoJobs_}) {
        connect(jobs, &JobController::started, this, running);
        connect(jobs, &JobController::progressChanged, this,
                [this](quint64, double f) { memory_->setProgress(f); });
    }
    connect(memoryJobs_, &JobController::finished, this, running);
    connect(paretoJobs_, &JobController::finished, this, running);
    connect(memoryJobs_, &JobController::failed, this,
            [this, running](quint64, const QString& message) {
                running();
                memory_->setPlaceholder(message);
                memoryShownKey_ = memoryRunningKey_; // the error is these settings' result
            });
    connect(memoryJobs_, &JobController::cancelled, this, [this, running] {
        running();
        memory_->setPlaceholder(tr("Cancelled: press Recompute."));
        memoryShownKey_.clear();
    });
    connect(paretoJobs_, &JobController::failed, this,
            [this, running](quint64, const QString& message) {
                running();
                memory_->setParetoPlaceholder(message);
                paretoShownKey_ = paretoRunningKey_;
            });
    connect(paretoJobs_, &JobController::cancelled, this, [this, running] {
        running();
        memory_->setParetoPlaceholder(tr("Cancelled: press Recompute."));
        paretoShownKey_.clear();
    });
}

void MainWindow::computeMemory(bool forceReport, bool forcePareto) {
    if (!model_)
        return;
    JobSettings settings = settings_->settings();
    settings.model = modelForSettings(settings);
    settings.recordStateSpace = false;
    settings.memoryDpLimit = memory_->dpLimit();
    // The report depends on the model (the loaded one: a new max part size reloads it, and
    // the view links the report to its operators), the batch (tensor sizes) and the DP limit;
    // the trade-off on every search setting but the budget it sweeps itself.
    const QString memoryKey = QStringLiteral("%1|%2|%3|%4")
                                  .arg(model_->source())
                                  .arg(reinterpret_cast<quintptr>(model_.get()))
                                  .arg(settings.batch)
                                  .arg(settings.memoryDpLimit);
    if (forceReport || (memoryKey != memoryShownKey_ &&
                        !(memoryJobs_->isRunning() && memoryRunningKey_ == memoryKey))) {
        memoryRunningKey_ = memoryKey;
        memory_->setPlaceholder(tr("Computing the memory report (Serenity's DP per block)…"));
        memoryJobs_->start(memoryJob(settings), [this](const auto& r) { showMemoryReport(r); });
    }
    JobSettings unbudgeted = settings;
    unbudgeted.memoryBudget = 0;
    const std::string_view pareto = paretoScheduler(settings.strategy).key();
    unbudgeted.strategy = QString::fromUtf8(pareto.data(), static_cast<qsizetype>(pareto.size()));
    const QString paretoKey = settingsKey(unbudgeted);
    if (forcePareto || (paretoKey != paretoShownKey_ &&
                        !(paretoJobs_->isRunning() && paretoRunningKey_ == paretoKey))) {
        paretoRunningKey_ = paretoKey;
        memory_->setParetoPlaceholder(tr("Computing the trade-off: %1 under %2 budgets…")
                                          .arg(strategyLabel(unbudgeted.strategy))
                                          .arg(kParetoPoints));
        paretoJobs_->start(paretoJob(unbudgeted), [this](const auto& r) { showPareto(r); });
    }
}

void MainWindow::showMemoryReport(const std::shared_ptr<const MemoryJobResult>& result) {
    if (!result || !result->report || result->settings.model != model_)
        return;
    memoryShownKey_ = memoryRunningKey_;
    memory_->setReport(model_, result->report);
    Q_EMIT memoryShown();
}

void MainWindow::showPareto(const std::shared_ptr<const ParetoResult>& result) {
    if (!result || !result->front || result->settings.model != model_)
        return;
    paretoShownKey_ = paretoRunningKey_;
    paretoStrategy_ = result->strategy;
    memory_->setPareto(result->front, strategyLabel(result->strategy));
    Q_EMIT paretoShown();
}

void MainWindow::chooseMemoryBudget(qint64 bytes) {
    // The front was searched by paretoStrategy_: a budget for it, with that strategy when the
    // chosen one does not take a budget. The settings change re-runs the search.
    const schedulers::Scheduler* chosen = schedulerFor(settings_->settings().strategy);
    const bool reads = chosen != nullptr && chosen->reads(schedulers::Knob::MemoryBudget);
    settings_->chooseBudget(bytes, reads ? QString() : paretoStrategy_);
    statusBar()->showMessage(tr("Searching under a memory budget of %1…")
                                 .arg(views::formatBytes(static_cast<double>(bytes))));
}

} // namespace ios::gui
