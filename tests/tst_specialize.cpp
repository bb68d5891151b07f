// SPDX-License-Identifier: Apache-2.0
// The specialization matrix (IOS paper Table 3): one row per setting, one column per setting;
// the diagonal is each schedule under its own cost model and the best of its column; the
// matrix is deterministic; progress spans all rows; a cancel stops it with Cancelled; settings
// whose estimate (from the cheapest row and their cost per stage) is past the time limit are
// refused before they are searched.
#include "bundled_models.h"
#include "cost/simulated_gpu_cost_model.h"
#include "eval/evaluate.h"
#include "schedulers/baselines.h"
#include "schedulers/ios_dp.h"
#include "schedulers/specialize.h"
#include "util/error.h"

#include <QTest>
#include <chrono>
#include <memory>
#include <mutex>

using namespace ios;

namespace {

// The demo Inception module on the V100 at batch 1, 32 and 128, and on the K80 at batch 1.
struct Fixture {
    ir::Graph graph = samples::loadBundledModel("demo_inception_module");
    ir::PreparedModel prepared{graph};
    const std::vector<ir::BlockDag>& dags = prepared.dags();
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

const schedulers::Scheduler& iosBoth() {
    return schedulers::schedulerByName("ios-both");
}

// A scheduler that is not registered: a fixed schedule, counting its calls.
class FixedScheduler final : public schedulers::Scheduler {
public:
    explicit FixedScheduler(schedule::Schedule s) : schedule_(std::move(s)) {}
    std::string_view key() const override { return "fixed"; }
    std::string_view label() const override { return "Fixed"; }
    std::string_view description() const override { return "test"; }
    std::vector<schedulers::Knob> knobs() const override { return {}; }
    schedulers::Outcome search(const ir::PreparedModel&, const schedulers::Params&,
                               const cost::CostModel&, schedulers::SearchControl*) const override {
        ++calls;
        schedulers::Outcome out;
        out.schedule = schedule_;
        return out;
    }
    mutable int calls = 0;

private:
    schedule::Schedule schedule_;
};

} // namespace

// A cost model that spins `spinSeconds` per stage priced (a stand-in for a simulator whose work
// grows with the batch) and prices every stage at 1 ms.
class SpinCostModel final : public cost::CostModel {
public:
    SpinCostModel(double spinSeconds, int batch) : spin_(spinSeconds), batch_(batch) {}
    double stageLatencyMs(const ir::BlockDag&, const schedule::Stage&) const override {
        if (spin_ > 0) {
            const auto end = std::chrono::steady_clock::now() +
                             std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(spin_));
            while (std::chrono::steady_clock::now() < end) {
            }
        }
        return 1.0;
    }
    int batch() const override { return batch_; }
    std::string describe() const override { return "spin batch " + std::to_string(batch_); }

private:
    double spin_;
    int batch_;
};

// A scheduler that prices `stages` single-operator stages and records the batches it ran at.
class PricingScheduler final : public schedulers::Scheduler {
public:
    explicit PricingScheduler(int stages) : stages_(stages) {}
    std::string_view key() const override { return "pricing"; }
    std::string_view label() const override { return "Pricing"; }
    std::string_view description() const override { return "test"; }
    std::vector<schedulers::Knob> knobs() const override { return {}; }
    schedulers::Outcome search(const ir::PreparedModel& model, const schedulers::Params&,
                               const cost::CostModel& cost,
                               schedulers::SearchControl*) const override {
        {
            const std::lock_guard lock(mutex);
            batches.push_back(cost.batch());
        }
        schedule::Stage stage;
        stage.groups.push_back({0});
        for (int i = 0; i < stages_; ++i)
            static_cast<void>(cost.stageLatencyMs(model.dags().front(), stage));
        schedulers::Outcome out;
        out.schedule = schedulers::sequential(model.dags());
        return out;
    }
    mutable std::mutex mutex;
    mutable std::vector<int> batches;

private:
    int stages_;
};

class TestSpecialize : public QObject {
    Q_OBJECT

private slots:
    void matrixShapeAndDiagonal() {
        const Fixture f;
        const schedulers::Options options;
        const auto m = schedulers::specialize(f.prepared, f.costs, iosBoth(), {});
        const size_t n = f.costs.size();
        QCOMPARE(m.schedules.size(), n);
        QCOMPARE(m.latencyMs.size(), n);
        for (size_t i = 0; i < n; ++i) {
            QCOMPARE(m.latencyMs[i].size(), n);
            // Row i holds the schedule the DP finds under setting i, priced under every setting.
            const schedulers::Result own = schedulers::optimize(f.prepared, options, *f.costs[i]);
            QVERIFY(m.schedules[i] == own.schedule);
            QVERIFY(qFuzzyCompare(m.latencyMs[i][i], own.latencyMs));
            for (size_t j = 0; j < n; ++j) {
                QCOMPARE(m.latencyMs[i][j],
                         eval::totalLatencyMs(f.dags, m.schedules[i], *f.costs[j]));
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
        const auto a = schedulers::specialize(f.prepared, f.costs, iosBoth(), {});
        const auto b = schedulers::specialize(f.prepared, f.costs, iosBoth(), {});
        QVERIFY(a.schedules == b.schedules);
        QVERIFY(a.latencyMs == b.latencyMs);
    }

    // A cost-blind scheduler gives the same schedule in every row: each column is constant.
    void baselineScheduler() {
        const Fixture f;
        const FixedScheduler greedy(schedulers::greedy(f.dags));
        const auto m = schedulers::specialize(f.prepared, f.costs, greedy, {});
        for (size_t row = 1; row < m.latencyMs.size(); ++row)
            QVERIFY(m.latencyMs[row] == m.latencyMs.front());
    }

    // A setting whose stages price far slower (an absurd batch): after the cheapest row, the
    // others' estimate is past the time limit, and they are refused before they start, with
    // the estimate and the specialization's knob.
    void slowSettingRefusedUpFront() {
        const Fixture f;
        const SpinCostModel fast(0, 1), slow(1e-3, 65536);
        const PricingScheduler scheduler(20000); // 20 s under `slow`
        schedulers::SearchControl control;
        control.task = "test";
        control.limitHint = [](schedulers::WorkKnob k) {
            return k == schedulers::WorkKnob::Specialization ? std::string("SPEC WORDS")
                                                             : std::string("OTHER");
        };
        control.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
        std::string message;
        bool specializationKnob = false;
        try {
            schedulers::specialize(f.prepared, {&slow, &fast}, scheduler, {}, &control);
        } catch (const schedulers::TimeLimitReached& e) {
            message = e.what();
            specializationKnob = e.knob() == schedulers::WorkKnob::Specialization;
        }
        QVERIFY2(specializationKnob, message.c_str());
        QVERIFY2(message.find("estimated") != std::string::npos, message.c_str());
        QVERIFY2(message.find("SPEC WORDS") != std::string::npos, message.c_str());
        QVERIFY(scheduler.batches == std::vector<int>{1}); // batch 65536 never searched
    }

    // A row's estimate: the reference search less its pricing, plus the same stages priced
    // under the row's setting, plus the evaluation; rows in parallel: the longest at least.
    void estimateScalesWithCost() {
        QCOMPARE(schedulers::rowEstimateSeconds(2, 100, 0.01, 1, 0.5), 101.5);
        QCOMPARE(schedulers::rowEstimateSeconds(1, 1000, 0.01, 0.02, 0), 20.0); // all pricing
        QCOMPARE(schedulers::specializationEstimateSeconds({3, 2}, 1), 5.0);
        QCOMPARE(schedulers::specializationEstimateSeconds({3, 2}, 4), 3.0);
        QCOMPARE(schedulers::specializationEstimateSeconds({}, 1), 0.0);
    }

    // The searches' reports in one range of 1000 units per row (rows are parallel jobs,
    // parallel_jobs.h), never decreasing, ending at the total; the caller's callback stays.
    void progressSpansRows() {
        const Fixture f;
        schedulers::SearchControl control;
        std::vector<std::pair<uint64_t, uint64_t>> reports;
        control.progress = [&](uint64_t done, uint64_t total) {
            reports.emplace_back(done, total);
        };
        schedulers::specialize(f.prepared, f.costs, iosBoth(), {}, &control);
        QVERIFY(!reports.empty());
        const uint64_t total = reports.front().second;
        QCOMPARE(total, f.costs.size() * 1000);
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
        const FixedScheduler counting(schedulers::sequential(f.dags));
        QVERIFY_THROWS_EXCEPTION(
            Cancelled, schedulers::specialize(f.prepared, f.costs, counting, {}, &control));
        QCOMPARE(counting.calls, 0);
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
            Cancelled, schedulers::specialize(f.prepared, f.costs, iosBoth(), {}, &control));
        QVERIFY(control.cancel);
        last = 0;
        control.progress(5, 1000);
        QCOMPARE(last, uint64_t{5});
    }
};

QTEST_GUILESS_MAIN(TestSpecialize)
#include "tst_specialize.moc"
