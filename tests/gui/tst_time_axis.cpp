// SPDX-License-Identifier: Apache-2.0
// The timeline's pure math: time ↔ pixel mapping, zoom/pan clamping, nice ticks, lane packing.
#include "time_axis.h"

#include <QTest>

using namespace ios::views;

class TestTimeAxis : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mapping_data() {
        QTest::addColumn<double>("total");
        QTest::addColumn<double>("left");
        QTest::addColumn<double>("pixels");
        QTest::addColumn<double>("us");
        QTest::addColumn<double>("pixel");
        QTest::newRow("origin") << 1000.0 << 0.0 << 500.0 << 0.0 << 0.0;
        QTest::newRow("end") << 1000.0 << 0.0 << 500.0 << 1000.0 << 500.0;
        QTest::newRow("middle, offset") << 1000.0 << 100.0 << 500.0 << 500.0 << 350.0;
        QTest::newRow("tiny total") << 2.0 << 10.0 << 200.0 << 1.0 << 110.0;
    }
    void mapping() {
        QFETCH(double, total);
        QFETCH(double, left);
        QFETCH(double, pixels);
        QFETCH(double, us);
        QFETCH(double, pixel);
        const TimeAxis axis(total, left, pixels);
        QCOMPARE(axis.toPixel(us), pixel);
        QCOMPARE(axis.toTime(pixel), us);
    }

    void zoomKeepsAnchorFixed() {
        TimeAxis axis(1000, 0, 1000);
        const double before = axis.toTime(250);
        axis.zoomAt(250, 4);
        QCOMPARE(axis.visibleDuration(), 250.0);
        QCOMPARE(axis.toTime(250), before);
    }

    void zoomAndPanClamp() {
        TimeAxis axis(1000, 0, 1000);
        axis.zoomAt(500, 0.1); // zooming out past the data shows all of it
        QCOMPARE(axis.visibleStart(), 0.0);
        QCOMPARE(axis.visibleEnd(), 1000.0);
        axis.zoomAt(0, 1e9); // zooming in stops at the minimum window
        QCOMPARE(axis.visibleDuration(), TimeAxis::kMinWindowUs);
        axis.reset();
        axis.zoomAt(0, 2);
        axis.panPixels(1e6); // panning stops at the end of the data
        QCOMPARE(axis.visibleEnd(), 1000.0);
        QCOMPARE(axis.visibleDuration(), 500.0);
        axis.panPixels(-1e6);
        QCOMPARE(axis.visibleStart(), 0.0);
    }

    void niceStep_data() {
        QTest::addColumn<double>("raw");
        QTest::addColumn<double>("nice");
        QTest::newRow("1") << 1.0 << 1.0;
        QTest::newRow("1.2") << 1.2 << 2.0;
        QTest::newRow("3") << 3.0 << 5.0;
        QTest::newRow("7") << 7.0 << 10.0;
        QTest::newRow("0.03") << 0.03 << 0.05;
        QTest::newRow("450") << 450.0 << 500.0;
    }
    void niceStep() {
        QFETCH(double, raw);
        QFETCH(double, nice);
        QCOMPARE(TimeAxis::niceStep(raw), nice);
    }

    void ticksAreEvenAndLabelled() {
        const TimeAxis axis(2000, 0, 1000); // 2 µs per pixel; 80 px → 160 µs → 200 µs steps
        const auto ticks = axis.ticks(80);
        QCOMPARE(ticks.size(), size_t(11));
        QCOMPARE(ticks.front().us, 0.0);
        QCOMPARE(ticks[1].us, 200.0);
        QCOMPARE(ticks[1].pixel, 100.0);
        QCOMPARE(ticks[1].label, QStringLiteral("200 µs"));
        QCOMPARE(ticks.back().us, 2000.0);
        const TimeAxis slow(20000, 0, 1000); // steps of 2 ms
        QCOMPARE(slow.ticks(80)[1].label, QStringLiteral("2 ms"));
    }

    void packLanes_data() {
        QTest::addColumn<QList<double>>("bounds"); // start, end pairs
        QTest::addColumn<QList<int>>("lanes");
        QTest::addColumn<int>("count");
        QTest::newRow("empty") << QList<double>{} << QList<int>{} << 0;
        QTest::newRow("disjoint") << QList<double>{0, 1, 1, 2, 2, 3} << QList<int>{0, 0, 0} << 1;
        QTest::newRow("nested") << QList<double>{0, 10, 1, 2, 3, 4} << QList<int>{0, 1, 1} << 2;
        QTest::newRow("staircase")
            << QList<double>{0, 3, 1, 4, 2, 5, 3.5, 6} << QList<int>{0, 1, 2, 0} << 3;
        QTest::newRow("unsorted input") << QList<double>{5, 6, 0, 10} << QList<int>{1, 0} << 2;
    }
    void packLanes() {
        QFETCH(QList<double>, bounds);
        QFETCH(QList<int>, lanes);
        QFETCH(int, count);
        std::vector<Interval> intervals;
        for (qsizetype i = 0; i + 1 < bounds.size(); i += 2)
            intervals.push_back({bounds[i], bounds[i + 1]});
        int laneCount = -1;
        const std::vector<int> got = ios::views::packLanes(intervals, &laneCount);
        QCOMPARE(QList<int>(got.begin(), got.end()), lanes);
        QCOMPARE(laneCount, count);
    }
};

QTEST_GUILESS_MAIN(TestTimeAxis)
#include "tst_time_axis.moc"
