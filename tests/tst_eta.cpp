// SPDX-License-Identifier: Apache-2.0
// util::EtaTracker: the time left a progress bar shows never climbs past twice the least it has
// said, with an estimate that is right, too short or too long, and for a real search whose
// cost model slows down five-fold half way (the estimate was made with the fast one).
#include "bundled_models.h"
#include "cost/device_profile.h"
#include "cost/simulated_gpu_cost_model.h"
#include "schedulers/ios_dp.h"
#include "schedulers/search_estimate.h"
#include "util/eta.h"

#include <QTest>
#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <thread>
#include <vector>

using namespace ios;

namespace {

// What the bar shows: whole seconds, at least 1.
double shown(double left) {
    return std::max(1.0, std::ceil(left));
}

// Every later answer at most twice every earlier one (as shown and as computed).
void checkNeverDoubles(const std::vector<double>& answers) {
    double least = 1e300, leastShown = 1e300;
    for (double a : answers) {
        QVERIFY2(a <= 2 * least + 1e-9, qPrintable(QString::number(a)));
        QVERIFY(shown(a) <= 2 * leastShown);
        least = std::min(least, a);
        leastShown = std::min(leastShown, shown(a));
    }
}

// A job of `seconds` whose progress runs at `rate(t)` (fraction per second, normalised), asked
// every 50 ms.
std::vector<double> simulate(double estimate, double seconds, double slowFrom, double slowdown,
                             util::EtaTracker* tracker = nullptr) {
    util::EtaTracker own(estimate);
    util::EtaTracker& eta = tracker ? *tracker : own;
    // Work done at t: linear, then `slowdown` times slower from slowFrom on.
    const double fast = slowFrom + (seconds - slowFrom) / slowdown; // work units
    std::vector<double> answers;
    for (double t = 0.05; t < seconds; t += 0.05) {
        const double work = t < slowFrom ? t : slowFrom + (t - slowFrom) / slowdown;
        if (const std::optional<double> left = eta.update(work / fast, t))
            answers.push_back(*left);
    }
    return answers;
}

// The simulated V100 with every stage priced `delay` late (slowed from the call `slowAfter` on).
class SlowedCost final : public cost::CostModel {
public:
    SlowedCost(const cost::CostModel& real, std::chrono::microseconds fast,
               std::chrono::microseconds slow, int slowAfter)
        : real_(real), fast_(fast), slow_(slow), slowAfter_(slowAfter) {}
    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override {
        std::this_thread::sleep_for(calls_++ < slowAfter_ ? fast_ : slow_);
        return real_.stageLatencyMs(dag, stage);
    }
    std::string describe() const override { return "slowed " + real_.describe(); }
    int batch() const override { return real_.batch(); }
    int calls() const { return calls_.load(); }

private:
    const cost::CostModel& real_;
    std::chrono::microseconds fast_, slow_;
    int slowAfter_;
    mutable std::atomic<int> calls_{0};
};

} // namespace

class TestEta : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void nothingToSayAtFirst() {
        util::EtaTracker none;
        QVERIFY(!none.update(0.001, 0.1));
        QVERIFY(!none.update(0.5, 0.05)); // too early to trust a rate
        const auto left = none.update(0.25, 1.0);
        QVERIFY(left);
        QCOMPARE(*left, 3.0); // 1 s for a quarter
        util::EtaTracker estimated(10);
        QCOMPARE(*estimated.update(0, 0.5), 9.5); // the estimate alone
    }

    void rightTooShortTooLong_data() {
        QTest::addColumn<double>("estimate");
        QTest::addColumn<double>("slowFrom");
        QTest::addColumn<double>("slowdown");
        QTest::newRow("right") << 10.0 << 5.0 << 1.0;
        QTest::newRow("4x too short") << 2.5 << 5.0 << 1.0;
        QTest::newRow("4x too long") << 40.0 << 5.0 << 1.0;
        QTest::newRow("slows 5x half way") << 6.0 << 3.0 << 5.0;
        QTest::newRow("no estimate, slows 5x") << 0.0 << 3.0 << 5.0;
        QTest::newRow("no estimate, stalls") << 0.0 << 1.0 << 50.0;
    }
    void rightTooShortTooLong() {
        QFETCH(double, estimate);
        QFETCH(double, slowFrom);
        QFETCH(double, slowdown);
        util::EtaTracker eta(estimate);
        const std::vector<double> answers = simulate(estimate, 10.0, slowFrom, slowdown, &eta);
        QVERIFY(answers.size() > 20);
        checkNeverDoubles(answers);
        if (estimate == 10.0) // right: the answers stay right (within a second)
            for (size_t i = 0; i < answers.size(); ++i)
                QVERIFY(std::abs(answers[i] - (10.0 - 0.05 * static_cast<double>(i + 1))) < 1.0);
    }

    // A real search (InceptionV3, IOS-Both) whose pricing slows five-fold after a third of its
    // stages, estimated up front with the unslowed model: polled as the GUI polls.
    void slowedSearch() {
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const ir::PreparedModel prepared(g);
        const cost::SimulatedGpuCostModel real(g, cost::bundledDevices().front());
        schedulers::Options o;
        o.strategy = schedulers::Strategy::Both;
        o.boundStages = false; // prices every candidate: the count of calls is known
        const SlowedCost estimateModel(real, std::chrono::microseconds(60),
                                       std::chrono::microseconds(60), 0);
        const schedulers::SearchEstimate e =
            schedulers::estimateSearch(prepared, o, estimateModel, 60);
        QVERIFY(e.complete && e.seconds > 0.1);
        const SlowedCost slowed(real, std::chrono::microseconds(60),
                                std::chrono::microseconds(300),
                                static_cast<int>(e.stagesPriced / 3));
        schedulers::SearchControl control;
        std::atomic<double> fraction{0};
        control.progress = [&](uint64_t done, uint64_t total) {
            fraction = total == 0 ? 0.0 : static_cast<double>(done) / static_cast<double>(total);
        };
        std::atomic<bool> finished{false};
        std::thread search([&] {
            schedulers::optimize(prepared, o, slowed, &control);
            finished = true;
        });
        util::EtaTracker eta(e.seconds);
        std::vector<double> answers;
        const auto t0 = std::chrono::steady_clock::now();
        while (!finished) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            const double t =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (const auto left = eta.update(fraction.load(), t))
                answers.push_back(*left);
        }
        search.join();
        QVERIFY(slowed.calls() > static_cast<int>(e.stagesPriced / 2)); // it did slow down
        QVERIFY(answers.size() > 5);
        checkNeverDoubles(answers);
    }
};

QTEST_APPLESS_MAIN(TestEta)
#include "tst_eta.moc"
