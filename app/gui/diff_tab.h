// SPDX-License-Identifier: Apache-2.0
// The Diff tab (issue 32): which of two schedules is faster and why. Pick A and B (any two
// registered schedulers; DiffSource is where saved schedule files and measured traces join),
// and a background job (engine_jobs.h: diffJob) runs both under the current settings and
// compares them (eval/schedule_diff.h). On top, one sentence per block naming the mechanism;
// below, both timelines on one time axis, and tables: per-block and per-stage deltas sorted by
// gain, the kernels that moved, where each run's time goes. Registers itself in diff_tab.cpp.
#pragma once

#include "job.h"
#include "result_view.h"

#include <QWidget>
#include <functional>
#include <memory>
#include <utility>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QTabWidget;

namespace ios::views {
class TimelineCanvas;
}

namespace ios::gui {

class JobController;
class MainWindow;

class DiffTab : public QWidget, public views::ResultView {
    Q_OBJECT
public:
    explicit DiffTab(QWidget* parent = nullptr);
    static views::ResultView* create(MainWindow& window, QWidget* parent);

    // The model and settings the next comparison runs with; a source is asked at every start
    // (the window's current settings).
    void setSettings(const JobSettings& settings);
    void setSettingsSource(std::function<JobSettings()> source) {
        settingsSource_ = std::move(source);
    }
    // Chooses A and B and starts the comparison.
    void compare(const DiffSource& a, const DiffSource& b);
    // Starts the comparison of the chosen A and B.
    void compareChosen();
    // Cancels a running comparison and empties the tab.
    void clear();
    // Shows a finished comparison (the job's callback; tests).
    void showResult(const std::shared_ptr<const DiffJobResult>& result);

    DiffSource source(int side) const; // 0: A, 1: B
    JobController* jobs() const { return jobs_; }
    const std::shared_ptr<const DiffJobResult>& result() const { return result_; }
    QString sentences() const;
    QLabel* sentenceLabel() const { return sentences_; }
    QTableWidget* blockTable() const { return blocks_; }
    QTableWidget* stageTable() const { return stages_; }
    QTableWidget* movedTable() const { return moved_; }
    QTableWidget* breakdownTable() const { return breakdown_; }
    views::TimelineCanvas* timeline(int side) const { return side == 0 ? aView_ : bView_; }

    QWidget* widget() override { return this; }
    views::ShortcutTable shortcuts() const override;
    QString description() const override;
    // The comparison's headline ("IOS-Both is 1.65× faster than Sequential"); empty without one.
    QString titleNote() const override;

Q_SIGNALS:
    void shown(); // a comparison is on screen

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fillSources();
    void setRunning(bool running);
    void fillTables(const eval::ScheduleDiff& diff);
    void fillBreakdown(const eval::ScheduleDiff& diff);

    JobSettings settings_;
    std::function<JobSettings()> settingsSource_;
    std::pair<double, double> shownUs_; // the window both timelines show (µs)
    std::shared_ptr<const DiffJobResult> result_;
    JobController* jobs_;
    QComboBox* a_;
    QComboBox* b_;
    QPushButton* compare_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QLabel* sentences_;
    views::TimelineCanvas* aView_;
    views::TimelineCanvas* bView_;
    QTabWidget* tables_;
    QTableWidget* blocks_;
    QTableWidget* stages_;
    QTableWidget* moved_;
    QTableWidget* breakdown_;
};

} // namespace ios::gui
