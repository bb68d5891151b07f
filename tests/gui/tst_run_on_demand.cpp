// SPDX-License-Identifier: Apache-2.0
// Searches run on demand (issue 17 item 2): typed numbers apply on Enter or focus loss, never
// per keystroke; an edit runs by itself only when the up-front estimate is under the auto-run
// limit; Run (F5) always runs; the progress bar reads percent, rate and ETA.
#include "estimate_text.h"
#include "main_window_test_support.h"

#include <QApplication>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>

using namespace ios::gui;
using namespace ios::gui::test;

class TestRunOnDemand : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { useTestSettings("tst_run_on_demand"); }

    void defaults() {
        SettingsPanel panel;
        QCOMPARE(panel.autoRunSeconds(), SettingsPanel::kDefaultAutoRunSeconds);
        for (QSpinBox* box :
             {panel.rBox(), panel.sBox(), panel.maxPartBox(), panel.batchBox(), panel.threadsBox()})
            QVERIFY2(!box->keyboardTracking(), qPrintable(box->objectName()));
        panel.autoRunBox()->setValue(30);
        panel.save();
        SettingsPanel again;
        again.load();
        QCOMPARE(again.autoRunSeconds(), 30.0);
    }

    // Typing "16" into the batch box starts nothing until Enter; then one run (quick: under
    // the limit), never one for "1".
    void typingAppliesOnEnter() {
        MainWindow w;
        w.setDialogsEnabled(false);
        w.show();
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        QVERIFY(waitForResult(w));
        QSignalSpy started(w.jobs(), &JobController::started);
        QSignalSpy estimates(w.estimateJobs(), &JobController::started);
        QSpinBox* batch = w.settingsPanel()->batchBox();
        batch->setFocus();
        batch->selectAll();
        QTest::keyClicks(batch, QStringLiteral("16"));
        QTest::qWait(300);
        QCOMPARE(started.size(), 0);
        QCOMPARE(estimates.size(), 0);
        QCOMPARE(w.lastResult()->settings.batch, 1);
        QTest::keyClick(batch, Qt::Key_Return);
        QVERIFY(waitForResult(w));
        QCOMPARE(started.size(), 1);
        QCOMPARE(w.lastResult()->settings.batch, 16);
        QVERIFY(w.isResultCurrent());
        QVERIFY2(w.settingsPanel()->estimateText().isEmpty() ||
                     w.settingsPanel()->estimateText().contains(QStringLiteral("states")),
                 qPrintable(w.settingsPanel()->estimateText()));
    }

    // Over the limit: the edit shows the estimate and waits for F5; F5 runs regardless.
    void longSearchWaitsForF5() {
        MainWindow w;
        w.setDialogsEnabled(false);
        SettingsPanel* panel = w.settingsPanel();
        panel->strategyBox()->setCurrentIndex(strategyIndex(w, "greedy"));
        QVERIFY(w.openModel(QStringLiteral("randwire_large")));
        QVERIFY(waitForResult(w));
        panel->autoRunBox()->setValue(0.5);
        QSignalSpy started(w.jobs(), &JobController::started);
        // Unpruned RandWire: millions of transitions, hundreds of thousands of stages.
        panel->strategyBox()->setCurrentIndex(strategyIndex(w, "ios-parallel"));
        panel->rBox()->setValue(100);
        panel->sBox()->setValue(100);
        QVERIFY(waitForEstimate(w));
        const QString estimate = panel->estimateText();
        qInfo("%s", qPrintable(estimate));
        QVERIFY2(estimate.contains(QStringLiteral("14,734 states")), qPrintable(estimate));
        QVERIFY2(estimate.contains(QStringLiteral("press F5")), qPrintable(estimate));
        QTest::qWait(100);
        QCOMPARE(started.size(), 0);
        QVERIFY(!w.isResultCurrent());
        // F5 (the Run button's shortcut) runs it.
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTest::keyClick(&w, Qt::Key_F5);
        QTRY_COMPARE(started.size(), 1); // a button's shortcut clicks it animated (~100 ms)
        QVERIFY(w.jobs()->isRunning());
        QVERIFY(w.staleMessage().contains(QStringLiteral("searching")));
        w.jobs()->cancel();
        w.jobs()->waitForIdle();
    }

    // Limit 0: nothing runs by itself, not even a new model.
    void zeroNeverRuns() {
        MainWindow w;
        w.setDialogsEnabled(false);
        w.settingsPanel()->autoRunBox()->setValue(0);
        QSignalSpy started(w.jobs(), &JobController::started);
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        QVERIFY(waitForEstimate(w));
        w.settingsPanel()->rBox()->setValue(2);
        QVERIFY(waitForEstimate(w));
        QCOMPARE(started.size(), 0);
        QVERIFY(w.settingsPanel()->estimateText().contains(QStringLiteral("78 states")));
        w.settingsPanel()->runButton()->click();
        QVERIFY(waitForResult(w));
        QCOMPARE(started.size(), 1);
    }

    void progressShowsRateAndEta() {
        SettingsPanel panel;
        panel.setRunning(true);
        panel.setProgress(0.42, 4200, 10000, 2.0, 2.76);
        QCOMPARE(panel.progressText(), QStringLiteral("42 % · 2,100 states/s · ETA 3 s"));
        panel.setProgress(0.5, 0, 0, 60.0, 60.0); // a search without counts: no rate
        QCOMPARE(panel.progressText(), QStringLiteral("50 % · ETA 1.0 min"));
        panel.setProgress(0.5, 0, 0, 60.0); // nothing known about the time left
        QCOMPARE(panel.progressText(), QStringLiteral("50 %"));
        QCOMPARE(estimate_text::formatEstimate(1.0, 4.0), QStringLiteral("1.00 s–4.00 s"));
        QCOMPARE(estimate_text::formatEstimate(1.0, 1.44), QStringLiteral("≈ 1.20 s"));
        panel.setRunning(false);
        QCOMPARE(panel.progressText(), QString());
        QCOMPARE(estimate_text::formatDuration(900), QStringLiteral("15 min"));
    }

    // The real search reports its counts: the bar's text has a rate while it runs.
    void searchReportsCounts() {
        MainWindow w;
        QVERIFY(prepareLongNasnetSearch(w));
        SettingsPanel* panel = w.settingsPanel();
        QSignalSpy detail(w.jobs(), &JobController::progressDetail);
        panel->runButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(panel->progressText().contains(QStringLiteral("states/s")), 30000);
        QVERIFY(!detail.isEmpty());
        QCOMPARE(detail.last().at(3).toULongLong(), 42966ull); // total: the DP's states
        w.jobs()->cancel();
        w.jobs()->waitForIdle();
    }
};

QTEST_MAIN(TestRunOnDemand)
#include "tst_run_on_demand.moc"
