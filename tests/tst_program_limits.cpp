// SPDX-License-Identifier: Apache-2.0
// Stream programs at scale and at their limits (issue 37, items 5 and 9): checking a program
// of many launches holds clock entries linear in its launches (the verifier's own counter, not
// RSS), an invalid one is refused naming the program file, a check past the verifier's caps is
// refused with WorkKnob::ProgramSize before it grows further, and every policy's program
// (random graphs, and an antichain wider than the stream limit) is written by the program file
// writer and read back equal by its loader (writers and the loader share the limits of
// schedule/stream_program.h).
#include "cost/simulated_gpu_cost_model.h"
#include "eval/timeline.h"
#include "io/program_json.h"
#include "io/trace_export.h"
#include "io/trace_import.h"
#include "ir/block_dag.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "random_concat_graphs.h"
#include "schedule/program_verify.h"
#include "schedulers/baselines.h"
#include "schedulers/rewritten_model.h"
#include "schedulers/scheduler.h"
#include "user_error_text.h"
#include "util/work_limit.h"

#include <QTest>
#include <random>
#include <string>
#include <unordered_map>

using namespace ios;
using namespace ios::testing;

namespace {

constexpr int64_t kChannels = 2;

// `chains` chains of `length` relus reading the input, joined by a concatenating identity
// "out"; chain k's i-th relu is "c<k>_<i>". length 1 makes an antichain of `chains` relus.
ir::Graph chainsGraph(int chains, int length) {
    ir::Graph g;
    g.name = "chains";
    g.input = placeholder("in", {kChannels, 2, 2});
    std::vector<Node> inner;
    std::vector<ValueRef> ends;
    for (int k = 0; k < chains; ++k) {
        std::string prev = "in";
        for (int i = 0; i < length; ++i) {
            std::string name = "c" + std::to_string(k) + "_" + std::to_string(i);
            inner.push_back(activation(name, concat({val(prev, 0, kChannels)}), ir::ActType::Relu));
            prev = std::move(name);
        }
        ends.push_back(val(prev, 0, kChannels));
    }
    g.blocks.push_back(
        block(g.input, std::move(inner), node(NodeKind::Identity, "out", concat(std::move(ends)))));
    ir::validateAndInferShapes(g);
    return g;
}

int opIndex(const ir::BlockDag& dag, const std::string& name) {
    for (size_t i = 0; i < dag.ops.size(); ++i)
        if (dag.ops[i]->name == name)
            return static_cast<int>(i);
    throw std::logic_error("no operator " + name);
}

// Chain k on stream k, an event recorded every `every` launches of chains 1.., all waited on
// by stream 0 before "out" launches there.
schedule::StreamProgram chainsProgram(const ir::BlockDag& dag, int chains, int length, int every) {
    std::unordered_map<std::string, int> index;
    for (size_t i = 0; i < dag.ops.size(); ++i)
        index.emplace(dag.ops[i]->name, static_cast<int>(i));
    schedule::StreamProgram p;
    int events = 0;
    for (int k = 0; k < chains; ++k)
        for (int i = 0; i < length; ++i) {
            p.instructions.push_back(schedule::Instruction::launch(
                index.at("c" + std::to_string(k) + "_" + std::to_string(i)), k));
            if (k > 0 && (i % every == every - 1 || i == length - 1))
                p.instructions.push_back(schedule::Instruction::record(events++, k));
        }
    for (int e = 0; e < events; ++e)
        p.instructions.push_back(schedule::Instruction::wait(e, 0));
    p.instructions.push_back(schedule::Instruction::launch(opIndex(dag, "out"), 0));
    return p;
}

// The many-launch model of the scale tests: 4 chains of 12 500 relus (50 001 launches; the
// old check held launches^2 bits for it, 312 MB).
struct ManyLaunches {
    static constexpr int kChains = 4;
    static constexpr int kLength = 12500;
    ir::Graph graph = chainsGraph(kChains, kLength);
    std::vector<ir::BlockDag> dags = ir::buildDags(graph);
    schedule::StreamProgram program = chainsProgram(dags[0], kChains, kLength, 50);
};

const ManyLaunches& manyLaunches() {
    static const ManyLaunches m;
    return m;
}

// `policy`'s program of `graph` written as a program file and read back.
void checkRoundTrip(const ir::Graph& graph, const schedulers::Scheduler& policy) {
    const ir::PreparedModel prepared(graph);
    const cost::SimulatedGpuCostModel cost(graph, *cost::findBundledDevice("V100"));
    const schedulers::Outcome o = policy.run(prepared, schedulers::Params{}, cost, nullptr);
    const schedule::Program program = schedulers::programOf(o);
    const ir::Graph& scheduled = o.rewritten ? o.rewritten->graph() : graph;
    const std::vector<ir::BlockDag> dags = ir::buildDags(scheduled);
    for (const schedule::StreamProgram& p : program)
        QVERIFY(schedule::counts(p).streams <= schedule::kMaxProgramStreams);
    const std::string text =
        io::programFileText(scheduled.name, std::string(policy.key()), 1.0, dags, program);
    QCOMPARE(io::parseProgramFile(text, "rt.program.json", dags, scheduled.name), program);
}

} // namespace

class TestProgramLimits : public QObject {
    Q_OBJECT

private slots:
    // 50 001 launches on 4 streams: the clocks hold a few entries per record, not a set per
    // launch.
    void manyLaunchesCheckedInLinearMemory() {
        const ManyLaunches& m = manyLaunches();
        schedule::ProgramCheckSize size;
        QCOMPARE(QString::fromStdString(schedule::programProblem(m.dags[0], m.program, &size)),
                 QString());
        QCOMPARE(size.launches, uint64_t{50001});
        QCOMPARE(size.streams, uint64_t{4});
        const uint64_t records = 3 * (ManyLaunches::kLength / 50);
        QCOMPARE(size.liveRecords, records);
        // At most streams entries per clock held (streams + records), and here far fewer.
        QVERIFY(size.peakEntries <= (size.streams + size.liveRecords) * size.streams);
        QVERIFY(size.peakEntries <= 2 * records + 2 * size.streams);
        QVERIFY(size.steps <= size.worstSteps);
    }

    // A dependency left unordered (the last wait dropped) among 50 001 launches: refused by
    // the loader naming the program file, the block and both operators.
    void invalidManyLaunchProgramNamesTheFile() {
        const ManyLaunches& m = manyLaunches();
        schedule::Program broken{m.program};
        auto& ins = broken[0].instructions;
        ins.erase(ins.end() - 2); // the wait on the last chain's last record
        const std::string text = io::programFileText("chains", "test", 1.0, m.dags, broken);
        const QString error =
            userErrorOf([&] { io::parseProgramFile(text, "big.program.json", m.dags, "chains"); });
        QVERIFY2(error.startsWith(QStringLiteral("big.program.json: block 0 stream program: "
                                                 "dependency 'c3_12499' -> 'out' is not ordered")),
                 qPrintable(error));
    }

    // 4 096 streams each recording an event that stream 0 waits on, then 4 200 records of the
    // merged clock (4 096 entries each) held until the end: 17 M entries, past the 2^24 cap.
    // Refused with the ProgramSize knob, naming the file, before holding more.
    void checkPastTheCapIsRefused() {
        const int width = schedule::kMaxProgramStreams;
        const ir::Graph g = chainsGraph(width, 1);
        const std::vector<ir::BlockDag> dags = ir::buildDags(g);
        schedule::Program p(1);
        auto& ins = p[0].instructions;
        for (int k = 0; k < width; ++k) {
            ins.push_back(
                schedule::Instruction::launch(opIndex(dags[0], "c" + std::to_string(k) + "_0"), k));
            ins.push_back(schedule::Instruction::record(k, k));
        }
        for (int k = 0; k < width; ++k)
            ins.push_back(schedule::Instruction::wait(k, 0));
        const int held = 4200;
        for (int e = 0; e < held; ++e)
            ins.push_back(schedule::Instruction::record(width + e, 0));
        for (int e = 0; e < held; ++e)
            ins.push_back(schedule::Instruction::wait(width + e, 1));
        ins.push_back(schedule::Instruction::launch(opIndex(dags[0], "out"), 0));
        const std::string text = io::programFileText("chains", "test", 1.0, dags, p);
        try {
            io::parseProgramFile(text, "wide.program.json", dags, "chains");
            QFAIL("a check past the verifier's cap was not refused");
        } catch (const WorkLimitReached& e) {
            QCOMPARE(e.knob(), WorkKnob::ProgramSize);
            const QString what = QString::fromStdString(e.what());
            QVERIFY2(what.startsWith(QStringLiteral("wide.program.json: block 0 stream program: "
                                                    "checking its order")),
                     qPrintable(what));
            QVERIFY2(what.contains(QStringLiteral("4096 streams")), qPrintable(what));
        }
    }

    // Stream numbers past the limit: the writer refuses to write them, the loader to read them.
    void streamLimitSharedByWriterAndLoader() {
        const ir::Graph g = chainsGraph(1, 1);
        const std::vector<ir::BlockDag> dags = ir::buildDags(g);
        schedule::Program p(1);
        p[0].instructions = {
            schedule::Instruction::launch(opIndex(dags[0], "c0_0"), 0),
            schedule::Instruction::barrier(),
            schedule::Instruction::launch(opIndex(dags[0], "out"), schedule::kMaxProgramStreams)};
        QVERIFY(userErrorOf([&] {
                    io::programFileText("chains", "t", 1.0, dags, p);
                }).contains(QStringLiteral("uses stream 4096 (streams are 0..4095)")));
        p[0].instructions.back().stream = schedule::kMaxProgramStreams - 1;
        const std::string text = io::programFileText("chains", "t", 1.0, dags, p);
        QCOMPARE(io::parseProgramFile(text, "p.json", dags, "chains"), p);
    }

    // Random graphs × every registered policy: written, read back equal.
    void roundTripRandomGraphs() {
        std::mt19937 rng(37);
        for (int i = 0; i < 6; ++i) {
            const ir::Graph g = RandomConcatGraph(rng).build(1 + i % 3);
            for (const schedulers::Scheduler* s : schedulers::registeredSchedulers()) {
                checkRoundTrip(g, *s);
                if (QTest::currentTestFailed())
                    QFAIL(qPrintable(QStringLiteral("graph %1, policy %2")
                                         .arg(i)
                                         .arg(QString::fromUtf8(
                                             s->key().data(), static_cast<int>(s->key().size())))));
            }
        }
    }

    // An antichain wider than the stream limit: the policies that put independent work on a
    // stream each (stage lowering, RAF's wavefront and ASAP) share streams past the limit, so
    // what -o writes, --load reads.
    void roundTripWideAntichain_data() {
        QTest::addColumn<QString>("policy");
        for (const char* p : {"sequential", "greedy", "raf-wavefront", "raf-asap"})
            QTest::newRow(p) << QString::fromLatin1(p);
    }
    void roundTripWideAntichain() {
        QFETCH(QString, policy);
        static const ir::Graph wide = chainsGraph(schedule::kMaxProgramStreams + 4, 1);
        checkRoundTrip(wide, schedulers::schedulerByName(policy.toStdString()));
    }

    // A stage wider than the stream limit: its timeline puts the groups on the streams its
    // program uses, so the Chrome trace written of it reads back with every kernel.
    void wideStageTraceReadsBack() {
        static const ir::Graph wide = chainsGraph(schedule::kMaxProgramStreams + 4, 1);
        const auto dags = ir::buildDags(wide);
        const cost::SimulatedGpuCostModel model(wide, *cost::findBundledDevice("V100"), 1);
        const eval::Timeline tl = eval::buildTimeline(dags, schedulers::greedy(dags), model);
        QCOMPARE(tl.streams, schedule::kMaxProgramStreams);
        io::TraceInfo info;
        info.model = wide.name;
        const eval::Timeline back = io::parseChromeTrace(io::chromeTraceJson(tl, info), "wide");
        QCOMPARE(back.kernels.size(), tl.kernels.size());
        QCOMPARE(back.streams, tl.streams);
    }
};

QTEST_GUILESS_MAIN(TestProgramLimits)
#include "tst_program_limits.moc"
