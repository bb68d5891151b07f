// A tab that shows one analysis job's chart (comparison, pruning sweep, specialization) with
// its own Compute and Cancel buttons and progress bar; results are computed on demand when the
// tab is shown and the settings or model changed since. Cancel is enabled exactly while the
// tab's job runs (the settings panel's Cancel stops only the main search).
#pragma once

#include "job.h"

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace ios::views {
class ChartWidget;
}

namespace ios::gui {

class AnalysisTab : public QWidget {
    Q_OBJECT
public:
    AnalysisTab(JobKind kind, views::ChartWidget* chart, const QString& description,
                QWidget* parent = nullptr);

    JobKind kind() const { return kind_; }
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

Q_SIGNALS:
    void computeRequested();
    void cancelRequested();

private:
    JobKind kind_;
    views::ChartWidget* chart_;
    QPushButton* compute_;
    QPushButton* cancel_;
    bool running_ = false;
    QProgressBar* progress_;
    QLabel* info_;
    QString shownKey_;
};

} // namespace ios::gui
