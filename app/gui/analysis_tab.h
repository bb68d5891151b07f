// A tab that shows one analysis job's chart (comparison, pruning sweep, specialization) with
// its own Compute button and progress bar; results are computed on demand when the tab is
// shown and the settings or model changed since.
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
    void setProgress(double fraction);
    void setInfo(const QString& text);

Q_SIGNALS:
    void computeRequested();

private:
    JobKind kind_;
    views::ChartWidget* chart_;
    QPushButton* compute_;
    QProgressBar* progress_;
    QLabel* info_;
    QString shownKey_;
};

} // namespace ios::gui
