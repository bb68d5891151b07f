// SPDX-License-Identifier: Apache-2.0
// A tab that shows one analysis job's chart (comparison, pruning sweep, specialization) with
// its own Compute and Cancel buttons and progress bar; results are computed on demand when the
// tab is shown and the settings or model changed since. The tab owns its job controller and
// its typed job (a subclass's startJob); Cancel is enabled exactly while that job runs (the
// settings panel's Cancel stops only the main search).
#pragma once

#include "job.h"
#include "result_view.h"

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace ios::views {
class ChartWidget;
}

namespace ios::gui {

class JobController;

class AnalysisTab : public QWidget, public views::ResultView {
    Q_OBJECT
public:
    AnalysisTab(views::ChartWidget* chart, const QString& description, QWidget* parent = nullptr);

    JobController* jobs() const { return jobs_; }
    QString description() const override { return description_; }
    // Starts the tab's job for `settings` (identified by `key`) unless the chart shows that key
    // or its job computes it already; `force`: always. Results of another model than
    // `settings.model` at delivery are dropped (setModel).
    void compute(const JobSettings& settings, const QString& key, bool force);
    void setModel(const views::LoadedModelPtr& model) { model_ = model; }
    views::ChartWidget* chart() const { return chart_; }
    // Identifies the settings the chart shows; empty = nothing computed yet.
    const QString& shownKey() const { return shownKey_; }
    void setShownKey(const QString& key) { shownKey_ = key; }
    void setRunning(bool running);
    bool isRunning() const { return running_; }
    // The job stopped before its result: the chart says so (and that Compute runs it again).
    void showCancelled(const QString& why);
    // fraction 0..1 and the seconds since the job started: the bar reads "42 % · ETA 8 s".
    void setProgress(double fraction, double elapsedSeconds = 0);
    QString progressText() const;
    QProgressBar* progressBar() const { return progress_; }
    void setInfo(const QString& text);
    QPushButton* cancelButton() const { return cancel_; }
    QPushButton* computeButton() const { return compute_; }

    // views::ResultView: the chart on white.
    QWidget* widget() override { return this; }
    void renderPicture(QPainter& painter, const QRect& area) override;

Q_SIGNALS:
    void computeRequested();
    void shown(); // a result is on the chart

protected:
    // Starts the tab's typed job on jobs(); its callback calls accept() and, when true, fills
    // the chart and calls markShown().
    virtual void startJob(const JobSettings& settings) { Q_UNUSED(settings); }
    // The job's result arrived: false when it is of another model than the open one.
    bool accept(const JobSettings& settings);
    void markShown();
    // "squeezenet, batch 1, simulated v100": the chart titles' setting.
    static QString where(const JobSettings& settings);

private:
    views::ChartWidget* chart_;
    JobController* jobs_;
    views::LoadedModelPtr model_;
    QString runningKey_;
    QString description_;
    QPushButton* compute_;
    QPushButton* cancel_;
    bool running_ = false;
    QProgressBar* progress_;
    QLabel* info_;
    QString shownKey_;
};

// The analysis tabs, each with its job.
class ComparisonTab final : public AnalysisTab {
    Q_OBJECT
public:
    explicit ComparisonTab(QWidget* parent = nullptr);

protected:
    void startJob(const JobSettings& settings) override;
};

class SweepTab final : public AnalysisTab {
    Q_OBJECT
public:
    explicit SweepTab(QWidget* parent = nullptr);

protected:
    void startJob(const JobSettings& settings) override;
};

class SpecializeTab final : public AnalysisTab {
    Q_OBJECT
public:
    explicit SpecializeTab(QWidget* parent = nullptr);

protected:
    void startJob(const JobSettings& settings) override;
};

} // namespace ios::gui
