// SPDX-License-Identifier: Apache-2.0
// Issue 32's question in the real main window: "which of two schedules is faster and why", on
// InceptionV3 and NasNet-A, in at most three actions after opening the model (here two: the
// Comparison tab, a Ctrl+click on the sequential bar). The Diff tab then names the faster
// scheduler, and its sentences name blocks and the mechanism; the bar's tooltip carries the
// figures, a plain click shows that scheduler's timeline, and opening another model empties
// the tab.
#include "charts.h"
#include "diff_tab.h"
#include "job_controller.h"
#include "main_window.h"
#include "main_window_test_support.h"
#include "settings_panel.h"
#include "timeline_canvas.h"

#include <QLabel>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTest>

using namespace ios::gui;
using ios::gui::test::waitFor;

namespace {

QWidget* tabPage(MainWindow& w, const char* key) {
    for (int i = 0; i < w.tabs()->count(); ++i)
        if (w.tabs()->widget(i)->objectName() == QLatin1String(key))
            return w.tabs()->widget(i);
    return nullptr;
}

// A point on the chart inside the row of `label`'s bars (as last painted), or (-1, -1).
QPoint rowPoint(const ios::views::ComparisonChart& chart, const QString& label) {
    int row = -1;
    for (size_t i = 0; i < chart.entries().size(); ++i)
        if (chart.entries()[i].label == label)
            row = static_cast<int>(i);
    const int x = chart.chartArea().left() + chart.chartArea().width() / 4;
    for (int y = 0; y < chart.height() && row >= 0; ++y)
        if (chart.rowAt(QPointF(x, y)) == row)
            return {x, y + 2};
    return {-1, -1};
}

bool namesMechanism(const QString& text) {
    static const QRegularExpression mechanism(
        QStringLiteral("concurrently|merging convolutions|overlapping more kernels|fewer "
                       "launches and syncs|less idle time|faster kernels"));
    return text.contains(mechanism);
}

} // namespace

class TestDiffView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::useTestSettings("tst_diff_view"); }

    void whichIsFasterAndWhy_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("inception_v3") << QStringLiteral("inception_v3");
        QTest::newRow("nasnet_large") << QStringLiteral("nasnet_large");
    }

    void whichIsFasterAndWhy() {
        QFETCH(QString, model);
        MainWindow w;
        w.setDialogsEnabled(false);
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openModel(model));
        QVERIFY(test::waitForResult(w));
        // Action 1: the Comparison tab (it computes on showing).
        QWidget* comparison = tabPage(w, "comparisonTab");
        QVERIFY(comparison != nullptr);
        w.tabs()->setCurrentWidget(comparison);
        auto* chart = comparison->findChild<ios::views::ComparisonChart*>();
        QVERIFY(chart != nullptr);
        QVERIFY(waitFor([&] { return chart->entries().size() > 2; }));
        chart->repaint();
        const QPoint sequential = rowPoint(*chart, QStringLiteral("Sequential"));
        QVERIFY(sequential.x() >= 0);
        const QString tip = chart->tooltipAt(sequential);
        QVERIFY2(tip.contains(QStringLiteral("Sequential")) &&
                     tip.contains(QStringLiteral("Speed-up vs sequential")) &&
                     tip.contains(QStringLiteral("Stages")) &&
                     tip.contains(QStringLiteral("Mean concurrency")),
                 qPrintable(tip));
        // Action 2: Ctrl+click the sequential bar: the Diff tab against the fastest.
        QTest::mouseClick(chart, Qt::LeftButton, Qt::ControlModifier, sequential);
        auto* diff = w.findChild<DiffTab*>();
        QVERIFY(diff != nullptr);
        QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(diff));
        QVERIFY(waitFor([&] { return diff->result() != nullptr; }));
        const ios::views::ComparisonEntry& fastest =
            chart->entries()[static_cast<size_t>(chart->fastestRow())];
        QCOMPARE(diff->source(0).key, QStringLiteral("sequential"));
        QCOMPARE(diff->source(1).key, fastest.key);
        // The answer: B is faster, and why, by block and mechanism.
        const QString text = diff->sentenceLabel()->text();
        QVERIFY2(text.contains(fastest.label + QStringLiteral(" is ")) &&
                     text.contains(QStringLiteral("faster than Sequential")),
                 qPrintable(text));
        QVERIFY2(
            text.contains(QRegularExpression(QStringLiteral("saves [0-9.]+ m?s in block \\d+"))),
            qPrintable(text));
        QVERIFY2(namesMechanism(text), qPrintable(text));
        // The rest of the tab: both timelines on one axis, every block in the table.
        QVERIFY(diff->timeline(0)->timeline() != nullptr && diff->timeline(1)->timeline());
        QCOMPARE(diff->timeline(0)->axis().visibleEnd(), diff->timeline(1)->axis().visibleEnd());
        // Zooming one zooms the other.
        diff->timeline(1)->setVisibleRange(0, diff->timeline(1)->axis().visibleEnd() / 2);
        diff->timeline(1)->repaint();
        QVERIFY(waitFor([&] {
            return diff->timeline(0)->axis().visibleEnd() == diff->timeline(1)->axis().visibleEnd();
        }));
        QVERIFY(diff->timeline(0)->axis().visibleEnd() < diff->timeline(0)->axis().totalUs());
        QCOMPARE(diff->blockTable()->rowCount(),
                 static_cast<int>(w.lastResult()->runs.front().schedule.blocks.size()));
        QVERIFY(diff->breakdownTable()->rowCount() > 5);
        // A plain click on a bar shows that scheduler's timeline.
        w.tabs()->setCurrentWidget(comparison);
        chart->repaint();
        const QPoint greedy = rowPoint(*chart, QStringLiteral("Greedy"));
        QVERIFY(greedy.x() >= 0);
        QTest::mouseClick(chart, Qt::LeftButton, Qt::NoModifier, greedy);
        QCOMPARE(w.tabs()->currentWidget(), tabPage(w, "timelineView"));
        QCOMPARE(w.settingsPanel()->strategyBox()->currentData().toString(),
                 QStringLiteral("greedy"));
        QVERIFY(test::waitForResult(w));
        QCOMPARE(w.lastResult()->runs.front().strategy, QStringLiteral("greedy"));
        // Another model: the comparison of the one before is gone.
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        QVERIFY(diff->result() == nullptr);
        QVERIFY(diff->timeline(0)->timeline() == nullptr);
        QCOMPARE(diff->blockTable()->rowCount(), 0);
    }
};

QTEST_MAIN(TestDiffView)
#include "tst_diff_view.moc"
