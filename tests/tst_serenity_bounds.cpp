// SPDX-License-Identifier: Apache-2.0
// Work and memory bounds of Serenity's memory DP (issue 37 item 6; docs/memory.md "The memory
// DP"): on wide graphs (an antichain, a complete bipartite graph) the DP refuses a layer
// whose expansions pass the limit before expanding it, never holds more than
// DpLimits::maxBytes, and the soft budget gives up after kMaxMemoryBoundRuns such runs with
// Kahn's order instead of bisecting on.
#include "memory_test_support.h"
#include "schedulers/serenity/memory_dp.h"
#include "schedulers/serenity/memory_plan.h"
#include "schedulers/serenity/soft_budget.h"

#include <QtTest>

using namespace ios;
namespace sy = ios::schedulers::serenity;
using ios::testing::wideMemoryProblem;

namespace {

uint64_t total(const std::vector<std::pair<uint64_t, uint64_t>>& reports) {
    return reports.back().second;
}

} // namespace

class TestSerenityBounds : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A layer is refused before it runs when its expansions (counted exactly) would pass
    // the limit: the run stops with at most the limit examined, not past it.
    void layerOverTheExpansionLimitIsRefusedBeforeIt() {
        const ir::MemoryProblem p = wideMemoryProblem(120, 0);
        sy::DpLimits limits;
        limits.breakSymmetry = false; // its ops are interchangeable: every down-set
        limits.maxExpansions = 1000;  // layer 0: 120 expansions; layer 1: 120 × 119
        const sy::DpResult r = sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget, limits);
        QVERIFY(r.status == sy::DpStatus::Timeout);
        QVERIFY(!r.memoryBound);
        QCOMPARE(r.expansions, uint64_t{120});
        QCOMPARE(r.entries, uint64_t{121});
    }

    // An antichain 3 000 wide: its second layer would hold 4.5 million down-sets of 47 words.
    // Counted before it runs (9 million kept transitions reach at least 4.5 million down-sets
    // of two ops), the layer is refused at once: the run ends at the byte bound having built
    // only the first layer, not after filling the bound.
    void antichainIsRefusedBeforeItsSecondLayer() {
        const ir::MemoryProblem p = wideMemoryProblem(3000, 0);
        sy::DpLimits limits;
        limits.breakSymmetry = false; // its ops are interchangeable: every down-set
        limits.maxBytes = uint64_t{64} << 20;
        const sy::DpResult r = sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget, limits);
        QVERIFY(r.status == sy::DpStatus::Timeout);
        QVERIFY(r.memoryBound);
        QVERIFY(r.bytes <= limits.maxBytes);
        QCOMPARE(r.entries, uint64_t{3001}); // the empty set and layer 1
        QCOMPARE(r.expansions, uint64_t{3000});
        QVERIFY(r.bytes < uint64_t{8} << 20);
    }

    // A layer over the expansion limit whose next layer could not fit the byte bound either
    // is a memory-bound end: a higher expansion limit would not help, so the soft budget does
    // not escalate it.
    void overTheLimitAndTheBoundIsNotEscalated() {
        const ir::MemoryProblem p = wideMemoryProblem(400, 0);
        sy::DpLimits limits;
        limits.breakSymmetry = false;  // its ops are interchangeable: every down-set
        limits.maxExpansions = 100000; // layer 1: 400 × 399 expansions
        limits.maxBytes = uint64_t{4} << 20;
        const sy::DpResult r = sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget, limits);
        QVERIFY(r.status == sy::DpStatus::Timeout);
        QVERIFY(r.memoryBound);
        QCOMPARE(r.entries, uint64_t{401});
        const sy::SoftBudgetResult s =
            sy::softBudget(p, sy::wholeSegment(p), limits, 4, /*escalations=*/4);
        QVERIFY(!s.optimal);
        QVERIFY(s.trace.front().memoryBound);
        for (size_t i = 1; i < s.trace.size(); ++i)
            QVERIFY(s.trace[i].tau != s.trace.front().tau); // no escalation at that budget
    }

    // A run states the budgets that would repeat it; a run at any of them does, with the
    // same status and statistics (the soft budget makes such a run once).
    void aRunRepeatsOverItsBudgetRange() {
        const ir::MemoryProblem p = wideMemoryProblem(12, 12);
        for (int64_t tau : {int64_t{3072}, int64_t{6000}, int64_t{30000}}) {
            const sy::DpResult r = sy::memoryDp(p, sy::wholeSegment(p), tau);
            QVERIFY(r.sameFrom <= tau && tau <= r.sameTo);
            for (int64_t other : {r.sameFrom, r.sameTo}) {
                const sy::DpResult again = sy::memoryDp(p, sy::wholeSegment(p), other);
                QVERIFY(again.status == r.status);
                QCOMPARE(again.entries, r.entries);
                QCOMPARE(again.expansions, r.expansions);
                QCOMPARE(again.peak, r.peak);
            }
        }
    }

    // maxBisectionRuns bounds the runs of the bisection, whatever the runs' outcomes.
    void bisectionRunsStayWithinTheirBound() {
        for (int64_t tauMax : {int64_t{5}, int64_t{4096}, int64_t{163840}, int64_t{1} << 40})
            for (int pattern = 0; pattern < 8; ++pattern) {
                uint64_t runs = 0;
                sy::bisectBudget(tauMax, 4, [&](int64_t tau) {
                    sy::DpResult r;
                    r.status = ((runs++ >> (pattern % 3)) + pattern) % 2 == 0
                                   ? sy::DpStatus::Timeout
                                   : sy::DpStatus::NoSolution;
                    r.maxKept = pattern >= 4 ? tau : sy::kNoBudget;
                    return r;
                });
                QVERIFY(runs <= sy::maxBisectionRuns(tauMax, 4));
            }
    }

    // One block that is one segment reports progress from inside its soft budget, in
    // operators of a total known up front: more than once, never backwards, ending at it.
    void oneBlockReportsProgressFromItsRuns() {
        const ir::MemoryProblem p = wideMemoryProblem(30, 30);
        sy::PlanOptions options;
        options.partition = sy::Partition::Blocks;
        options.limits.maxBytes = uint64_t{1} << 20;
        options.limits.breakSymmetry = false; // its ops are interchangeable: every down-set
        schedulers::SearchControl control;
        std::vector<std::pair<uint64_t, uint64_t>> reports;
        control.progress = [&](uint64_t done, uint64_t total) {
            reports.emplace_back(done, total);
        };
        const sy::MemoryPlan plan = sy::planMemory({p}, options, &control);
        QCOMPARE(plan.blocks.front().order.size(), p.ops.size());
        QVERIFY(reports.size() >= 3);
        uint64_t last = 0;
        for (const auto& [done, total] : reports) {
            QCOMPARE(total, uint64_t(p.ops.size()));
            QVERIFY(done >= last);
            last = done;
        }
        QVERIFY(reports[reports.size() - 2].first < total(reports));
        QCOMPARE(last, uint64_t(p.ops.size()));
    }

    // The complete bipartite graph at Kahn's peak explodes in its first half and ends at the
    // byte bound. Its kept transitions all peaked at 4 KiB or less, so every budget from
    // there up times out the same way: the bisection continues below it (cheap runs with no
    // solution), does not escalate the run at the bound (more expansions do not lift a byte
    // bound) and returns Kahn's order, marked not optimal.
    void bipartiteGivesUpAtTheMemoryBound() {
        const ir::MemoryProblem p = wideMemoryProblem(60, 60);
        sy::DpLimits limits;
        limits.breakSymmetry = false; // its ops are interchangeable: every down-set
        limits.maxBytes = uint64_t{4} << 20;
        const sy::SoftBudgetResult r =
            sy::softBudget(p, sy::wholeSegment(p), limits, 4, /*escalations=*/4);
        QVERIFY(!r.optimal);
        QVERIFY(r.trace.size() >= 2);
        QVERIFY(r.trace.front().memoryBound);
        for (size_t i = 1; i < r.trace.size(); ++i) {
            QVERIFY(r.trace[i].status == sy::DpStatus::NoSolution);
            QVERIFY(r.trace[i].tau <= 4096);
        }
        QVERIFY(r.trace.size() <= 12); // log2(4096 / 4) + 2
        QCOMPARE(r.order.size(), p.ops.size());
        QCOMPARE(r.peak, sy::segmentPeak(p, sy::wholeSegment(p), r.order));
    }

    // After kMaxMemoryBoundRuns runs at the byte bound the bisection stops.
    void bisectionStopsAfterTheMemoryBoundRuns() {
        int runs = 0;
        const auto [trace, solved] = sy::bisectBudget(1 << 20, 4, [&runs](int64_t) {
            ++runs;
            sy::DpResult r;
            r.status = sy::DpStatus::Timeout;
            r.memoryBound = true;
            return r;
        });
        QVERIFY(!solved);
        QCOMPARE(runs, sy::kMaxMemoryBoundRuns);
        QCOMPARE(trace.size(), size_t(sy::kMaxMemoryBoundRuns));
    }

    // Small problems are solved exactly as before: the bound does not bite.
    void smallProblemsStillSolve() {
        const ir::MemoryProblem p = wideMemoryProblem(8, 4);
        const sy::DpResult r = sy::memoryDp(p, sy::wholeSegment(p));
        QVERIFY(r.status == sy::DpStatus::Solution);
        QVERIFY(r.bytes > 0 && r.bytes <= sy::kDpMaxBytes);
        QCOMPARE(r.order.size(), p.ops.size());
    }
};

QTEST_GUILESS_MAIN(TestSerenityBounds)
#include "tst_serenity_bounds.moc"
