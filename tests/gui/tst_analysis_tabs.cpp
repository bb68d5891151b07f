// SPDX-License-Identifier: Apache-2.0
// The analysis tabs in the real main window (issue 17 items 7 and 9): the NasNet pruning
// sweep can be cancelled from its tab (the job ends cancelled and the tab says so), and the
// charts keep their labels inside and apart at the sizes they get in a 1280×800 and a
// 1920×1080 window.
#include "analysis_tab.h"
#include "chart_fixtures.h"
#include "charts.h"
#include "graph_view.h"
#include "job_controller.h"
#include "main_window.h"
#include "main_window_test_support.h"
#include "memory_step_chart.h"
#include "memory_view.h"
#include "settings_panel.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <functional>

using namespace ios::gui;
using namespace chart_fixtures;

using ios::gui::test::waitFor;

namespace {

AnalysisTab* tabOf(MainWindow& w, const char* name) {
    return w.tabs()->findChild<AnalysisTab*>(QString::fromLatin1(name));
}

// Waits for the main search the model's opening started, so that only analyses run after.
// Runs the search when the estimate did not start it (over the auto-run limit on a loaded
// machine), then waits for its result.
bool waitForMainResult(MainWindow& w) {
    if (!w.jobs()->isRunning() && !w.lastResult())
        w.runOptimize();
    QElapsedTimer clock;
    clock.start();
    while ((w.jobs()->isRunning() || !w.lastResult()) && clock.elapsed() < 120000)
        QTest::qWait(10);
    return !w.jobs()->isRunning() && w.lastResult();
}

} // namespace

class TestAnalysisTabs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // QSettings go to a throw-away location
        QCoreApplication::setOrganizationName(QStringLiteral("ios-explorer-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_analysis_tabs"));
    }
    void init() { QSettings().clear(); }

    // The tab's bar said nothing (no text, squeezed by the description): it reads percent and
    // ETA, and is wide enough for them at 1280 × 800.
    void progressReadsPercentAndEta() {
        AnalysisTab tab(new ios::views::SweepChart,
                        QStringLiteral("A long description of what the tab computes, long "
                                       "enough to wrap beside the buttons at this width."));
        tab.resize(700, 500);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        tab.setRunning(true);
        tab.setProgress(0.25, 3.0, 9.0);
        QCOMPARE(tab.progressText(), QStringLiteral("25 % · ETA 9 s"));
        tab.setProgress(0.3, 30.0, std::nullopt, true); // past its estimate, nothing to say
        QCOMPARE(tab.progressText(), QStringLiteral("30 % · over estimate"));
        QVERIFY(tab.progressBar()->isVisible());
        QVERIFY(tab.progressBar()->isTextVisible());
        QVERIFY(tab.progressBar()->width() >
                tab.progressBar()->fontMetrics().horizontalAdvance(tab.progressText()));
        tab.setRunning(false);
        QVERIFY(!tab.progressBar()->isVisible());
    }

    // The Specialize tab's block selector: the whole model and each block, as `ios-sched info`
    // numbers them; a block is part of the tab's result key (a result of another block is not
    // current) and choosing one computes at once.
    void specializeTabChoosesABlock() {
        SpecializeTab tab;
        const auto model = ios::views::loadModel(QStringLiteral("inception_v3"));
        tab.setModel(model);
        QComboBox* box = tab.blockChoice();
        const int blocks = static_cast<int>(model->graph().blocks.size());
        QCOMPARE(box->count(), blocks + 1);
        QCOMPARE(box->itemData(0).toInt(), -1);
        QCOMPARE(box->itemData(blocks).toInt(), blocks - 1);
        QCOMPARE(tab.block(), -1);
        const QString whole = tab.keyFor(QStringLiteral("k"));
        QCOMPARE(whole, QStringLiteral("k"));
        QSignalSpy requested(&tab, &AnalysisTab::computeRequested);
        box->setCurrentIndex(12);
        Q_EMIT box->activated(12);
        QCOMPARE(requested.size(), 1);
        QCOMPARE(tab.block(), 11);
        QVERIFY(tab.keyFor(QStringLiteral("k")) != whole);
        tab.setModel(model); // the same blocks: the choice stays
        QCOMPARE(tab.block(), 11);
        const auto other = ios::views::loadModel(QStringLiteral("squeezenet"));
        tab.setModel(other);
        QCOMPARE(box->count(), static_cast<int>(other->graph().blocks.size()) + 1);
        QCOMPARE(tab.block(), -1);
    }

    // The sweep used to be uncancellable: its job runs on the analysis controller, and the
    // only Cancel (the settings panel's) follows the main search. The tab has its own.
    void nasnetSweepCancels() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("nasnet_large")));
        QVERIFY(waitForMainResult(w));
        AnalysisTab* sweep = tabOf(w, "sweepTab");
        QVERIFY(sweep);
        QVERIFY(!sweep->cancelButton()->isEnabled());
        QSignalSpy started(sweep->jobs(), &JobController::started);
        QSignalSpy cancelled(sweep->jobs(), &JobController::cancelled);
        QSignalSpy finished(sweep->jobs(), &JobController::finished);
        w.tabs()->setCurrentWidget(sweep); // computes on show
        QCOMPARE(started.size(), 1);
        QVERIFY(sweep->jobs()->isRunning());
        QVERIFY(sweep->isRunning());
        QVERIFY(sweep->cancelButton()->isEnabled());
        QTest::qWait(300); // let its searches get going
        QVERIFY(sweep->jobs()->isRunning());
        QElapsedTimer stopping;
        stopping.start();
        QTest::mouseClick(sweep->cancelButton(), Qt::LeftButton);
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(!sweep->jobs()->isRunning());
        sweep->jobs()->waitForIdle(); // the worker really stops (Cancelled reaches it)
        qInfo("sweep worker returned %lld ms after Cancel",
              static_cast<long long>(stopping.elapsed()));
        QCoreApplication::processEvents();
        QVERIFY(finished.isEmpty());
        QVERIFY(!sweep->isRunning());
        QVERIFY(!sweep->cancelButton()->isEnabled());
        QVERIFY2(sweep->chart()->placeholder().startsWith(QStringLiteral("Cancelled.")),
                 qPrintable(sweep->chart()->placeholder()));
        QVERIFY(sweep->shownKey().isEmpty()); // computed again when shown next
        QVERIFY(!w.isAnalysisCurrent(w.tabs()->indexOf(sweep)));
        // Compute runs it again.
        QTest::mouseClick(sweep->computeButton(), Qt::LeftButton);
        QVERIFY(sweep->jobs()->isRunning());
        QTest::mouseClick(sweep->cancelButton(), Qt::LeftButton);
        QCOMPARE(cancelled.size(), 2);
        sweep->jobs()->waitForIdle();
    }

    void chartsFitTheirTab_data() {
        QTest::addColumn<QSize>("window");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void chartsFitTheirTab() {
        QFETCH(QSize, window);
        MainWindow w;
        w.setDialogsEnabled(false);
        w.resize(window);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        for (const char* name : {"comparisonTab", "sweepTab", "specializeTab"}) {
            AnalysisTab* tab = tabOf(w, name);
            w.tabs()->setCurrentWidget(tab); // no model: nothing is computed
            QCoreApplication::processEvents();
            auto* chart = tab->chart();
            const QSize size = chart->size();
            QVERIFY2(size.width() > 400 && size.height() > 300, name);
            if (auto* c = qobject_cast<ios::views::ComparisonChart*>(chart))
                fillComparison(*c);
            else if (auto* s = qobject_cast<ios::views::SweepChart*>(chart))
                fillSweep(*s);
            else if (auto* h = qobject_cast<ios::views::HeatMapChart*>(chart))
                fillHeatMap(*h);
            const QString problem = labelLayoutProblem(*chart, size,
                                                       QStringLiteral("%1-in-%2x%3")
                                                           .arg(QLatin1String(name))
                                                           .arg(window.width())
                                                           .arg(window.height()));
            QVERIFY2(problem.isEmpty(),
                     qPrintable(QLatin1String(name) + QLatin1String(": ") + problem));
        }
    }

    // The Memory tab's charts with a real report, at the sizes the window gives them.
    void memoryChartsFitTheirTab_data() { chartsFitTheirTab_data(); }
    void memoryChartsFitTheirTab() {
        QFETCH(QSize, window);
        MainWindow w;
        w.setDialogsEnabled(false);
        w.resize(window);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        QVERIFY(waitForMainResult(w));
        w.tabs()->setCurrentWidget(w.memoryView());
        ios::views::MemoryView* view = w.memoryView();
        QVERIFY(waitFor([&] {
            return view->report() && view->paretoChart()->front() && !w.memoryJobs()->isRunning() &&
                   !w.paretoJobs()->isRunning();
        }));
        view->setBlock(5);
        QCoreApplication::processEvents();
        const std::vector<std::pair<const char*, ios::views::ChartWidget*>> charts{
            {"step", view->stepChart()},
            {"tau", view->tauChart()},
            {"distribution", view->distributionChart()},
            {"pareto", view->paretoChart()}};
        int checked = 0;
        for (const auto& [name, chart] : charts) {
            if (!chart->isVisible() || !chart->placeholder().isEmpty())
                continue; // a hidden tab of the narrow layout
            ++checked;
            const QString problem = labelLayoutProblem(*chart, chart->size(),
                                                       QStringLiteral("memory-%1-in-%2x%3")
                                                           .arg(QLatin1String(name))
                                                           .arg(window.width())
                                                           .arg(window.height()));
            QVERIFY2(problem.isEmpty(),
                     qPrintable(QLatin1String(name) + QLatin1String(": ") + problem));
        }
        QVERIFY(checked >= 2);
    }
};

QTEST_MAIN(TestAnalysisTabs)
#include "tst_analysis_tabs.moc"
