// SPDX-License-Identifier: Apache-2.0
// The one front end for background work (docs/architecture.md "Data flow", hotspot's
// pattern): runs a typed job (job.h: Job<R>, its inputs copied into it) with QtConcurrent,
// polls its progress (throttled), cancels it, drops results of superseded jobs (latest request
// wins) and hands the latest's result to its typed callback. The UI thread never runs a search.
// Each view owns the controllers of its jobs.
#pragma once

#include "job.h"
#include "util/eta.h"

#include <QElapsedTimer>
#include <QFuture>
#include <QObject>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace ios::gui {

class JobController : public QObject {
    Q_OBJECT
public:
    explicit JobController(QObject* parent = nullptr);
    ~JobController() override; // cancels the running job and waits for every worker

    // Starts `job`; a job still running is cancelled and its result will be dropped. When it
    // finishes and is still the latest, `done` gets its result on the UI thread (then
    // `finished` is emitted). Returns the job id.
    template <class R, class Done> quint64 start(Job<R> job, Done&& done) {
        std::function<void(std::shared_ptr<const R>)> typed(std::forward<Done>(done));
        return startErased(
            [run = std::move(job.run)](JobControl& control) -> std::shared_ptr<const void> {
                return std::make_shared<const R>(run(control));
            },
            [typed = std::move(typed)](const std::shared_ptr<const void>& result) {
                typed(std::static_pointer_cast<const R>(result));
            });
    }
    // Cancels the current job; `cancelled` is emitted at once, the worker stops within 100 ms.
    void cancel();
    bool isRunning() const { return current_ != nullptr; }
    quint64 currentId() const { return currentId_; }
    // The running job's control (its live MetaFlow trace), or nullptr.
    std::shared_ptr<const JobControl> currentControl() const { return current_; }
    int droppedResults() const { return dropped_; }
    // Blocks until every worker has returned (tests, shutdown).
    void waitForIdle();

    // The running job's up-front estimate (seconds): what the job published
    // (JobControl::estimateLow/High, job_estimates.h) or what the caller that estimated it
    // gives here; 0 of 0 when none. Emits `estimated`.
    void setEstimate(double low, double high);
    double estimateLow() const { return estimateLow_; }
    double estimateHigh() const { return estimateHigh_; }
    // The time left the progress bar shows (util::EtaTracker over the estimate and the
    // progress: never more than twice its least answer), as of the last progressDetail;
    // nullopt when there is nothing to say. overEstimate(): running past the estimate.
    std::optional<double> secondsLeft() const { return left_; }
    bool overEstimate() const { return eta_.held(); }

    static constexpr int kProgressIntervalMs = 50;

Q_SIGNALS:
    void started(quint64 id);
    void progressChanged(quint64 id, double fraction);
    // With the search's own counts (JobControl::done of total, 0 of 0 when it reports none)
    // and the seconds since the job started: what the progress bar's rate and ETA need.
    void progressDetail(quint64 id, double fraction, quint64 done, quint64 total,
                        double elapsedSeconds);
    void estimated(quint64 id, double low, double high); // the job's up-front estimate
    void finished(quint64 id);                           // after the job's callback got its result
    // smallestPeak > 0: the job's memory budget is below the least peak any schedule
    // reaches (schedulers::MemoryBudgetTooSmall), which it is.
    void failed(quint64 id, const QString& message, qint64 smallestPeak);
    void cancelled(quint64 id);

private:
    using Work = std::function<std::shared_ptr<const void>(JobControl&)>;
    using Deliver = std::function<void(const std::shared_ptr<const void>&)>;
    struct Failure {
        QString message; // empty: none
        qint64 smallestPeak = 0;
    };
    quint64 startErased(Work work, Deliver done);
    void deliver(quint64 id, const std::shared_ptr<const void>& result, const Deliver& done,
                 const Failure& failure, bool wasCancelled);
    void pollProgress();

    std::shared_ptr<JobControl> current_;
    quint64 currentId_ = 0;
    quint64 nextId_ = 1;
    int dropped_ = 0;
    QTimer progressTimer_;
    QElapsedTimer clock_; // since the current job started
    double estimateLow_ = 0;
    double estimateHigh_ = 0;
    util::EtaTracker eta_;
    std::optional<double> left_;
    std::vector<QFuture<void>> futures_;
};

} // namespace ios::gui
