// SPDX-License-Identifier: Apache-2.0
// The job controller with fake typed jobs: delivery, progress, cancel, latest request wins,
// errors (a too-small memory budget with the least feasible peak), and the UI event loop
// staying responsive while a job runs.
#include "job_controller.h"
#include "util/error.h"

#include <QSignalSpy>
#include <QTest>
#include <atomic>
#include <thread>

using namespace ios::gui;

namespace {

constexpr int64_t kSmallestPeak = 4096;

// Fake typed jobs (Job<SearchResult>): each takes `steps` × 2 ms; its result carries
// settings.r so tests can tell jobs apart. A memory budget below kSmallestPeak fails as the IOS
// search does.
class FakeEngine {
public:
    int steps = 20;
    mutable std::atomic<int> sawCancel{0};
    mutable std::atomic<int> runs{0};

    Job<SearchResult> job(const JobSettings& settings) const {
        return {[this, settings](JobControl& control) { return run(settings, control); }};
    }

    SearchResult run(const JobSettings& settings, JobControl& control) const {
        ++runs;
        if (settings.r < 0)
            throw ios::UserError("r must be positive", "fake.json", "node7");
        if (settings.memoryBudget > 0 && settings.memoryBudget < kSmallestPeak)
            throw ios::schedulers::MemoryBudgetTooSmall(settings.memoryBudget, kSmallestPeak);
        for (int i = 0; i < steps; ++i) {
            if (control.cancelled()) {
                ++sawCancel;
                throw ios::Cancelled();
            }
            control.progress = static_cast<double>(i) / steps;
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        SearchResult result;
        result.settings = settings;
        RunResult run;
        run.latencyMs = settings.r;
        result.runs.push_back(run);
        return result;
    }
};

JobSettings withR(int r) {
    JobSettings s;
    s.r = r;
    return s;
}

// Starts the fake job on `jobs`; its typed callback collects the results delivered.
quint64 submit(JobController& jobs, const FakeEngine& engine, const JobSettings& settings,
               std::vector<SearchResultPtr>* delivered = nullptr) {
    return jobs.start(engine.job(settings), [delivered](const SearchResultPtr& result) {
        if (delivered)
            delivered->push_back(result);
    });
}

} // namespace

class TestJobController : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void deliversResult() {
        FakeEngine engine;
        JobController jobs;
        QSignalSpy finished(&jobs, &JobController::finished);
        std::vector<SearchResultPtr> delivered;
        const quint64 id = submit(jobs, engine, withR(3), &delivered);
        QVERIFY(jobs.isRunning());
        QVERIFY(finished.wait(5000));
        QCOMPARE(finished.at(0).at(0).value<quint64>(), id);
        QCOMPARE(delivered.size(), size_t(1));
        const auto result = delivered.front();
        QVERIFY(result);
        QCOMPARE(result->runs.size(), size_t(1));
        QCOMPARE(result->runs[0].latencyMs, 3.0);
        QVERIFY(!jobs.isRunning());
    }

    void forwardsProgress() {
        FakeEngine engine;
        engine.steps = 100; // 200 ms: several 50 ms polls
        JobController jobs;
        QSignalSpy progress(&jobs, &JobController::progressChanged);
        QSignalSpy finished(&jobs, &JobController::finished);
        submit(jobs, engine, withR(1));
        QVERIFY(finished.wait(5000));
        bool sawIntermediate = false;
        double last = -1;
        for (const QList<QVariant>& args : progress) {
            const double f = args.at(1).toDouble();
            QVERIFY(f >= last); // monotone
            last = f;
            sawIntermediate |= f > 0.0 && f < 1.0;
        }
        QVERIFY(sawIntermediate);
        QCOMPARE(last, 1.0);
    }

    void cancelStopsWorkerAndDropsResult() {
        FakeEngine engine;
        engine.steps = 5000; // 10 s unless cancelled
        JobController jobs;
        QSignalSpy finished(&jobs, &JobController::finished);
        QSignalSpy cancelled(&jobs, &JobController::cancelled);
        const quint64 id = submit(jobs, engine, withR(1));
        QTest::qWait(20);
        jobs.cancel();
        QCOMPARE(cancelled.size(), 1); // reported at once, not when the worker returns
        QCOMPARE(cancelled.at(0).at(0).value<quint64>(), id);
        QVERIFY(!jobs.isRunning());
        jobs.waitForIdle();
        QCOMPARE(engine.sawCancel.load(), 1);
        QCoreApplication::processEvents();
        QCOMPARE(finished.size(), 0);
        QCOMPARE(cancelled.size(), 1);
    }

    void latestRequestWins() {
        FakeEngine engine;
        engine.steps = 50;
        JobController jobs;
        QSignalSpy finished(&jobs, &JobController::finished);
        std::vector<SearchResultPtr> delivered;
        submit(jobs, engine, withR(1), &delivered);
        submit(jobs, engine, withR(2), &delivered);
        const quint64 last = submit(jobs, engine, withR(3), &delivered);
        QVERIFY(finished.wait(5000));
        jobs.waitForIdle();
        QCoreApplication::processEvents();
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.at(0).at(0).value<quint64>(), last);
        QCOMPARE(delivered.size(), size_t(1));
        QCOMPARE(delivered.front()->runs[0].latencyMs, 3.0);
        QCOMPARE(jobs.droppedResults(), 2);
    }

    void reportsErrors() {
        FakeEngine engine;
        JobController jobs;
        QSignalSpy failed(&jobs, &JobController::failed);
        submit(jobs, engine, withR(-1));
        QVERIFY(failed.wait(5000));
        const QString message = failed.at(0).at(1).toString();
        QVERIFY2(message.contains(QLatin1String("fake.json")) &&
                     message.contains(QLatin1String("node7")),
                 qPrintable(message));
        QVERIFY(!jobs.isRunning());
        QCOMPARE(failed.at(0).at(2).toLongLong(), 0); // not a memory budget's failure
    }

    // A budget below every schedule's peak fails with that peak, for the GUI to offer.
    void reportsTheSmallestPeak() {
        FakeEngine engine;
        JobController jobs;
        QSignalSpy failed(&jobs, &JobController::failed);
        JobSettings settings = withR(1);
        settings.memoryBudget = 1000;
        submit(jobs, engine, settings);
        QVERIFY(failed.wait(5000));
        QCOMPARE(failed.at(0).at(2).toLongLong(), kSmallestPeak);
        QVERIFY(failed.at(0).at(1).toString().contains(QLatin1String("memory budget")));
    }

    void eventLoopRunsDuringJob() {
        FakeEngine engine;
        engine.steps = 100;
        JobController jobs;
        QSignalSpy finished(&jobs, &JobController::finished);
        int ticks = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, this, [&ticks] { ++ticks; });
        timer.start(5);
        submit(jobs, engine, withR(1));
        QVERIFY(finished.wait(5000));
        QVERIFY2(ticks > 3, "the UI thread did not process timer events while the job ran");
    }

    void destructorWaitsForWorker() {
        FakeEngine engine;
        engine.steps = 5000;
        {
            JobController jobs;
            submit(jobs, engine, withR(1));
            QTest::qWait(10);
        } // must cancel and join, not leave a worker reading a dead engine
        QCOMPARE(engine.sawCancel.load(), 1);
    }
};

QTEST_MAIN(TestJobController)
#include "tst_job_controller.moc"
