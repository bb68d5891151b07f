// SPDX-License-Identifier: Apache-2.0
// The explorer's shared state, which every tab reads and none owns: the open model, the
// optimisation with the settings panel's settings (its job, the up-front estimate, run on
// demand), the shown result and whether it is current, and the one selection. The tabs and docks
// connect to its signals in their own code (view_registry.h); the main window only assembles.
#pragma once

#include "io/schedule_document.h"
#include "job.h"
#include "selection.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <vector>

namespace ios::gui {

class JobController;
class SettingsPanel;

class Session : public QObject {
    Q_OBJECT
public:
    Session(SettingsPanel* panel, QObject* parent);
    ~Session() override; // joins the workers before the state their callbacks touch goes

    const views::LoadedModelPtr& model() const { return model_; }
    // A newly loaded model: the search of the old one is cancelled and its result goes (its
    // indices mean other operators here); then the estimate (and a quick run).
    void setModel(views::LoadedModelPtr model);
    const SearchResultPtr& lastResult() const { return lastResult_; }
    // The shown result's run when it schedules the open model (not a rewritten graph's).
    const RunResult* shownRun() const;
    Selection* selection() const { return selection_; }
    SettingsPanel* settingsPanel() const { return panel_; }

    // The panel's settings with the open model, rebuilt first when they ask for another max
    // part size (modelRebuilt).
    JobSettings currentSettings();
    // What identifies a computation of `settings` on the open model (the analysis tabs').
    QString settingsKey(const JobSettings& settings) const;

    // Starts the optimisation with the panel's settings (Run, F5); while a saved schedule is
    // open, prices it under them instead (no search).
    void runOptimize();
    // A saved schedule of the open model (schedule_document.h), shown instead of searching
    // until cleared (nullptr: back to searching) or another model opens. Setting it prices it.
    void setSavedSchedule(std::shared_ptr<const io::ScheduleDocument> document);
    const std::shared_ptr<const io::ScheduleDocument>& savedSchedule() const { return saved_; }
    // A settings change or a new model: estimate, and run when the estimate is quick.
    void settingsEdited();
    JobController* jobs() const { return jobs_; }
    JobController* estimateJobs() const { return estimateJobs_; }

    bool isResultCurrent() const;
    // The note over stale views ("Out of date — press F5 to run\n…"), empty when current.
    QString staleMessage() const;
    // The note over the views while a rewritten result is shown, empty otherwise.
    QString rewrittenNote() const;
    // The status bar's summary of the shown result ("Out of date — …" when it is).
    QString resultSummary() const;

    // Selects one operator, with the rest of its stage in the shown schedule as context.
    void selectOperator(int flatIndex, Selection::Source source);
    std::vector<int> stageContextOf(int flatIndex) const;
    // `flat` and the other operators of the merge stages among them (the timeline draws a
    // merged convolution as one kernel of one of its operators).
    std::vector<int> withMergePartners(const std::vector<int>& flat) const;

Q_SIGNALS:
    void modelChanged();
    // Another max part size rebuilt the open model's DAGs (same graph, same operators).
    void modelRebuilt();
    // The shown result was set or cleared: views of its schedule redraw from shownRun().
    void resultChanged();
    void resultShown(); // the latest optimisation result is on screen
    void searchStarted();
    void stalenessChanged();
    void savedScheduleChanged();
    // smallestPeak > 0: a memory budget below every schedule's peak (the panel says so).
    void searchFailed(const QString& message, qint64 smallestPeak);
    void errorRaised(const QString& title, const QString& message);
    void statusMessage(const QString& text, int timeoutMs);

private:
    void connectJobs();
    void showResult(const SearchResultPtr& result);
    void showEstimate(const std::shared_ptr<const EstimateResult>& result);
    void describeResult(const RunResult& run);
    void describeRewritten(const RunResult& run);
    // The shown result is of the open saved schedule, or of a search when none is open.
    bool showsSavedFile() const;

    SettingsPanel* panel_;
    Selection* selection_;
    JobController* jobs_;
    JobController* estimateJobs_;
    views::LoadedModelPtr model_;
    JobSettings runningSettings_; // the Optimize job in flight (jobs_->isRunning())
    SearchResultPtr lastResult_;
    // The last up-front estimate (its settings say which search), and the clock of the search
    // running now, recorded against it when the result comes (recordOptimize).
    std::shared_ptr<const EstimateResult> lastEstimate_;
    std::shared_ptr<const EstimateResult> runningEstimate_;
    QElapsedTimer runClock_;
    std::shared_ptr<const io::ScheduleDocument> saved_; // shown instead of searching
    QString resultText_;                                // the shown result's summary
};

} // namespace ios::gui
