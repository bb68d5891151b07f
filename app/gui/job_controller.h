// The one front end for background work (docs/architecture.md "Data flow", hotspot's
// pattern): copies the settings into a job, runs it with QtConcurrent, polls its progress
// (throttled), cancels it, and drops results of superseded jobs (latest request wins). The UI
// thread never runs a search.
#pragma once

#include "job.h"

#include <QElapsedTimer>
#include <QFuture>
#include <QObject>
#include <QTimer>
#include <memory>
#include <vector>

namespace ios::gui {

class JobController : public QObject {
    Q_OBJECT
public:
    // `engine` must outlive the controller (the destructor waits for running jobs).
    explicit JobController(const JobEngine* engine, QObject* parent = nullptr);
    ~JobController() override;

    // Starts a job; a job still running is cancelled and its result will be dropped.
    // Returns the job id.
    quint64 submit(JobKind kind, const JobSettings& settings);
    // Cancels the current job; `cancelled` is emitted at once, the worker stops within 100 ms.
    void cancel();
    bool isRunning() const { return current_ != nullptr; }
    quint64 currentId() const { return currentId_; }
    // The running job's control (its live MetaFlow trace), or nullptr.
    std::shared_ptr<const JobControl> currentControl() const { return current_; }
    int droppedResults() const { return dropped_; }
    // Blocks until every worker has returned (tests, shutdown).
    void waitForIdle();

    static constexpr int kProgressIntervalMs = 50;

Q_SIGNALS:
    void started(quint64 id, ios::gui::JobKind kind);
    void progressChanged(quint64 id, double fraction);
    // With the search's own counts (JobControl::done of total, 0 of 0 when it reports none)
    // and the seconds since the job started: what the progress bar's rate and ETA need.
    void progressDetail(quint64 id, double fraction, quint64 done, quint64 total,
                        double elapsedSeconds);
    void finished(quint64 id, ios::gui::JobResultPtr result);
    // smallestPeak > 0: the job's memory budget is below the least peak any schedule
    // reaches (schedulers::MemoryBudgetTooSmall), which it is.
    void failed(quint64 id, const QString& message, qint64 smallestPeak);
    void cancelled(quint64 id);

private:
    struct Failure {
        QString message; // empty: none
        qint64 smallestPeak = 0;
    };
    void deliver(quint64 id, JobResultPtr result, const Failure& failure, bool wasCancelled);
    void pollProgress();

    const JobEngine* engine_;
    std::shared_ptr<JobControl> current_;
    quint64 currentId_ = 0;
    quint64 nextId_ = 1;
    int dropped_ = 0;
    QTimer progressTimer_;
    QElapsedTimer clock_; // since the current job started
    std::vector<QFuture<void>> futures_;
};

} // namespace ios::gui
