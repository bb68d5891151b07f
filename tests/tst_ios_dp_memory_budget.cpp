// SPDX-License-Identifier: Apache-2.0
// IOS under a memory budget (docs/memory.md "IOS under a memory budget"): on random DAGs every
// stage schedule is enumerated explicitly with its latency and its peak (computed here from
// scratch: a stage samples the live bytes of what ran before it plus all of its outputs); the
// budgeted DP's latency is the least latency among the schedules that fit, for budgets from
// the unconstrained optimum's peak (which reproduces the unconstrained schedule) down to the
// least peak; one byte less is refused naming that least peak.
#include "eval/memory_eval.h"
#include "ios_dp_brute.h"
#include "ir/memory.h"
#include "ir/prepared_model.h"
#include "schedule/verify.h"
#include "schedulers/ios_dp.h"
#include "schedulers/scheduler.h"

#include <QTest>
#include <functional>
#include <limits>
#include <random>

using namespace ios;
using testing::Brute;
using testing::Config;
using testing::Endings;
using testing::Strategy;

namespace {

// Bytes of every operator's output and of the block input; consumers from the edge lists.
struct Sizes {
    std::vector<int64_t> out;
    int64_t input = 0;
    std::vector<std::vector<int>> consumers; // of each operator
    std::vector<int> inputConsumers;
};

Sizes sizesOf(const testing::RandomDag& d) {
    Sizes s;
    const std::vector<const ir::Node*> ops = d.graph.blocks[0].operators();
    const int n = static_cast<int>(ops.size());
    s.input = d.graph.input.outputShape.elements() * 4;
    s.consumers.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        s.out.push_back(ops[static_cast<size_t>(i)]->outputShape.elements() * 4);
        for (int p : d.preds[static_cast<size_t>(i)])
            s.consumers[static_cast<size_t>(p)].push_back(i);
        for (const ir::Term& t : ops[static_cast<size_t>(i)]->inputs)
            for (const ir::ValueRef& v : t)
                if (v.node == "in")
                    s.inputConsumers.push_back(i);
    }
    return s;
}

// Live bytes once the operators of `done` have run: the input and every output that has a
// consumer still to run; the last operator (the exit) and outputs nobody reads stay.
int64_t liveAfter(const Sizes& s, uint32_t done) {
    const int n = static_cast<int>(s.out.size());
    auto allDone = [&](const std::vector<int>& cs) {
        for (int c : cs)
            if (!(done >> c & 1u))
                return false;
        return true;
    };
    int64_t live = allDone(s.inputConsumers) && !s.inputConsumers.empty() ? 0 : s.input;
    for (int i = 0; i < n; ++i)
        if (done >> i & 1u) {
            const auto& cs = s.consumers[static_cast<size_t>(i)];
            if (i == n - 1 || cs.empty() || !allDone(cs))
                live += s.out[static_cast<size_t>(i)];
        }
    return live;
}

struct Schedule {
    double latency = 0;
    int64_t peak = 0;
};

} // namespace

class TestIosDpMemoryBudget : public QObject {
    Q_OBJECT

private slots:
    void budgetedOptimumEqualsBruteForce() {
        std::mt19937 rng(1313);
        const Config configs[] = {{Strategy::Both, Endings::Reference, 3, 8},
                                  {Strategy::Parallel, Endings::Reference, 100, 100},
                                  {Strategy::Merge, Endings::Reference, 3, 8},
                                  {Strategy::Both, Endings::All, 2, 2}};
        int dags = 0;
        int budgets = 0;
        int slower = 0; // budgets that cost latency: the cap really bites
        for (int i = 0; dags < 200; ++i) {
            QVERIFY2(i < 2000, "too few DAGs with a walkable number of schedules");
            const int n = 1 + i % 9;
            testing::RandomDag d = testing::randomDag(rng, n);
            // Varied tensor sizes (the generator's are all 8×8×8); shapes are not re-checked.
            for (ir::Node& node : d.graph.blocks[0].innerNodes)
                node.outputShape.c = 1 + static_cast<int64_t>(rng() % 16);
            d.graph.blocks[0].exitNode.outputShape.c = 1 + static_cast<int64_t>(rng() % 16);
            const Sizes sizes = sizesOf(d);
            Brute b(d);
            const ir::PreparedModel model(d.graph);
            const std::vector<ir::MemoryProblem> problems =
                ir::modelMemoryProblems(d.graph, model.dags(), {});
            bool any = false;
            for (const Config& c : configs) {
                const testing::RandomStageCost cost(77 + i);
                std::vector<Schedule> all;
                bool tooMany = false;
                std::function<void(uint32_t, double, int64_t)> walk = [&](uint32_t s, double lat,
                                                                          int64_t peak) {
                    if (tooMany)
                        return;
                    if (s == 0) {
                        all.push_back({lat, peak});
                        tooMany = all.size() > 20000;
                        return;
                    }
                    for (uint32_t e = s; e != 0; e = (e - 1) & s) {
                        auto [par, mer] = Brute::allowed(c, b.analyse(s, e));
                        int64_t sample = liveAfter(sizes, s & ~e);
                        for (int v = 0; v < n; ++v)
                            if (e >> v & 1u)
                                sample += sizes.out[static_cast<size_t>(v)];
                        // stages are found last-first: the path's latency and peak accumulate
                        if (par)
                            walk(s & ~e, lat + cost.latency(e, false), std::max(peak, sample));
                        if (mer)
                            walk(s & ~e, lat + cost.latency(e, true), std::max(peak, sample));
                    }
                };
                walk((1u << n) - 1, 0, 0);
                if (tooMany)
                    continue;
                any = true;
                schedulers::Options o;
                o.strategy = c.strategy;
                o.endings = c.endings;
                o.r = c.r;
                o.s = c.s;
                const schedulers::Result free = schedulers::optimize(model, o, cost);
                const int64_t freePeak = eval::scheduleMemory(problems, free.schedule).peak;
                int64_t least = std::numeric_limits<int64_t>::max();
                for (const Schedule& sc : all)
                    least = std::min(least, sc.peak);
                std::vector<int64_t> caps = {freePeak, least};
                for (int k = 0; k < 3; ++k)
                    caps.push_back(least + static_cast<int64_t>(rng() % static_cast<uint64_t>(
                                                                            freePeak - least + 1)));
                for (int64_t cap : caps) {
                    double expected = std::numeric_limits<double>::infinity();
                    for (const Schedule& sc : all)
                        if (sc.peak <= cap)
                            expected = std::min(expected, sc.latency);
                    o.memoryBudget = cap;
                    const schedulers::Result r = schedulers::optimize(model, o, cost);
                    QCOMPARE(r.latencyMs, expected);
                    schedule::verify(model.dags(), r.schedule);
                    QVERIFY(eval::scheduleMemory(problems, r.schedule).peak <= cap);
                    if (cap == freePeak)
                        QVERIFY(r.schedule == free.schedule);
                    ++budgets;
                    slower += r.latencyMs > free.latencyMs ? 1 : 0;
                }
                o.memoryBudget = least - 1;
                if (least > 1) {
                    try {
                        schedulers::optimize(model, o, cost);
                        QFAIL("a budget below every schedule's peak was accepted");
                    } catch (const schedulers::MemoryBudgetTooSmall& e) {
                        QCOMPARE(e.smallestPeak(), least);
                        QVERIFY(QString(e.what()).contains("no schedule fits"));
                    }
                }
            }
            dags += any ? 1 : 0;
        }
        QVERIFY(budgets >= 1000);
        QVERIFY2(slower >= 100, qPrintable(QString::number(slower)));
    }

    // The registered IOS strategies take the budget from the params; the others ignore it.
    void schedulersReadTheBudget() {
        std::mt19937 rng(5);
        const testing::RandomDag d = testing::randomDag(rng, 8);
        const ir::PreparedModel model(d.graph);
        const testing::RandomStageCost cost(3);
        schedulers::Params params;
        const schedulers::Outcome free =
            schedulers::schedulerByName("ios-both").run(model, params, cost, nullptr);
        params.memoryBudget = schedulers::smallestSchedulePeak(model, {});
        const schedulers::Outcome tight =
            schedulers::schedulerByName("ios-both").run(model, params, cost, nullptr);
        QCOMPARE(tight.peakBytes, params.memoryBudget);
        QVERIFY(tight.latencyMs >= free.latencyMs);
        QVERIFY(schedulers::schedulerByName("ios-both").reads(schedulers::Knob::MemoryBudget));
        QVERIFY(!schedulers::schedulerByName("greedy").reads(schedulers::Knob::MemoryBudget));
    }
};

QTEST_GUILESS_MAIN(TestIosDpMemoryBudget)
#include "tst_ios_dp_memory_budget.moc"
