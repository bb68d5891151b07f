// SPDX-License-Identifier: Apache-2.0
#include "job_controller.h"

#include "error_hints.h"
#include "util/error.h"

#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>
#include <exception>
#include <new>

namespace ios::gui {

JobController::JobController(QObject* parent) : QObject(parent) {
    progressTimer_.setInterval(kProgressIntervalMs);
    connect(&progressTimer_, &QTimer::timeout, this, &JobController::pollProgress);
}

JobController::~JobController() {
    if (current_)
        current_->cancel();
    waitForIdle();
}

quint64 JobController::startErased(Work work, Deliver done) {
    if (current_)
        current_->cancel(); // superseded: its result will be dropped
    const quint64 id = nextId_++;
    auto control = std::make_shared<JobControl>();
    current_ = control;
    currentId_ = id;
    // Forget futures that are done so the list stays short.
    std::erase_if(futures_, [](const QFuture<void>& f) { return f.isFinished(); });

    QPointer<JobController> self(this);
    futures_.push_back(QtConcurrent::run([self, work = std::move(work), done = std::move(done),
                                          control, id] {
        std::shared_ptr<const void> result;
        Failure error;
        bool wasCancelled = false;
        try {
            result = work(*control);
        } catch (const Cancelled&) {
            wasCancelled = true;
        } catch (const schedulers::MemoryBudgetTooSmall& e) {
            error = {forGuiUsers(e), e.smallestPeak()};
        } catch (const UserError& e) {
            error.message = forGuiUsers(e);
        } catch (const std::bad_alloc&) {
            error.message = QStringLiteral("out of memory: the work is too large for the memory "
                                           "available; give a smaller model, batch or search");
        } catch (const std::exception& e) {
            error.message = QStringLiteral("internal error: ") + QString::fromStdString(e.what());
        }
        // Back to the UI thread; the QPointer guard skips delivery if the controller is gone.
        QMetaObject::invokeMethod(
            self.data(),
            [self, id, result, done, error, wasCancelled] {
                if (self)
                    self->deliver(id, result, done, error, wasCancelled);
            },
            Qt::QueuedConnection);
    }));
    progressTimer_.start();
    clock_.start();
    estimateLow_ = estimateHigh_ = 0;
    eta_ = util::EtaTracker();
    left_.reset();
    Q_EMIT started(id);
    Q_EMIT progressChanged(id, 0.0);
    return id;
}

void JobController::cancel() {
    if (!current_)
        return;
    current_->cancel();
    current_.reset();
    progressTimer_.stop();
    Q_EMIT cancelled(currentId_);
}

void JobController::deliver(quint64 id, const std::shared_ptr<const void>& result,
                            const Deliver& done, const Failure& failure, bool wasCancelled) {
    if (id != currentId_ || !current_) {
        ++dropped_; // superseded or cancelled: latest request wins
        return;
    }
    current_.reset();
    progressTimer_.stop();
    if (wasCancelled)
        Q_EMIT cancelled(id);
    else if (!failure.message.isEmpty())
        Q_EMIT failed(id, failure.message, failure.smallestPeak);
    else {
        Q_EMIT progressChanged(id, 1.0);
        done(result);
        Q_EMIT finished(id);
    }
}

void JobController::setEstimate(double low, double high) {
    if (!current_ || high <= 0)
        return;
    estimateLow_ = low;
    estimateHigh_ = high;
    eta_ = util::EtaTracker(low > 0 ? std::sqrt(low * high) : high);
    Q_EMIT estimated(currentId_, low, high);
}

void JobController::pollProgress() {
    if (!current_)
        return;
    if (estimateHigh_ <= 0 && current_->estimateHigh.load() > 0)
        setEstimate(current_->estimateLow.load(), current_->estimateHigh.load());
    const double fraction = current_->progress.load();
    const double elapsed = static_cast<double>(clock_.nsecsElapsed()) * 1e-9;
    left_ = eta_.update(fraction, elapsed);
    Q_EMIT progressChanged(currentId_, fraction);
    Q_EMIT progressDetail(currentId_, fraction, current_->done.load(), current_->total.load(),
                          elapsed);
}

void JobController::waitForIdle() {
    for (QFuture<void>& f : futures_)
        f.waitForFinished();
    futures_.clear();
}

} // namespace ios::gui
