// SPDX-License-Identifier: Apache-2.0
// The Memory tab's jobs and links (docs/memory.md): its report and its latency–memory
// trade-off run on its own job controllers when the tab is shown (or a search starts while it
// is) and what they depend on changed; a step selected there selects its operator and
// highlights the producers of its live tensors in the graph; a budget picked on the trade-off
// chart goes to the settings, which re-run the search. A child of the MemoryView.
#pragma once

#include "job.h"

#include <QObject>
#include <QString>

namespace ios::views {
class MemoryView;
}

namespace ios::gui {

class JobController;
class MainWindow;
class Session;

class MemoryTab : public QObject {
    Q_OBJECT
public:
    MemoryTab(MainWindow& window, views::MemoryView* view);

    JobController* reportJobs() const { return memoryJobs_; }
    JobController* paretoJobs() const { return paretoJobs_; }
    // Both shown and neither computing.
    bool isCurrent() const;

private:
    void connectView();
    void connectJobs();
    // Submits the report and the trade-off when what they depend on changed, or when forced.
    void compute(bool forceReport, bool forcePareto);
    void showReport(const std::shared_ptr<const MemoryJobResult>& result);
    void showPareto(const std::shared_ptr<const ParetoResult>& result);
    void chooseBudget(qint64 bytes);

    MainWindow& window_;
    Session* session_;
    views::MemoryView* view_;
    JobController* memoryJobs_;
    JobController* paretoJobs_;
    QString memoryShownKey_, memoryRunningKey_; // model, batch, DP limit
    QString paretoShownKey_, paretoRunningKey_; // settings without the budget
    QString paretoStrategy_;                    // the scheduler the shown front searched
};

} // namespace ios::gui
