// Work and memory bounds of Serenity's memory DP (issue 37 item 6; docs/memory.md "The memory
// DP"): on wide graphs (an antichain, a complete bipartite graph) the DP refuses a layer
// whose expansions pass the limit before expanding it, never holds more than
// DpLimits::maxBytes, and the soft budget gives up after kMaxMemoryBoundRuns such runs with
// Kahn's order instead of bisecting on.
#include "schedulers/serenity/memory_dp.h"
#include "schedulers/serenity/memory_plan.h"
#include "schedulers/serenity/soft_budget.h"

#include <QtTest>

using namespace ios;
namespace sy = ios::schedulers::serenity;

namespace {

// `width` ops reading the input, then `sinks` ops each reading all of them (0: one exit
// reading them all), every tensor `bytes` bytes.
ir::MemoryProblem wideProblem(int width, int sinks, int64_t bytes = 1024) {
    ir::MemoryProblem p;
    p.name = "wide";
    p.tensors.push_back({"in", bytes, {}, {}, false});
    auto add = [&p, bytes](const std::string& name, std::vector<int> inputs) {
        ir::MemoryProblem::Op op;
        op.name = name;
        op.blockOp = static_cast<int>(p.ops.size());
        op.output = static_cast<int>(p.tensors.size());
        op.inputs = std::move(inputs);
        p.tensors.push_back({name, bytes, {static_cast<int>(p.ops.size())}, {}, false});
        p.ops.push_back(std::move(op));
    };
    std::vector<int> first;
    for (int i = 0; i < width; ++i) {
        first.push_back(static_cast<int>(p.tensors.size()));
        add("a" + std::to_string(i), {0});
    }
    std::vector<int> second;
    for (int j = 0; j < std::max(1, sinks); ++j) {
        second.push_back(static_cast<int>(p.tensors.size()));
        add("b" + std::to_string(j), first);
    }
    if (sinks > 0)
        add("y", second);
    p.tensors.back().sink = true;
    p.opOfBlockOp.resize(p.ops.size());
    p.assemblyOf.assign(p.ops.size(), -1);
    for (size_t i = 0; i < p.ops.size(); ++i)
        p.opOfBlockOp[i] = static_cast<int>(i);
    ir::finishMemoryProblem(p);
    return p;
}

} // namespace

class TestSerenityBounds : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A layer is refused before it runs when its expansions (counted exactly) would pass
    // the limit: the run stops with at most the limit examined, not past it.
    void layerOverTheExpansionLimitIsRefusedBeforeIt() {
        const ir::MemoryProblem p = wideProblem(120, 0);
        sy::DpLimits limits;
        limits.maxExpansions = 1000; // layer 0: 120 expansions; layer 1: 120 × 119
        const sy::DpResult r = sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget, limits);
        QVERIFY(r.status == sy::DpStatus::Timeout);
        QVERIFY(!r.memoryBound);
        QCOMPARE(r.expansions, uint64_t{120});
        QCOMPARE(r.entries, uint64_t{121});
    }

    // An antichain 3 000 wide: its second layer would hold 4.5 million down-sets of 47 words;
    // the run ends at the byte bound, having held no more than it.
    void antichainStaysWithinTheByteBound() {
        const ir::MemoryProblem p = wideProblem(3000, 0);
        sy::DpLimits limits;
        limits.maxBytes = uint64_t{16} << 20;
        const sy::DpResult r = sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget, limits);
        QVERIFY(r.status == sy::DpStatus::Timeout);
        QVERIFY(r.memoryBound);
        QVERIFY(r.bytes <= limits.maxBytes);
        QVERIFY(r.bytes > limits.maxBytes / 4); // it did use the room it had
        QVERIFY(r.entries < 20000);             // entries of ~1.5 KiB: what 16 MiB holds
    }

    // The complete bipartite graph at Kahn's peak explodes in its first half and ends at the
    // byte bound. Its kept transitions all peaked at 4 KiB or less, so every budget from
    // there up times out the same way: the bisection continues below it (cheap runs with no
    // solution), does not escalate the run at the bound (more expansions do not lift a byte
    // bound) and returns Kahn's order, marked not optimal.
    void bipartiteGivesUpAtTheMemoryBound() {
        const ir::MemoryProblem p = wideProblem(60, 60);
        sy::DpLimits limits;
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
        const ir::MemoryProblem p = wideProblem(8, 4);
        const sy::DpResult r = sy::memoryDp(p, sy::wholeSegment(p));
        QVERIFY(r.status == sy::DpStatus::Solution);
        QVERIFY(r.bytes > 0 && r.bytes <= sy::kDpMaxBytes);
        QCOMPARE(r.order.size(), p.ops.size());
    }
};

QTEST_GUILESS_MAIN(TestSerenityBounds)
#include "tst_serenity_bounds.moc"
