// SPDX-License-Identifier: Apache-2.0
// Estimates of every scheduler's run (schedulers/work_estimate.h): Serenity's counted expansions
// are those its plan makes; every registered scheduler gives a range; the process's record
// moves and widens later estimates of a kind and ignores runs too short to time.
#include "bundled_models.h"
#include "cost/device_profile.h"
#include "cost/simulated_gpu_cost_model.h"
#include "ir/prepared_model.h"
#include "schedulers/scheduler.h"
#include "schedulers/search_estimate.h"
#include "schedulers/serenity/memory_plan.h"
#include "schedulers/serenity/plan_estimate.h"
#include "schedulers/work_estimate.h"

#include <QTest>

using namespace ios;
using namespace ios::schedulers;

class TestWorkEstimate : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { EstimateCalibration::process().clear(); }

    // Where each segment's exact DP fits the first run, the count is the plan's own work, less
    // what the first run's budget prunes.
    void serenityCountsItsPlan_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"inception_v3", "randwire_large", "darts_v2_cells", "swiftnet_cell"})
            QTest::newRow(m) << m;
    }
    void serenityCountsItsPlan() {
        QFETCH(QString, model);
        const ir::Graph g = samples::loadModel(model.toStdString());
        const ir::PreparedModel prepared(g);
        const auto problems = ir::modelMemoryProblems(g, prepared.dags(), ir::MemoryOptions{});
        serenity::PlanOptions options;
        options.limits.maxExpansions = serenity::kSchedulerExpansions;
        options.escalations = serenity::kSchedulerEscalations;
        const SearchEstimate e = serenity::estimatePlan(problems, options);
        const serenity::MemoryPlan plan = serenity::planMemory(problems, options);
        uint64_t expansions = 0, entries = 0;
        for (const serenity::BlockPlan& b : plan.blocks) {
            expansions += b.expansions;
            entries += b.entries;
            QVERIFY(b.optimal);
        }
        // The count is the unbudgeted DP's; the first run, at Kahn FIFO's peak, prunes the
        // transitions over it: a few per cent here.
        QVERIFY(e.transitions >= expansions && e.states >= entries);
        QVERIFY(static_cast<double>(expansions) >= 0.9 * static_cast<double>(e.transitions));
        QVERIFY(e.low > 0 && e.low <= e.seconds && e.seconds <= e.high);
        QCOMPARE(e.transitionsUnit, std::string_view("expansions"));
    }

    // Every registered scheduler, its own estimate or the operators priced: a range.
    void everySchedulerHasARange() {
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const ir::PreparedModel prepared(g);
        const cost::SimulatedGpuCostModel cost(g, cost::bundledDevices().front());
        for (const Scheduler* s : registeredSchedulers()) {
            const TimeRange r = estimateRun(*s, prepared, Params{}, cost, 10);
            QVERIFY2(r.low > 0 && r.low <= r.point() && r.point() <= r.high,
                     std::string(s->key()).c_str());
        }
        const SearchEstimate raf =
            *schedulerByName("raf-ios").estimate(prepared, Params{}, cost, 10, nullptr);
        QVERIFY(raf.transitions > 0 && raf.secondsPerStage > 0);
        QCOMPARE(raf.transitionsUnit, std::string_view("candidates"));
    }

    void rangeOfAnOpenEstimate() {
        SearchEstimate open;
        open.complete = false;
        open.seconds = open.low = 1.0;
        const TimeRange r = rangeOf(open);
        QCOMPARE(r.low, 1.0);
        QCOMPARE(r.high, 4.0);
        QCOMPARE(r.point(), 2.0);
        QVERIFY(r.unsure());
        SearchEstimate closed;
        closed.seconds = 1.0;
        closed.low = 0.6;
        closed.high = 1.2;
        QVERIFY(!rangeOf(closed).unsure());
    }

    void calibrationMovesAndWidens() {
        EstimateCalibration& c = EstimateCalibration::process();
        const TimeRange raw{1.0, 4.0};                // point 2
        QCOMPARE(c.corrected("k", raw).point(), 2.0); // nothing recorded yet
        c.record("k", raw, 0.001);                    // too short to time: ignored
        QCOMPARE(c.corrected("k", raw).point(), 2.0);
        c.record("k", raw, 6.0); // 3× the estimate
        TimeRange one = c.corrected("k", raw);
        QCOMPARE(one.point(), 6.0);
        QVERIFY(one.low < 6.0 && one.high > 6.0);
        c.record("k", raw, 6.0);
        c.record("k", raw, 6.0);
        const TimeRange agreed = c.corrected("k", raw);
        QCOMPARE(agreed.point(), 6.0);
        QVERIFY(agreed.high / agreed.low < one.high / one.low); // three agree: narrower
        c.record("k", raw, 12.0);
        c.record("k", raw, 2.0);
        const TimeRange spread = c.corrected("k", raw);
        QCOMPARE(spread.point(), 6.0); // the median of 2, 6, 6, 6, 12 (geometric range)
        QVERIFY(spread.low <= 2.0 + 1e-9 && spread.high >= 12.0 - 1e-9); // covers what was seen
        QCOMPARE(c.corrected("other", raw).point(), 2.0);                // kinds are separate
        c.record("even", raw, 2.0);
        c.record("even", raw, 8.0);
        QCOMPARE(c.corrected("even", raw).point(), 4.0); // 2 × √(1 × 4): the middle two
    }
};

QTEST_APPLESS_MAIN(TestWorkEstimate)
#include "tst_work_estimate.moc"
