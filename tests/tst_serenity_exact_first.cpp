// SPDX-License-Identifier: Apache-2.0
// Serenity's adaptive first run (issue 36; docs/memory.md "Exact first"): the soft budget's
// first run, at Kahn FIFO's peak, is the exact DP, and it may take up to exactExpansions
// unless a cheap lower bound on the down-sets shows it cannot fit them. Small graphs are then
// solved by that one run, with the exact DP's peak and order, whatever the per-run limit; wide
// ones keep the paper's soft budget.
#include "memory_test_support.h"
#include "schedulers/serenity/memory_dp.h"
#include "schedulers/serenity/memory_plan.h"
#include "schedulers/serenity/soft_budget.h"

#include <QtTest>
#include <random>

using namespace ios;
namespace sy = ios::schedulers::serenity;
using ios::testing::randomMemoryProblem;
using ios::testing::wideMemoryProblem;

namespace {

sy::DpLimits perRun(uint64_t expansions, bool breakSymmetry = true) {
    sy::DpLimits limits;
    limits.maxExpansions = expansions;
    limits.breakSymmetry = breakSymmetry;
    return limits;
}

} // namespace

class TestSerenityExactFirst : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // The bound never exceeds the down-sets (the exact DP's entries, ∅ and the whole set
    // included), and is exact on an antichain closed by one exit (2^width + 1).
    void leastDownSetsIsALowerBound() {
        std::mt19937 rng(36);
        for (int trial = 0; trial < 200; ++trial) {
            const ir::MemoryProblem p =
                randomMemoryProblem(rng, 4 + trial % 14, 0.2 + 0.1 * (trial % 7));
            const sy::Segment whole = sy::wholeSegment(p);
            const sy::DpResult exact = sy::memoryDp(p, whole, sy::kNoBudget, perRun(0));
            QVERIFY(exact.status == sy::DpStatus::Solution);
            QVERIFY(sy::leastDownSets(p, whole) <= exact.entries);
        }
        // The antichain's ops are interchangeable: with them in any order, every subset; waiting
        // for their twins (symmetry.h), a chain of width + 2 down-sets.
        for (int width : {1, 5, 12}) {
            const ir::MemoryProblem p = wideMemoryProblem(width, 0);
            const sy::Segment whole = sy::wholeSegment(p);
            const sy::DpResult exact = sy::memoryDp(p, whole, sy::kNoBudget, perRun(0, false));
            QCOMPARE(sy::leastDownSets(p, whole, false), (uint64_t{1} << width) + 1);
            QCOMPARE(exact.entries, (uint64_t{1} << width) + 1);
            const sy::DpResult twins = sy::memoryDp(p, whole, sy::kNoBudget, perRun(0));
            QCOMPARE(sy::leastDownSets(p, whole), uint64_t(width) + 2);
            QCOMPARE(twins.entries, uint64_t(width) + 2);
            QCOMPARE(twins.peak, exact.peak);
        }
        QCOMPARE(sy::leastDownSets(wideMemoryProblem(80, 0),
                                   sy::wholeSegment(wideMemoryProblem(80, 0)), false),
                 UINT64_MAX);
    }

    // A small graph under a per-run limit far too small for it: the first run is the exact
    // DP all the same, so one run solves it, with the peak and the order of the unlimited run
    // (`--limit-expansions 0`). Without the exact first run the soft budget times out first.
    void smallGraphRunsTheExactDp() {
        std::mt19937 rng(7);
        for (int trial = 0; trial < 40; ++trial) {
            const ir::MemoryProblem p = randomMemoryProblem(rng, 12 + trial % 6, 0.3);
            const sy::Segment whole = sy::wholeSegment(p);
            const sy::DpLimits tight = perRun(16);
            const sy::SoftBudgetResult adaptive =
                sy::softBudget(p, whole, tight, 4, 0, sy::kExactExpansions);
            const sy::SoftBudgetResult exact = sy::softBudget(p, whole, perRun(0), 4);
            QVERIFY(adaptive.optimal);
            QCOMPARE(adaptive.trace.size(), size_t{1});
            QVERIFY(adaptive.trace.front().status == sy::DpStatus::Solution);
            QCOMPARE(adaptive.trace.front().tau,
                     sy::segmentPeak(p, whole, sy::segmentKahnOrder(p, whole)));
            QCOMPARE(adaptive.peak, sy::memoryDp(p, whole, sy::kNoBudget, perRun(0)).peak);
            QCOMPARE(adaptive.order, exact.order);
            QCOMPARE(adaptive.expansions, exact.expansions);
            const sy::SoftBudgetResult paper = sy::softBudget(p, whole, tight, 4);
            QVERIFY(paper.trace.front().status == sy::DpStatus::Timeout);
        }
    }

    // The choice itself: the exact allowance only where the bound lets it fit (expansions and
    // the byte bound), and never below the per-run limit; no limit stays no limit.
    void firstRunLimitFollowsTheBound() {
        const ir::MemoryProblem narrow = wideMemoryProblem(20, 0); // ≥ 2^20 + 1 down-sets
        const ir::MemoryProblem wide = wideMemoryProblem(40, 0);   // ≥ 2^40 + 1
        const sy::Segment n = sy::wholeSegment(narrow);
        const sy::Segment w = sy::wholeSegment(wide);
        const uint64_t exact = sy::kExactExpansions;
        // Their ops are interchangeable: the bound of every down-set (twins in any order).
        QCOMPARE(sy::firstRunExpansions(narrow, n, perRun(1000, false), exact), exact);
        QCOMPARE(sy::firstRunExpansions(wide, w, perRun(1000, false), exact), uint64_t{1000});
        QCOMPARE(sy::firstRunExpansions(wide, w, perRun(1000), exact), exact); // a chain
        QCOMPARE(sy::firstRunExpansions(narrow, n, perRun(1000, false), 0), uint64_t{1000});
        QCOMPARE(sy::firstRunExpansions(narrow, n, perRun(uint64_t{1} << 30, false), exact),
                 uint64_t{1} << 30);
        QCOMPARE(sy::firstRunExpansions(narrow, n, perRun(0, false), exact), uint64_t{0});
        sy::DpLimits small = perRun(1000, false);
        small.maxBytes = uint64_t{1} << 20; // 6 B × 2^20 down-sets do not fit
        QCOMPARE(sy::firstRunExpansions(narrow, n, small, exact), uint64_t{1000});
    }

    // The plan's defaults make the exact first run: every partition solved by one run.
    void planDefaultsToTheExactFirstRun() {
        std::mt19937 rng(11);
        const ir::MemoryProblem p = randomMemoryProblem(rng, 24, 0.3);
        sy::PlanOptions options;
        options.limits.maxExpansions = 16;
        const sy::BlockPlan plan = sy::planBlock(p, options);
        QVERIFY(plan.optimal);
        QCOMPARE(plan.tauTrace.size(), plan.partitions.size());
        for (const sy::BudgetStep& step : plan.tauTrace)
            QVERIFY(step.status == sy::DpStatus::Solution);
    }
};

QTEST_GUILESS_MAIN(TestSerenityExactFirst)
#include "tst_serenity_exact_first.moc"
