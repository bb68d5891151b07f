// SPDX-License-Identifier: Apache-2.0
// Never a stale result shown as current (issue 17 item 1): after a model switch the old
// model's timeline, stage tree, streams and state space are gone and a click on an old kernel
// selects nothing; after a settings change or a cancelled run the views say "out of date",
// cover their input, and the panel says which settings they show.
#include "main_window_test_support.h"
#include "stage_tree_model.h"
#include "stale_overlay.h"
#include "streams_view.h"
#include "timeline_view.h"

#include <QApplication>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeView>

using namespace ios::gui;
using namespace ios::gui::test;

namespace {

// The overlays over the views the main window put there.
QList<StaleOverlay*> overlays(MainWindow& w) {
    return w.findChildren<StaleOverlay*>();
}

bool anyOverlayShows(MainWindow& w, const QString& text) {
    for (StaleOverlay* o : overlays(w))
        if (!o->isHidden() && o->message().contains(text))
            return true;
    return false;
}

} // namespace

class TestStaleResults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { useTestSettings("tst_stale_results"); }

    void modelSwitchClearsTheOldResult() {
        MainWindow w;
        w.setDialogsEnabled(false);
        w.settingsPanel()->strategyBox()->setCurrentIndex(strategyIndex(w, "greedy"));
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        QVERIFY(waitForResult(w));
        QVERIFY(w.timelineView()->timeline() != nullptr);
        QVERIFY(w.stageTree()->model()->rowCount() > 0);
        QVERIFY(w.isResultCurrent());
        QVERIFY(w.staleMessage().isEmpty());

        // The next model waits for F5: nothing of inception_v3 may stay on screen meanwhile.
        w.settingsPanel()->autoRunBox()->setValue(0);
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        QCOMPARE(w.lastResult(), SearchResultPtr());
        QCOMPARE(w.timelineView()->timeline(), nullptr);
        QCOMPARE(w.stageTree()->model()->rowCount(), 0);
        QCOMPARE(w.streamsView()->blockCount(), 0);
        // The views are empty (they say so themselves); the panel says what it takes.
        QVERIFY(w.staleMessage().isEmpty());
        QVERIFY(waitForEstimate(w));
        QVERIFY2(w.settingsPanel()->estimateText().contains(QStringLiteral("press F5")),
                 qPrintable(w.settingsPanel()->estimateText()));
        QVERIFY(w.settingsPanel()->staleNote().isEmpty());

        // A click on an old kernel (index 5 was an inception_v3 operator) selects nothing.
        Q_EMIT w.timelineView()->operatorSelected(5);
        Q_EMIT w.streamsView()->operatorSelected(5);
        QVERIFY(w.selection()->isEmpty());
        QVERIFY(!w.stageTree()->currentIndex().isValid());
        QVERIFY(w.graphHighlight().empty());

        // F5 runs; then the views are the new model's and current.
        w.settingsPanel()->runButton()->click();
        QVERIFY(waitForResult(w));
        QCOMPARE(w.lastResult()->settings.model, w.model());
        QVERIFY(w.isResultCurrent());
        QVERIFY(!anyOverlayShows(w, QString()));
        Q_EMIT w.timelineView()->operatorSelected(5);
        QCOMPARE(w.selection()->operators(), std::vector<int>{5});
    }

    void settingsChangeMarksTheViews() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        QVERIFY(waitForResult(w));
        w.settingsPanel()->autoRunBox()->setValue(0); // edits wait for F5
        w.settingsPanel()->batchBox()->setValue(16);
        QVERIFY(!w.isResultCurrent());
        QVERIFY2(w.staleMessage().contains(QStringLiteral("batch 1 → 16")),
                 qPrintable(w.staleMessage()));
        QVERIFY(anyOverlayShows(w, QStringLiteral("Out of date")));
        QVERIFY(w.settingsPanel()->staleNote().contains(QStringLiteral("batch 1 → 16")));
        // The covered views take the input: the overlay, not the timeline, is under the mouse.
        w.resize(1280, 800);
        w.show();
        w.tabs()->setCurrentWidget(w.timelineView());
        QApplication::processEvents();
        const QPoint middle = w.timelineView()->rect().center();
        QWidget* under = w.timelineView()->childAt(middle);
        QVERIFY(qobject_cast<StaleOverlay*>(under) != nullptr);
        // Back to the shown settings: current again, nothing to run.
        w.settingsPanel()->batchBox()->setValue(1);
        QVERIFY(w.isResultCurrent());
        QVERIFY(!anyOverlayShows(w, QString()));
        QVERIFY(w.settingsPanel()->staleNote().isEmpty());
        QVERIFY(!w.jobs()->isRunning());
    }

    // A cancelled batch-16 search: the views show batch 1 and the panel says so.
    void cancelLeavesThePanelConsistent() {
        MainWindow w;
        QVERIFY(prepareLongNasnetSearch(w));
        SettingsPanel* panel = w.settingsPanel();
        panel->batchBox()->setValue(16);
        panel->runButton()->click();
        QVERIFY(w.jobs()->isRunning());
        QVERIFY(w.staleMessage().contains(QStringLiteral("searching")));
        QTest::qWait(50);
        panel->cancelButton()->click();
        QVERIFY(!w.jobs()->isRunning());
        QCOMPARE(w.lastResult()->settings.batch, 1);
        QCOMPARE(panel->settings().batch, 16);
        QVERIFY(!w.isResultCurrent());
        QVERIFY2(panel->staleNote().contains(QStringLiteral("batch 1 → 16")),
                 qPrintable(panel->staleNote()));
        QVERIFY(panel->staleNote().contains(QStringLiteral("Greedy")));
        QVERIFY(anyOverlayShows(w, QStringLiteral("press F5")));
        w.jobs()->waitForIdle();
    }

    // A measured trace is not a result of the settings: never marked out of date.
    void measuredTraceIsNeverStale() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        QVERIFY(waitForResult(w));
        QVERIFY(w.openMeasuredTrace(QStringLiteral(
            IOS_SOURCE_DIR "/sample_models/measured/h100_trace_inception_v3-both.json")));
        w.settingsPanel()->autoRunBox()->setValue(0);
        w.settingsPanel()->batchBox()->setValue(8);
        for (StaleOverlay* o : overlays(w))
            if (o->parentWidget() == w.timelineView())
                QVERIFY(o->isHidden());
        QVERIFY(anyOverlayShows(w, QStringLiteral("Out of date")));
    }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    TestStaleResults test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_stale_results.moc"
