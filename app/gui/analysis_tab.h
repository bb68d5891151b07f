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
#include <optional>

class QComboBox;
class QHBoxLayout;
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
    // `settingsKey` (Session::settingsKey) with the tab's own choices that decide its result
    // (the Specialize tab's block): the key compute() and the current check use.
    QString keyFor(const QString& settingsKey) const { return settingsKey + ownChoices(); }
    virtual void setModel(const views::LoadedModelPtr& model) { model_ = model; }
    views::ChartWidget* chart() const { return chart_; }
    // Identifies the settings the chart shows; empty = nothing computed yet.
    const QString& shownKey() const { return shownKey_; }
    void setShownKey(const QString& key) { shownKey_ = key; }
    void setRunning(bool running);
    bool isRunning() const { return running_; }
    // The job stopped before its result: the chart says so (and that Compute runs it again).
    void showCancelled(const QString& why);
    // fraction 0..1 and the seconds since the job started: the bar reads "42 % · ETA 8 s".
    void setProgress(double fraction, double elapsedSeconds = 0,
                     std::optional<double> left = std::nullopt, bool over = false);
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
    // The tab's own choices as a key suffix; empty for tabs without any.
    virtual QString ownChoices() const { return {}; }
    // A control of the tab's own, in its bar after the progress bar.
    void addControl(QWidget* control);
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
    QHBoxLayout* bar_;
    QString shownKey_;
};

// The analysis tabs, each with its job.
class ComparisonTab final : public AnalysisTab {
    Q_OBJECT
public:
    explicit ComparisonTab(QWidget* parent = nullptr);
    // "fastest: IOS-Both, 1.65× over Sequential" once a comparison is shown.
    QString titleNote() const override { return fastest_; }

protected:
    void startJob(const JobSettings& settings) override;

private:
    QString fastest_;
};

class SweepTab final : public AnalysisTab {
    Q_OBJECT
public:
    explicit SweepTab(QWidget* parent = nullptr);

protected:
    void startJob(const JobSettings& settings) override;
};

// Its block selector: the whole model, or one block alone as `ios-sched info` numbers them
// (`specialize --block`, IOS paper Figure 10); a new choice computes at once.
class SpecializeTab final : public AnalysisTab {
    Q_OBJECT
public:
    explicit SpecializeTab(QWidget* parent = nullptr);

    void setModel(const views::LoadedModelPtr& model) override;
    QComboBox* blockChoice() const { return block_; }
    int block() const; // -1: the whole model

protected:
    void startJob(const JobSettings& settings) override;
    QString ownChoices() const override;

private:
    QComboBox* block_;
};

} // namespace ios::gui
