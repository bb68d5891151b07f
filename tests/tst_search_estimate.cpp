// SPDX-License-Identifier: Apache-2.0
// The up-front estimate of an IOS DP search (schedulers/search_estimate.h) against the search
// itself on bundled models: states, transitions, distinct and priced stages equal what
// optimize() reports on one thread; the counts grow with r and s; the time limit and cancel
// are honoured.
#include "bundled_models.h"
#include "cost/analytic_cost_model.h"
#include "cost/device_profile.h"
#include "cost/simulated_gpu_cost_model.h"
#include "schedulers/search_estimate.h"

#include <QTest>

using namespace ios;
using schedulers::Strategy;

namespace {

schedulers::Options options(Strategy strategy, int r, int s) {
    schedulers::Options o;
    o.strategy = strategy;
    o.r = r;
    o.s = s;
    return o;
}

} // namespace

class TestSearchEstimate : public QObject {
    Q_OBJECT

private slots:
    void countsEqualTheSearch_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("strategy");
        QTest::addColumn<int>("r");
        QTest::addColumn<int>("s");
        const int par = int(Strategy::Parallel), mer = int(Strategy::Merge),
                  both = int(Strategy::Both);
        QTest::newRow("squeezenet both r3s8") << "squeezenet" << both << 3 << 8;
        QTest::newRow("inception both r3s8") << "inception_v3" << both << 3 << 8;
        QTest::newRow("inception parallel unpruned") << "inception_v3" << par << 100 << 100;
        QTest::newRow("inception merge") << "inception_v3" << mer << 3 << 8;
        QTest::newRow("randwire both r2s4") << "randwire_large" << both << 2 << 4;
        QTest::newRow("nasnet parallel r1s8") << "nasnet_large" << par << 1 << 8;
        // The GUI's defaults on the two large models.
        QTest::newRow("nasnet both r3s8") << "nasnet_large" << both << 3 << 8;
        QTest::newRow("randwire both r3s8") << "randwire_large" << both << 3 << 8;
    }
    void countsEqualTheSearch() {
        QFETCH(QString, model);
        QFETCH(int, strategy);
        QFETCH(int, r);
        QFETCH(int, s);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const ir::PreparedModel prepared(g);
        const schedulers::Options o = options(Strategy(strategy), r, s);
        // Each its own simulated model: a fresh canonical memo for both.
        const cost::SimulatedGpuCostModel forEstimate(g, cost::bundledDevices().front());
        const cost::SimulatedGpuCostModel forSearch(g, cost::bundledDevices().front());
        const schedulers::SearchEstimate e =
            schedulers::estimateSearch(prepared, o, forEstimate, 600);
        // The counts are those of the search that prices every candidate; the default one
        // skips stages by their lower bound and prices at most as many.
        schedulers::Options all = o;
        all.boundStages = false;
        const schedulers::Result real = schedulers::optimize(prepared, all, forSearch);
        const cost::SimulatedGpuCostModel forBounded(g, cost::bundledDevices().front());
        const schedulers::Result bounded = schedulers::optimize(prepared, o, forBounded);
        QCOMPARE(bounded.stats.transitions, real.stats.transitions);
        QVERIFY(bounded.stats.stages <= e.stages);
        QVERIFY(bounded.stats.stagesPriced <= e.stagesPriced);
        QVERIFY(e.complete);
        QCOMPARE(e.states, real.stats.states);
        QCOMPARE(e.transitions, real.stats.transitions);
        QCOMPARE(e.stages, real.stats.stages);
        QCOMPARE(e.stagesPriced, real.stats.stagesPriced);
        QCOMPARE(e.partsSearched, real.stats.partsSearched);
        QVERIFY(e.secondsPerStage > 0);
        QVERIFY(e.seconds >= e.countSeconds);
        qInfo("%s: %llu transitions; estimate %.3f s (count %.3f s, %.1f µs/stage × %llu "
              "priced); search %.3f s",
              qPrintable(model), static_cast<unsigned long long>(e.transitions), e.seconds,
              e.countSeconds, e.secondsPerStage * 1e6,
              static_cast<unsigned long long>(e.stagesPriced), real.stats.seconds);
    }

    // Under a memory budget transitions are dropped and fewer states are reached: the
    // estimate counts the same ones.
    void underAMemoryBudget() {
        const ir::Graph g = samples::loadBundledModel("randwire_large");
        const ir::PreparedModel prepared(g);
        const cost::AnalyticCostModel cost(g);
        schedulers::Options o = options(Strategy::Both, 2, 4);
        o.memoryBudget = int64_t{21} << 20;
        const auto e = schedulers::estimateSearch(prepared, o, cost, 600);
        const auto real = schedulers::optimize(prepared, o, cost);
        QVERIFY(e.states < schedulers::countStates(prepared));
        QCOMPARE(e.states, real.stats.states);
        QCOMPARE(e.transitions, real.stats.transitions);
    }

    void monotoneInRAndS() {
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const ir::PreparedModel prepared(g);
        const cost::AnalyticCostModel cost(g);
        uint64_t previous = 0;
        for (int k = 1; k <= 6; ++k) {
            for (const auto& [r, s] : {std::pair{k, 8}, std::pair{3, k}}) {
                const auto e = schedulers::estimateSearch(
                    prepared, options(Strategy::Parallel, r, s), cost, 600);
                const auto more = schedulers::estimateSearch(
                    prepared, options(Strategy::Parallel, r + 1, s + 1), cost, 600);
                QCOMPARE(e.states, more.states); // states never depend on r and s
                QVERIFY(e.transitions <= more.transitions);
                QVERIFY(e.stages <= more.stages);
            }
            const auto e =
                schedulers::estimateSearch(prepared, options(Strategy::Parallel, k, k), cost, 600);
            QVERIFY(e.transitions >= previous);
            previous = e.transitions;
        }
    }

    void timeLimitGivesALowerBound() {
        const ir::Graph g = samples::loadBundledModel("nasnet_large");
        const cost::AnalyticCostModel cost(g);
        const auto e = schedulers::estimateSearch(ir::PreparedModel(g),
                                                  options(Strategy::Parallel, 100, 100), cost, 0.0);
        QVERIFY(!e.complete);
        QCOMPARE(e.states, uint64_t{42966}); // known before any counting
        QCOMPARE(e.transitions, uint64_t{0});
        QCOMPARE(e.seconds, 0.0);
    }

    void cancelStops() {
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const cost::AnalyticCostModel cost(g);
        schedulers::SearchControl control;
        control.cancel = true;
        QVERIFY_THROWS_EXCEPTION(Cancelled, schedulers::estimateSearch(
                                                ir::PreparedModel(g), options(Strategy::Both, 3, 8),
                                                cost, 600, &control));
    }
};

QTEST_APPLESS_MAIN(TestSearchEstimate)
#include "tst_search_estimate.moc"
