// SPDX-License-Identifier: Apache-2.0
#include "memory_tab.h"

#include "engine_jobs.h"
#include "estimate_text.h"
#include "job_controller.h"
#include "main_window.h"
#include "memory_jobs.h"
#include "memory_view.h"
#include "session.h"
#include "settings_panel.h"
#include "units.h"
#include "view_registry.h"

#include <QStatusBar>
#include <QTabWidget>

namespace ios::gui {

static views::ResultView* makeMemoryTab(MainWindow& window, QWidget* parent) {
    auto* view = new views::MemoryView(parent);
    auto* tab = new MemoryTab(window, view);
    view->setCurrentCheck([tab] { return tab->isCurrent(); });
    return view;
}

MemoryTab::MemoryTab(MainWindow& window, views::MemoryView* view)
    : QObject(view), window_(window), session_(window.session()), view_(view),
      memoryJobs_(new JobController(this)), paretoJobs_(new JobController(this)) {
    connectView();
    connectJobs();
}

void MemoryTab::connectView() {
    auto computeWhenShown = [this] {
        if (window_.tabs()->currentWidget() == view_)
            compute(false, false);
    };
    connect(window_.tabs(), &QTabWidget::currentChanged, this, computeWhenShown);
    connect(session_, &Session::searchStarted, this, computeWhenShown);
    connect(session_, &Session::modelChanged, this, [this] {
        memoryShownKey_.clear();
        paretoShownKey_.clear();
    });
    connect(session_, &Session::resultChanged, this, [this] {
        const RunResult* run = session_->shownRun();
        if (run == nullptr) {
            view_->clear();
            return;
        }
        view_->setSchedule(session_->model(), run->schedule, strategyLabel(run->strategy),
                           run->peakBytes, run->latencyMs,
                           session_->lastResult()->settings.memoryBudget);
    });
    connect(session_->selection(), &Selection::changed, this, [this] {
        const Selection& s = *session_->selection();
        if (!(s.source() == Selection::Source::Memory) && s.operators().size() == 1)
            view_->selectOperator(s.operators().front());
    });
    connect(view_, &views::MemoryView::computeRequested, this, [this] { compute(true, true); });
    connect(view_, &views::MemoryView::dpLimitChanged, this, [this] { compute(true, false); });
    connect(view_, &views::MemoryView::cancelRequested, this, [this] {
        memoryJobs_->cancel();
        paretoJobs_->cancel();
    });
    connect(view_, &views::MemoryView::budgetChosen, this, &MemoryTab::chooseBudget);
    connect(view_, &views::MemoryView::stepSelected, this,
            [this](const QList<int>& live, const QList<int>& ops) {
                if (!ops.isEmpty()) // the stage tree, the table and the Streams view follow
                    session_->selectOperator(ops.front(), Selection::Source::Memory);
                window_.highlightInGraph(std::vector<int>(live.begin(), live.end()));
                window_.statusBar()->showMessage(
                    tr("Live tensors: produced by %1 operators, highlighted in the graph")
                        .arg(live.size()),
                    5000);
            });
}

void MemoryTab::connectJobs() {
    auto running = [this] {
        view_->setRunning(memoryJobs_->isRunning() || paretoJobs_->isRunning());
    };
    for (JobController* jobs : {memoryJobs_, paretoJobs_}) {
        connect(jobs, &JobController::started, this, running);
        connect(jobs, &JobController::finished, this, running);
        connect(jobs, &JobController::progressDetail, this,
                [this, jobs](quint64, double f, quint64, quint64, double elapsed) {
                    view_->setProgress(f, estimate_text::formatProgress(f, 0, 0, elapsed,
                                                                        jobs->secondsLeft(),
                                                                        jobs->overEstimate()));
                });
    }
    connect(memoryJobs_, &JobController::failed, this,
            [this, running](quint64, const QString& message) {
                running();
                view_->setPlaceholder(message);
                memoryShownKey_ = memoryRunningKey_; // the error is these settings' result
            });
    connect(memoryJobs_, &JobController::cancelled, this, [this, running] {
        running();
        view_->setPlaceholder(tr("Cancelled: press Recompute."));
        memoryShownKey_.clear();
    });
    connect(paretoJobs_, &JobController::failed, this,
            [this, running](quint64, const QString& message) {
                running();
                view_->setParetoPlaceholder(message);
                paretoShownKey_ = paretoRunningKey_;
            });
    connect(paretoJobs_, &JobController::cancelled, this, [this, running] {
        running();
        view_->setParetoPlaceholder(tr("Cancelled: press Recompute."));
        paretoShownKey_.clear();
    });
}

bool MemoryTab::isCurrent() const {
    return !memoryJobs_->isRunning() && !paretoJobs_->isRunning() && !memoryShownKey_.isEmpty() &&
           !paretoShownKey_.isEmpty();
}

void MemoryTab::compute(bool forceReport, bool forcePareto) {
    if (!session_->model())
        return;
    JobSettings settings = session_->currentSettings();
    const views::LoadedModelPtr& model = session_->model();
    settings.recordStateSpace = false;
    settings.memoryDpLimit = view_->dpLimit();
    // The report depends on the model (the loaded one: a new max part size reloads it, and
    // the view links the report to its operators), the batch (tensor sizes) and the DP limit;
    // the trade-off on every search setting but the budget it sweeps itself.
    const QString memoryKey = QStringLiteral("%1|%2|%3|%4")
                                  .arg(model->source())
                                  .arg(reinterpret_cast<quintptr>(model.get()))
                                  .arg(settings.batch)
                                  .arg(settings.memoryDpLimit);
    if (forceReport || (memoryKey != memoryShownKey_ &&
                        !(memoryJobs_->isRunning() && memoryRunningKey_ == memoryKey))) {
        memoryRunningKey_ = memoryKey;
        view_->setPlaceholder(tr("Computing the memory report (Serenity's DP per block)…"));
        memoryJobs_->start(memoryJob(settings), [this](const auto& r) { showReport(r); });
    }
    JobSettings unbudgeted = settings;
    unbudgeted.memoryBudget = 0;
    const std::string_view pareto = paretoScheduler(settings.strategy).key();
    unbudgeted.strategy = QString::fromUtf8(pareto.data(), static_cast<qsizetype>(pareto.size()));
    const QString paretoKey = session_->settingsKey(unbudgeted);
    if (forcePareto || (paretoKey != paretoShownKey_ &&
                        !(paretoJobs_->isRunning() && paretoRunningKey_ == paretoKey))) {
        paretoRunningKey_ = paretoKey;
        view_->setParetoPlaceholder(tr("Computing the trade-off: %1 under %2 budgets…")
                                        .arg(strategyLabel(unbudgeted.strategy))
                                        .arg(kParetoPoints));
        paretoJobs_->start(paretoJob(unbudgeted), [this](const auto& r) { showPareto(r); });
    }
}

void MemoryTab::showReport(const std::shared_ptr<const MemoryJobResult>& result) {
    if (!result || !result->report || result->settings.model != session_->model())
        return;
    memoryShownKey_ = memoryRunningKey_;
    view_->setReport(session_->model(), result->report);
    Q_EMIT window_.memoryShown();
}

void MemoryTab::showPareto(const std::shared_ptr<const ParetoResult>& result) {
    if (!result || !result->front || result->settings.model != session_->model())
        return;
    paretoShownKey_ = paretoRunningKey_;
    paretoStrategy_ = result->strategy;
    view_->setPareto(result->front, strategyLabel(result->strategy));
    Q_EMIT window_.paretoShown();
}

void MemoryTab::chooseBudget(qint64 bytes) {
    // The front was searched by paretoStrategy_: a budget for it, with that strategy when the
    // chosen one does not take a budget. The settings change re-runs the search.
    SettingsPanel* panel = session_->settingsPanel();
    const schedulers::Scheduler* chosen = schedulerFor(panel->settings().strategy);
    const bool reads = chosen != nullptr && chosen->reads(schedulers::Knob::MemoryBudget);
    panel->chooseBudget(bytes, reads ? QString() : paretoStrategy_);
    window_.statusBar()->showMessage(tr("Searching under a memory budget of %1…")
                                         .arg(views::formatBytes(static_cast<double>(bytes))));
}

IOS_REGISTER_VIEW(memory, ViewRegistration{"memoryView", IOS_TAB_TITLE("Memory"),
                                           ViewRegistration::Overlay::Banner, 50, &makeMemoryTab});

} // namespace ios::gui
