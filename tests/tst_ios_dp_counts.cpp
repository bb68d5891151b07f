// SPDX-License-Identifier: Apache-2.0
// The DP's statistics equal the IOS reference values (docs/algorithms.md §3): totals for
// InceptionV3 and SqueezeNet in the five bench settings, the Table-1 part of all four models,
// and the endings=all total of InceptionV3.
#include "bundled_models.h"
#include "cost/analytic_cost_model.h"
#include "schedulers/ios_dp.h"

#include <QTest>

using namespace ios;
using schedulers::Strategy;

namespace {

schedulers::Result run(const std::string& model, Strategy st, int r, int s,
                       schedulers::Endings endings = schedulers::Endings::Reference) {
    const ir::Graph g = samples::loadBundledModel(model);
    const cost::AnalyticCostModel cost(g);
    schedulers::Options o;
    o.strategy = st;
    o.r = r;
    o.s = s;
    o.endings = endings;
    return schedulers::optimize(ir::PreparedModel(g), o, cost);
}

} // namespace

class TestIosDpCounts : public QObject {
    Q_OBJECT

private slots:
    void totals_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("strategy");
        QTest::addColumn<int>("r");
        QTest::addColumn<int>("s");
        QTest::addColumn<qulonglong>("states");
        QTest::addColumn<qulonglong>("transitions");
        const int par = int(Strategy::Parallel), mer = int(Strategy::Merge),
                  both = int(Strategy::Both);
        QTest::newRow("inception parallel unpruned")
            << "inception_v3" << par << 100 << 100 << 1206ull << 27742ull;
        QTest::newRow("inception parallel r3s8")
            << "inception_v3" << par << 3 << 8 << 1206ull << 25022ull;
        QTest::newRow("inception parallel r1s8")
            << "inception_v3" << par << 1 << 8 << 1206ull << 9504ull;
        QTest::newRow("inception merge") << "inception_v3" << mer << 3 << 8 << 1206ull << 3852ull;
        QTest::newRow("inception both r3s8")
            << "inception_v3" << both << 3 << 8 << 1206ull << 28874ull;
        QTest::newRow("squeezenet parallel unpruned")
            << "squeezenet" << par << 100 << 100 << 78ull << 284ull;
        QTest::newRow("squeezenet parallel r3s8")
            << "squeezenet" << par << 3 << 8 << 78ull << 260ull;
        QTest::newRow("squeezenet parallel r1s8")
            << "squeezenet" << par << 1 << 8 << 78ull << 150ull;
        QTest::newRow("squeezenet merge") << "squeezenet" << mer << 3 << 8 << 78ull << 126ull;
        QTest::newRow("squeezenet both r3s8") << "squeezenet" << both << 3 << 8 << 78ull << 386ull;
    }
    void totals() {
        QFETCH(QString, model);
        QFETCH(int, strategy);
        QFETCH(int, r);
        QFETCH(int, s);
        QFETCH(qulonglong, states);
        QFETCH(qulonglong, transitions);
        const auto res = run(model.toStdString(), Strategy(strategy), r, s);
        QCOMPARE(qulonglong(res.stats.states), states);
        QCOMPARE(qulonglong(res.stats.transitions), transitions);
        // states never depend on the strategy: they are the down-sets (progress total)
        QCOMPARE(qulonglong(schedulers::countStates(
                     ir::PreparedModel(samples::loadBundledModel(model.toStdString())))),
                 states);
    }

    void table1_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("width");
        QTest::addColumn<qulonglong>("transitions");
        QTest::addColumn<QString>("schedules");
        QTest::newRow("inception_v3") << "inception_v3" << 11 << 6 << 4871ull << "3757392";
        QTest::newRow("squeezenet") << "squeezenet" << 6 << 3 << 51ull << "131";
        QTest::newRow("nasnet_large") << "nasnet_large" << 18 << 8 << 307841ull << "7150961274600";
        QTest::newRow("randwire_large")
            << "randwire_large" << 33 << 8 << 1170663ull << "91973106270886052032664";
    }
    void table1() {
        QFETCH(QString, model);
        QFETCH(int, n);
        QFETCH(int, width);
        QFETCH(qulonglong, transitions);
        QFETCH(QString, schedules);
        const auto res = run(model.toStdString(), Strategy::Parallel, 100, 100);
        const schedulers::PartStatistics* p = res.stats.largestPart();
        QVERIFY(p != nullptr);
        QCOMPARE(p->n, n);
        QCOMPARE(p->width, width);
        QCOMPARE(qulonglong(p->transitions), transitions);
        QCOMPARE(QString::fromStdString(p->schedules.toString()), schedules);
        QVERIFY(!res.stats.schedulesSaturated);
    }

    void endingsAll() {
        const auto res =
            run("inception_v3", Strategy::Parallel, 100, 100, schedulers::Endings::All);
        QCOMPARE(res.stats.states, uint64_t{1206});
        QCOMPARE(res.stats.transitions, uint64_t{28829});
    }

    void totalSchedulesMultiplyOverParts() {
        const auto res = run("squeezenet", Strategy::Both, 3, 8);
        BigUint product(1);
        for (const auto& p : res.stats.parts)
            product *= p.schedules;
        QCOMPARE(res.stats.schedules, product);
        QCOMPARE(QString::fromStdString(res.stats.schedules.toString()),
                 QString("487780378092721914062500"));
    }

    void bigUint() {
        BigUint v;
        QVERIFY(BigUint::fromString("91973106270886052032664", &v));
        QCOMPARE(QString::fromStdString((v * v).toString()),
                 QString("8459052277115699228422696254611148006122936896"));
        QCOMPARE(QString::fromStdString((v + BigUint(1)).toString()),
                 QString("91973106270886052032665"));
        QVERIFY(!BigUint::fromString("12a", &v));
        QCOMPARE(QString::fromStdString(toDecimal(~UInt128{0})),
                 QString("340282366920938463463374607431768211455"));
    }
};

QTEST_GUILESS_MAIN(TestIosDpCounts)
#include "tst_ios_dp_counts.moc"
