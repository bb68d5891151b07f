// SPDX-License-Identifier: Apache-2.0
#include "session.h"

#include "engine_jobs.h"
#include "error_hints.h"
#include "estimate_text.h"
#include "job_controller.h"
#include "job_estimates.h"
#include "settings_panel.h"
#include "units.h"
#include "util/error.h"

#include <algorithm>

namespace ios::gui {

Session::Session(SettingsPanel* panel, QObject* parent)
    : QObject(parent), panel_(panel), selection_(new Selection(this)),
      jobs_(new JobController(this)), estimateJobs_(new JobController(this)) {
    connectJobs();
}

Session::~Session() {
    delete jobs_; // join the workers before the members their callbacks touch go
    delete estimateJobs_;
}

void Session::connectJobs() {
    connect(panel_, &SettingsPanel::settingsChanged, this, [this] {
        panel_->save();
        settingsEdited();
    });
    connect(panel_, &SettingsPanel::runRequested, this, &Session::runOptimize);
    connect(panel_, &SettingsPanel::cancelRequested, jobs_, &JobController::cancel);
    connect(jobs_, &JobController::started, this, [this] {
        panel_->setRunning(true);
        Q_EMIT statusMessage(tr("Searching…"), 0);
        Q_EMIT stalenessChanged();
    });
    connect(jobs_, &JobController::progressDetail, this,
            [this](quint64, double f, quint64 done, quint64 total, double elapsed) {
                panel_->setProgress(f, done, total, elapsed, jobs_->secondsLeft(),
                                    jobs_->overEstimate());
            });
    connect(jobs_, &JobController::cancelled, this, [this] {
        panel_->setRunning(false);
        Q_EMIT statusMessage(tr("Search cancelled"), 5000);
        Q_EMIT stalenessChanged(); // the panel and the views say which settings are shown
    });
    connect(jobs_, &JobController::failed, this,
            [this](quint64, const QString& message, qint64 smallestPeak) {
                panel_->setRunning(false);
                if (smallestPeak > 0)
                    panel_->showBudgetTooSmall(panel_->settings().memoryBudget, smallestPeak);
                Q_EMIT searchFailed(message, smallestPeak);
                Q_EMIT stalenessChanged();
            });
    connect(estimateJobs_, &JobController::failed, this,
            [this](quint64, const QString& message, qint64 smallestPeak) {
                // The search would fail the same way: say so as it would.
                panel_->setEstimateText(tr("The search would fail: %1").arg(message));
                if (smallestPeak > 0) {
                    panel_->showBudgetTooSmall(panel_->settings().memoryBudget, smallestPeak);
                    Q_EMIT searchFailed(message, smallestPeak);
                }
            });
}

void Session::setModel(views::LoadedModelPtr model) {
    jobs_->cancel(); // a search of the old model is moot
    model_ = std::move(model);
    if (saved_) { // a saved schedule is of the model it was opened against
        saved_.reset();
        Q_EMIT savedScheduleChanged();
    }
    lastResult_.reset();
    resultText_.clear();
    selection_->clear();
    panel_->setResultText({});
    int explicitBlocks = 0; // blocks with their own parts, which Max part size does not cut
    for (const ir::BlockDag& dag : model_ ? model_->dags() : std::vector<ir::BlockDag>{})
        explicitBlocks += dag.explicitParts ? 1 : 0;
    panel_->setExplicitParts(explicitBlocks, model_ ? static_cast<int>(model_->dags().size()) : 0);
    Q_EMIT modelChanged();
    Q_EMIT resultChanged();
    settingsEdited(); // runs when the estimate is under the auto-run limit
}

const RunResult* Session::shownRun() const {
    if (!lastResult_ || lastResult_->runs.empty() || !model_ ||
        lastResult_->settings.model != model_ || lastResult_->runs.front().rewritten)
        return nullptr;
    return &lastResult_->runs.front();
}

JobSettings Session::currentSettings() {
    JobSettings settings = panel_->settings();
    if (model_ && model_->maxPartSize() != settings.maxPartSize &&
        model_->graph().blocks.size() > 0) {
        // Parts depend on the max part size (docs/algorithms.md §1): rebuild the DAGs.
        try {
            model_ = std::make_shared<const views::LoadedModel>(model_->graph(), model_->source(),
                                                                settings.maxPartSize);
            Q_EMIT modelRebuilt();
        } catch (const UserError& e) {
            Q_EMIT errorRaised(tr("Invalid settings"), forGuiUsers(e)); // GUI words, no flags
        }
    }
    settings.model = model_;
    return settings;
}

QString Session::settingsKey(const JobSettings& s) const {
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

void Session::settingsEdited() {
    Q_EMIT stalenessChanged();
    if (!model_)
        return;
    JobSettings current = panel_->settings();
    current.model = model_;
    const bool shown = lastResult_ && lastResult_->matches(model_, current) && showsSavedFile();
    if (saved_ && !shown) { // pricing a saved schedule takes milliseconds: no estimate
        runOptimize();
        return;
    }
    const bool searching = jobs_->isRunning() && runningSettings_.model == model_ &&
                           sameSearch(runningSettings_, current);
    if (shown || searching) { // back to what is on screen, or on its way: nothing to start
        estimateJobs_->cancel();
        panel_->setEstimateText({});
        return;
    }
    panel_->setEstimateText(tr("Estimating the search…"));
    estimateJobs_->start(estimateJob(current), [this](const auto& r) { showEstimate(r); });
}

void Session::showEstimate(const std::shared_ptr<const EstimateResult>& result) {
    JobSettings current = panel_->settings();
    if (!result || result->settings.model != model_ || !sameSearch(result->settings, current))
        return; // the settings moved on; their own estimate follows
    lastEstimate_ = result;
    const double limit = panel_->autoRunSeconds();
    QString text;
    bool quick = false;
    if (result->estimate) {
        text = estimate_text::describeEstimate(*result->estimate);
        quick = estimate_text::runsUnder(*result->estimate, limit);
    } else {
        text = tr("%1: no up-front estimate (not the IOS DP)").arg(strategyLabel(current.strategy));
        quick = limit > 0;
    }
    if (!quick)
        text += estimate_text::notRunNote(result->estimate ? &*result->estimate : nullptr, limit);
    panel_->setEstimateText(text);
    if (quick)
        runOptimize();
}

void Session::runOptimize() {
    if (!model_)
        return;
    if (estimateJobs_->isRunning()) { // running now: whatever it would say is moot
        estimateJobs_->cancel();
        panel_->setEstimateText({});
    }
    runningSettings_ = currentSettings();
    jobs_->start(saved_ ? savedScheduleJob(runningSettings_, saved_)
                        : optimizeJob(runningSettings_),
                 [this](const SearchResultPtr& result) {
                     panel_->setRunning(false);
                     if (runningEstimate_)
                         recordOptimize(*runningEstimate_,
                                        static_cast<double>(runClock_.nsecsElapsed()) * 1e-9);
                     showResult(result);
                 });
    // The bar's ETA starts from the estimate the panel showed for exactly this search.
    runningEstimate_.reset();
    if (!saved_ && lastEstimate_ && lastEstimate_->estimate &&
        lastEstimate_->settings.model == model_ &&
        sameSearch(lastEstimate_->settings, runningSettings_)) {
        runningEstimate_ = lastEstimate_;
        const schedulers::TimeRange r = schedulers::rangeOf(*lastEstimate_->estimate);
        jobs_->setEstimate(r.low, r.high);
    }
    runClock_.start();
    Q_EMIT searchStarted();
}

void Session::setSavedSchedule(std::shared_ptr<const io::ScheduleDocument> document) {
    saved_ = std::move(document);
    Q_EMIT savedScheduleChanged();
    if (saved_)
        runOptimize();
    else
        settingsEdited(); // back to searching: estimate, and run when quick
}

bool Session::showsSavedFile() const {
    return lastResult_ && lastResult_->scheduleFile ==
                              (saved_ ? QString::fromStdString(saved_->source) : QString());
}

bool Session::isResultCurrent() const {
    return lastResult_ && lastResult_->matches(model_, panel_->settings()) && showsSavedFile();
}

QString Session::staleMessage() const {
    // No result at all: the views are empty and say so themselves; the panel's estimate says
    // whether the search runs by itself or waits for F5.
    if (!model_ || !lastResult_ || isResultCurrent())
        return {};
    const QString diff = searchDifference(lastResult_->settings, panel_->settings());
    return (jobs_->isRunning() ? tr("Out of date — searching…\n%1")
                               : tr("Out of date — press F5 to run\n%1"))
        .arg(diff);
}

QString Session::rewrittenNote() const {
    if (!lastResult_ || lastResult_->runs.empty() || !lastResult_->runs.front().rewritten)
        return {};
    const RunResult& run = lastResult_->runs.front();
    return tr("%1 rewrote the graph (%2 substitutions): its stages are of the rewritten graph "
              "G*, not of this one. The MetaFlow tab shows G* and its schedules.")
        .arg(strategyLabel(run.strategy))
        .arg(run.substitutions);
}

QString Session::resultSummary() const {
    QString note;
    if (model_ && lastResult_ && !isResultCurrent())
        note = tr("Showing %1 · batch %2 — changed since: %3. F5 to run.")
                   .arg(strategyLabel(lastResult_->settings.strategy))
                   .arg(lastResult_->settings.batch)
                   .arg(searchDifference(lastResult_->settings, panel_->settings()));
    panel_->setStaleNote(note);
    return note.isEmpty() || resultText_.isEmpty() ? resultText_
                                                   : tr("Out of date — %1").arg(resultText_);
}

void Session::showResult(const SearchResultPtr& result) {
    if (!result || result->runs.empty() || result->settings.model != model_)
        return;
    lastResult_ = result;
    const RunResult& run = result->runs.front();
    if (run.rewritten) {
        selection_->clear(); // the views of G0 show no schedule
        describeRewritten(run);
    } else
        describeResult(run);
    Q_EMIT resultChanged();
    Q_EMIT statusMessage({}, 0);
    Q_EMIT stalenessChanged();
    Q_EMIT resultShown();
}

void Session::describeResult(const RunResult& run) {
    const SearchResult& result = *lastResult_;
    const double speedup = run.latencyMs > 0 ? result.sequentialLatencyMs / run.latencyMs : 0;
    const QString budget =
        result.settings.memoryBudget > 0
            ? tr(" (budget %1)")
                  .arg(views::formatBytes(static_cast<double>(result.settings.memoryBudget)))
            : QString();
    QString text = tr("%1: %2 (×%3 vs sequential) · peak %4%5")
                       .arg(strategyLabel(run.strategy), views::formatMs(run.latencyMs))
                       .arg(speedup, 0, 'f', 2)
                       .arg(views::formatBytes(static_cast<double>(run.peakBytes)), budget);
    QString details = tr("<b>%1</b><br>latency %2<br>speed-up ×%3 over sequential (%4)<br>peak "
                         "activation memory %5%6")
                          .arg(strategyLabel(run.strategy), views::formatMs(run.latencyMs))
                          .arg(speedup, 0, 'f', 2)
                          .arg(views::formatMs(result.sequentialLatencyMs),
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
    details += tr("<br><i>%1</i>").arg(result.costModel.toHtmlEscaped());
    resultText_ = text;
    panel_->setResultText(details);
}

void Session::describeRewritten(const RunResult& run) {
    const SearchResult& result = *lastResult_;
    const QString label = strategyLabel(run.strategy);
    const double speedup = run.latencyMs > 0 ? result.sequentialLatencyMs / run.latencyMs : 0;
    resultText_ = tr("%1: %2 (×%3 vs sequential) · peak %4 · graph rewritten (%5 substitutions)")
                      .arg(label, views::formatMs(run.latencyMs))
                      .arg(speedup, 0, 'f', 2)
                      .arg(views::formatBytes(static_cast<double>(run.peakBytes)))
                      .arg(run.substitutions);
    panel_->setResultText(
        tr("<b>%1</b><br>latency %2 on the rewritten graph<br>speed-up ×%3 over sequential on "
           "the original (%4)<br>%5 substitutions — see the MetaFlow tab<br><i>%6</i>")
            .arg(label, views::formatMs(run.latencyMs))
            .arg(speedup, 0, 'f', 2)
            .arg(views::formatMs(result.sequentialLatencyMs))
            .arg(run.substitutions)
            .arg(result.costModel.toHtmlEscaped()));
}

void Session::selectOperator(int flatIndex, Selection::Source source) {
    if (!model_ || flatIndex < 0 || flatIndex >= model_->operatorCount())
        return;
    selection_->select({flatIndex}, stageContextOf(flatIndex), source);
}

std::vector<int> Session::stageContextOf(int flatIndex) const {
    const RunResult* run = shownRun();
    if (run == nullptr || flatIndex < 0 || flatIndex >= model_->operatorCount())
        return {};
    const views::OperatorRef ref = model_->operators()[static_cast<size_t>(flatIndex)];
    const schedule::Schedule& shown = run->shownStages(); // as the stage tree shows them
    if (ref.block < 0 || static_cast<size_t>(ref.block) >= shown.blocks.size())
        return {};
    for (const schedule::Stage& stage : shown.blocks[static_cast<size_t>(ref.block)].stages)
        for (const auto& group : stage.groups)
            if (std::find(group.begin(), group.end(), ref.op) != group.end()) {
                std::vector<int> out;
                for (const auto& g : stage.groups)
                    for (int op : g)
                        out.push_back(model_->flatIndex({ref.block, op}));
                return out;
            }
    return {};
}

std::vector<int> Session::withMergePartners(const std::vector<int>& flat) const {
    const RunResult* run = shownRun();
    if (run == nullptr)
        return flat;
    const schedule::Schedule& sched = run->schedule;
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

} // namespace ios::gui
