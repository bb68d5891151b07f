// The specialization matrix (IOS paper Table 3): one row per setting, one column per setting;
// the diagonal is each schedule under its own cost model and the best of its column; the
// matrix is deterministic; progress spans all rows; a cancel stops it with Cancelled.
#include "bundled_models.h"
#include "cost/simulated_gpu_cost_model.h"
#include "schedule/evaluate.h"
#include "schedulers/baselines.h"
#include "schedulers/specialize.h"
#include "util/error.h"

#include <QTest>
#include <memory>

using namespace ios;

namespace {

// The demo Inception module on the V100 at batch 1, 32 and 128, and on the K80 at batch 1.
struct Fixture {
    ir::Graph graph = samples::loadBundledModel("demo_inception_module");
    std::vector<ir::BlockDag> dags = ir::buildDags(graph);
    std::vector<std::unique_ptr<cost::SimulatedGpuCostModel>> owned;
    std::vector<const cost::CostModel*> costs;

    Fixture() {
        for (auto [device, batch] :
             {std::pair{"V100", 1}, {"V100", 32}, {"V100", 128}, {"K80", 1}}) {
            owned.push_back(std::make_unique<cost::SimulatedGpuCostModel>(
                graph, *cost::findBundledDevice(device), batch));
            costs.push_back(owned.back().get());
        }
    }
};

} // namespace

class TestSpecialize : public QObject {
    Q_OBJECT

private slots:
    void matrixShapeAndDiagonal() {
        const Fixture f;
        const schedulers::Options options;
        const auto m =
            schedulers::specialize(f.dags, f.costs, schedulers::dpScheduler(f.graph, options));
        const size_t n = f.costs.size();
        QCOMPARE(m.schedules.size(), n);
        QCOMPARE(m.latencyMs.size(), n);
        for (size_t i = 0; i < n; ++i) {
            QCOMPARE(m.latencyMs[i].size(), n);
            // Row i holds the schedule the DP finds under setting i, priced under every setting.
            const schedulers::Result own = schedulers::optimize(f.graph, options, *f.costs[i]);
            QVERIFY(m.schedules[i] == own.schedule);
            QVERIFY(qFuzzyCompare(m.latencyMs[i][i], own.latencyMs));
            for (size_t j = 0; j < n; ++j) {
                QCOMPARE(m.latencyMs[i][j],
                         schedule::totalLatencyMs(f.dags, m.schedules[i], *f.costs[j]));
                QVERIFY(m.latencyMs[i][j] > 0);
            }
        }
        // The DP is optimal under its own cost model: the diagonal is the best of its column.
        for (size_t col = 0; col < n; ++col)
            for (size_t row = 0; row < n; ++row)
                QVERIFY(m.latencyMs[col][col] <= m.latencyMs[row][col] * (1 + 1e-12));
        // Settings that differ enough give different schedules (else the matrix is trivial).
        QVERIFY(m.schedules.front() != m.schedules[2]);
    }

    void deterministic() {
        const Fixture f;
        const auto scheduler = schedulers::dpScheduler(f.graph, {});
        const auto a = schedulers::specialize(f.dags, f.costs, scheduler);
        const auto b = schedulers::specialize(f.dags, f.costs, scheduler);
        QVERIFY(a.schedules == b.schedules);
        QVERIFY(a.latencyMs == b.latencyMs);
    }

    // A cost-blind scheduler gives the same schedule in every row: each column is constant.
    void baselineScheduler() {
        const Fixture f;
        const auto m = schedulers::specialize(
            f.dags, f.costs, [&](const cost::CostModel&, schedulers::SearchControl*) {
                return schedulers::greedy(f.dags);
            });
        for (size_t row = 1; row < m.latencyMs.size(); ++row)
            QVERIFY(m.latencyMs[row] == m.latencyMs.front());
    }

    // The searches' reports, row after row, in one range; the caller's callback comes back.
    void progressSpansRows() {
        const Fixture f;
        schedulers::SearchControl control;
        std::vector<std::pair<uint64_t, uint64_t>> reports;
        control.progress = [&](uint64_t done, uint64_t total) {
            reports.emplace_back(done, total);
        };
        schedulers::specialize(f.dags, f.costs, schedulers::dpScheduler(f.graph, {}), &control);
        QVERIFY(!reports.empty());
        const uint64_t total = reports.front().second;
        QCOMPARE(total, f.costs.size() * schedulers::countStates(f.graph));
        for (size_t i = 0; i < reports.size(); ++i) {
            QCOMPARE(reports[i].second, total);
            QVERIFY(i == 0 || reports[i].first >= reports[i - 1].first);
        }
        QCOMPARE(reports.back().first, total);
        reports.clear();
        control.progress(3, 7);
        QVERIFY(reports == (std::vector<std::pair<uint64_t, uint64_t>>{{3, 7}}));
    }

    void cancelBeforeStart() {
        const Fixture f;
        schedulers::SearchControl control;
        control.cancel = true;
        int calls = 0;
        const auto counting = [&](const cost::CostModel&, schedulers::SearchControl*) {
            ++calls;
            return schedulers::sequential(f.dags);
        };
        QVERIFY_THROWS_EXCEPTION(Cancelled,
                                 schedulers::specialize(f.dags, f.costs, counting, &control));
        QCOMPARE(calls, 0);
    }

    // A cancel during the second row's search: Cancelled, and the caller's callback is back.
    void cancelDuringSearch() {
        const Fixture f;
        schedulers::SearchControl control;
        uint64_t last = 0;
        control.progress = [&](uint64_t done, uint64_t total) {
            last = done;
            if (done > total / f.costs.size())
                control.cancel = true;
        };
        QVERIFY_THROWS_EXCEPTION(
            Cancelled, schedulers::specialize(f.dags, f.costs, schedulers::dpScheduler(f.graph, {}),
                                              &control));
        QVERIFY(control.cancel);
        last = 0;
        control.progress(5, 1000);
        QCOMPARE(last, uint64_t{5});
    }
};

QTEST_GUILESS_MAIN(TestSpecialize)
#include "tst_specialize.moc"
