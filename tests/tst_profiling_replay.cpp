// SPDX-License-Identifier: Apache-2.0
// Traces of CUDA-graph replays and the eager statement, on the mock backend (issue 16 items 4
// and 5): a replayed trace holds the schedule's kernels with their streams and stage tags and
// records its mode; the busy-time mean of active warps on hand-made samples; replay
// attribution's failure modes; the mock's host launch cost making eager runs host-bound; the
// eager/replay verdict; and what `measure` and `trace --gpu` print and write.
#include "bundled_models.h"
#include "executor.h"
#include "gpu_runs.h"
#include "gpu_trace.h"
#include "io/trace_import.h"
#include "mock_backend.h"
#include "mock_sched.h"
#include "schedule/stream_program.h"
#include "schedulers/baselines.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

using namespace ios;
using ios::testing::runSched;
using namespace ios::profiling;

namespace {

// (block, stage, op, stream) of every kernel, sorted: what a trace attributes.
std::vector<std::tuple<int, int, int, int>> attribution(const eval::Timeline& tl) {
    std::vector<std::tuple<int, int, int, int>> out;
    for (const eval::TimelineKernel& k : tl.kernels)
        out.emplace_back(k.block, k.stage, k.op, k.stream);
    std::sort(out.begin(), out.end());
    return out;
}

KernelRecord record(std::string name, uint64_t start, uint64_t end, uint32_t correlation,
                    uint64_t tag = 0, uint64_t stream = 7) {
    KernelRecord r;
    r.name = std::move(name);
    r.startNs = start;
    r.endNs = end;
    r.correlationId = correlation;
    r.tag = tag;
    r.streamId = stream;
    return r;
}

} // namespace

class TestProfilingReplay : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void replayedTraceHasTheScheduleKernels() {
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const auto dags = ir::buildDags(g);
        const auto sched = schedulers::greedy(dags);
        MockBackend backend(MockOptions::timingOnly("Mock GPU"));
        Executor ex(g, backend, 1);
        const MeasuredTrace eager = traceSchedule(ex, dags, sched, 1000);
        QCOMPARE(eager.mode, TraceMode::Eager);
        QCOMPARE(backend.graphsLaunched(), 0);

        TraceOptions o;
        o.mode = TraceMode::CudaGraph;
        o.warpIntervalNs = 1000;
        o.replays = 5;
        const MeasuredTrace replayed = traceSchedule(ex, dags, sched, o);
        QCOMPARE(replayed.mode, TraceMode::CudaGraph);
        QCOMPARE(traceModeName(replayed.mode), std::string("cuda-graph"));
        QCOMPARE(backend.graphsLaunched(), 1 + o.replays); // warm replay, then the sampled ones
        QVERIFY2(replayed.warpNote.empty(), replayed.warpNote.c_str());
        // Same kernels, operators, stages and streams as the eager run; no kernel unattributed.
        QCOMPARE(replayed.timeline.kernels.size(), eager.timeline.kernels.size());
        QCOMPARE(attribution(replayed.timeline), attribution(eager.timeline));
        QCOMPARE(replayed.timeline.streams, eager.timeline.streams);
        QVERIFY(replayed.timeline.streams >= 2);
        for (const eval::TimelineKernel& k : replayed.timeline.kernels)
            QVERIFY(k.block == 0 && k.stage >= 0 && !k.opName.empty());
        QCOMPARE(replayed.timeline.stages.size(), eager.timeline.stages.size());
        // One replay: it starts at 0 and lasts what the eager run lasts on the mock (no host
        // cost; records are rounded to ns), with samples over that replay only.
        QCOMPARE(replayed.timeline.kernels.front().startUs, 0.0);
        QVERIFY(std::abs(replayed.timeline.latencyUs - eager.timeline.latencyUs) <= 0.002);
        QVERIFY(!replayed.timeline.samples.empty());
        QVERIFY(replayed.timeline.samples.front().timeUs <= 0);
        QVERIFY(replayed.timeline.samples.front().timeUs > -1.0); // the 1 µs interval
        QVERIFY(replayed.timeline.samples.back().timeUs <= replayed.timeline.latencyUs + 1.0);
        QVERIFY(replayed.busyWarpOccupancy > 0);
        QCOMPARE(replayed.busyWarpOccupancy, busyWarpOccupancy(replayed.timeline));
    }

    void replayedProgramTrace() {
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const auto dags = ir::buildDags(g);
        const schedule::Program program = schedule::lower(schedulers::greedy(dags));
        MockBackend backend(MockOptions::timingOnly("Mock GPU"));
        Executor ex(g, backend, 1);
        TraceOptions o;
        o.mode = TraceMode::CudaGraph;
        o.replays = 3;
        const MeasuredTrace eager = traceSchedule(ex, dags, program, 1000);
        const MeasuredTrace replayed = traceSchedule(ex, dags, program, o);
        QCOMPARE(attribution(replayed.timeline), attribution(eager.timeline));
    }

    void busyTimeMeanOnHandMadeSamples() {
        // Kernels busy over [0, 3) (two overlapping) and [6, 8); idle [3, 6) and [8, 10).
        eval::Timeline tl;
        for (auto [s, e] : {std::pair{0.0, 2.0}, {1.0, 3.0}, {6.0, 8.0}}) {
            eval::TimelineKernel k;
            k.startUs = s;
            k.endUs = e;
            tl.kernels.push_back(k);
        }
        tl.latencyUs = 10;
        for (auto [t, v] : {std::pair{0.0, 0.5}, {3.0, 0.0}, {6.0, 0.3}, {8.0, 0.0}, {10.0, 0.0}}) {
            eval::TimelineSample s;
            s.timeUs = t;
            s.warpOccupancy = v;
            tl.samples.push_back(s);
        }
        // Busy: (3 × 0.5 + 2 × 0.3) / 5; the whole run: the same over 10 µs.
        QCOMPARE(busyWarpOccupancy(tl), (3 * 0.5 + 2 * 0.3) / 5);
        QCOMPARE(meanWarpOccupancy(tl, 0, tl.latencyUs), (3 * 0.5 + 2 * 0.3) / 10);
        tl.samples.clear();
        QCOMPARE(busyWarpOccupancy(tl), -1.0);
    }

    void replayAttribution() {
        // Eager: issue order = correlation order; tags and streams come from it.
        const std::vector<KernelRecord> eager = {record("b", 30, 40, 2, 22, 2),
                                                 record("a", 0, 10, 1, 11, 1)};
        // Two replays, 100 ns apart; within one the graph node ids give capture order.
        std::vector<KernelRecord> replayed;
        for (uint64_t r = 0; r < 2; ++r) {
            KernelRecord a = record("a", 100 * r + 5, 100 * r + 9, 50);
            a.graphNodeId = 1;
            KernelRecord b = record("b", 100 * r, 100 * r + 4, 50);
            b.graphNodeId = 2; // started first, captured second
            replayed.push_back(b);
            replayed.push_back(a);
        }
        std::string note;
        const std::vector<KernelRecord> run = attributeReplay(eager, replayed, 2, 1, note);
        QVERIFY(note.empty());
        QCOMPARE(run.size(), size_t{2});
        for (const KernelRecord& k : run) {
            QVERIFY(k.startNs >= 100); // the second replay
            QCOMPARE(k.tag, k.name == "a" ? uint64_t{11} : uint64_t{22});
            QCOMPARE(k.streamId, k.name == "a" ? uint64_t{1} : uint64_t{2});
        }
        // Names that do not match: kept, unattributed, with a note.
        replayed[0].name = replayed[2].name = "c";
        const std::vector<KernelRecord> odd = attributeReplay(eager, replayed, 2, 0, note);
        QVERIFY(note.find("not the eager run's") != std::string::npos);
        for (const KernelRecord& k : odd)
            QCOMPARE(k.tag, uint64_t{0});
        // A count that is not replays × kernels is an error.
        replayed.pop_back();
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, attributeReplay(eager, replayed, 2, 0, note));
    }

    void hostLaunchCostMakesEagerRunsHostBound() {
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const auto dags = ir::buildDags(g);
        const auto seq = schedulers::sequential(dags);
        const auto par = schedulers::greedy(dags);
        auto medians = [&](double hostUs) {
            MockOptions o = MockOptions::timingOnly("Mock GPU");
            o.hostLaunchUs = hostUs;
            MockBackend backend(o);
            Executor ex(g, backend, 1);
            TimingOptions t;
            t.warmup = 1;
            t.repeat = 3;
            TimingOptions replay = t;
            replay.cudaGraph = true;
            return std::vector<EagerReplayTiming>{{"sequential",
                                                   median(ex.timeSchedule(dags, seq, t)),
                                                   median(ex.timeSchedule(dags, seq, replay))},
                                                  {"greedy", median(ex.timeSchedule(dags, par, t)),
                                                   median(ex.timeSchedule(dags, par, replay))}};
        };
        // Without a host cost eager = replayed, and the parallel schedule wins both ways.
        const auto free = medians(0);
        for (const EagerReplayTiming& r : free)
            QCOMPARE(r.eagerMs, r.replayMs);
        QVERIFY(free[1].eagerMs < free[0].eagerMs);
        for (const EagerReplayVerdict& v : eagerReplayVerdicts(free))
            QVERIFY(!v.needsReplay);

        // 50 µs per host call: eager runs cost the host's calls; replays pay one launch.
        const auto bound = medians(50);
        QVERIFY(bound[0].eagerMs > 2 * bound[0].replayMs);
        QVERIFY(bound[1].eagerMs > bound[0].eagerMs);   // more calls (events) lose eagerly
        QVERIFY(bound[1].replayMs < bound[0].replayMs); // and still win replayed
        const auto verdicts = eagerReplayVerdicts(bound);
        QCOMPARE(verdicts.size(), size_t{2});
        QVERIFY(!verdicts[0].needsReplay); // the baseline is never flagged
        QVERIFY(verdicts[1].needsReplay);
        QCOMPARE(verdicts[1].ratio, bound[1].eagerMs / bound[1].replayMs);
    }

    void verdictsByHand() {
        const auto v = eagerReplayVerdicts(
            {{"sequential", 6.2, 3.5}, {"ios-both", 9.7, 3.1}, {"greedy", 6.0, 3.3}});
        QCOMPARE(v[1].ratio, 9.7 / 3.1);
        QVERIFY(v[1].needsReplay);
        QVERIFY(!v[2].needsReplay);                                             // wins eagerly too
        QVERIFY(!eagerReplayVerdicts({{"ios-both", 9.7, 3.1}})[0].needsReplay); // no baseline
    }

    void measureStatesTheEagerNote() {
        QProcess eager;
        runSched(eager, {"measure", "demo_inception_module", "--strategy", "sequential", "--repeat",
                         "2", "--warmup", "1"});
        QCOMPARE(eager.exitCode(), 0);
        const QString err = eager.readAllStandardError();
        QVERIFY2(err.contains("host-bound") && err.contains("CUDA-graph replay") &&
                     err.contains("6.2 ms eager vs 3.5 ms replayed") && err.contains("docs/gpu.md"),
                 qPrintable(err));

        QTemporaryDir dir;
        QProcess replay;
        runSched(replay, {"measure", "demo_inception_module", "--strategy", "sequential,greedy",
                          "--repeat", "2", "--warmup", "1", "--cuda-graph", "--trace-prefix",
                          dir.filePath("t"), "-o", dir.filePath("r.json")});
        QVERIFY2(replay.exitCode() == 0, replay.readAllStandardError().constData());
        const QString out = replay.readAllStandardOutput();
        QVERIFY2(out.contains("sequential: eager/replay = 1.00x") &&
                     out.contains("greedy: eager/replay = "),
                 qPrintable(out));
        QFile results(dir.filePath("r.json"));
        QVERIFY(results.open(QIODevice::ReadOnly));
        const QJsonArray runs = QJsonDocument::fromJson(results.readAll())["results"].toArray();
        QCOMPARE(runs.size(), 2);
        for (const QJsonValue& r : runs) {
            QCOMPARE(r["trace_mode"].toString(), QString("cuda-graph"));
            QVERIFY(r["busy_active_warps_pct"].toDouble() > 0);
            QVERIFY(r.toObject().contains("eager_over_replay"));
            QCOMPARE(r["needs_cuda_graph"].toBool(), false); // no host cost in the CLI's mock
        }
        io::TraceInfo info;
        const eval::Timeline tl =
            io::readChromeTrace(dir.filePath("t-greedy.json").toStdString(), &info);
        QCOMPARE(info.mode, std::string("cuda-graph"));
        QCOMPARE(info.warpMetric, std::string("mock.busy_streams.pct"));
        QVERIFY(tl.streams >= 2);

        QProcess help;
        runSched(help, {"measure", "--help"});
        const QString text = help.readAllStandardOutput();
        QVERIFY2(text.contains("host-bound") && text.contains("docs/gpu.md"), qPrintable(text));
    }

    void traceGpuCudaGraph() {
        QTemporaryDir dir;
        const QString file = dir.filePath("t.json");
        QProcess p;
        runSched(p, {"trace", "demo_inception_module", "--strategy", "greedy", "--gpu",
                     "--cuda-graph", "-o", file});
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY(QString(p.readAllStandardOutput()).contains("(cuda-graph)"));
        io::TraceInfo info;
        io::readChromeTrace(file.toStdString(), &info);
        QCOMPARE(info.mode, std::string("cuda-graph"));

        QProcess eager;
        runSched(eager,
                 {"trace", "demo_inception_module", "--strategy", "greedy", "--gpu", "-o", file});
        QCOMPARE(eager.exitCode(), 0);
        QVERIFY(QString(eager.readAllStandardError()).contains("eager run: host-bound"));
        io::readChromeTrace(file.toStdString(), &info);
        QCOMPARE(info.mode, std::string("eager"));

        QProcess simulated; // replays are a GPU thing
        runSched(simulated, {"trace", "demo_inception_module", "--strategy", "greedy",
                             "--cuda-graph", "-o", file});
        QVERIFY(simulated.exitCode() != 0);
        QVERIFY(QString(simulated.readAllStandardError()).contains("--cuda-graph"));
    }
};

QTEST_GUILESS_MAIN(TestProfilingReplay)
#include "tst_profiling_replay.moc"
