// SPDX-License-Identifier: Apache-2.0
// A view's keys work while it is the visible tab, whatever has focus (issue 32 item 6: W/A/S/D
// on the timeline did nothing until the chart was clicked): with the focus in the stage tree or
// the operator table, W zooms and D pans the timeline; text fields and combo boxes keep their
// letters; keys with Ctrl are not taken; another tab's keys do not move the timeline.
#include "main_window_test_support.h"
#include "settings_panel.h"
#include "timeline_view.h"

#include <QDockWidget>
#include <QLineEdit>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>

using namespace ios;
using namespace ios::gui;
using namespace ios::gui::test;

class TestViewKeys : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { useTestSettings("tst_view_keys"); }

    void timelineKeysWhateverHasFocus() {
        MainWindow w;
        w.setDialogsEnabled(false);
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        QVERIFY(waitForResult(w));
        w.tabs()->setCurrentWidget(w.timelineView());
        const views::TimeAxis& axis = w.timelineView()->axis();
        QVERIFY(axis.totalUs() > 0);

        // The focus in the stage tree: W zooms in.
        w.stageTree()->setFocus();
        QVERIFY(w.stageTree()->hasFocus());
        const double full = axis.visibleDuration();
        QTest::keyClick(w.stageTree(), Qt::Key_W);
        QVERIFY2(axis.visibleDuration() < full * 0.99,
                 qPrintable(QStringLiteral("%1 → %2 µs").arg(full).arg(axis.visibleDuration())));
        // In the operator table: D pans.
        w.operatorTable()->setFocus();
        const double start = axis.visibleStart();
        QTest::keyClick(w.operatorTable(), Qt::Key_D);
        QVERIFY(axis.visibleStart() > start);
        QVERIFY(w.operatorTable()->hasFocus()); // the focus stays where it was

        // A text field keeps its letters.
        auto* filter =
            w.findChild<QDockWidget*>(QStringLiteral("operatorsDock"))->findChild<QLineEdit*>();
        QVERIFY(filter);
        filter->setFocus();
        const double zoomed = axis.visibleDuration();
        QTest::keyClick(filter, Qt::Key_W);
        QCOMPARE(filter->text(), QStringLiteral("w"));
        QCOMPARE(axis.visibleDuration(), zoomed);
        filter->clear();

        // A combo box keeps its letters (it finds items by them).
        w.settingsPanel()->strategyBox()->setFocus();
        QTest::keyClick(w.settingsPanel()->strategyBox(), Qt::Key_W);
        QCOMPARE(axis.visibleDuration(), zoomed);

        // Ctrl+W is not W.
        w.stageTree()->setFocus();
        QTest::keyClick(w.stageTree(), Qt::Key_W, Qt::ControlModifier);
        QCOMPARE(axis.visibleDuration(), zoomed);

        // Another tab shown: the timeline's keys are not its.
        w.tabs()->setCurrentIndex(0); // the graph
        QVERIFY(w.tabs()->currentWidget() != w.timelineView());
        w.stageTree()->setFocus();
        QTest::keyClick(w.stageTree(), Qt::Key_W);
        QCOMPARE(axis.visibleDuration(), zoomed);
    }
};

QTEST_MAIN(TestViewKeys)
#include "tst_view_keys.moc"
