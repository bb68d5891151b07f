// SPDX-License-Identifier: Apache-2.0
// Where a timeline's GPU idles (eval/timeline_stats.h) and its curves per pixel and flows
// (eval/timeline_curves.h): exact figures on a hand-built timeline (overlapping and touching
// kernels on one stream, a zero-length kernel, gaps at both edges, ranges inside, across and
// outside), the empty timeline, and consistency on InceptionV3's simulated timeline.
#include "baseline_timeline.h"
#include "bundled_models.h"
#include "eval/timeline_curves.h"
#include "eval/timeline_stats.h"

#include <QTest>
#include <numeric>

using namespace ios;
using eval::IdleGap;
using eval::TimelineKernel;

namespace {

TimelineKernel kernel(int stream, double start, double end, int op = -1) {
    TimelineKernel k;
    k.stream = stream;
    k.op = op;
    k.startUs = start;
    k.endUs = end;
    return k;
}

// Stream 0: k0 [2,5) and k1 [4,8) overlap, k2 [8,10) touches k1, k3 is zero-length at 12.
// Stream 1: k4 [6,9), k5 [14,16). 20 µs long. Busy overall: [2,10) ∪ [14,16) = 10 µs.
// Curves on 10 SMs: all busy over [2,10), half over [14,16).
eval::Timeline handBuilt() {
    eval::Timeline tl;
    tl.smCount = 10;
    tl.streams = 2;
    tl.latencyUs = 20;
    tl.kernels = {kernel(0, 2, 5),   kernel(0, 4, 8), kernel(0, 8, 10),
                  kernel(0, 12, 12), kernel(1, 6, 9), kernel(1, 14, 16)};
    tl.samples = {{0, 0, 0, 0}, {2, 10, 0.5, 0.2}, {10, 0, 0, 0}, {14, 5, 0.25, 0}, {16, 0, 0, 0}};
    return tl;
}

struct Gap {
    double start, end;
    int before, after;
};

void compareGaps(const std::vector<IdleGap>& actual, const std::vector<Gap>& expected) {
    QCOMPARE(actual.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(actual[i].startUs, expected[i].start);
        QCOMPARE(actual[i].endUs, expected[i].end);
        QCOMPARE(actual[i].before, expected[i].before);
        QCOMPARE(actual[i].after, expected[i].after);
    }
}

} // namespace

class TestTimelineStats : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void busyOverTheWholeTimeline() {
        const eval::BusySummary s = eval::busySummary(handBuilt(), 0, 20);
        QCOMPARE(s.spanUs, 20.0);
        QCOMPARE(s.overall.busyUs, 10.0);
        QCOMPARE(s.overall.fraction, 0.5);
        QCOMPARE(s.idleUs, 10.0);
        QCOMPARE(s.streams.size(), size_t{2});
        QCOMPARE(s.streams[0].stream, 0);
        QCOMPARE(s.streams[0].kernels, 4);
        QCOMPARE(s.streams[0].busy.busyUs, 8.0); // overlap counted once, zero-length not at all
        QCOMPARE(s.streams[0].busy.fraction, 0.4);
        QCOMPARE(s.streams[1].busy.busyUs, 5.0);
        QCOMPARE(s.streams[1].busy.fraction, 0.25);
    }

    void busyIntervalsMergeOverlapsAndTouches() {
        const auto all = eval::busyIntervals(handBuilt(), -1, 0, 20);
        QCOMPARE(all.size(), size_t{2});
        QCOMPARE(all[0].startUs, 2.0);
        QCOMPARE(all[0].endUs, 10.0);
        QCOMPARE(all[1].startUs, 14.0);
        QCOMPARE(all[1].endUs, 16.0);
        const auto clipped = eval::busyIntervals(handBuilt(), 1, 7, 15);
        QCOMPARE(clipped.size(), size_t{2});
        QCOMPARE(clipped[0].startUs, 7.0);
        QCOMPARE(clipped[0].endUs, 9.0);
        QCOMPARE(clipped[1].startUs, 14.0);
        QCOMPARE(clipped[1].endUs, 15.0);
    }

    void gapsLargestFirstWithNeighbours() {
        const eval::Timeline tl = handBuilt();
        // Overall: [0,2) at the start edge, [10,14) between k2 and k5, [16,20) at the end;
        // the two 4 µs gaps tie and sort by start.
        compareGaps(eval::idleGaps(tl, -1, 0, 0, 20),
                    {{10, 14, 2, 5}, {16, 20, 5, -1}, {0, 2, -1, 0}});
        // A gap exactly at the threshold counts; none is as long as 4.5 µs.
        compareGaps(eval::idleGaps(tl, -1, 4, 0, 20), {{10, 14, 2, 5}, {16, 20, 5, -1}});
        QVERIFY(eval::idleGaps(tl, -1, 4.5, 0, 20).empty());
        // Per stream: the zero-length kernel k3 does not split stream 0's gap [10,20).
        compareGaps(eval::idleGaps(tl, 0, 0, 0, 20), {{10, 20, 2, -1}, {0, 2, -1, 0}});
        compareGaps(eval::idleGaps(tl, 1, 0, 0, 20),
                    {{0, 6, -1, 4}, {9, 14, 4, 5}, {16, 20, 5, -1}});
        QCOMPARE(eval::idleGaps(tl, 1, 0, 0, 20).front().stream, 1);
    }

    void gapsInARange() {
        const eval::Timeline tl = handBuilt();
        compareGaps(eval::idleGaps(tl, -1, 0, 3, 15), {{10, 14, 2, 5}});
        // A range inside a gap is one gap with no neighbours.
        compareGaps(eval::idleGaps(tl, -1, 0, 11, 13), {{11, 13, -1, -1}});
        // Outside the timeline: clipped to nothing.
        QVERIFY(eval::idleGaps(tl, -1, 0, 30, 40).empty());
        compareGaps(eval::idleGaps(tl, -1, 0, -5, 1), {{0, 1, -1, -1}});
    }

    void rangeFigures() {
        const eval::Timeline tl = handBuilt();
        const eval::RangeStats whole = eval::rangeStats(tl, 0, 20);
        QCOMPARE(whole.durationUs, 20.0);
        QCOMPARE(whole.kernels, 6);
        QCOMPARE(whole.busy.fraction, 0.5);
        QCOMPARE(whole.meanActiveSmFraction, 9.0 / 20); // (8 × 1 + 2 × 0.5) / 20
        QCOMPARE(whole.meanWarpOccupancy, 4.5 / 20);
        QCOMPARE(whole.meanFlopUtilisation, 1.6 / 20);

        const eval::RangeStats r = eval::rangeStats(tl, 3, 15);
        QCOMPARE(r.startUs, 3.0);
        QCOMPARE(r.durationUs, 12.0);
        QCOMPARE(r.kernels, 6); // k3's instant (12) lies in the range
        QCOMPARE(r.busy.busyUs, 8.0);
        QCOMPARE(r.meanActiveSmFraction, 7.5 / 12);

        const eval::RangeStats gap = eval::rangeStats(tl, 10, 14);
        QCOMPARE(gap.kernels, 1); // only k3: k2 ends at 10 and k5 starts at 14
        QCOMPARE(gap.busy.busyUs, 0.0);
        QCOMPARE(gap.meanActiveSmFraction, 0.0);

        const eval::RangeStats outside = eval::rangeStats(tl, 30, 40);
        QCOMPARE(outside.startUs, 20.0);
        QCOMPARE(outside.durationUs, 0.0);
        QCOMPARE(outside.kernels, 0);
        QCOMPARE(outside.busy.fraction, 0.0);
        const eval::RangeStats reversed = eval::rangeStats(tl, 8, 4);
        QCOMPARE(reversed.durationUs, 0.0);
        QCOMPARE(reversed.kernels, 0);
    }

    void samplesAreHeldUntilTheNext() {
        const eval::Timeline tl = handBuilt();
        QCOMPARE(eval::sampleAt(tl, 5).activeSms, 10);
        QCOMPARE(eval::sampleAt(tl, 2).warpOccupancy, 0.5);
        QCOMPARE(eval::sampleAt(tl, 10).activeSms, 0);
        QCOMPARE(eval::sampleAt(tl, 15).warpOccupancy, 0.25);
        QCOMPARE(eval::sampleAt(tl, -1).activeSms, 0);
        QCOMPARE(eval::sampleAt(tl, 20).activeSms, 0);
    }

    void emptyTimeline() {
        const eval::Timeline tl;
        const eval::BusySummary s = eval::busySummary(tl, 0, 100);
        QCOMPARE(s.spanUs, 0.0);
        QCOMPARE(s.overall.fraction, 0.0);
        QVERIFY(s.streams.empty());
        QVERIFY(eval::idleGaps(tl, -1, 0, 0, 100).empty());
        QCOMPARE(eval::rangeStats(tl, 0, 100).kernels, 0);
        QCOMPARE(eval::timelineEndUs(tl), 0.0);
        const auto buckets = eval::decimateCurve(tl, eval::TimelineCurve::ActiveSms, 0, 10, 2);
        QCOMPARE(buckets.size(), size_t{2});
        QCOMPARE(buckets[1].max, 0.0);
    }

    void kernelsPastTheReportedLatency() {
        eval::Timeline tl = handBuilt();
        tl.latencyUs = 12; // a measured trace's latency may be shorter than its kernels
        QCOMPARE(eval::timelineEndUs(tl), 16.0);
        QCOMPARE(eval::busySummary(tl, 0, 100).spanUs, 16.0);
    }

    void decimatedCurve() {
        const eval::Timeline tl = handBuilt();
        const auto b = eval::decimateCurve(tl, eval::TimelineCurve::ActiveSms, 0, 20, 4);
        QCOMPARE(b.size(), size_t{4});
        QCOMPARE(b[0].startUs, 0.0);
        QCOMPARE(b[0].endUs, 5.0);
        QCOMPARE(b[0].min, 0.0);
        QCOMPARE(b[0].max, 1.0);
        QCOMPARE(b[0].mean, 0.6); // 3 of 5 µs at 100 %
        QCOMPARE(b[1].min, 1.0);
        QCOMPARE(b[1].mean, 1.0);
        QCOMPARE(b[2].max, 0.5);
        QCOMPARE(b[2].mean, 0.1);
        QCOMPARE(b[3].mean, 0.1);
        // Past the end the curve is zero.
        const auto past = eval::decimateCurve(tl, eval::TimelineCurve::WarpOccupancy, 0, 40, 2);
        QCOMPARE(past[0].mean, 4.5 / 20);
        QCOMPARE(past[1].max, 0.0);
        QVERIFY(eval::decimateCurve(tl, eval::TimelineCurve::ActiveSms, 5, 5, 10).empty());
        QVERIFY(eval::decimateCurve(tl, eval::TimelineCurve::ActiveSms, 0, 5, 0).empty());
    }

    void flowsBetweenStreams() {
        // One block: 0 → 1, 0 → 2, 1 → 2; only the edges whose kernels change stream flow.
        std::vector<ir::BlockDag> dags(1);
        dags[0].ops.assign(3, nullptr);
        dags[0].succs = {{1, 2}, {2}, {}};
        dags[0].preds = {{}, {0}, {0, 1}};
        eval::Timeline tl;
        tl.kernels = {kernel(0, 0, 2, 0), kernel(1, 2, 4, 1), kernel(0, 5, 6, 2),
                      kernel(0, 4, 5, 2), kernel(1, 6, 7, -1)};
        tl.latencyUs = 7;
        // op 2's first kernel is k3 (starts at 4), not k2 (issued first).
        QCOMPARE(eval::kernelFlows(tl, dags), (std::vector<eval::KernelFlow>{{0, 1}, {1, 3}}));
    }

    // InceptionV3's greedy schedule on the V100: busy + idle = span, the gaps add up to the idle
    // time, per stream too, and the range's mean SM use is the stages' duration-weighted mean.
    void inceptionIsConsistent() {
        const ir::Graph graph = samples::loadBundledModel("inception_v3");
        const eval::Timeline tl = testing::baselineTimeline(graph, true);
        QVERIFY(tl.streams > 1);
        const double end = eval::timelineEndUs(tl);
        QCOMPARE(end, tl.latencyUs);
        const eval::BusySummary s = eval::busySummary(tl, 0, end);
        QCOMPARE(s.overall.busyUs + s.idleUs, s.spanUs);
        QVERIFY(s.overall.busyUs > 0 && s.idleUs > 0);
        auto sum = [](const std::vector<IdleGap>& gaps) {
            return std::accumulate(gaps.begin(), gaps.end(), 0.0,
                                   [](double a, const IdleGap& g) { return a + g.durationUs(); });
        };
        const auto gaps = eval::idleGaps(tl, -1, 0, 0, end);
        QVERIFY(std::abs(sum(gaps) - s.idleUs) <= 1e-9 * end);
        for (size_t i = 1; i < gaps.size(); ++i)
            QVERIFY(gaps[i - 1].durationUs() >= gaps[i].durationUs());
        double streamBusy = 0, mostBusy = 0;
        for (const eval::StreamBusy& sb : s.streams) {
            const double idle = sum(eval::idleGaps(tl, sb.stream, 0, 0, end));
            QVERIFY(std::abs(idle + sb.busy.busyUs - end) <= 1e-9 * end);
            streamBusy += sb.busy.busyUs;
            mostBusy = std::max(mostBusy, sb.busy.busyUs);
        }
        QVERIFY(s.overall.busyUs >= mostBusy && s.overall.busyUs <= streamBusy * (1 + 1e-12));
        const eval::RangeStats r = eval::rangeStats(tl, 0, end);
        QCOMPARE(r.kernels, static_cast<int>(tl.kernels.size()));
        double weighted = 0;
        for (const eval::TimelineStage& st : tl.stages)
            weighted += st.meanActiveSmFraction * (st.endUs - st.startUs);
        QVERIFY2(
            std::abs(r.meanActiveSmFraction - weighted / end) <= 1e-9,
            qPrintable(QStringLiteral("%1 vs %2").arg(r.meanActiveSmFraction).arg(weighted / end)));
        // Deterministic: the same figures again.
        const auto again = eval::idleGaps(tl, -1, 0, 0, end);
        QCOMPARE(again.size(), gaps.size());
        for (size_t i = 0; i < gaps.size(); ++i)
            QVERIFY(again[i].startUs == gaps[i].startUs && again[i].before == gaps[i].before);
    }

    // What the timeline view computes for NasNet-A (1 500+ kernels): the busy summary and the
    // gaps of the device and of every stream once per timeline or threshold, and the three
    // curves decimated to 1 120 pixels per paint (bench figures, not assertions).
    void benchNasnet() {
        const ir::Graph graph = samples::loadBundledModel("nasnet_large");
        const eval::Timeline tl = testing::baselineTimeline(graph, true);
        QVERIFY(tl.kernels.size() > 1500);
        const double end = eval::timelineEndUs(tl);
        size_t found = 0;
        QBENCHMARK {
            const eval::BusySummary s = eval::busySummary(tl, 0, end);
            found = eval::idleGaps(tl, -1, 2, 0, end).size();
            for (const eval::StreamBusy& sb : s.streams)
                found += eval::idleGaps(tl, sb.stream, 2, 0, end).size();
            for (auto curve : {eval::TimelineCurve::ActiveSms, eval::TimelineCurve::WarpOccupancy,
                               eval::TimelineCurve::FlopUtilisation})
                found += eval::decimateCurve(tl, curve, 0, end, 1120).size();
        }
        QVERIFY(found > 3 * 1120);
    }
};

QTEST_GUILESS_MAIN(TestTimelineStats)
#include "tst_timeline_stats.moc"
