// SPDX-License-Identifier: Apache-2.0
// Stream programs on the executor (profiling/executor_program.cpp) with the mock backend: every
// RAF policy's program computes the sequential schedule's output, issued eagerly and replayed
// from a captured graph, with no unordered buffer access (the mock's happens-before check); a
// program missing a wait is caught by that check (the mock computes in issue order, so its
// values cannot show it); the backend calls are exactly those the program says; a sync is a
// barrier under capture; lowered stage schedules issue what the stage path issues; `ios-sched
// measure` times, checks, traces and captures program outcomes.
#include "build_flavour.h"
#include "bundled_models.h"
#include "cost/device_profile.h"
#include "cost/program_simulator.h"
#include "cost/simulated_gpu_cost_model.h"
#include "executor.h"
#include "gpu_runs.h"
#include "gpu_trace.h"
#include "mock_backend.h"
#include "mock_sched.h"
#include "schedule/program_verify.h"
#include "schedulers/baselines.h"
#include "schedulers/scheduler.h"
#include "util/error.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

using namespace ios;
using namespace ios::profiling;
using schedule::InstrKind;
using schedule::Instruction;

namespace {

// Every registered RAF policy (their outcomes are stream programs).
std::vector<std::string> rafPolicies() {
    std::vector<std::string> keys;
    for (const schedulers::Scheduler* s : schedulers::registeredSchedulers())
        if (s->key().rfind("raf-", 0) == 0)
            keys.emplace_back(s->key());
    return keys;
}

schedulers::Outcome runPolicy(const ir::PreparedModel& model, const std::string& key,
                              const cost::CostModel& cost) {
    return schedulers::schedulerByName(key).run(model, {}, cost, nullptr);
}

int opIndex(const ir::BlockDag& dag, const std::string& name) {
    for (size_t i = 0; i < dag.ops.size(); ++i)
        if (dag.ops[i]->name == name)
            return static_cast<int>(i);
    throw std::logic_error("no operator " + name);
}

// The call log as text: "R a s0" (record event a on backend stream 0), "W a s1", "K s0 1:x"
// (a kernel of operator x in segment 1; untagged: "K s0"), "S" (synchronize), "B"/"E" (capture
// begin/end).
// Events are named by first appearance; repeated kernels of one operator are one entry.
QString callText(const MockBackend& backend, const ir::BlockDag& dag) {
    std::map<int, char> names;
    auto name = [&](int e) {
        return names.try_emplace(e, static_cast<char>('a' + names.size())).first->second;
    };
    QStringList out;
    for (const MockCall& c : backend.calls()) {
        QString t;
        switch (c.kind) {
        case MockCall::Kind::Enqueue:
            t = QString("K s%1").arg(c.stream);
            if (c.tag != 0)
                t += QString(" %1:%2")
                         .arg(tagStage(c.tag) + 1)
                         .arg(QString::fromStdString(
                             dag.ops[static_cast<size_t>(tagOp(c.tag))]->name));
            break;
        case MockCall::Kind::Record:
        case MockCall::Kind::Wait:
            t = QString("%1 %2 s%3")
                    .arg(c.kind == MockCall::Kind::Record ? 'R' : 'W')
                    .arg(name(c.event))
                    .arg(c.stream);
            break;
        case MockCall::Kind::Synchronize:
            t = "S";
            break;
        case MockCall::Kind::BeginCapture:
            t = "B";
            break;
        case MockCall::Kind::EndCapture:
            t = "E";
            break;
        case MockCall::Kind::LaunchGraph:
            t = "G";
            break;
        }
        if (out.isEmpty() || out.back() != t)
            out << t;
    }
    return out.join(", ");
}

// Enqueues, records and waits without the synchronize calls (stream and kernel kind only).
std::vector<std::string> deviceCalls(const MockBackend& backend) {
    std::vector<std::string> out;
    for (const MockCall& c : backend.calls())
        if (c.kind != MockCall::Kind::Synchronize)
            out.push_back(std::to_string(static_cast<int>(c.kind)) + " " +
                          std::to_string(c.stream) + " " + std::to_string(c.event) + " " +
                          c.kernel);
    return out;
}

// The sequential schedule's output, computed once per model (weights depend on the seed only).
const std::vector<float>& sequentialOutput(const std::string& model, const ir::Graph& g,
                                           const std::vector<ir::BlockDag>& dags) {
    static std::map<std::string, std::vector<float>> outputs;
    if (auto it = outputs.find(model); it != outputs.end())
        return it->second;
    MockBackend backend;
    Executor ex(g, backend, 1);
    ex.issueSchedule(dags, schedulers::sequential(dags));
    return outputs.emplace(model, ex.output()).first->second;
}

QString firstHazard(const MockBackend& backend) {
    return backend.hazards().empty() ? QString()
                                     : QString::fromStdString(backend.hazards().front());
}

} // namespace

class TestProfilingPrograms : public QObject {
    Q_OBJECT

private slots:
    void rafPoliciesComputeTheSequentialOutput_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("policy");
        QTest::addColumn<bool>("graph"); // also replayed from a captured graph
        QVERIFY(rafPolicies().size() >= 3);
        std::vector<const char*> models = {"demo_random_dag", "demo_inception_module"};
        if (kFullModels) // real convolutions on the CPU: 8 s a run (graphs: timing only, below)
            models.push_back("inception_v3");
        for (const char* m : models)
            for (const std::string& p : rafPolicies())
                // InceptionV3 (8 s a run): the one policy without a stage form.
                if (std::string(m) != "inception_v3" || p == "raf-asap")
                    QTest::addRow("%s %s", m, p.c_str())
                        << m << QString::fromStdString(p) << (std::string(m) != "inception_v3");
    }
    void rafPoliciesComputeTheSequentialOutput() {
        QFETCH(QString, model);
        QFETCH(QString, policy);
        QFETCH(bool, graph);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const ir::PreparedModel prepared(g);
        const auto& dags = prepared.dags();
        const cost::SimulatedGpuCostModel v100(g, cost::loadDevice("V100"));
        const schedulers::Outcome out = runPolicy(prepared, policy.toStdString(), v100);
        QCOMPARE(out.programs.size(), dags.size());
        schedule::verifyProgram(dags, out.programs);

        const std::vector<float>& ref = sequentialOutput(model.toStdString(), g, dags);
        QVERIFY(!ref.empty());
        MockBackend backend;
        Executor ex(g, backend, 1);
        const NumericCheck eager = checkSchedule(ex, dags, out.programs, ref);
        QVERIFY2(eager.passed(1e-5), qPrintable(QString::number(eager.relativeL2)));
        QVERIFY2(backend.hazardCount() == 0, qPrintable(firstHazard(backend)));
        QVERIFY(ex.streams().size() >= 2); // the programs run on several streams
        if (!graph)
            return;
        const NumericCheck replayed = checkSchedule(ex, dags, out.programs, ref, true);
        QVERIFY2(replayed.passed(1e-5), qPrintable(QString::number(replayed.relativeL2)));
        QVERIFY2(backend.hazardCount() == 0, qPrintable(firstHazard(backend)));
        QCOMPARE(backend.graphsLaunched(), 1);
    }

    // Clocks only (no values): the benchmark models' programs are ordered, eager and captured.
    void bigModelsProgramsAreOrdered_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"inception_v3", "squeezenet", "nasnet_large", "randwire_large"})
            if (kFullModels || std::string(m) == "inception_v3" || std::string(m) == "squeezenet")
                QTest::newRow(m) << m;
    }
    void bigModelsProgramsAreOrdered() {
        QFETCH(QString, model);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const ir::PreparedModel prepared(g);
        const auto& dags = prepared.dags();
        const cost::SimulatedGpuCostModel v100(g, cost::loadDevice("V100"));
        for (const std::string& policy : rafPolicies()) {
            const schedulers::Outcome out = runPolicy(prepared, policy, v100);
            MockBackend backend(MockOptions::timingOnly("Mock GPU"));
            Executor ex(g, backend, 1);
            const double seq =
                median(ex.timeSchedule(dags, schedulers::sequential(dags), {0, 2, 1}));
            const QString what = QString::fromStdString(policy) + ": ";
            const auto eager = ex.timeProgram(dags, out.programs, {1, 2, 1, false});
            QVERIFY2(backend.hazardCount() == 0, qPrintable(what + firstHazard(backend)));
            QVERIFY2(median(eager) < seq, qPrintable(what));
            const auto graph = ex.timeProgram(dags, out.programs, {1, 2, 1, true});
            QVERIFY2(backend.hazardCount() == 0, qPrintable(what + firstHazard(backend)));
            QVERIFY(median(graph) > 0);
        }
    }

    // Lowered stage schedules: merged launches (the merge stage's lowering) and device syncs,
    // which become barriers under capture (the mock refuses a synchronize while capturing).
    void loweredSchedulesWithMergesAndSyncs() {
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const ir::PreparedModel prepared(g);
        const auto& dags = prepared.dags();
        const cost::SimulatedGpuCostModel v100(g, cost::loadDevice("V100"));
        MockBackend backend;
        Executor ex(g, backend, 1);
        ex.issueSchedule(dags, schedulers::sequential(dags));
        const std::vector<float> ref = ex.output();
        int merged = 0, syncs = 0;
        for (const char* key : {"greedy", "ios-merge", "ios-both"}) {
            const schedule::Program program = schedulers::programOf(runPolicy(prepared, key, v100));
            for (const Instruction& in : program[0].instructions) {
                merged += in.kind == InstrKind::Launch && in.ops.size() > 1;
                syncs += in.kind == InstrKind::Sync;
            }
            for (bool graph : {false, true}) {
                const NumericCheck c = checkSchedule(ex, dags, program, ref, graph);
                QVERIFY2(c.passed(1e-5), qPrintable(QString("%1: %2").arg(key).arg(c.relativeL2)));
            }
        }
        QVERIFY(merged > 0);
        QVERIFY(syncs > 0);
        QVERIFY2(backend.hazardCount() == 0, qPrintable(firstHazard(backend)));
    }

    // A wait the verifier needs, removed: the consumer's read of its producer's output is no
    // longer ordered, which the mock reports (its values stay right: it runs in issue order).
    void aMissingWaitIsAnUnorderedRead() {
        const ir::Graph g = samples::loadBundledModel("demo_random_dag");
        const ir::PreparedModel prepared(g);
        const auto& dags = prepared.dags();
        const cost::SimulatedGpuCostModel v100(g, cost::loadDevice("V100"));
        const schedule::Program asap = runPolicy(prepared, "raf-asap", v100).programs;
        int refused = 0, caught = 0;
        for (size_t b = 0; b < asap.size(); ++b)
            for (size_t i = 0; i < asap[b].instructions.size(); ++i) {
                if (asap[b].instructions[i].kind != InstrKind::Wait)
                    continue;
                schedule::Program broken = asap;
                broken[b].instructions.erase(broken[b].instructions.begin() +
                                             static_cast<std::ptrdiff_t>(i));
                if (schedule::programProblem(dags[b], broken[b]).empty())
                    continue; // implied by other waits
                ++refused;
                MockBackend backend(MockOptions::timingOnly("Mock GPU"));
                Executor ex(g, backend, 1);
                ex.issueProgram(dags, broken);
                if (backend.hazardCount() == 0)
                    continue;
                ++caught;
                QVERIFY2(firstHazard(backend).contains("reads buffer"),
                         qPrintable(firstHazard(backend)));
                const GraphId graph = ex.captureProgram(dags, broken);
                backend.clearHazards(); // and the same in the captured graph
                backend.launchGraph(graph, ex.mainStream());
                QVERIFY(backend.hazardCount() > 0);
            }
        QVERIFY(refused > 0);
        QCOMPARE(caught, refused);
    }

    // A hand-written program: streams map in order of first use (the first is the main stream),
    // a segment forks its other streams from main and joins them back, events are re-used per
    // run, a sync is a synchronize eagerly and nothing but the joins and forks under capture.
    void issuedCallsAreTheProgram() {
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const auto dags = ir::buildDags(g);
        const ir::BlockDag& dag = dags[0];
        auto launch = [&](const char* op, int stream) {
            return Instruction::launch(opIndex(dag, op), stream);
        };
        schedule::StreamProgram p;
        p.instructions = {launch("2", 5),          Instruction::record(3, 5),
                          Instruction::wait(3, 9), launch("3", 9),
                          launch("1", 5),          launch("4", 5),
                          launch("5", 5),          launch("6", 5),
                          launch("7", 5),          launch("8", 5),
                          Instruction::barrier(),  launch("9", 5)};
        QCOMPARE(QString::fromStdString(schedule::programProblem(dag, p)), QString());
        MockOptions o;
        o.logCalls = true;
        MockBackend backend(o);
        Executor ex(g, backend, 1);
        ex.issueProgram(dags, {p}, true);
        const QString run = "R a s0, W a s1, K s0 1:2, R b s0, W b s1, K s1 1:3, K s0 1:1, "
                            "K s0 1:4, K s0 1:5, K s0 1:6, K s0 1:7, K s0 1:8, R c s1, W c s0, "
                            "K s0 2:9";
        QCOMPARE(callText(backend, dag), run);
        ex.issueProgram(dags, {p}, true); // the same streams and events again
        QCOMPARE(callText(backend, dag), run + ", " + run);

        p.instructions[10] = Instruction::sync();
        backend.clearCalls();
        ex.issueProgram(dags, {p}, true);
        const QString synced = QString(run).replace("W c s0, K s0 2:9", "W c s0, S, K s0 2:9");
        QCOMPARE(callText(backend, dag), synced);
        backend.clearCalls();
        const GraphId graph = ex.captureProgram(dags, {p});
        // Issued once eagerly (untagged) with its sync, then captured without it.
        QCOMPARE(callText(backend, dag),
                 QString("R a s0, W a s1, K s0, R b s0, W b s1, K s1, K s0, R c s1, W c s0, S, "
                         "K s0, S, B, R a s0, W a s1, K s0, R b s0, W b s1, K s1, K s0, R c s1, "
                         "W c s0, K s0, E"));
        backend.launchGraph(graph, ex.mainStream());
        QCOMPARE(backend.hazardCount(), 0);
    }

    // The stage path is unchanged, and a lowered stage schedule issues what the stage path
    // issues (plus the device syncs the lowering puts before parallel stages).
    void loweredStagesIssueTheStagePath() {
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const auto dags = ir::buildDags(g);
        for (const schedule::Schedule& s :
             {schedulers::sequential(dags), schedulers::greedy(dags)}) {
            MockOptions o = MockOptions::timingOnly("Mock GPU");
            o.logCalls = true;
            MockBackend stages(o), program(o);
            Executor a(g, stages, 1), b(g, program, 1);
            a.issueSchedule(dags, s);
            b.issueProgram(dags, schedule::lower(s));
            QVERIFY(!deviceCalls(stages).empty());
            QCOMPARE(deviceCalls(program), deviceCalls(stages));
            QCOMPARE(stages.hazardCount() + program.hazardCount(), 0);
        }
    }

    void programTraceHasSegmentsAsStages() {
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const ir::PreparedModel prepared(g);
        const auto& dags = prepared.dags();
        const cost::SimulatedGpuCostModel v100(g, cost::loadDevice("V100"));
        const schedule::Program program = runPolicy(prepared, "raf-wavefront", v100).programs;
        MockBackend backend(MockOptions::timingOnly("Mock GPU"));
        Executor ex(g, backend, 1);
        const MeasuredTrace t = traceSchedule(ex, dags, program, 1000);
        QCOMPARE(t.timeline.stages.size(), cost::programSegments(program[0]).size());
        QVERIFY(t.timeline.streams >= 2);
        for (const auto& k : t.timeline.kernels)
            QVERIFY(k.block == 0 && k.stage >= 0 && !k.opName.empty());
        const ReplayWarps w = replayWarps(ex, dags, program, 3, 1000);
        QVERIFY(w.note.empty()); // (the mock samples only while kernels are recorded)
        QCOMPARE(backend.hazardCount(), 0);
    }

    void unissuableProgramsAreUserErrors_data() {
        QTest::addColumn<int>("fault");
        QTest::newRow("block count") << 0;
        QTest::newRow("wait before record") << 1;
        QTest::newRow("operator outside the block") << 2;
        QTest::newRow("negative stream") << 3;
        QTest::newRow("members that cannot merge") << 4;
    }
    void unissuableProgramsAreUserErrors() {
        QFETCH(int, fault);
        const ir::Graph g = samples::loadBundledModel("demo_inception_module");
        const auto dags = ir::buildDags(g);
        schedule::Program p = schedule::lower(schedulers::sequential(dags));
        auto& ins = p[0].instructions;
        Instruction merged = Instruction::launch(opIndex(dags[0], "1"), 0);
        merged.ops.push_back(opIndex(dags[0], "3")); // 3 reads 2: not mergeable with 1
        switch (fault) {
        case 0:
            p.push_back(p[0]);
            break;
        case 1:
            ins.insert(ins.begin(), Instruction::wait(0, 1));
            break;
        case 2:
            ins.push_back(Instruction::launch(99, 0));
            break;
        case 3:
            ins.front().stream = -1;
            break;
        case 4:
            ins.insert(ins.begin(), merged);
            break;
        }
        MockBackend backend(MockOptions::timingOnly("Mock GPU"));
        Executor ex(g, backend, 1);
        QVERIFY_THROWS_EXCEPTION(UserError, ex.issueProgram(dags, p));
        QVERIFY_THROWS_EXCEPTION(UserError, ex.timeProgram(dags, p, {0, 1, 1, true}));
        QCOMPARE(backend.kernelsRun(), 0);
    }

    // The mock refuses what CUDA refuses during stream capture.
    void mockCaptureRules() {
        MockBackend b(MockOptions::timingOnly("Mock GPU"));
        const StreamId s0 = b.createStream(), s1 = b.createStream();
        const EventId e = b.createEvent();
        const BufferId in = b.allocate(4), out = b.allocate(4);
        const Kernel k = ActivationKernel{in, out, {1, 4, 1, 1}, ir::ActType::Relu};
        b.beginCapture(s0);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, b.synchronize());
        b.endCapture(s0);
        b.beginCapture(s0);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, b.enqueue(s1, k)); // never joined
        b.endCapture(s0);
        b.beginCapture(s0);
        b.record(e, s0);
        b.wait(s1, e);
        b.enqueue(s1, k);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, b.endCapture(s0)); // not joined back
        b.enqueue(s1, k); // eager again: an unordered write after write is a hazard

        b.enqueue(s0, k);
        QCOMPARE(b.hazardCount(), 1);
        QVERIFY(firstHazard(b).contains("writes buffer"));
    }

    void measureRunsPrograms() {
        QTemporaryDir dir;
        const QString results = dir.filePath("results.json");
        QProcess p;
        const QStringList policies = {"sequential", "raf-asap", "raf-wavefront", "raf-ios"};
        QVERIFY(
            testing::runSched(p, {"measure", "demo_random_dag", "--strategy", policies.join(','),
                                  "--repeat", "2", "--warmup", "1", "--cuda-graph", "--warps",
                                  "--trace-prefix", dir.filePath("t"), "-o", results}));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QFile f(results);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray runs = QJsonDocument::fromJson(f.readAll()).object()["results"].toArray();
        QCOMPARE(runs.size(), policies.size());

        const ir::Graph g = samples::loadBundledModel("demo_random_dag");
        const ir::PreparedModel prepared(g);
        const cost::SimulatedGpuCostModel sim(
            g, cost::loadDevice(std::string(cost::kDefaultDeviceName)));
        for (int i = 0; i < runs.size(); ++i) {
            const QJsonObject r = runs[i].toObject();
            const std::string key = policies[i].toStdString();
            QCOMPARE(r["strategy"].toString(), policies[i]);
            QCOMPARE(r.contains("program"), key != "sequential");
            QVERIFY(r["latency"].toObject()["median_ms"].toDouble() > 0);
            QVERIFY(r["cuda_graph_latency"].toObject()["median_ms"].toDouble() > 0);
            QVERIFY(r["kernels"].toInt() > 0);
            QVERIFY(QFile::exists(dir.filePath(QString("t-%1.json").arg(policies[i]))));
            const double expected =
                schedulers::outcomeLatencyMs(prepared.dags(), runPolicy(prepared, key, sim), sim);
            QVERIFY2(std::abs(r["simulated_ms"].toDouble() - expected) <= 1e-9 * expected,
                     qPrintable(QString("%1: %2 vs %3")
                                    .arg(policies[i])
                                    .arg(r["simulated_ms"].toDouble())
                                    .arg(expected)));
        }
    }
};

QTEST_GUILESS_MAIN(TestProfilingPrograms)
#include "tst_profiling_programs.moc"
