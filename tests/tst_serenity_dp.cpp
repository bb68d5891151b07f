// SPDX-License-Identifier: Apache-2.0
// Serenity's memory DP and its parts (docs/memory.md; SERENITY contract A2-A4, A7): equal to
// brute force on random DAGs, exact entry and expansion counts on fan graphs and the bundled
// models, the Fig. 8(a) pruning case, divide and conquer at cut points equal to the whole DP,
// the corrected bisection's trace (and the literal Algorithm 2 that never ends), the counting
// DP against enumeration, and the registered scheduler.
#include "build_flavour.h"
#include "bundled_models.h"
#include "ir/block_dag.h"
#include "ir/memory.h"
#include "memory_test_support.h"
#include "schedulers/ios_dp.h"
#include "schedulers/serenity/cuts.h"
#include "schedulers/serenity/memory_dp.h"
#include "schedulers/serenity/memory_plan.h"
#include "schedulers/serenity/soft_budget.h"
#include "user_error_text.h"
#include "util/error.h"

#include <QTest>
#include <cmath>

using namespace ios;
using namespace ios::testing;
namespace sy = ios::schedulers::serenity;

namespace {

bool same(sy::DpStatus a, sy::DpStatus b) {
    return a == b;
}

sy::DpLimits unlimited() {
    sy::DpLimits l;
    l.maxExpansions = 0;
    return l;
}

// The paper's state space: every down-set, interchangeable ops (symmetry.h) in any order.
sy::DpLimits everyDownSet() {
    sy::DpLimits l = unlimited();
    l.breakSymmetry = false;
    return l;
}

// entry → k parallel ops → exit (SERENITY contract A2: App. D's fan graph).
ir::MemoryProblem fanGraph(int k) {
    ir::MemoryProblem p;
    p.name = "fan";
    p.tensors.push_back({"in", 4, {}, {}, false});
    p.tensors.push_back({"entry", 4, {0}, {}, false});
    p.ops.push_back({"entry", 0, 1, {0}});
    std::vector<int> mids;
    for (int i = 0; i < k; ++i) {
        p.tensors.push_back({"m" + std::to_string(i), 4, {i + 1}, {}, false});
        p.ops.push_back({"m" + std::to_string(i), i + 1, i + 2, {1}});
        mids.push_back(i + 2);
    }
    p.tensors.push_back({"exit", 4, {k + 1}, {}, false});
    p.ops.push_back({"exit", k + 1, k + 2, mids});
    p.opOfBlockOp.resize(static_cast<size_t>(k + 2));
    for (int i = 0; i < k + 2; ++i)
        p.opOfBlockOp[static_cast<size_t>(i)] = i;
    p.assemblyOf.assign(static_cast<size_t>(k + 2), -1);
    ir::finishMemoryProblem(p);
    return p;
}

// Random small DAGs chained through single ops (every link a cut): "hourglass" graphs.
ir::MemoryProblem hourglass(std::mt19937& rng, int maxOps) {
    ir::MemoryProblem p;
    p.name = "hourglass";
    p.tensors.push_back({"in", 16, {}, {}, false});
    int link = 0; // tensor the next chunk reads
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    while (static_cast<int>(p.ops.size()) < maxOps - 1) {
        const int width = pick(1, 4);
        std::vector<int> outs;
        for (int i = 0; i < width && static_cast<int>(p.ops.size()) < maxOps - 1; ++i) {
            const int op = static_cast<int>(p.ops.size());
            std::vector<int> in = {link};
            if (!outs.empty() && pick(0, 2) == 0)
                in.push_back(outs.back());
            p.tensors.push_back({"o" + std::to_string(op), 4 * pick(1, 32), {op}, {}, false});
            p.ops.push_back(
                {"o" + std::to_string(op), op, static_cast<int>(p.tensors.size()) - 1, in});
            outs.push_back(static_cast<int>(p.tensors.size()) - 1);
        }
        const int op = static_cast<int>(p.ops.size());
        p.tensors.push_back({"j" + std::to_string(op), 4 * pick(1, 32), {op}, {}, false});
        p.ops.push_back(
            {"j" + std::to_string(op), op, static_cast<int>(p.tensors.size()) - 1, outs});
        link = static_cast<int>(p.tensors.size()) - 1;
    }
    const size_t n = p.ops.size();
    p.opOfBlockOp.resize(n);
    for (size_t i = 0; i < n; ++i)
        p.opOfBlockOp[i] = static_cast<int>(i);
    p.assemblyOf.assign(n, -1);
    ir::finishMemoryProblem(p);
    return p;
}

} // namespace

class TestSerenityDp : public QObject {
    Q_OBJECT

private slots:
    // Acceptance 1: the DP's peak is brute force's on random DAGs (multi-consumer, several
    // sinks); the returned order walks to that peak; τ = μ* solves, μ* − 1 does not; the soft
    // budget gives the unbudgeted optimum.
    void dpEqualsBruteForce() {
        std::mt19937 rng(2026);
        const int trials = kFullModels ? 1000 : 200;
        for (int trial = 0; trial < trials; ++trial) {
            const int n = 1 + trial % 10;
            const ir::MemoryProblem p = randomMemoryProblem(rng, n, 0.2 + 0.1 * (trial % 5));
            const sy::Segment whole = sy::wholeSegment(p);
            const sy::DpResult dp = sy::memoryDp(p, whole, sy::kNoBudget, unlimited());
            QVERIFY(same(dp.status, sy::DpStatus::Solution));
            const OrderOracle oracle(p, whole.ops);
            QCOMPARE(dp.peak, oracle.best);
            QCOMPARE(ir::orderPeak(p, dp.order), dp.peak);
            QCOMPARE(sy::bruteForceOrder(p, whole).peak, oracle.best);
            QVERIFY(
                same(sy::memoryDp(p, whole, dp.peak, unlimited()).status, sy::DpStatus::Solution));
            QVERIFY(same(sy::memoryDp(p, whole, dp.peak - 1, unlimited()).status,
                         sy::DpStatus::NoSolution));
            const sy::SoftBudgetResult soft = sy::softBudget(p, whole, {}, 4);
            QVERIFY(soft.optimal);
            QCOMPARE(soft.peak, dp.peak);
        }
    }

    // Acceptance 2: entries = 2^(|V|-2) + 2 and expansions = 2 + (|V|-2)·2^(|V|-3).
    void fanGraphCounts() {
        const int maxV = kFullModels ? 20 : 16;
        for (int v = 4; v <= maxV; ++v) {
            const ir::MemoryProblem p = fanGraph(v - 2);
            const sy::DpResult r =
                sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget, everyDownSet());
            QVERIFY(same(r.status, sy::DpStatus::Solution));
            QCOMPARE(r.entries, (uint64_t{1} << (v - 2)) + 2);
            QCOMPARE(r.expansions, 2 + uint64_t(v - 2) * (uint64_t{1} << (v - 3)));
        }
    }

    // Unbudgeted entries per block = the IOS DP's states + 1 (the empty down-set).
    void entriesMatchIosStates() {
        for (const char* name : {"squeezenet", "inception_v3", "randwire_large"}) {
            const ir::Graph g = samples::loadModel(name);
            const ir::PreparedModel model(g);
            uint64_t entries = 0;
            for (size_t b = 0; b < model.dags().size(); ++b) {
                const ir::MemoryProblem p =
                    ir::blockMemoryProblem(g, model.dags()[b], static_cast<int>(b), {});
                entries +=
                    sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget, everyDownSet()).entries;
            }
            QCOMPARE(entries, schedulers::countStates(model) + model.dags().size());
        }
    }

    // Acceptance 3 (Fig. 8(a)): μ = 32 with H (3), F and J (6) ready under τ = 36: H is kept
    // (35), F and J are pruned (38); after H nothing fits, so no order exists.
    void figure8aPruning() {
        ir::MemoryProblem p;
        p.name = "fig8a";
        p.tensors = {{"in", 32, {}, {}, false},
                     {"F", 6, {0}, {}, false},
                     {"H", 3, {1}, {}, false},
                     {"J", 6, {2}, {}, false}};
        p.ops = {{"F", 0, 1, {0}}, {"H", 1, 2, {0}}, {"J", 2, 3, {0}}};
        p.opOfBlockOp = {0, 1, 2};
        p.assemblyOf = {-1, -1, -1};
        ir::finishMemoryProblem(p);
        const sy::DpResult r = sy::memoryDp(p, sy::wholeSegment(p), 36, everyDownSet());
        QVERIFY(same(r.status, sy::DpStatus::NoSolution));
        QCOMPARE(r.entries, uint64_t{2});    // ∅ and {H}
        QCOMPARE(r.expansions, uint64_t{5}); // F, H, J from ∅; F, J from {H}
        // F and J are interchangeable: F before J, so J is not ready from ∅ nor from {H}.
        QCOMPARE(sy::memoryDp(p, sy::wholeSegment(p), 36, unlimited()).expansions, uint64_t{3});
        QVERIFY(same(sy::memoryDp(p, sy::wholeSegment(p), 47, unlimited()).status,
                     sy::DpStatus::Solution)); // 32 + 3 + 6 + 6
    }

    // Acceptance 4: cut segments reach the whole DP's peak; their sizes sum to n.
    void divideAndConquerEqualsWholeDp() {
        std::mt19937 rng(11);
        for (int trial = 0; trial < (kFullModels ? 200 : 50); ++trial) {
            const ir::MemoryProblem p = hourglass(rng, 6 + trial % 15);
            const std::vector<sy::Segment> segments = sy::cutSegments(p);
            size_t total = 0;
            for (const sy::Segment& s : segments) {
                QVERIFY(!s.ops.empty());
                total += s.ops.size();
            }
            QCOMPARE(total, p.ops.size());
            QVERIFY(segments.size() >= sy::cutPoints(p).size());
            sy::PlanOptions cuts;
            sy::PlanOptions whole;
            whole.partition = sy::Partition::Blocks;
            const sy::BlockPlan a = sy::planBlock(p, cuts);
            const sy::BlockPlan b = sy::planBlock(p, whole);
            QCOMPARE(a.peak, b.peak);
            QCOMPARE(a.peak, sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget, unlimited()).peak);
        }
        // A diamond has cuts at its ends only.
        const ir::MemoryProblem fan = fanGraph(3);
        QCOMPARE(sy::cutPoints(fan), (std::vector<int>{0, 4}));
        QCOMPARE(sy::cutSegments(fan).size(), size_t{2});
    }

    // Acceptance 5: the corrected bisection against the oracle μ* = 0.8 τmax with timeouts
    // above 0.9 τmax: 1.0 T, 0.5 N, 0.75 N, 0.875 solution. The literal Algorithm 2 (no
    // solution: τ_old, τ_new ← τ_new, (τ_new + τ_old) / 2) converges to 2/3 τmax instead and
    // never solves.
    void bisectionTrace() {
        const int64_t tauMax = 1'000'000;
        auto oracle = [&](int64_t tau) {
            sy::DpResult r;
            r.status = tau > 900'000   ? sy::DpStatus::Timeout
                       : tau < 800'000 ? sy::DpStatus::NoSolution
                                       : sy::DpStatus::Solution;
            return r;
        };
        const auto [trace, solved] = sy::bisectBudget(tauMax, 4, oracle);
        QVERIFY(solved.has_value());
        QCOMPARE(trace.size(), size_t{4});
        const int64_t taus[] = {1'000'000, 500'000, 750'000, 875'000};
        const sy::DpStatus statuses[] = {sy::DpStatus::Timeout, sy::DpStatus::NoSolution,
                                         sy::DpStatus::NoSolution, sy::DpStatus::Solution};
        for (size_t i = 0; i < 4; ++i) {
            QCOMPARE(trace[i].tau, taus[i]);
            QVERIFY(same(trace[i].status, statuses[i]));
        }
        // Literal Algorithm 2.
        double tauOld = 1.0;
        double tauNew = 1.0;
        bool solvedLiterally = false;
        for (int step = 0; step < 200 && !solvedLiterally; ++step) {
            const double tau = tauNew;
            if (tau > 0.9) {
                tauOld = tauNew;
                tauNew = tauNew / 2;
            } else if (tau < 0.8) {
                const double mid = (tauNew + tauOld) / 2;
                tauOld = tauNew;
                tauNew = mid;
            } else {
                solvedLiterally = true;
            }
        }
        QVERIFY(!solvedLiterally);
        QVERIFY(std::abs(tauNew - 2.0 / 3.0) < 1e-6);
        // Every run timing out: the bisection stops when hi − lo ≤ the resolution.
        const auto [all, none] = sy::bisectBudget(tauMax, 4, [](int64_t) {
            sy::DpResult r;
            r.status = sy::DpStatus::Timeout;
            return r;
        });
        QVERIFY(!none.has_value());
        QVERIFY(all.size() <= 40);
    }

    // Acceptance 7: the counting DP equals enumeration, count and distribution.
    void countingDpEqualsEnumeration() {
        std::mt19937 rng(99);
        for (int trial = 0; trial < (kFullModels ? 300 : 60); ++trial) {
            const ir::MemoryProblem p = randomMemoryProblem(rng, 1 + trial % 9, 0.3);
            const sy::Segment whole = sy::wholeSegment(p);
            const OrderOracle oracle(p, whole.ops);
            const std::map<int64_t, BigUint> dist = sy::peakDistribution(p, whole);
            QCOMPARE(dist.size(), oracle.peaks.size());
            uint64_t all = 0;
            for (const auto& [peak, count] : oracle.peaks) {
                QVERIFY(dist.count(peak) == 1);
                QCOMPARE(dist.at(peak), BigUint(count));
                all += count;
                uint64_t within = 0;
                for (const auto& [q, c] : oracle.peaks)
                    if (q <= peak)
                        within += c;
                QCOMPARE(sy::countOrders(p, whole, peak), BigUint(within));
            }
            QCOMPARE(sy::countOrders(p, whole), BigUint(all));
            QCOMPARE(sy::bruteForceOrder(p, whole).orders, all);
        }
    }

    // An expansion limit makes the DP time out deterministically; escalation then solves it.
    void expansionLimitAndEscalation() {
        const ir::MemoryProblem p = fanGraph(12);
        sy::DpLimits tight;
        tight.maxExpansions = 1000;
        tight.breakSymmetry = false; // the fan's ops are interchangeable: every down-set
        const sy::DpResult a = sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget, tight);
        const sy::DpResult b = sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget, tight);
        QVERIFY(same(a.status, sy::DpStatus::Timeout));
        QCOMPARE(a.expansions, b.expansions);
        const sy::SoftBudgetResult noEscalation = sy::softBudget(p, sy::wholeSegment(p), tight, 4);
        QVERIFY(!noEscalation.optimal);
        QCOMPARE(noEscalation.peak, ir::orderPeak(p, noEscalation.order));
        const sy::SoftBudgetResult escalated = sy::softBudget(p, sy::wholeSegment(p), tight, 4, 8);
        QVERIFY(escalated.optimal);
        QCOMPARE(escalated.peak,
                 sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget, unlimited()).peak);
    }

    void cancelStopsTheDp() {
        const ir::MemoryProblem p = fanGraph(22);
        schedulers::SearchControl control;
        control.cancel = true;
        QVERIFY_THROWS_EXCEPTION(Cancelled, sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget,
                                                         everyDownSet(), &control));
    }

    // Orders of the plan: file order is the identity, Kahn FIFO is topological, brute force is
    // refused past 10 operators per partition.
    void planOrders() {
        const ir::Graph g = samples::loadModel("squeezenet");
        const std::vector<ir::BlockDag> dags = ir::buildDags(g);
        const std::vector<ir::MemoryProblem> problems = ir::modelMemoryProblems(g, dags, {});
        sy::PlanOptions file;
        file.order = sy::OrderKind::File;
        sy::PlanOptions serenity;
        const sy::MemoryPlan f = sy::planMemory(problems, file);
        const sy::MemoryPlan s = sy::planMemory(problems, serenity);
        QVERIFY(s.peak <= f.peak);
        for (size_t b = 0; b < problems.size(); ++b) {
            QCOMPARE(f.blocks[b].order.size(), problems[b].ops.size());
            QVERIFY(s.blocks[b].optimal);
            QVERIFY(s.blocks[b].peak <= f.blocks[b].peak);
        }
        sy::PlanOptions none;
        none.partition = sy::Partition::None;
        QCOMPARE(sy::planMemory(problems, none).blocks.size(), size_t{1});
        QVERIFY(sy::planMemory(problems, none).peak <= s.peak);
        sy::PlanOptions brute;
        brute.order = sy::OrderKind::Brute;
        brute.partition = sy::Partition::Blocks;
        const ir::Graph inception = samples::loadModel("inception_v3");
        const std::vector<ir::MemoryProblem> big =
            ir::modelMemoryProblems(inception, ir::buildDags(inception), {});
        QVERIFY(userErrorOf([&] { sy::planMemory(big, brute); }).contains("at most 10"));
        QVERIFY(sy::orderKindFromString("tflite") == sy::OrderKind::File);
        QVERIFY(!sy::partitionFromString("halves").has_value());
    }
};

QTEST_GUILESS_MAIN(TestSerenityDp)
#include "tst_serenity_dp.moc"
