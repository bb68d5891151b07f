// SPDX-License-Identifier: Apache-2.0
// Stream programs (docs/raf.md): RAF's unit-test graphs give exactly RAF's wavefront and ASAP
// programs; every policy's program passes the happens-before verifier on the bundled models and
// on random DAGs, and injected faults are caught; ASAP's wait/record counts follow the heavy
// edges; lowered stage schedules simulate to exactly the stage simulator's latency.
#include "build_flavour.h"
#include "bundled_models.h"
#include "cost/analytic_cost_model.h"
#include "cost/device_profile.h"
#include "cost/simulated_gpu_cost_model.h"
#include "dp_test_support.h"
#include "eval/evaluate.h"
#include "eval/program_eval.h"
#include "ir/block_dag.h"
#include "ir/prepared_model.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "schedule/program_verify.h"
#include "schedule/verify.h"
#include "schedulers/raf/policies.h"
#include "schedulers/scheduler.h"
#include "user_error_text.h"
#include "util/error.h"

#include <QTest>
#include <random>

using namespace ios;
using schedule::InstrKind;

namespace {

// A one-block graph of unary ops ("f") and concatenations ("c"), in the order given; each
// entry: name, inputs ("x" = the block input).
struct Op {
    std::string name;
    std::vector<std::string> inputs;
};

ir::Graph rafGraph(const std::vector<Op>& ops) {
    ir::Graph g;
    g.name = "raf";
    g.input = testing::placeholder("x", {4, 8, 8});
    ir::Block block;
    block.enterName = "x";
    block.enterNode = g.input;
    for (size_t i = 0; i < ops.size(); ++i) {
        std::vector<ir::ValueRef> values;
        for (const std::string& in : ops[i].inputs)
            values.push_back({in, 0, 4});
        ir::Node n =
            values.size() == 1
                ? testing::node(ir::NodeKind::Activation, ops[i].name, testing::concat(values))
                : testing::node(ir::NodeKind::Identity, ops[i].name, testing::concat(values));
        n.activation = ir::ActType::Tanh;
        if (i + 1 < ops.size())
            block.innerNodes.push_back(n);
        else
            block.exitNode = n;
    }
    g.blocks.push_back(block);
    ir::validateAndInferShapes(g);
    return g;
}

// "s1:a2 s1:a4 s1:rec0 ... | barrier" — a program in words.
std::string text(const ir::BlockDag& dag, const schedule::StreamProgram& p) {
    std::string out;
    for (const schedule::Instruction& in : p.instructions) {
        if (!out.empty())
            out += ' ';
        const std::string s = "s" + std::to_string(in.stream) + ":";
        switch (in.kind) {
        case InstrKind::Launch:
            out += s + (in.ops.empty() ? "t" : schedule::launchName(dag, in));
            break;
        case InstrKind::Record:
            out += s + "rec" + std::to_string(in.event);
            break;
        case InstrKind::Wait:
            out += s + "wait" + std::to_string(in.event);
            break;
        case InstrKind::Barrier:
            out += "|";
            break;
        case InstrKind::Sync:
            out += "sync";
            break;
        }
    }
    return out;
}

schedulers::Outcome runPolicy(const ir::PreparedModel& model, const char* key,
                              const cost::CostModel& cost) {
    return schedulers::schedulerByName(key).run(model, schedulers::Params{}, cost, nullptr);
}

// T1 of docs/raf.md, and RAF's "branch in branch" and "stacked blocks" graphs.
const std::vector<Op> kT1 = {
    {"a0", {"x"}},  {"a1", {"x"}},  {"a3", {"a1"}},           {"a2", {"x"}},
    {"a4", {"a2"}}, {"a6", {"a4"}}, {"c", {"a0", "a3", "a6"}}};
const std::vector<Op> kBranchInBranch = {{"a0", {"x"}},  {"a1", {"x"}},
                                         {"a3", {"a1"}}, {"a4", {"a3"}},
                                         {"a5", {"a3"}}, {"c0", {"a4", "a5"}},
                                         {"a2", {"x"}},  {"a6", {"a2"}},
                                         {"a7", {"a6"}}, {"c1", {"a0", "c0", "a7"}}};
const std::vector<Op> kStacked = {
    {"a0", {"x"}},  {"a1", {"x"}},  {"a2", {"x"}},  {"a3", {"a2"}}, {"c0", {"a0", "a1", "a3"}},
    {"a4", {"c0"}}, {"a5", {"c0"}}, {"a6", {"c0"}}, {"a7", {"a6"}}, {"c1", {"a4", "a5", "a7"}}};

} // namespace

class TestStreamProgram : public QObject {
    Q_OBJECT

private slots:
    void rafUnitGraphs_data() {
        QTest::addColumn<int>("graph");
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QString>("expected");
        QTest::addRow("T1 wavefront") << 0 << "raf-wavefront"
                                      << "s0:a0 s1:a1 s1:a3 s2:a2 s2:a4 s2:a6 | s0:t s0:c";
        QTest::addRow("T1 asap") << 0 << "raf-asap"
                                 << "s1:a2 s1:a4 s1:a6 s1:rec0 s2:a1 s2:a3 s2:rec1 s3:a0 "
                                    "s3:wait1 s3:wait0 s3:t s3:c";
        QTest::addRow("branch in branch wavefront")
            << 1 << "raf-wavefront"
            << "s0:a0 s1:a1 s1:a3 s2:a2 s2:a6 s2:a7 | s0:a4 s1:a5 | s0:t s0:c0 s0:t s0:c1";
        QTest::addRow("branch in branch asap")
            << 1 << "raf-asap"
            << "s1:a1 s1:a3 s1:rec0 s1:a4 s2:wait0 s2:a5 s2:rec1 s3:a2 s3:a6 s3:a7 s3:rec2 "
               "s1:wait1 s1:t s1:c0 s1:rec3 s4:a0 s4:wait3 s4:wait2 s4:t s4:c1";
        QTest::addRow("stacked wavefront")
            << 2 << "raf-wavefront"
            << "s0:a0 s1:a1 s2:a2 s2:a3 | s0:t s0:c0 | s0:a4 s1:a5 s2:a6 s2:a7 | s0:t s0:c1";
        QTest::addRow("stacked asap")
            << 2 << "raf-asap"
            << "s1:a2 s1:a3 s1:rec0 s2:a1 s2:rec1 s3:a0 s3:wait1 s3:wait0 s3:t s3:c0 s3:rec2 "
               "s3:a6 s3:a7 s3:rec3 s2:wait2 s2:a5 s2:rec4 s1:wait2 s1:a4 s1:wait4 s1:wait3 "
               "s1:t s1:c1";
    }
    void rafUnitGraphs() {
        QFETCH(int, graph);
        QFETCH(QString, policy);
        QFETCH(QString, expected);
        const std::vector<Op>* graphs[] = {&kT1, &kBranchInBranch, &kStacked};
        const ir::Graph g = rafGraph(*graphs[graph]);
        const ir::PreparedModel model(g);
        const cost::SimulatedGpuCostModel cost(g, cost::loadDevice("V100"));
        const schedulers::Outcome out = runPolicy(model, policy.toStdString().c_str(), cost);
        QCOMPARE(out.programs.size(), size_t{1});
        QCOMPARE(QString::fromStdString(text(model.dags()[0], out.programs[0])), expected);
        QVERIFY(out.latencyMs > 0);
        // Tuples are synthetic launches named after their concatenation, never a model node.
        for (const schedule::Instruction& in : out.programs[0].instructions)
            if (in.kind == InstrKind::Launch && in.ops.empty())
                QVERIFY(in.synthetic.rfind("tuple:", 0) == 0);
    }

    void tuplesOff() {
        const ir::Graph g = rafGraph(kT1);
        const ir::PreparedModel model(g);
        const cost::SimulatedGpuCostModel cost(g, cost::loadDevice("V100"));
        schedulers::Params params;
        params.rafTuples = false;
        const auto out = schedulers::schedulerByName("raf-asap").run(model, params, cost, nullptr);
        for (const schedule::Instruction& in : out.programs[0].instructions)
            QVERIFY(in.kind != InstrKind::Launch || !in.ops.empty());
    }

    // Lowered stage schedules: one segment per stage, priced bit for bit like the stage.
    void loweringIsExact_data() {
        QTest::addColumn<QString>("model");
        // Sanitizer builds: the two smaller networks (the IOS DP on the big ones takes minutes).
        for (const char* m : {"inception_v3", "squeezenet", "nasnet_large", "randwire_large"})
            if (kFullModels || std::string(m) == "inception_v3" || std::string(m) == "squeezenet")
                QTest::newRow(m) << m;
    }
    void loweringIsExact() {
        QFETCH(QString, model);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const ir::PreparedModel prepared(g);
        const auto& dags = prepared.dags();
        const cost::SimulatedGpuCostModel v100(g, cost::loadDevice("V100"));
        const cost::SimulatedGpuCostModel h100(g, cost::loadDevice("H100"), 4);
        const cost::AnalyticCostModel analytic(g);
        for (const char* key : {"sequential", "greedy", "ios-merge", "ios-parallel", "ios-both"}) {
            const auto out = runPolicy(prepared, key, analytic);
            QVERIFY(out.programs.empty());
            const schedule::Program program = schedulers::programOf(out);
            schedule::verifyProgram(dags, program);
            for (const cost::CostModel* c :
                 std::initializer_list<const cost::CostModel*>{&v100, &h100, &analytic}) {
                const double stages = eval::totalLatencyMs(dags, out.schedule, *c);
                const double programMs = eval::programLatencyMs(dags, program, *c);
                if (stages != programMs)
                    QFAIL(qPrintable(QString("%1 under %2: stages %3 ms, program %4 ms")
                                         .arg(key, QString::fromStdString(c->describe()))
                                         .arg(stages, 0, 'g', 17)
                                         .arg(programMs, 0, 'g', 17)));
            }
            const eval::Timeline a = eval::buildTimeline(dags, out.schedule, v100);
            const eval::Timeline b = eval::buildProgramTimeline(dags, program, v100);
            QCOMPARE(b.latencyUs, a.latencyUs);
            QCOMPARE(b.kernels.size(), a.kernels.size());
        }
    }

    void policiesVerifyOnModels_data() { loweringIsExact_data(); }
    void policiesVerifyOnModels() {
        QFETCH(QString, model);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const ir::PreparedModel prepared(g);
        const cost::SimulatedGpuCostModel v100(g, cost::loadDevice("V100"));
        for (const char* key : {"raf-wavefront", "raf-asap", "raf-ios"}) {
            const auto out = runPolicy(prepared, key, v100);
            schedule::verifyProgram(prepared.dags(), out.programs);
            QCOMPARE(out.latencyMs, eval::programLatencyMs(prepared.dags(), out.programs, v100));
            QCOMPARE(schedulers::outcomeTimeline(prepared.dags(), out, v100).latencyUs / 1000,
                     out.latencyMs);
            if (std::string(key) != "raf-asap") // the stage form covers every operator
                schedule::verify(prepared.dags(), out.schedule);
            checkAsapCounts(prepared, v100);
        }
    }

    void policiesVerifyOnRandomDags() {
        std::mt19937 rng(2026);
        for (int i = 0; i < (kFullModels ? 300 : 100); ++i) {
            testing::RandomDag d = testing::randomDag(rng, 3 + i % 14);
            // Some identities with several inputs become concatenations (RAF tuples).
            for (ir::Node& n : d.graph.blocks[0].innerNodes)
                if (n.kind == ir::NodeKind::Identity && n.inputs.front().size() > 1 && i % 2 == 0)
                    n.inputs = testing::concat(n.inputs.front());
            try {
                ir::validateAndInferShapes(d.graph);
            } catch (const UserError&) {
                continue; // a concat the random shapes do not allow
            }
            const ir::PreparedModel model(d.graph);
            const cost::AnalyticCostModel cost(d.graph);
            for (const char* key : {"raf-wavefront", "raf-asap", "raf-ios"}) {
                const auto out = runPolicy(model, key, cost);
                const std::string problem =
                    schedule::programProblem(model.dags()[0], out.programs[0]);
                if (!problem.empty())
                    QFAIL(
                        qPrintable(QString("dag %1 %2: %3").arg(i).arg(key).arg(problem.c_str())));
            }
            checkAsapCounts(model, cost);
        }
    }

    void verifierCatchesFaults() {
        const ir::Graph g = rafGraph(kT1);
        const ir::PreparedModel model(g);
        const ir::BlockDag& dag = model.dags()[0];
        const cost::AnalyticCostModel cost(g);
        const auto asap = runPolicy(model, "raf-asap", cost).programs[0];
        QVERIFY(schedule::programProblem(dag, asap).empty());
        // A missing wait: c (through the tuple) is no longer ordered after a3.
        schedule::StreamProgram noWait = asap;
        for (auto it = noWait.instructions.begin(); it != noWait.instructions.end(); ++it)
            if (it->kind == InstrKind::Wait && it->event == 1) {
                noWait.instructions.erase(it);
                break;
            }
        const std::string missing = schedule::programProblem(dag, noWait);
        QVERIFY2(missing.find("'a3' -> 'c'") != std::string::npos, missing.c_str());
        QVERIFY_THROWS_EXCEPTION(UserError, schedule::verifyProgram(dag, noWait));
        // A swapped issue order on one stream: a4 before a2.
        schedule::StreamProgram swapped = asap;
        std::swap(swapped.instructions[0], swapped.instructions[1]);
        QVERIFY(schedule::programProblem(dag, swapped).find("'a2' -> 'a4'") != std::string::npos);
        // A wait before its record; an operator launched twice; one never launched.
        schedule::StreamProgram early = asap;
        early.instructions.insert(early.instructions.begin(), schedule::Instruction::wait(0, 2));
        QVERIFY(schedule::programProblem(dag, early).find("before any record") !=
                std::string::npos);
        schedule::StreamProgram twice = asap;
        twice.instructions.push_back(schedule::Instruction::launch(0, 1));
        QVERIFY(schedule::programProblem(dag, twice).find("launched twice") != std::string::npos);
        schedule::StreamProgram lost = asap;
        lost.instructions.pop_back();
        QVERIFY(schedule::programProblem(dag, lost).find("never launched") != std::string::npos);
        // The wavefront program without its barrier: the tuple's inputs on other streams.
        auto wave = runPolicy(model, "raf-wavefront", cost).programs[0];
        std::erase_if(wave.instructions, [](const schedule::Instruction& in) {
            return in.kind == InstrKind::Barrier;
        });
        QVERIFY(!schedule::programProblem(dag, wave).empty());
    }

    // Events order kernels across streams in the simulation: a consumer on another stream
    // starts only after the recorded producer ended.
    void eventsOrderTheSimulation() {
        const ir::Graph g = rafGraph(kT1);
        const ir::PreparedModel model(g);
        const cost::SimulatedGpuCostModel cost(g, cost::loadDevice("V100"));
        const auto out = runPolicy(model, "raf-asap", cost);
        const eval::Timeline tl = schedulers::outcomeTimeline(model.dags(), out, cost);
        const ir::BlockDag& dag = model.dags()[0];
        auto span = [&](const std::string& name) {
            double start = 1e300, end = 0;
            for (const eval::TimelineKernel& k : tl.kernels)
                if (dag.ops[static_cast<size_t>(k.op)]->name == name) {
                    start = std::min(start, k.startUs);
                    end = std::max(end, k.endUs);
                }
            return std::pair{start, end};
        };
        QVERIFY(span("c").first >= span("a3").second);
        QVERIFY(span("c").first >= span("a6").second);
        QVERIFY(span("a4").first >= span("a2").second);
        QCOMPARE(tl.streams, 4); // streams 1..3 (0 unused)
        // On InceptionV3 kernels of different streams run at the same time.
        const ir::Graph inception = samples::loadBundledModel("inception_v3");
        const ir::PreparedModel im(inception);
        const cost::SimulatedGpuCostModel ic(inception, cost::loadDevice("V100"));
        const eval::Timeline itl =
            schedulers::outcomeTimeline(im.dags(), runPolicy(im, "raf-asap", ic), ic);
        bool overlap = false;
        for (size_t i = 1; i < itl.kernels.size() && !overlap; ++i)
            for (size_t j = i < 8 ? 0 : i - 8; j < i && !overlap; ++j)
                overlap = itl.kernels[i].stream != itl.kernels[j].stream &&
                          itl.kernels[i].startUs < itl.kernels[j].endUs &&
                          itl.kernels[j].startUs < itl.kernels[i].endUs;
        QVERIFY(overlap);
    }

    // RAF-IOS's search reports progress in candidate stages, of the total its counting pass
    // found (raf_ios_work.h), and stops when cancelled.
    void rafIosProgressAndCancel() {
        const ir::Graph g = samples::loadBundledModel("nasnet_large");
        const ir::PreparedModel model(g);
        const cost::SimulatedGpuCostModel cost(g, cost::loadDevice("V100"));
        schedulers::SearchControl control;
        std::vector<std::pair<uint64_t, uint64_t>> reports;
        control.progress = [&](uint64_t done, uint64_t total) {
            reports.emplace_back(done, total);
            if (done > 0)
                control.cancel = true; // the search must stop at its next poll
        };
        QVERIFY_THROWS_EXCEPTION(Cancelled, schedulers::schedulerByName("raf-ios").run(
                                                model, schedulers::Params{}, cost, &control));
        QVERIFY(reports.size() >= 2);
        for (const auto& [done, total] : reports) {
            QCOMPARE(total, reports.front().second);
            QVERIFY(done <= total);
        }
    }

    // Blocks and RAF-IOS's chunks run as parallel jobs: the programs do not depend on it.
    void threadsGiveTheSamePrograms() {
        const ir::Graph g =
            samples::loadBundledModel(kFullModels ? "randwire_large" : "inception_v3");
        const ir::PreparedModel model(g);
        const cost::SimulatedGpuCostModel cost(g, cost::loadDevice("V100"));
        for (const char* key : {"raf-wavefront", "raf-asap", "raf-ios"}) {
            schedulers::Params one, four;
            four.threads = 4;
            const auto& s = schedulers::schedulerByName(key);
            const auto a = s.run(model, one, cost, nullptr);
            const auto b = s.run(model, four, cost, nullptr);
            QVERIFY(a.programs == b.programs);
            QVERIFY(a.schedule == b.schedule);
            QCOMPARE(a.latencyMs, b.latencyMs);
        }
    }

private:
    // #waits = light edges, #records = nodes with a light consumer (docs/raf.md "ASAP").
    static void checkAsapCounts(const ir::PreparedModel& model, const cost::CostModel& cost) {
        const auto out = runPolicy(model, "raf-asap", cost);
        for (size_t b = 0; b < model.dags().size(); ++b) {
            const auto g = schedulers::raf::buildRafGraph(model.dags()[b], true);
            const auto h = schedulers::raf::heavyEdges(g);
            int light = 0, recorders = 0;
            for (size_t v = 0; v < g.nodes.size(); ++v) {
                for (int u : g.nodes[v].inputs)
                    light += u != h.heavyChild[v] ? 1 : 0;
                bool hasLight = false;
                for (int c : g.nodes[v].consumers)
                    hasLight = hasLight || c != h.heavyParent[v];
                recorders += hasLight ? 1 : 0;
            }
            const schedule::ProgramCounts c = schedule::counts(out.programs[b]);
            QCOMPARE(c.waits, light);
            QCOMPARE(c.records, recorders);
            QCOMPARE(c.events, recorders);
            QCOMPARE(c.barriers + c.syncs, 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestStreamProgram)
#include "tst_stream_program.moc"
