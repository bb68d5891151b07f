// SPDX-License-Identifier: Apache-2.0
// The Memory view's math: byte counts read and written as people do (views/units.h
// parseBytes / exactBytes), byte axes with nice ticks in one binary unit, budgets snapped on
// the trade-off chart, the stacking of a step's live tensors, producers of live tensors and the
// cumulative share of a peak distribution (views/memory_plot.h, views/memory_report.h).
#include "ir/memory.h"
#include "memory_plot.h"
#include "memory_report.h"
#include "units.h"

#include <QTest>
#include <cmath>

using namespace ios;
using namespace ios::views;

namespace {

// in (8 B) → a (4) → b (4); c (8) reads in and b.
ir::MemoryProblem smallProblem() {
    ir::MemoryProblem p;
    p.name = "small";
    p.tensors = {{"in", 8, {}, {}, false},
                 {"a", 4, {0}, {}, false},
                 {"b", 4, {1}, {}, false},
                 {"c", 8, {2}, {}, true}};
    p.ops = {{"a", 0, 1, {0}}, {"b", 1, 2, {1}}, {"c", 2, 3, {0, 2}}};
    p.opOfBlockOp = {0, 1, 2};
    p.assemblyOf = {-1, -1, -1};
    ir::finishMemoryProblem(p);
    return p;
}

// "a|b|c" → {"a", "b", "c"}.
QStringList split(const char* joined) {
    return QString::fromUtf8(joined).split(QLatin1Char('|'));
}

} // namespace

class TestMemoryPlot : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // exactBytes reads back exactly; round values get their unit.
    void exactBytes_data() {
        QTest::addColumn<qlonglong>("bytes");
        QTest::addColumn<QString>("text");
        QTest::newRow("MiB") << qlonglong{24} * 1048576 << "24 MiB";
        QTest::newRow("quarter MiB") << qlonglong{20185088} << "19.25 MiB";
        QTest::newRow("KiB") << qlonglong{3072} << "3 KiB";
        QTest::newRow("GiB") << qlonglong{3} * 1073741824 << "3 GiB";
        QTest::newRow("one byte") << qlonglong{1} << "1 B";
        QTest::newRow("not exact in three decimals") << qlonglong{20283648} << "20283648 B";
    }
    void exactBytes() {
        QFETCH(qlonglong, bytes);
        QFETCH(QString, text);
        QCOMPARE(views::exactBytes(bytes), text);
        QCOMPARE(views::parseBytes(views::exactBytes(bytes)).value_or(-1), bytes);
    }

    void bytesScale_data() {
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<QStringList>("labels");
        const double mib = 1048576;
        QTest::newRow("MiB from zero")
            << 0.0 << 23.0 * mib << "MiB" << split("0 MiB|5 MiB|10 MiB|15 MiB|20 MiB|25 MiB");
        QTest::newRow("MiB range") << 18.4 * mib << 23.1 * mib << "MiB"
                                   << split("18 MiB|19 MiB|20 MiB|21 MiB|22 MiB|23 MiB|24 MiB");
        QTest::newRow("fractions of a MiB")
            << 2.3 * mib << 2.9 * mib << "MiB" << split("2.2 MiB|2.4 MiB|2.6 MiB|2.8 MiB|3.0 MiB");
        QTest::newRow("KiB") << 0.0 << 900.0 * 1024 << "KiB"
                             << split("0 KiB|200 KiB|400 KiB|600 KiB|800 KiB|1000 KiB");
        QTest::newRow("bytes stay whole") << 0.0 << 3.0 << "B" << split("0 B|1 B|2 B|3 B");
    }
    void bytesScale() {
        QFETCH(double, lo);
        QFETCH(double, hi);
        QFETCH(QString, unit);
        QFETCH(QStringList, labels);
        const BytesScale s = BytesScale::forRange(lo, hi);
        QCOMPARE(s.unitName, unit);
        QStringList got;
        for (double v : s.ticks())
            got << s.label(v);
        QCOMPARE(got, labels);
        QVERIFY(s.lo <= lo && s.hi >= hi);
        // Pixels: lo at p0, hi at p1, and back.
        QCOMPARE(s.toPixel(s.lo, 10, 110), 10.0);
        QCOMPARE(s.toPixel(s.hi, 10, 110), 110.0);
        QVERIFY(std::abs(s.fromPixel(s.toPixel(hi, 300, 20), 300, 20) - hi) < 1e-6 * hi + 1e-9);
    }

    // A dragged budget lands on a hundredth of a MiB that reads back exactly, inside the
    // feasible range.
    void snapBudget() {
        const double mib = 1048576;
        QCOMPARE(views::snapBudget(20.503 * mib, 0, int64_t{1} << 40),
                 views::parseBytes(QStringLiteral("20.5 MiB")).value());
        QCOMPARE(views::snapBudget(20.507 * mib, 0, int64_t{1} << 40),
                 views::parseBytes(QStringLiteral("20.51 MiB")).value());
        QCOMPARE(views::snapBudget(1.0 * mib, 19317760, 24147200), int64_t{19317760});
        QCOMPARE(views::snapBudget(40.0 * mib, 19317760, 24147200), int64_t{24147200});
        const int64_t b = views::snapBudget(21.3333 * mib, 19317760, 24147200);
        QCOMPARE(views::parseBytes(views::exactBytes(b)).value(), b);
        QVERIFY(views::exactBytes(b).endsWith(QLatin1String("MiB")));
    }

    // The stack of a step is its live tensors in tensor order; its top is the step's sample.
    void stackStep() {
        const ir::MemoryProblem p = smallProblem();
        const MemorySeries s = memorySeries(p, ir::orderSteps({0, 1, 2}));
        QCOMPARE(s.walk.peak, int64_t{20}); // in + b + c
        QCOMPARE(s.arenaAfter, (std::vector<int64_t>{12, 16, 24}));
        const std::vector<StackSegment> last = views::stackStep(p, s.walk, 2);
        QCOMPARE(last.size(), size_t{3});
        QCOMPARE(last[0].tensor, 0);
        QCOMPARE(last[1].tensor, 2);
        QCOMPARE(last[2].tensor, 3);
        QCOMPARE(last[1].bottom, int64_t{8});
        QCOMPARE(last.back().top, s.walk.stepPeak[2]);
        QVERIFY(views::stackStep(p, s.walk, 3).empty());
        // What the sample holds beyond live tensors is its own segment.
        ir::MemoryProblem transient = p;
        transient.ops[1].transientBytes = 6;
        const MemorySeries t = memorySeries(transient, ir::orderSteps({0, 1, 2}));
        const std::vector<StackSegment> second = views::stackStep(transient, t.walk, 1);
        QCOMPARE(second.back().tensor, -1);
        QCOMPARE(second.back().top - second.back().bottom, int64_t{6});
        QCOMPARE(second.back().top, t.walk.stepPeak[1]);
        QCOMPARE(views::stepOfBlockOp(p, s, 1), 1);
        QCOMPARE(views::stepOfBlockOp(p, s, 9), -1);
    }

    void cumulativeShare() {
        PeakWindow w;
        w.peaks = {{10, 1}, {12, 3}, {20, 4}};
        w.orders = 8;
        QCOMPARE(views::cumulativeShare(w), (std::vector<double>{0.125, 0.5, 1.0}));
        QCOMPARE(w.optimum(), int64_t{10});
    }
};

QTEST_GUILESS_MAIN(TestMemoryPlot)
#include "tst_memory_plot.moc"
