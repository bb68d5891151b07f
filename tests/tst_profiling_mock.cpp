// SPDX-License-Identifier: Apache-2.0
// Profiling without a GPU: the executor on the mock backend (numeric equality of schedules,
// merged convolutions, norms against the reference executor, streams, CUDA-graph replay), the
// measured cost model's median, the measurement cache round trip, CUPTI record → timeline
// conversion with synthetic records, and the no-GPU error path of the library and of
// `ios-sched measure`.
#include "bundled_models.h"
#include "cost/analytic_cost_model.h"
#include "cost/measurement_cache.h"
#include "executor.h"
#include "gpu_runs.h"
#include "gpu_trace.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "measured_cost_model.h"
#include "mock_backend.h"
#include "ref/reference_executor.h"
#include "schedule/merge.h"
#include "schedulers/baselines.h"
#include "schedulers/ios_dp.h"
#include "util/error.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

using namespace ios;
using namespace ios::profiling;

namespace {

schedule::Schedule dpSchedule(const ir::Graph& g, schedulers::Strategy s,
                              const cost::CostModel& model) {
    schedulers::Options o;
    o.strategy = s;
    return schedulers::optimize(ir::PreparedModel(g), o, model).schedule;
}

// The first pair of mergeable convolutions of a block, as a merge stage (empty if none).
std::optional<schedule::Stage> mergePair(const ir::BlockDag& dag) {
    for (size_t a = 0; a < dag.ops.size(); ++a)
        for (size_t b = a + 1; b < dag.ops.size(); ++b)
            if (dag.ops[a]->kind == ir::NodeKind::Conv && dag.ops[b]->kind == ir::NodeKind::Conv &&
                schedule::mergeable({dag.ops[a], dag.ops[b]}))
                return schedule::Stage{schedule::StageKind::Merge,
                                       {{static_cast<int>(a), static_cast<int>(b)}}};
    return std::nullopt;
}

// Norms of every kind on a 12×3×2 input: LayerNorm and softmax over one group and several, on
// the input's own buffer and on a channel slice (gathered by a copy), concatenated at the exit.
ir::Graph normGraph() {
    using namespace testing;
    auto norm = [](std::string name, std::vector<Term> in, ir::NormType type, int64_t groups,
                   double epsilon) {
        Node n = node(NodeKind::Norm, std::move(name), std::move(in));
        n.norm = {type, groups, epsilon};
        return n;
    };
    ir::Graph g;
    g.name = "norms";
    g.input = placeholder("in", {12, 3, 2});
    const auto all = concat({val("in", 0, 12)});
    const auto slice = concat({val("in", 3, 12)});
    std::vector<Node> norms{norm("ln1", all, ir::NormType::LayerNorm, 1, 1e-5),
                            norm("ln4", slice, ir::NormType::LayerNorm, 3, 1e-3),
                            norm("sm1", all, ir::NormType::Softmax, 1, 0),
                            norm("sm4", all, ir::NormType::Softmax, 4, 0)};
    Node out =
        node(NodeKind::Identity, "out",
             concat({val("ln1", 0, 12), val("ln4", 0, 9), val("sm1", 0, 12), val("sm4", 0, 12)}));
    g.blocks.push_back(block(g.input, std::move(norms), out));
    ir::validateAndInferShapes(g);
    return g;
}

// Attention on an 8×3×2 input: q, k, v are channel slices of it (two heads of two), scores
// scaled by ½, softmax per head, attention · v; the exit concatenates scores and result.
// Two heads over 6 positions, in `windows` windows of their own (window attention).
ir::Graph attentionGraph(int64_t windows = 1) {
    using namespace testing;
    ir::Graph g;
    g.name = "attention";
    g.input = placeholder("in", {8, 3, 2});
    const int64_t scores = 2 * 6 / windows; // heads × keys per window
    Node soft = node(NodeKind::Norm, "soft", concat({val("scores", 0, scores)}));
    soft.norm = {ir::NormType::Softmax, 2, 0};
    std::vector<Node> ops{matmul("scores", val("in", 0, 4), val("in", 4, 8), 2, true, 0.5), soft,
                          matmul("mix", val("soft", 0, scores), val("in", 2, 6), 2, false)};
    ops[0].matmul.windows = ops[2].matmul.windows = windows;
    Node out =
        node(NodeKind::Identity, "out", concat({val("scores", 0, scores), val("mix", 0, 4)}));
    g.blocks.push_back(block(g.input, std::move(ops), out));
    ir::validateAndInferShapes(g);
    return g;
}

// Token gathers on an 8×3×2 input: two learned tokens before four of the positions with a
// whole positional embedding (ViT's class token), a reversed order (a window partition's
// permutation), and a copy with a table repeating every 4 channels and 3 positions (Swin's
// relative-position bias); GELU of the last. The exit concatenates them.
ir::Graph tokensGraph() {
    using namespace testing;
    ir::Graph g;
    g.name = "tokens";
    g.input = placeholder("in", {8, 3, 2});
    Node cls = node(NodeKind::Tokens, "cls", concat({val("in", 0, 8)}));
    cls.tokens.index = {-1, -2, 0, 1, 2, 3}; // the last two positions dropped
    cls.tokens.outHw = {3, 2};
    cls.tokens.embed = true;
    Node reversed = node(NodeKind::Tokens, "reversed", concat({val("in", 2, 6)}));
    reversed.tokens.index = {5, 4, 3, 2, 1, 0};
    reversed.tokens.outHw = {3, 2};
    Node bias = node(NodeKind::Tokens, "bias", concat({val("in", 0, 8)}));
    bias.tokens.index = {0, 1, 2, 3, 4, 5};
    bias.tokens.outHw = {3, 2};
    bias.tokens.embed = true;
    bias.tokens.embedChannels = 4;
    bias.tokens.embedPositions = 3;
    Node gelu = node(NodeKind::Activation, "gelu", concat({val("bias", 0, 8)}));
    gelu.activation = ir::ActType::Gelu;
    Node out = node(
        NodeKind::Identity, "out",
        concat({val("cls", 0, 8), val("reversed", 0, 4), val("bias", 0, 8), val("gelu", 0, 8)}));
    g.blocks.push_back(block(g.input, {cls, reversed, bias, gelu}, out));
    ir::validateAndInferShapes(g);
    return g;
}

// A graph on the mock executor against the reference executor: the sequential schedule's
// worst absolute difference, the kernels it ran, and the greedy schedule (parallel streams
// reading shared buffers) against the sequential output.
struct MockRun {
    double worst = 0;
    std::map<std::string, int> kinds;
    double greedyL2 = 0;
    bool greedyPassed = false;
    int hazards = 0;
};

MockRun runAgainstReference(const ir::Graph& g, int batch) {
    MockRun run;
    const auto dags = ir::buildDags(g);
    MockOptions options;
    options.logCalls = true;
    MockBackend backend(options);
    Executor ex(g, backend, batch, 7);
    ex.issueSchedule(dags, schedulers::sequential(dags));
    const std::vector<float> got = ex.output();
    for (const MockCall& c : backend.calls())
        ++run.kinds[c.kernel];
    const auto inSize = static_cast<size_t>(g.input.outputShape.elements());
    const auto outSize = static_cast<size_t>(g.blocks[0].exitNode.outputShape.elements());
    if (got.size() != outSize * static_cast<size_t>(batch)) {
        run.worst = 1e300;
        return run;
    }
    const std::vector<double> input =
        ref::uniformValues(inSize * static_cast<size_t>(batch), ref::nameSeed("in", 7), 1.0);
    for (size_t b = 0; b < static_cast<size_t>(batch); ++b) {
        ref::Tensor item(g.input.outputShape);
        for (size_t i = 0; i < inSize; ++i)
            item.data[i] = static_cast<float>(input[b * inSize + i]);
        ref::ReferenceExecutor r(7);
        r.setInput(item);
        r.run(g);
        const std::vector<double>& want = r.output("out").data;
        for (size_t i = 0; i < outSize; ++i)
            run.worst = std::max(run.worst, std::abs(got[b * outSize + i] - want[i]));
    }
    const NumericCheck c = checkSchedule(ex, dags, schedulers::greedy(dags), got);
    run.greedyL2 = c.relativeL2;
    run.greedyPassed = c.passed(1e-6);
    run.hazards = backend.hazardCount();
    return run;
}

} // namespace

class TestProfilingMock : public QObject {
    Q_OBJECT

private slots:
    void schedulesComputeTheSequentialOutput_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("batch");
        QTest::newRow("inception module") << "demo_inception_module" << 1;
        QTest::newRow("figure 2, batch 2") << "demo_figure2" << 2;
        QTest::newRow("random dag") << "demo_random_dag" << 1;
    }
    void schedulesComputeTheSequentialOutput() {
        QFETCH(QString, model);
        QFETCH(int, batch);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const auto dags = ir::buildDags(g);
        const cost::AnalyticCostModel analytic(g);
        MockBackend backend;
        Executor ex(g, backend, batch);
        ex.issueSchedule(dags, schedulers::sequential(dags));
        const std::vector<float> ref = ex.output();
        QVERIFY(!ref.empty());
        for (auto sched :
             {schedulers::greedy(dags), dpSchedule(g, schedulers::Strategy::Both, analytic),
              dpSchedule(g, schedulers::Strategy::Merge, analytic)}) {
            const NumericCheck c = checkSchedule(ex, dags, sched, ref);
            QVERIFY2(c.passed(1e-5), qPrintable(QString::number(c.relativeL2)));
        }
    }

    void aForgottenOperatorFailsTheCheck() {
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const auto dags = ir::buildDags(g);
        MockBackend backend;
        Executor ex(g, backend, 1);
        ex.issueSchedule(dags, schedulers::sequential(dags));
        const std::vector<float> ref = ex.output();
        schedule::Schedule broken = schedulers::sequential(dags);
        broken.blocks[0].stages.erase(broken.blocks[0].stages.begin()); // first op never runs
        const NumericCheck c = checkSchedule(ex, dags, broken, ref);
        QVERIFY(!c.finite);
        QVERIFY(!c.passed());
    }

    void mergeStageIsOneConvolution() {
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const auto dags = ir::buildDags(g);
        const auto merge = mergePair(dags[0]);
        QVERIFY(merge.has_value());
        MockBackend backend;
        Executor ex(g, backend, 1);
        const auto& groups = ex.stageKernels(dags[0], *merge);
        QCOMPARE(groups.size(), size_t{1});
        int convs = 0, copies = 0;
        for (const Kernel& k : groups[0]) {
            convs += std::holds_alternative<ConvKernel>(k);
            copies += std::holds_alternative<CopyKernel>(k);
        }
        QCOMPARE(convs, 1);
        QVERIFY(copies >= 2); // the split back into the members' outputs
        // Same outputs as running the two convolutions one after the other.
        schedule::Stage apart{schedule::StageKind::Parallel,
                              {{merge->groups[0][0]}, {merge->groups[0][1]}}};
        auto outputOf = [&](const schedule::Stage& st, int op) {
            ex.poisonActivations();
            ex.issueSchedule(dags, schedulers::sequential(dags)); // every input exists
            ex.issueStage(dags[0], st);
            backend.synchronize();
            return backend.download(
                std::get<ConvKernel>(
                    ex.stageKernels(dags[0],
                                    schedule::Stage{schedule::StageKind::Parallel, {{op}}})[0]
                        .back())
                    .out);
        };
        for (int op : merge->groups[0]) {
            const NumericCheck c = compareOutputs(outputOf(*merge, op), outputOf(apart, op));
            QVERIFY2(c.passed(1e-5), qPrintable(QString::number(c.relativeL2)));
        }
    }

    // The norm kernels compute ref::normalize in float. Batch item b is checked against the
    // reference executor run on that item's input (the executor's float input values).
    void normKernelsMatchTheReference_data() {
        QTest::addColumn<int>("batch");
        QTest::newRow("batch 1") << 1;
        QTest::newRow("batch 2") << 2;
    }
    void normKernelsMatchTheReference() {
        QFETCH(int, batch);
        const MockRun run = runAgainstReference(normGraph(), batch);
        QCOMPARE(run.kinds.at("layernorm"), 2);
        QCOMPARE(run.kinds.at("softmax"), 2);
        QVERIFY2(run.worst <= 1e-5, qPrintable(QString::number(run.worst)));
        // Norms on parallel streams read the input's buffer concurrently: same values, ordered.
        QVERIFY2(run.greedyPassed, qPrintable(QString::number(run.greedyL2)));
        QCOMPARE(run.hazards, 0);
    }

    void attentionKernelsMatchTheReference_data() {
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("windows");
        for (int batch : {1, 3})
            for (int windows : {1, 3})
                QTest::addRow("batch %d, %d windows", batch, windows) << batch << windows;
    }
    void attentionKernelsMatchTheReference() {
        QFETCH(int, batch);
        QFETCH(int, windows);
        const MockRun run = runAgainstReference(attentionGraph(windows), batch);
        QCOMPARE(run.kinds.at("matmul"), 2);
        QCOMPARE(run.kinds.at("softmax"), 1);
        QVERIFY2(run.worst <= 1e-5, qPrintable(QString::number(run.worst)));
        QVERIFY2(run.greedyPassed, qPrintable(QString::number(run.greedyL2)));
        QCOMPARE(run.hazards, 0);
    }

    // Class tokens with a positional embedding, permutations and repeating tables: the
    // reference executor's learned values, gathered per batch item; GELU as ref::activate.
    void tokenKernelsMatchTheReference_data() {
        QTest::addColumn<int>("batch");
        QTest::newRow("batch 1") << 1;
        QTest::newRow("batch 3") << 3;
    }
    void tokenKernelsMatchTheReference() {
        QFETCH(int, batch);
        const MockRun run = runAgainstReference(tokensGraph(), batch);
        QCOMPARE(run.kinds.at("tokens"), 3);
        QCOMPARE(run.kinds.at("activation"), 1);
        QVERIFY2(run.worst <= 1e-5, qPrintable(QString::number(run.worst)));
        QVERIFY2(run.greedyPassed, qPrintable(QString::number(run.greedyL2)));
        QCOMPARE(run.hazards, 0);
    }

    void parallelStagesUseOneStreamPerGroupAndOverlap() {
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const auto dags = ir::buildDags(g);
        const schedule::Schedule greedy = schedulers::greedy(dags);
        size_t widest = 0;
        for (const auto& st : greedy.blocks[0].stages)
            widest = std::max(widest, st.groups.size());
        QVERIFY(widest >= 2);
        MockBackend backend(MockOptions::timingOnly("Mock GPU"));
        Executor ex(g, backend, 1);
        const double seq = median(ex.timeSchedule(dags, schedulers::sequential(dags), {0, 3, 1}));
        const double par = median(ex.timeSchedule(dags, greedy, {0, 3, 1}));
        QCOMPARE(ex.streams().size(), widest);
        QVERIFY2(par < seq, qPrintable(QStringLiteral("%1 vs %2").arg(par).arg(seq)));
    }

    // Every operator of the bundled transformers lowers to kernels (class tokens, windows,
    // bias tables, LayerNorm, GELU) and the IOS schedule runs, eager and captured.
    void transformersRunOnTheExecutor_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"vit_b_16", "swin_t", "convnext_tiny"})
            QTest::newRow(m) << QString(m);
    }
    void transformersRunOnTheExecutor() {
        QFETCH(QString, model);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const auto dags = ir::buildDags(g);
        MockBackend backend(MockOptions::timingOnly("Mock GPU"));
        Executor ex(g, backend, 2);
        const cost::AnalyticCostModel analytic(g);
        const auto sched = dpSchedule(g, schedulers::Strategy::Both, analytic);
        QVERIFY(median(ex.timeSchedule(dags, sched, {0, 1, 1, false})) > 0);
        QVERIFY(median(ex.timeSchedule(dags, sched, {0, 1, 1, true})) > 0);
        QCOMPARE(backend.hazardCount(), 0);
    }

    void cudaGraphReplaysTheSameWork() {
        const ir::Graph g = samples::loadBundledModel("demo_figure2");
        const auto dags = ir::buildDags(g);
        MockBackend backend(MockOptions::timingOnly("Mock GPU"));
        Executor ex(g, backend, 1);
        const auto sched = schedulers::greedy(dags);
        const auto plain = ex.timeSchedule(dags, sched, {1, 4, 2, false});
        const auto graph = ex.timeSchedule(dags, sched, {1, 4, 2, true});
        QCOMPARE(backend.graphsLaunched(), 1 + 4 * 2);
        QCOMPARE(median(graph), median(plain));
    }

    // The batched stage timing's backend calls: timing events recorded under capture take the
    // replay's stream clock on every replay; a destroyed graph cannot be launched again.
    void timingEventsAreReplayedWithTheGraph() {
        MockBackend b(MockOptions::timingOnly("Mock GPU"));
        const StreamId s = b.createStream();
        const EventId e0 = b.createEvent(), e1 = b.createEvent();
        const BufferId in = b.allocate(1 << 20), out = b.allocate(1 << 20);
        const Kernel k = ActivationKernel{in, out, {1, 1 << 20, 1, 1}, ir::ActType::Relu};
        b.beginCapture(s);
        b.recordTiming(e0, s);
        b.enqueue(s, k);
        b.recordTiming(e1, s);
        const GraphId graph = b.endCapture(s);
        b.launchGraph(graph, s);
        const double first = b.elapsedMs(e0, e1);
        QVERIFY(first > 0);
        b.enqueue(s, k); // moves the stream clock on
        b.launchGraph(graph, s);
        QCOMPARE(b.elapsedMs(e0, e1), first);
        QCOMPARE(b.graphsLive(), 1);
        b.destroyGraph(graph);
        QCOMPARE(b.graphsLive(), 0);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, b.launchGraph(graph, s));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, b.destroyGraph(graph));
    }

    void percentiles_data() {
        QTest::addColumn<QList<double>>("samples");
        QTest::addColumn<double>("p");
        QTest::addColumn<double>("expected");
        QTest::newRow("median odd") << QList<double>{5, 1, 3} << 50.0 << 3.0;
        QTest::newRow("median even") << QList<double>{4, 1, 3, 2} << 50.0 << 2.5;
        QTest::newRow("p10") << QList<double>{10, 0, 20, 30, 40, 50, 60, 70, 80, 90, 100} << 10.0
                             << 10.0;
        QTest::newRow("p90 interpolated") << QList<double>{0, 10} << 90.0 << 9.0;
        QTest::newRow("single") << QList<double>{7} << 10.0 << 7.0;
    }
    void percentiles() {
        QFETCH(QList<double>, samples);
        QFETCH(double, p);
        QFETCH(double, expected);
        QCOMPARE(percentile(std::vector<double>(samples.begin(), samples.end()), p), expected);
    }

    void measuredModelTakesTheMedianAndMemoises() {
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const auto dags = ir::buildDags(g);
        const schedule::Stage stage{schedule::StageKind::Parallel, {{0}, {1}}};
        MockBackend steady(MockOptions::timingOnly("Mock GPU"));
        Executor exSteady(g, steady, 1);
        const double base = median(exSteady.timeStage(dags[0], stage, {0, 1, 1}));
        QVERIFY(base > 0);

        MockOptions jittery = MockOptions::timingOnly("Mock GPU");
        const double factors[] = {1, 5, 2, 4, 3}; // median 3
        jittery.jitter = [&](int k) { return factors[k % 5]; };
        MockBackend backend(jittery);
        Executor ex(g, backend, 1);
        MeasuredCostModel model(ex, g.name, {0, 5, 1});
        QCOMPARE(model.stageLatencyMs(dags[0], stage), 3 * base);
        QCOMPARE(model.stageLatencyMs(dags[0], stage), 3 * base);
        QCOMPARE(model.stagesMeasured(), 1);
    }

    void cacheRoundTripReplaysTheDp() {
        const ir::Graph g = samples::loadBundledModel("demo_random_dag");
        QTemporaryDir dir;
        const std::string file = dir.filePath("cache.json").toStdString();
        MockBackend backend(MockOptions::timingOnly("Mock H100"));
        Executor ex(g, backend, 1);
        cost::MeasurementCache cache;
        MeasuredCostModel measured(ex, g.name, {0, 3, 1}, &cache);
        const auto live = schedulers::optimize(ir::PreparedModel(g), {}, measured);
        QVERIFY(measured.stagesMeasured() > 0);
        QCOMPARE(static_cast<int>(cache.entries().size()), measured.stagesMeasured());
        cache.save(file);

        const cost::CachedCostModel replay(cost::MeasurementCache::load(file), g.name, 1, {}, file);
        QCOMPARE(replay.device(), std::string("Mock H100"));
        const auto replayed = schedulers::optimize(ir::PreparedModel(g), {}, replay);
        QCOMPARE(replayed.schedule, live.schedule);
        QCOMPARE(replayed.latencyMs, live.latencyMs);

        // A second measured model on the same cache measures nothing new.
        MeasuredCostModel again(ex, g.name, {0, 3, 1}, &cache);
        schedulers::optimize(ir::PreparedModel(g), {}, again);
        QCOMPARE(again.stagesMeasured(), 0);

        // Another batch size or an unmeasured stage is an error that says what is missing.
        QVERIFY_THROWS_EXCEPTION(UserError, cost::CachedCostModel(cache, g.name, 8, {}, file));
        const auto dags = ir::buildDags(g);
        const schedule::Stage odd{schedule::StageKind::Parallel, {{0, 1, 2, 3, 4, 5}}};
        try {
            replay.stageLatencyMs(dags[0], odd);
            QFAIL("expected UserError");
        } catch (const UserError& e) {
            QVERIFY(std::string(e.what()).find("was not measured") != std::string::npos);
        }
    }

    void malformedCacheFilesAreUserErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("not json") << "{";
        QTest::newRow("wrong format") << R"({"format": "other", "version": 1, "entries": []})";
        QTest::newRow("bad version")
            << R"({"format": "ios-explorer-measurements", "version": 9, "entries": []})";
        QTest::newRow("missing field")
            << R"({"format": "ios-explorer-measurements", "version": 1, "entries": [{"device": "x"}]})";
        QTest::newRow("negative latency")
            << R"({"format": "ios-explorer-measurements", "version": 1, "entries": [{"device": "x",
               "model": "m", "batch": 1, "stage": "parallel:a", "latency_ms": -1}]})";
    }
    void malformedCacheFilesAreUserErrors() {
        QFETCH(QString, text);
        QTemporaryDir dir;
        const std::string file = dir.filePath("bad.json").toStdString();
        std::ofstream(file) << text.toStdString();
        QVERIFY_THROWS_EXCEPTION(UserError, cost::MeasurementCache::load(file));
    }

    void cuptiRecordsBecomeATimeline() {
        MeasuredTraceInput in;
        in.device = "Synthetic GPU";
        in.streamIds = {7, 9};
        in.stages = {{0, 0, schedule::StageKind::Parallel, 2, {"a", "b", "c"}},
                     {0, 1, schedule::StageKind::Parallel, 1, {"a", "b", "c"}}};
        auto rec = [](const char* name, uint64_t stream, uint64_t s, uint64_t e, uint64_t tag) {
            KernelRecord r;
            r.name = name;
            r.streamId = stream;
            r.startNs = s;
            r.endNs = e;
            r.grid = {4, 2, 1};
            r.tag = tag;
            return r;
        };
        in.kernels = {rec("_ZN5cudnn6detail9bn_kernelIfEEvPKfPf", 9, 1'002'000, 1'005'000,
                          makeTraceTag(1, 1)),
                      rec("void implicit_convolve_sgemm<float, 1>(int, float*)", 7, 1'000'000,
                          1'004'000, makeTraceTag(1, 0)),
                      rec("relu", 7, 1'006'000, 1'007'000, makeTraceTag(2, 2)),
                      rec("foreign", 42, 1'006'500, 1'006'600, 0)};
        in.warps.metric = "sm__warps_active.avg.pct_of_peak_sustained_elapsed";
        // Sample clock offset by +5 s: shifted to start at the first kernel.
        for (int i = 0; i < 7; ++i)
            in.warps.samples.push_back({5'001'000'000ULL + i * 1000ULL,
                                        5'001'001'000ULL + i * 1000ULL, i < 5 ? 50.0 : 10.0});
        const eval::Timeline tl = buildMeasuredTimeline(in);
        QCOMPARE(tl.kernels.size(), size_t{4});
        QCOMPARE(tl.streams, 3); // two executor streams + the foreign one
        QCOMPARE(tl.kernels[0].stream, 0);
        QCOMPARE(tl.kernels[0].startUs, 0.0);
        QCOMPARE(tl.kernels[0].kernel, std::string("implicit_convolve_sgemm"));
        QCOMPARE(tl.kernels[0].opName, std::string("a"));
        QCOMPARE(tl.kernels[0].ctas, int64_t{8});
        QCOMPARE(tl.kernels[1].stream, 1);
        QCOMPARE(tl.kernels[1].kernel, std::string("cudnn::detail::bn_kernel"));
        QCOMPARE(tl.kernels[1].opName, std::string("b"));
        QCOMPARE(tl.kernels[3].stream, 2);
        QCOMPARE(tl.kernels[3].block, -1);
        QCOMPARE(tl.stages.size(), size_t{2});
        QCOMPARE(tl.stages[0].startUs, 0.0);
        QCOMPARE(tl.stages[0].endUs, 5.0);
        QCOMPARE(tl.stages[1].startUs, 6.0);
        QCOMPARE(tl.stages[1].endUs, 7.0);
        QCOMPARE(tl.latencyUs, 7.0);
        QCOMPARE(tl.samples.size(), size_t{8});
        QCOMPARE(tl.samples.front().timeUs, 0.0);
        QCOMPARE(tl.samples.front().warpOccupancy, 0.5);
        QCOMPARE(meanWarpOccupancy(tl, 0, 5), 0.5);
        QCOMPARE(meanWarpOccupancy(tl, 4, 6), 0.3);
        QCOMPARE(tl.stages[0].meanWarpOccupancy, 0.5);
        QCOMPARE(meanWarpOccupancy(tl, 100, 200), -1.0);
    }

    void mockTraceEndToEnd() {
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const auto dags = ir::buildDags(g);
        const auto sched = schedulers::greedy(dags);
        size_t stages = 0;
        for (const auto& b : sched.blocks)
            stages += b.stages.size();
        MockBackend backend(MockOptions::timingOnly("Mock GPU"));
        Executor ex(g, backend, 1);
        const MeasuredTrace t = traceSchedule(ex, dags, sched, 1000);
        QCOMPARE(t.timeline.stages.size(), stages);
        QVERIFY(t.timeline.streams >= 2);
        QVERIFY(t.warpNote.empty());
        QVERIFY(t.meanWarpOccupancy > 0);
        for (const auto& k : t.timeline.kernels) {
            QVERIFY(k.block == 0 && !k.opName.empty());
            QVERIFY(k.endUs > k.startUs);
        }

        MockOptions refusing = MockOptions::timingOnly("Mock GPU");
        refusing.refuseWarpSampling = "counter access refused (test)";
        MockBackend refused(refusing);
        Executor ex2(g, refused, 1);
        const MeasuredTrace t2 = traceSchedule(ex2, dags, sched, 1000);
        QCOMPARE(t2.warpNote, std::string("counter access refused (test)"));
        QCOMPARE(t2.meanWarpOccupancy, -1.0);
        QCOMPARE(t2.timeline.kernels.size(), t.timeline.kernels.size()); // timeline kept
    }

    void noGpuIsAClearError() {
        CudaOpenResult r = openCudaBackend();
        if (r.backend)
            QSKIP("a CUDA device is available here: the no-GPU path cannot be exercised");
        QVERIFY(!r.error.empty());
        try {
            requireCudaBackend();
            QFAIL("expected UserError");
        } catch (const UserError& e) {
            QVERIFY(std::string(e.what()).rfind("no CUDA device available: ", 0) == 0);
        }
        for (const QStringList& args :
             {QStringList{"measure", "demo_figure2", "--strategy", "sequential"},
              QStringList{"optimize", "demo_figure2", "--cost", "measured"}}) {
            QProcess p;
            p.start(QStringLiteral(IOS_SCHED_PATH), args);
            QVERIFY(p.waitForFinished(60000));
            QCOMPARE(p.exitStatus(), QProcess::NormalExit);
            QCOMPARE(p.exitCode(), 1);
            QVERIFY2(p.readAllStandardError().contains("no CUDA device available: "),
                     qPrintable(args.join(' ')));
        }
    }
};

QTEST_GUILESS_MAIN(TestProfilingMock)
#include "tst_profiling_mock.moc"
