// SPDX-License-Identifier: Apache-2.0
// One DP part searched by several threads (dp_shared.cpp: PartSearch::help, the idle threads
// of runJobs): the same stages, cost and counts as on one thread, helpers that really solve
// states, and a helper's failure, a search's error or a cancellation that neither hangs nor
// changes what the search reports.
#include "cost/cost_model_with.h"
#include "cost/stage_shortcuts.h"
#include "dp_test_support.h"
#include "ir/prepared_model.h"
#include "schedulers/dp_part.h"
#include "schedulers/ios_dp.h"
#include "search_results.h"
#include "util/error.h"

#include <QTest>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

using namespace ios;
using schedulers::detail::Bits;
using schedulers::detail::PartGraph;
using schedulers::detail::PartSearch;
using schedulers::detail::SearchClock;
using testing::RandomStageCost;

namespace {

// RandomStageCost, each stage taking `pause` of CPU, with the threads that priced and,
// optionally: the thread `home` held at its first stage until `holdHomeFor` stages were priced
// elsewhere (so that a helper surely works, however the threads are scheduled); a failure on
// every stage with the operator `failOp` alone, or on every `failEvery`-th stage priced off
// `home`; a cancellation after `cancelAfter` stages.
class SlowStageCost final : public cost::CostModelWith<cost::StageShortcuts> {
public:
    SlowStageCost(uint64_t seed, std::chrono::microseconds pause) : inner_(seed), pause_(pause) {}
    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override {
        const auto until = std::chrono::steady_clock::now() + pause_;
        while (std::chrono::steady_clock::now() < until) {
        }
        const auto self = std::this_thread::get_id();
        {
            std::lock_guard lock(mutex_);
            threads_.insert(self);
        }
        if (self == home && !released_) {
            const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(20);
            while (offHome_.load() < holdHomeFor && std::chrono::steady_clock::now() < limit)
                std::this_thread::yield();
            released_ = true;
        }
        if (stage.groups.size() == 1 && stage.groups[0] == schedule::Group{failOp})
            throw UserError("stage of operator " + std::to_string(failOp) + " failed");
        if (self != home && ++offHome_ % std::max(1, failEvery) == 0 && failEvery > 0)
            throw UserError("a helper's stage failed");
        if (cancelAfter > 0 && ++calls_ == cancelAfter)
            control->cancel = true;
        return inner_.stageLatencyMs(dag, stage);
    }
    std::string describe() const override { return "slow random per stage"; }
    bool pricesWithinPartsConcurrently() const override { return true; }
    size_t threads() const {
        std::lock_guard lock(mutex_);
        return threads_.size();
    }

    int failOp = -1;
    int failEvery = 0;
    int holdHomeFor = 0;
    std::thread::id home = std::this_thread::get_id();
    int cancelAfter = 0;
    schedulers::SearchControl* control = nullptr;

private:
    RandomStageCost inner_;
    std::chrono::microseconds pause_;
    mutable std::mutex mutex_;
    mutable std::set<std::thread::id> threads_;
    mutable std::atomic<int> offHome_{0};
    mutable std::atomic<int> calls_{0};
    mutable std::atomic<bool> released_{false};
};

schedulers::Options options(schedulers::Strategy strategy, int threads) {
    schedulers::Options o;
    o.strategy = strategy;
    o.threads = threads;
    return o;
}

struct Outcome {
    std::vector<std::pair<Bits, bool>> chosen;
    double costMs = 0;
    schedulers::PartStatistics stats;
    uint64_t helperTransitions = 0;
    bool helperClean = true;
};

// The block's one part searched by this thread, with (helper) or without a second thread
// that helps from the moment the part is claimed.
template <class Set>
Outcome searchPart(const ir::BlockDag& dag, const schedulers::Options& o,
                   const cost::CostModel& cost, bool helper) {
    std::vector<int> ops(dag.ops.size());
    for (size_t i = 0; i < ops.size(); ++i)
        ops[i] = static_cast<int>(i);
    const PartGraph g = schedulers::detail::buildPartGraph(dag, ops);
    const cost::OperatorClasses classes = cost::operatorClasses(cost, dag);
    auto tick = [] {};
    SearchClock clock;
    clock.total = schedulers::detail::countDownSets(g, g.all, tick);
    typename PartSearch<Set>::Shared shared(clock.total);
    PartSearch<Set> search(dag, g, o, cost, classes, clock, nullptr, 0, 0, shared);
    Outcome out;
    std::thread second;
    out.chosen = search.run([&] {
        if (helper)
            second = std::thread([&] {
                SearchClock own;
                own.total = clock.total;
                PartSearch<Set> h(dag, g, o, cost, classes, own, nullptr, 0, 0, shared);
                out.helperClean = h.help();
            });
    });
    shared.stop = true;
    if (second.joinable())
        second.join();
    out.costMs = search.costMs;
    out.stats = search.stats;
    out.helperTransitions = shared.transitions.load();
    return out;
}

void compareOutcomes(const Outcome& one, const Outcome& two) {
    QCOMPARE(two.chosen, one.chosen);
    QVERIFY(testing::sameBits(two.costMs, one.costMs));
    QCOMPARE(two.stats.states, one.stats.states);
    QCOMPARE(two.stats.transitions + two.helperTransitions, one.stats.transitions);
    QCOMPARE(two.stats.schedules.toString(), one.stats.schedules.toString());
}

} // namespace

class TestPartHelpers : public QObject {
    Q_OBJECT

private slots:
    // The whole DP (one part: runJobs' idle threads help it) on 1, 2 and 4 threads: the same
    // schedule, latency and counts, in both set words (72 operators: two).
    void sameForEveryThreadCount_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("strategy");
        QTest::addColumn<bool>("allEndings");
        for (int n : {24, 40, 72})
            for (int s : {0, 1, 2})
                for (bool all : {false, true})
                    QTest::addRow("n %d, strategy %d, %s", n, s, all ? "all" : "reference")
                        << n << s << all;
    }
    void sameForEveryThreadCount() {
        QFETCH(int, n);
        QFETCH(int, strategy);
        QFETCH(bool, allEndings);
        std::mt19937 rng(static_cast<unsigned>(n * 7 + strategy));
        // Narrower as they grow: tens of thousands of states at most.
        const testing::RandomDag d = testing::randomDag(rng, n,
                                                        n > 48   ? 3
                                                        : n > 30 ? 4
                                                                 : 5,
                                                        n > 30 ? 1 : 0);
        const ir::PreparedModel prepared(d.graph);
        const SlowStageCost cost(uint64_t(n), std::chrono::microseconds(2));
        std::optional<schedulers::Result> first;
        for (int threads : {1, 2, 4}) {
            schedulers::Options o =
                options(std::array{schedulers::Strategy::Parallel, schedulers::Strategy::Merge,
                                   schedulers::Strategy::Both}[static_cast<size_t>(strategy)],
                        threads);
            o.endings = allEndings ? schedulers::Endings::All : schedulers::Endings::Reference;
            schedulers::Result r = schedulers::optimize(prepared, o, cost);
            QCOMPARE(r.stats.parts.size(), size_t{1});
            if (!first)
                first = std::move(r);
            else
                testing::compareSearchResults(*first, r);
        }
    }

    // A helper from the start: it solves states (its transitions count), both threads price,
    // and the outcome is the one thread's, bit for bit.
    void helperSolvesStates() {
        std::mt19937 rng(11);
        const testing::RandomDag d = testing::randomDag(rng, 26, 4, 1);
        const ir::PreparedModel prepared(d.graph);
        const ir::BlockDag& dag = prepared.dags().front();
        const schedulers::Options o = options(schedulers::Strategy::Both, 2);
        const SlowStageCost alone(3, std::chrono::microseconds(20));
        const Outcome one = searchPart<uint64_t>(dag, o, alone, false);
        QCOMPARE(alone.threads(), size_t{1});
        SlowStageCost shared(3, std::chrono::microseconds(20));
        shared.holdHomeFor = 5;
        const Outcome two = searchPart<uint64_t>(dag, o, shared, true);
        compareOutcomes(one, two);
        QVERIFY(two.helperTransitions > 0);
        QCOMPARE(shared.threads(), size_t{2});
        QVERIFY(two.helperClean);
        // The two-word sets the same way.
        SlowStageCost wideCost(3, std::chrono::microseconds(20));
        wideCost.holdHomeFor = 5;
        const Outcome wide = searchPart<Bits>(dag, o, wideCost, true);
        compareOutcomes(one, wide);
    }

    // A helper whose pricing fails gives its states back: the search solves them and reports
    // the one thread's outcome; the helper says it stopped on an error.
    void failingHelperChangesNothing() {
        std::mt19937 rng(5);
        const testing::RandomDag d = testing::randomDag(rng, 26, 4, 1);
        const ir::PreparedModel prepared(d.graph);
        const ir::BlockDag& dag = prepared.dags().front();
        const schedulers::Options o = options(schedulers::Strategy::Both, 2);
        const Outcome one =
            searchPart<uint64_t>(dag, o, SlowStageCost(9, std::chrono::microseconds(20)), false);
        SlowStageCost failing(9, std::chrono::microseconds(20));
        failing.failEvery = 3;
        failing.holdHomeFor = 3;
        const Outcome two = searchPart<uint64_t>(dag, o, failing, true);
        QCOMPARE(two.chosen, one.chosen);
        QVERIFY(testing::sameBits(two.costMs, one.costMs));
        QCOMPARE(two.stats.states, one.stats.states);
        QVERIFY(!two.helperClean);
    }

    // A stage that fails wherever it is priced: every thread count reports the same error, and
    // the helpers leave (no hang).
    void searchErrorIsTheSame() {
        std::mt19937 rng(21);
        const testing::RandomDag d = testing::randomDag(rng, 26, 4, 1);
        const ir::PreparedModel prepared(d.graph);
        std::string first;
        for (int threads : {1, 2, 4}) {
            SlowStageCost cost(4, std::chrono::microseconds(5));
            cost.failOp = 3;
            try {
                schedulers::optimize(prepared, options(schedulers::Strategy::Both, threads), cost);
                QFAIL("no error");
            } catch (const UserError& e) {
                if (first.empty())
                    first = e.what();
                QCOMPARE(std::string(e.what()), first);
            }
        }
        QVERIFY(first.find("operator 3") != std::string::npos);
    }

    // Cancelled while a helper works: optimize throws Cancelled on every thread count.
    void cancelStopsHelpers() {
        std::mt19937 rng(8);
        const testing::RandomDag d = testing::randomDag(rng, 26, 4, 1);
        const ir::PreparedModel prepared(d.graph);
        for (int threads : {1, 2, 4}) {
            schedulers::SearchControl control;
            SlowStageCost cost(2, std::chrono::microseconds(10));
            cost.cancelAfter = 200;
            cost.control = &control;
            const auto start = std::chrono::steady_clock::now();
            QVERIFY_THROWS_EXCEPTION(
                Cancelled,
                schedulers::optimize(prepared, options(schedulers::Strategy::Both, threads), cost,
                                     &control));
            QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
        }
    }
};

QTEST_GUILESS_MAIN(TestPartHelpers)
#include "tst_part_helpers.moc"
