// SPDX-License-Identifier: Apache-2.0
// Two schedules compared (eval/schedule_diff.h): exact breakdowns, deltas, moved kernels and
// sentences on hand-built timelines (concurrent branches, a merged convolution, fewer stages,
// the same block), a model mismatch, and InceptionV3's sequential against its greedy schedule
// on the simulated V100 (the parts add up, the blocks' gains add up to the latency gain, every
// sentence names its block and a mechanism).
#include "baseline_timeline.h"
#include "bundled_models.h"
#include "eval/schedule_diff.h"
#include "eval/timeline_stats.h"
#include "util/error.h"

#include <QTest>
#include <cmath>

using namespace ios;
using eval::TimelineKernel;
using eval::TimelineStage;

namespace {

TimelineKernel kernel(int block, int stage, int stream, int op, double start, double end) {
    TimelineKernel k;
    k.block = block;
    k.stage = stage;
    k.stream = stream;
    k.op = op;
    k.opName = "op" + std::to_string(op);
    k.startUs = start;
    k.endUs = end;
    return k;
}

TimelineStage stage(int block, int index, int groups, double start, double end,
                    schedule::StageKind kind = schedule::StageKind::Parallel) {
    TimelineStage s;
    s.block = block;
    s.stage = index;
    s.kind = kind;
    s.groups = groups;
    s.startUs = start;
    s.endUs = end;
    return s;
}

// Block 0: op 0 alone in [0, 10) (kernel [1, 9): 2 µs launch and sync overhead) in both.
// Block 1, A: ops 0 and 1 one after another in two stages [10, 20) and [20, 30), kernels
// [11, 19) and [21, 29). B: one stage [10, 22) with two groups, kernels [11, 19) and [12, 20).
eval::Timeline sequentialA() {
    eval::Timeline tl;
    tl.latencyUs = 30;
    tl.stages = {stage(0, 0, 1, 0, 10), stage(1, 0, 1, 10, 20), stage(1, 1, 1, 20, 30)};
    tl.kernels = {kernel(0, 0, 0, 0, 1, 9), kernel(1, 0, 0, 0, 11, 19), kernel(1, 1, 0, 1, 21, 29)};
    return tl;
}

eval::Timeline concurrentB() {
    eval::Timeline tl;
    tl.latencyUs = 22;
    tl.stages = {stage(0, 0, 1, 0, 10), stage(1, 0, 2, 10, 22)};
    tl.kernels = {kernel(0, 0, 0, 0, 1, 9), kernel(1, 0, 0, 0, 11, 19), kernel(1, 0, 1, 1, 12, 20)};
    return tl;
}

// Op 0 of each block compute-bound, op 1 memory-bound.
const eval::ComputeBound kBound = {{1}, {1, 0}};

bool namesMechanism(const std::string& s) {
    for (const char* m : {"concurrently", "merging convolutions", "overlapping more kernels",
                          "fewer launches and syncs", "less idle time", "faster kernels"})
        if (s.find(m) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestScheduleDiff : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void breakdownAddsUp() {
        const eval::Timeline a = sequentialA();
        const eval::TimeBreakdown whole = eval::timeBreakdown(a, kBound, 0, 30);
        QCOMPARE(whole.spanUs, 30.0);
        QCOMPARE(whole.computeUs, 16.0); // op 0 of blocks 0 and 1
        QCOMPARE(whole.memoryUs, 8.0);
        QCOMPARE(whole.overheadUs, 6.0); // 2 µs per stage, every gap inside a stage
        QCOMPARE(whole.idleUs, 0.0);
        QCOMPARE(whole.kernels, 3);
        QCOMPARE(whole.stages, 3);
        QCOMPARE(whole.meanKernelsInFlight, 24.0 / 30.0);
        // Past the last stage the device idles outside every stage.
        eval::Timeline longer = a;
        longer.latencyUs = 40;
        const eval::TimeBreakdown tail = eval::timeBreakdown(longer, kBound, 0, 40);
        QCOMPARE(tail.idleUs, 10.0);
        QCOMPARE(tail.computeUs + tail.memoryUs + tail.overheadUs + tail.idleUs, 40.0);
        // The concurrent block: two kernels in flight over most of it.
        const eval::Timeline b = concurrentB();
        const eval::TimeBreakdown block1 = eval::timeBreakdown(b, kBound, 10, 22);
        QCOMPARE(block1.meanKernelsInFlight, 16.0 / 12.0);
        QCOMPARE(block1.maxGroups, 2);
        QCOMPARE(block1.overheadUs, 3.0); // [10, 11) and [20, 22)
        QCOMPARE(block1.computeUs + block1.memoryUs, 9.0);
        QCOMPARE(block1.computeUs, 4.5); // half the kernel time is op 0's
    }

    void concurrentBranchesExplained() {
        const eval::ScheduleDiff d =
            eval::diffSchedules(sequentialA(), concurrentB(), kBound, "Sequential", "Greedy");
        QCOMPARE(d.aLatencyUs, 30.0);
        QCOMPARE(d.bLatencyUs, 22.0);
        QCOMPARE(d.blocks.size(), size_t(2));
        QCOMPARE(d.blocks[0].block, 1); // largest gain first
        QCOMPARE(d.blocks[0].gainUs(), 8.0);
        QCOMPARE(d.blocks[1].gainUs(), 0.0);
        // Stages paired by index: block 1's stage 1 exists in A only.
        QCOMPARE(d.stages.size(), size_t(3));
        QCOMPARE(d.stages[0].block, 1);
        QCOMPARE(d.stages[0].stage, 1);
        QCOMPARE(d.stages[0].gainUs(), 10.0);
        QCOMPARE(d.stages.back().gainUs(), -2.0);
        // Op 1 of block 1 moved to another stage, stream and start; op 0 stayed.
        QCOMPARE(d.moved.size(), size_t(1));
        QCOMPARE(d.moved[0].block, 1);
        QCOMPARE(d.moved[0].op, 1);
        QCOMPARE(d.moved[0].aStage, 1);
        QCOMPARE(d.moved[0].bStage, 0);
        QCOMPARE(d.moved[0].bStream, 1);
        QCOMPARE(d.moved[0].aStartUs, 11.0);
        QCOMPARE(d.moved[0].bStartUs, 2.0);
        // Block 0 is the same in both: no sentence.
        QCOMPARE(d.explanations.size(), size_t(1));
        QCOMPARE(d.explanations[0].block, 1);
        const std::string& s = d.explanations[0].sentence;
        QVERIFY2(s == "Greedy saves 0.0080 ms in block 1 by running 2 branches concurrently "
                      "(mean concurrency 1.3 vs 0.8)",
                 s.c_str());
        QVERIFY2(d.summary.find("Greedy is 1.36× faster than Sequential") == 0, d.summary.c_str());
    }

    // A faster A gets the sentence in its name; a merged stage with fewer kernels is a merge.
    void mergedConvolutionExplained() {
        eval::Timeline merged;
        merged.latencyUs = 17;
        merged.stages = {stage(0, 0, 1, 0, 10), stage(1, 0, 1, 10, 17, schedule::StageKind::Merge)};
        merged.kernels = {kernel(0, 0, 0, 0, 1, 9), kernel(1, 0, 0, 0, 11, 16)};
        const eval::ScheduleDiff d =
            eval::diffSchedules(merged, sequentialA(), kBound, "Merged", "Sequential");
        QCOMPARE(d.explanations.size(), size_t(1));
        QCOMPARE(d.explanations[0].gainUs, -13.0);
        const std::string& s = d.explanations[0].sentence;
        QVERIFY2(s.find("Merged saves 0.013 ms in block 1 by merging convolutions (1 merged "
                        "stage, 1 kernels vs 2)") == 0,
                 s.c_str());
    }

    void fewerStagesExplained() {
        // One stage of one group running both kernels back to back: no concurrency gained.
        eval::Timeline fused;
        fused.latencyUs = 28;
        fused.stages = {stage(0, 0, 1, 0, 10), stage(1, 0, 1, 10, 28)};
        fused.kernels = {kernel(0, 0, 0, 0, 1, 9), kernel(1, 0, 0, 0, 11, 19),
                         kernel(1, 0, 0, 1, 19, 27)};
        const eval::ScheduleDiff d = eval::diffSchedules(sequentialA(), fused, kBound, "A", "B");
        QCOMPARE(d.explanations.size(), size_t(1));
        const std::string& s = d.explanations[0].sentence;
        QVERIFY2(s.find("B saves 0.0020 ms in block 1 with fewer launches and syncs (2 kernels "
                        "in 1 stage vs 2 in 2") == 0,
                 s.c_str());
    }

    void otherModelRefused() {
        eval::Timeline one = sequentialA();
        one.stages.pop_back();
        one.stages.pop_back();
        one.kernels.resize(1);
        QVERIFY_THROWS_EXCEPTION(UserError,
                                 eval::diffSchedules(one, concurrentB(), kBound, "A", "B"));
    }

    // InceptionV3: greedy against sequential on the simulated V100, operators classified by
    // the device's roofline.
    void inceptionGreedyAgainstSequential() {
        const ir::Graph graph = samples::loadBundledModel("inception_v3");
        const auto dags = ir::buildDags(graph);
        const cost::DeviceProfile& v100 = *cost::findBundledDevice("V100");
        const eval::ComputeBound bound =
            eval::computeBoundOperators(graph, dags, eval::ridgeFlopsPerByte(v100));
        size_t computeOps = 0, ops = 0;
        for (const auto& block : bound)
            for (char c : block) {
                computeOps += c != 0 ? 1 : 0;
                ++ops;
            }
        QVERIFY(computeOps > 0 && computeOps < ops); // big convolutions and the rest
        const eval::Timeline seq = testing::baselineTimeline(graph, false);
        const eval::Timeline greedy = testing::baselineTimeline(graph, true);
        const eval::ScheduleDiff d =
            eval::diffSchedules(seq, greedy, bound, "Sequential", "Greedy");
        for (const eval::TimeBreakdown* t : {&d.a, &d.b}) {
            const double parts = t->computeUs + t->memoryUs + t->overheadUs + t->idleUs;
            QVERIFY(std::abs(parts - t->spanUs) <= 1e-9 * t->spanUs);
            QVERIFY(t->computeUs > 0 && t->memoryUs > 0 && t->overheadUs > 0);
        }
        QVERIFY(d.b.meanKernelsInFlight > d.a.meanKernelsInFlight);
        QVERIFY(d.a.maxGroups == 1 && d.b.maxGroups > 1);
        double gains = 0;
        for (const eval::LatencyDelta& delta : d.blocks)
            gains += delta.gainUs();
        QVERIFY(std::abs(gains - (d.aLatencyUs - d.bLatencyUs)) <= 1e-6 * d.aLatencyUs);
        QVERIFY(!d.moved.empty());
        QVERIFY(!d.explanations.empty());
        for (size_t i = 1; i < d.explanations.size(); ++i)
            QVERIFY(std::abs(d.explanations[i - 1].gainUs) >= std::abs(d.explanations[i].gainUs));
        for (const eval::BlockExplanation& e : d.explanations) {
            QVERIFY2(e.sentence.find("in block " + std::to_string(e.block)) != std::string::npos,
                     e.sentence.c_str());
            QVERIFY2(namesMechanism(e.sentence), e.sentence.c_str());
        }
        QVERIFY2(d.summary.find("Greedy is ") == 0, d.summary.c_str());
    }
};

QTEST_GUILESS_MAIN(TestScheduleDiff)
#include "tst_schedule_diff.moc"
