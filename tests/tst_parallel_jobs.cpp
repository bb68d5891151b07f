// SPDX-License-Identifier: Apache-2.0
// schedulers::runJobs (parallel_jobs.h): results in index order for every thread count, the
// lowest failing job's exception (as on one thread), cancellation from the caller, progress
// and the time limit reported from the calling thread.
#include "schedulers/parallel_jobs.h"
#include "util/error.h"

#include <QTest>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

using namespace ios;
using schedulers::SearchControl;

class TestParallelJobs : public QObject {
    Q_OBJECT

private slots:
    void resultsInOrder_data() {
        QTest::addColumn<int>("threads");
        for (int t : {1, 2, 7})
            QTest::addRow("%d threads", t) << t;
    }
    void resultsInOrder() {
        QFETCH(int, threads);
        std::vector<uint64_t> out(40, 0);
        std::mutex m;
        std::set<std::thread::id> ran;
        schedulers::runJobs(nullptr, std::vector<uint64_t>(out.size(), 1), threads,
                            [&](size_t i, SearchControl&) {
                                out[i] = i * i + 1;
                                std::lock_guard lock(m);
                                ran.insert(std::this_thread::get_id());
                            });
        for (size_t i = 0; i < out.size(); ++i)
            QCOMPARE(out[i], uint64_t(i * i + 1));
        QVERIFY(ran.size() <= size_t(threads));
        if (threads == 1)
            QCOMPARE(*ran.begin(), std::this_thread::get_id());
    }

    // Job 3 fails late, job 7 at once: the caller sees job 3's error whatever the threads, as
    // a run on one thread (which never reaches job 7) would.
    void lowestFailureWins_data() { resultsInOrder_data(); }
    void lowestFailureWins() {
        QFETCH(int, threads);
        std::atomic<int> started{0};
        std::atomic<bool> startedAfterFailure{false};
        try {
            schedulers::runJobs(nullptr, std::vector<uint64_t>(12, 1), threads,
                                [&](size_t i, SearchControl& job) {
                                    ++started;
                                    if (threads == 1 && i > 3)
                                        startedAfterFailure = true;
                                    if (i == 3) {
                                        std::this_thread::sleep_for(std::chrono::milliseconds(30));
                                        throw UserError("job 3 failed");
                                    }
                                    if (i == 7)
                                        throw UserError("job 7 failed");
                                    for (int k = 0; k < 20 && !job.cancelled(); ++k)
                                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                });
            QFAIL("no exception");
        } catch (const UserError& e) {
            QCOMPARE(QString::fromStdString(e.what()), QStringLiteral("job 3 failed"));
        }
        QVERIFY(!startedAfterFailure);
        QVERIFY(started >= 4);
    }

    // Jobs start heaviest first, ties in index order.
    void startOrder() {
        QCOMPARE(schedulers::jobStartOrder({1, 5, 2, 9, 3}), (std::vector<size_t>{3, 1, 4, 2, 0}));
        QCOMPARE(schedulers::jobStartOrder({4, 4, 7, 4}), (std::vector<size_t>{2, 0, 1, 3}));
        QCOMPARE(schedulers::jobStartOrder({}), std::vector<size_t>{});
    }

    // With weights that start the last jobs first: job 9 fails at once, job 2 late; job 2's
    // error comes back whatever the threads (a run on one thread never reaches job 9), jobs
    // 0 and 1 still run (they could fail first), jobs 3-8 run or are cancelled, and every
    // result below job 2 is there.
    void lowestFailureWinsHeaviestFirst_data() { resultsInOrder_data(); }
    void lowestFailureWinsHeaviestFirst() {
        QFETCH(int, threads);
        std::vector<uint64_t> weights(10);
        for (size_t i = 0; i < weights.size(); ++i)
            weights[i] = i + 1;
        std::vector<int> done(weights.size(), 0);
        try {
            schedulers::runJobs(nullptr, weights, threads, [&](size_t i, SearchControl& job) {
                if (i == 9)
                    throw UserError("job 9 failed");
                if (i == 2) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
                    throw UserError("job 2 failed");
                }
                for (int k = 0; k < 5 && !job.cancelled(); ++k)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                done[i] = 1;
            });
            QFAIL("no exception");
        } catch (const UserError& e) {
            QCOMPARE(QString::fromStdString(e.what()), QStringLiteral("job 2 failed"));
        }
        QCOMPARE(done[0], 1);
        QCOMPARE(done[1], 1);
    }

    // The caller's cancel reaches every running job (job.cancelled()); Cancelled comes back.
    void cancelReachesJobs_data() { resultsInOrder_data(); }
    void cancelReachesJobs() {
        QFETCH(int, threads);
        SearchControl control;
        std::atomic<int> sawCancel{0};
        std::thread canceller([&control] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            control.cancel = true;
        });
        QVERIFY_THROWS_EXCEPTION(Cancelled,
                                 schedulers::runJobs(&control, std::vector<uint64_t>(6, 1), threads,
                                                     [&](size_t, SearchControl& job) {
                                                         while (!job.cancelled())
                                                             std::this_thread::sleep_for(
                                                                 std::chrono::milliseconds(1));
                                                         ++sawCancel;
                                                         throw Cancelled();
                                                     }));
        canceller.join();
        QVERIFY(sawCancel >= 1);
        QVERIFY(sawCancel <= threads);
    }

    // Progress: from the calling thread, never decreasing, weighted by the jobs' weights,
    // ending at the total.
    void progressFromCallingThread_data() { resultsInOrder_data(); }
    void progressFromCallingThread() {
        QFETCH(int, threads);
        SearchControl control;
        const auto caller = std::this_thread::get_id();
        bool wrongThread = false;
        uint64_t last = 0, lastTotal = 0;
        bool decreased = false;
        control.progress = [&](uint64_t done, uint64_t total) {
            wrongThread |= std::this_thread::get_id() != caller;
            decreased |= done < last;
            last = done;
            lastTotal = total;
        };
        const std::vector<uint64_t> weights{10, 30, 60};
        schedulers::runJobs(&control, weights, threads, [](size_t i, SearchControl& job) {
            for (uint64_t k = 0; k <= 4; ++k) {
                job.progress(k, 4);
                std::this_thread::sleep_for(std::chrono::milliseconds(15 * (i + 1)));
            }
        });
        QVERIFY(!wrongThread);
        QVERIFY(!decreased);
        QCOMPARE(lastTotal, uint64_t(100));
        QCOMPARE(last, uint64_t(100));
    }

    // A deadline in the past stops the jobs with TimeLimitReached naming the task.
    void deadlineStops_data() { resultsInOrder_data(); }
    void deadlineStops() {
        QFETCH(int, threads);
        SearchControl control;
        control.task = "sweep squeezenet";
        control.deadline = SearchControl::Clock::now();
        try {
            schedulers::runJobs(&control, std::vector<uint64_t>(4, 1), threads,
                                [](size_t, SearchControl& job) {
                                    for (int k = 0; k < 2000 && !job.cancelled(); ++k) {
                                        job.progress(uint64_t(k), 2000);
                                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                    }
                                    if (job.cancelled())
                                        throw Cancelled();
                                });
            QFAIL("no exception");
        } catch (const schedulers::TimeLimitReached& e) {
            QVERIFY(QString::fromStdString(e.what()).startsWith("sweep squeezenet: time limit"));
        }
    }

    // A thread with no job left to start calls `idle` while a job runs (here: one job on two or
    // three threads, which then runs off the calling thread); on one thread it is never called.
    void idleThreadsHelpRunningJobs() {
        for (int threads : {1, 2, 3}) {
            std::atomic<bool> jobRunning{false};
            std::atomic<int> idleWhileRunning{0};
            std::atomic<int> idleElse{0};
            std::thread::id jobThread;
            std::mutex m;
            std::set<std::thread::id> idleThreads;
            schedulers::runJobs(
                nullptr, {1}, threads,
                [&](size_t, SearchControl&) {
                    jobThread = std::this_thread::get_id();
                    jobRunning = true;
                    // Until a helper came (or long enough to say none will).
                    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(20);
                    while (threads > 1 && idleWhileRunning == 0 &&
                           std::chrono::steady_clock::now() < limit)
                        std::this_thread::yield();
                    jobRunning = false;
                },
                [&] {
                    {
                        std::lock_guard lock(m);
                        idleThreads.insert(std::this_thread::get_id());
                    }
                    if (!jobRunning) {
                        ++idleElse;
                        return false;
                    }
                    ++idleWhileRunning;
                    return true;
                });
            if (threads == 1) {
                QCOMPARE(jobThread, std::this_thread::get_id());
                QVERIFY(idleThreads.empty());
                continue;
            }
            QVERIFY(idleWhileRunning > 0);
            QVERIFY(jobThread != std::this_thread::get_id());
        }
    }

    void innerThreads() {
        QCOMPARE(schedulers::innerThreads(8, 1), 8);
        QCOMPARE(schedulers::innerThreads(8, 2), 8);   // 2 outer x 8 inner <= 4 x 8
        QCOMPARE(schedulers::innerThreads(16, 32), 4); // 16 outer x 4 inner = 4 x 16
        QCOMPARE(schedulers::innerThreads(2, 5), 2);
        QCOMPARE(schedulers::innerThreads(1, 0), 1);
        QCOMPARE(schedulers::innerThreads(0, 3), 1);
        QVERIFY(schedulers::defaultThreadCount() >= 1);
    }
};

QTEST_GUILESS_MAIN(TestParallelJobs)
#include "tst_parallel_jobs.moc"
