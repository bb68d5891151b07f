// SPDX-License-Identifier: Apache-2.0
#include "schedulers/parallel_jobs.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>

namespace ios::schedulers {

int defaultThreadCount() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(std::min<unsigned>(n, kMaxThreads));
}

std::vector<size_t> jobStartOrder(const std::vector<uint64_t>& weights) {
    std::vector<size_t> order(weights.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return weights[a] > weights[b]; });
    return order;
}

int innerThreads(int threads, size_t jobs) {
    threads = std::clamp(threads, 1, kMaxThreads);
    if (jobs <= 1)
        return threads;
    // Up to 4x oversubscribed while all outer jobs run, so that the last, longest job still
    // uses every core when the others are done (e.g. the batch-128 row of a specialization).
    const int outer = static_cast<int>(std::min<size_t>(jobs, static_cast<size_t>(threads)));
    return std::clamp(4 * threads / outer, 1, threads);
}

namespace {

struct JobState {
    SearchControl control;
    std::atomic<uint64_t> done{0};
    std::atomic<uint64_t> total{0};
    std::exception_ptr error;
};

class JobRunner {
public:
    JobRunner(SearchControl* parent, const std::vector<uint64_t>& weights,
              const std::function<void(size_t, SearchControl&)>& job,
              const std::function<bool()>& idle)
        : parent_(parent), weights_(weights), job_(job), idle_(idle),
          jobs_(new JobState[weights.size()]) {
        for (size_t i = 0; i < weights.size(); ++i) {
            JobState& s = jobs_[i];
            s.control.parent = parent;
            s.control.task = parent ? parent->task : std::string();
            if (parent != nullptr) {
                s.control.knob = parent->knob;
                s.control.limitHint = parent->limitHint;
            }
            s.control.progress = [&s](uint64_t done, uint64_t total) {
                s.total.store(total, std::memory_order_relaxed);
                s.done.store(done, std::memory_order_relaxed);
            };
        }
    }

    // One after the other on this thread: the jobs' progress goes straight to the caller.
    void runHere() {
        for (size_t i = 0; i < weights_.size(); ++i) {
            JobState& s = jobs_[i];
            if (parent_ != nullptr) {
                s.control.progress = [this, &s](uint64_t done, uint64_t total) {
                    s.total.store(total, std::memory_order_relaxed);
                    s.done.store(done, std::memory_order_relaxed);
                    report(); // the caller's progress and time limit, on this thread
                };
                if (parent_->cancelled())
                    throw Cancelled();
            }
            job_(i, s.control);
            s.done.store(1, std::memory_order_relaxed);
            s.total.store(1, std::memory_order_relaxed);
            if (parent_ != nullptr && i + 1 < weights_.size())
                report(); // short jobs report nothing themselves
        }
    }

    void runThreads(int threads) {
        std::vector<std::thread> workers;
        const size_t n = weights_.size();
        order_ = jobStartOrder(weights_);
        // Threads beyond the jobs only help (idle_).
        const size_t started = idle_ ? static_cast<size_t>(threads) : std::min<size_t>(threads, n);
        for (size_t t = 0; t < started; ++t)
            workers.emplace_back([this] { work(); });
        std::exception_ptr stopped; // thrown by the caller's progress or time limit
        {
            std::unique_lock lock(mutex_);
            while (finished_ < workers.size()) {
                cv_.wait_for(lock, std::chrono::milliseconds(50));
                lock.unlock();
                try {
                    if (parent_ != nullptr)
                        report();
                } catch (...) {
                    if (!stopped)
                        stopped = std::current_exception();
                    cancelFrom(0);
                }
                lock.lock();
            }
        }
        for (std::thread& w : workers)
            w.join();
        if (stopped)
            std::rethrow_exception(stopped);
        for (size_t i = 0; i < n; ++i)
            if (jobs_[i].error)
                std::rethrow_exception(jobs_[i].error);
        if (parent_ != nullptr)
            report();
    }

private:
    void work() {
        while (true) {
            // Counted as running before it is taken, so that no thread sees neither a job to
            // start nor one running while a job is about to start.
            running_.fetch_add(1);
            const size_t at = next_.fetch_add(1);
            if (at >= order_.size()) {
                running_.fetch_sub(1);
                break;
            }
            const size_t i = order_[at];
            if (i <= firstFailed_.load()) // else cancelled: a job of lower index failed
                runJob(i);
            running_.fetch_sub(1);
        }
        // No job left to start: help those still running (a job that has not yet opened
        // itself to helpers, or never does, leaves this thread polling now and then).
        while (idle_ && firstFailed_.load() == SIZE_MAX && running_.load() > 0)
            if (!idle_())
                std::this_thread::sleep_for(std::chrono::microseconds(200));
        std::lock_guard lock(mutex_);
        ++finished_;
        cv_.notify_all();
    }

    void runJob(size_t i) {
        JobState& s = jobs_[i];
        try {
            job_(i, s.control);
            s.done.store(1, std::memory_order_relaxed);
            s.total.store(1, std::memory_order_relaxed);
        } catch (...) {
            s.error = std::current_exception();
            size_t f = firstFailed_.load();
            while (i < f && !firstFailed_.compare_exchange_weak(f, i)) {
            }
            cancelFrom(i + 1);
        }
    }

    void cancelFrom(size_t first) {
        for (size_t i = first; i < weights_.size(); ++i)
            jobs_[i].control.cancel = true;
    }

    // The caller's progress and time limit, from the jobs' figures.
    void report() {
        double done = 0;
        uint64_t total = 0;
        for (size_t i = 0; i < weights_.size(); ++i) {
            const uint64_t t = jobs_[i].total.load(std::memory_order_relaxed);
            const uint64_t d = jobs_[i].done.load(std::memory_order_relaxed);
            if (t > 0)
                done += static_cast<double>(weights_[i]) *
                        std::min(1.0, static_cast<double>(d) / static_cast<double>(t));
            total += weights_[i];
        }
        const auto d = static_cast<uint64_t>(done);
        if (parent_->progress)
            parent_->progress(std::min(d, total), total);
        parent_->checkDeadline(std::min(d, total), total);
    }

    SearchControl* parent_;
    const std::vector<uint64_t>& weights_;
    const std::function<void(size_t, SearchControl&)>& job_;
    const std::function<bool()>& idle_;
    std::unique_ptr<JobState[]> jobs_;
    std::vector<size_t> order_; // the start order (runThreads)
    std::atomic<size_t> next_{0};
    std::atomic<size_t> running_{0}; // jobs started and not finished
    std::atomic<size_t> firstFailed_{SIZE_MAX};
    std::mutex mutex_;
    std::condition_variable cv_;
    size_t finished_ = 0;
};

} // namespace

void runJobs(SearchControl* control, const std::vector<uint64_t>& weights, int threads,
             const std::function<void(size_t i, SearchControl& control)>& job,
             const std::function<bool()>& idle) {
    JobRunner runner(control, weights, job, idle);
    if (threads <= 1 || weights.empty() || (weights.size() == 1 && !idle))
        runner.runHere();
    else
        runner.runThreads(std::min(threads, kMaxThreads));
}

} // namespace ios::schedulers
