// SPDX-License-Identifier: Apache-2.0
// Stream program files (io/program_json.h, docs/formats.md "Stream programs"): every policy's
// program on every bundled model reads back equal; malformed documents are refused naming the
// file, the block, the instruction and the node; a program the verifier refuses (a wait
// removed) is refused on reading. Also the event flows of a program (eval/program_flows.h) and
// their Chrome trace arrows (io/trace_export.h).
#include "build_flavour.h"
#include "bundled_models.h"
#include "cost/simulated_gpu_cost_model.h"
#include "eval/program_eval.h"
#include "eval/program_flows.h"
#include "io/program_json.h"
#include "io/trace_export.h"
#include "io/trace_format.h"
#include "io/trace_import.h"
#include "schedule/program_verify.h"
#include "schedulers/rewritten_model.h"
#include "schedulers/scheduler.h"
#include "user_error_text.h"
#include "util/json_number.h"
#include "util/json_text.h"

#include <QCoreApplication>
#include <QDir>
#include <QTest>
#include <functional>
#include <map>

using namespace ios;

namespace {

using util::Json;

struct Run {
    ir::Graph graph;
    std::vector<ir::BlockDag> dags;
    schedule::Program program;
    double latencyMs = 0;
};

// `policy`'s program for bundled `model` on the simulated V100, memoised across test rows.
const Run& programOf(const std::string& model, const std::string& policy) {
    static std::map<std::pair<std::string, std::string>, Run> runs;
    auto [it, fresh] = runs.try_emplace({model, policy});
    if (!fresh)
        return it->second;
    Run& r = it->second;
    r.graph = samples::loadBundledModel(model);
    const ir::PreparedModel prepared(r.graph);
    r.dags = prepared.dags();
    const cost::SimulatedGpuCostModel cost(r.graph, *cost::findBundledDevice("V100"));
    const schedulers::Outcome o =
        schedulers::schedulerByName(policy).run(prepared, schedulers::Params{}, cost, nullptr);
    r.program = schedulers::programOf(o);
    r.latencyMs = schedulers::outcomeLatencyMs(r.dags, o, cost);
    if (o.rewritten) { // metaflow: the program refers to the rewritten graph
        r.graph = o.rewritten->graph();
        r.dags = ir::buildDags(r.graph);
    }
    return r;
}

Json documentOf(const Run& r, const std::string& policy) {
    return util::parseJsonText(
        util::dumpJson(io::programJson(r.graph.name, policy, r.latencyMs, r.dags, r.program), 2),
        "p.json");
}

// The first instruction of `block` of `doc` whose "op" is `op` (and that is synthetic or not).
Json& findInstruction(Json& doc, size_t block, const std::string& op, bool synthetic = false) {
    for (Json& in : doc["blocks"][block]["program"])
        if (in["op"] == op && in.contains("synthetic") == synthetic)
            return in;
    throw std::logic_error("no such instruction in the test program");
}

size_t indexOf(const Json& doc, size_t block, const Json& instruction) {
    const Json& program = doc["blocks"][block]["program"];
    for (size_t i = 0; i < program.size(); ++i)
        if (&program[i] == &instruction)
            return i;
    return SIZE_MAX;
}

struct BadCase {
    const char* name;
    // Breaks the document; returns the fragments the error must contain.
    std::function<QStringList(Json&, const Run&)> breakIt;
};

QString at(size_t block, size_t instruction) {
    return QStringLiteral("block %1, instruction %2").arg(block).arg(instruction);
}

const std::vector<BadCase>& badCases() {
    static const std::vector<BadCase> cases = {
        {"unknown node",
         [](Json& d, const Run&) {
             Json& in = findInstruction(d, 2, "launch");
             in["node"] = "no_such_node";
             return QStringList{"p.json: node 'no_such_node'", at(2, indexOf(d, 2, in)),
                                "no operator of this name"};
         }},
        {"node of another block",
         [](Json& d, const Run& r) {
             Json& in = findInstruction(d, 2, "launch");
             const std::string other = r.dags[3].ops.front()->name;
             in["node"] = other;
             return QStringList{QString::fromStdString("node '" + other + "'"),
                                at(2, indexOf(d, 2, in)), "is in block 3, not in block 2"};
         }},
        {"unknown op",
         [](Json& d, const Run&) {
             Json& in = findInstruction(d, 1, "wait");
             in["op"] = "jump";
             return QStringList{at(1, indexOf(d, 1, in)), "unknown op 'jump'"};
         }},
        {"missing stream",
         [](Json& d, const Run&) {
             Json& in = findInstruction(d, 1, "launch");
             const std::string node = in["node"];
             in.erase("stream");
             return QStringList{QString::fromStdString("node '" + node + "'"),
                                at(1, indexOf(d, 1, in)), "missing \"stream\""};
         }},
        {"negative stream",
         [](Json& d, const Run&) {
             Json& in = findInstruction(d, 1, "launch");
             const std::string node = in["node"];
             in["stream"] = -1;
             return QStringList{QString::fromStdString("node '" + node + "'"),
                                at(1, indexOf(d, 1, in)), "\"stream\" must be an integer",
                                "(got -1)"};
         }},
        {"float stream",
         [](Json& d, const Run&) {
             Json& in = findInstruction(d, 1, "record");
             in["stream"] = 1.0;
             return QStringList{at(1, indexOf(d, 1, in)), "\"stream\" must be an integer"};
         }},
        {"missing event",
         [](Json& d, const Run&) {
             Json& in = findInstruction(d, 1, "wait");
             in.erase("event");
             return QStringList{at(1, indexOf(d, 1, in)), "missing \"event\""};
         }},
        {"negative event",
         [](Json& d, const Run&) {
             Json& in = findInstruction(d, 1, "record");
             in["event"] = -3;
             return QStringList{at(1, indexOf(d, 1, in)), "\"event\" must be an integer",
                                "(got -3)"};
         }},
        {"unknown field",
         [](Json& d, const Run&) {
             Json& in = findInstruction(d, 1, "launch");
             in["streem"] = 0;
             return QStringList{at(1, indexOf(d, 1, in)), "unknown field 'streem'"};
         }},
        {"synthetic named like a node",
         [](Json& d, const Run& r) {
             Json& in = findInstruction(d, 1, "launch", true);
             const std::string node = r.dags[1].ops.front()->name;
             in["node"] = node;
             return QStringList{QString::fromStdString("node '" + node + "'"),
                                at(1, indexOf(d, 1, in)), "must not be named like a model"};
         }},
        {"merged name without nodes",
         [](Json& d, const Run& r) {
             Json& in = findInstruction(d, 1, "launch");
             in["node"] = r.dags[1].ops[0]->name + "+" + r.dags[1].ops[1]->name;
             return QStringList{at(1, indexOf(d, 1, in)), "lists its operators in \"nodes\""};
         }},
        {"merged nodes not joined",
         [](Json& d, const Run& r) {
             Json& in = findInstruction(d, 1, "launch");
             in["nodes"] = Json::array({r.dags[1].ops[0]->name, r.dags[1].ops[1]->name});
             return QStringList{at(1, indexOf(d, 1, in)), "joined by '+'"};
         }},
        {"wrong block count",
         [](Json& d, const Run&) {
             d["blocks"].erase(d["blocks"].size() - 1);
             return QStringList{"p.json: the stream program has 12 blocks, the model 13"};
         }},
        {"block out of order",
         [](Json& d, const Run&) {
             d["blocks"][4]["block"] = 5;
             return QStringList{"p.json", "blocks[4] has \"block\" 5"};
         }},
        {"streams disagree",
         [](Json& d, const Run&) {
             d["blocks"][2]["streams"] = 99;
             return QStringList{"block 2: \"streams\" is 99 but its program uses"};
         }},
        {"other model",
         [](Json& d, const Run&) {
             d["model"] = "squeezenet";
             return QStringList{"for model 'squeezenet', not 'inception_v3'"};
         }},
        {"not an object",
         [](Json& d, const Run&) {
             d["blocks"][0]["program"][0] = 3;
             return QStringList{at(0, 0), "must be an object"};
         }},
        {"launched twice",
         [](Json& d, const Run&) {
             Json& program = d["blocks"][1]["program"];
             program.push_back(findInstruction(d, 1, "launch"));
             return QStringList{"p.json", "block 1 stream program", "is launched twice"};
         }},
    };
    return cases;
}

} // namespace

class TestProgramJson : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("policy");
        // Every registered scheduler: RAF's policies write their own programs, the others'
        // schedules are lowered (merge stages as merged launches).
        // Sanitizer builds: not the two big networks (their IOS searches take minutes there).
        for (const samples::BundledModel& m : samples::bundledModels())
            for (const schedulers::Scheduler* s : schedulers::registeredSchedulers())
                if (kFullModels || (m.name != "nasnet_large" && m.name != "randwire_large"))
                    QTest::newRow((std::string(m.name) + " " + std::string(s->key())).c_str())
                        << QString::fromUtf8(m.name.data(), static_cast<int>(m.name.size()))
                        << QString::fromUtf8(s->key().data(), static_cast<int>(s->key().size()));
    }
    void roundTrip() {
        QFETCH(QString, model);
        QFETCH(QString, policy);
        const Run& r = programOf(model.toStdString(), policy.toStdString());
        const Json doc = documentOf(r, policy.toStdString());
        QCOMPARE(io::programFromJson(doc, r.dags, "p.json", r.graph.name), r.program);
        // The nlohmann::json overload (keys sorted) reads the same program.
        const nlohmann::json sorted = nlohmann::json::parse(doc.dump());
        QCOMPARE(io::programFromJson(sorted, r.dags, "p.json"), r.program);
        // The document's shape: exactly these keys, in this order.
        QCOMPARE(doc.size(), size_t{4});
        QCOMPARE(doc.begin().key(), std::string("model"));
        QCOMPARE(doc["policy"].get<std::string>(), policy.toStdString());
        QCOMPARE(doc["latency_ms"].get<double>(), r.latencyMs);
        QCOMPARE(doc["blocks"].size(), r.dags.size());
        for (size_t b = 0; b < r.dags.size(); ++b) {
            const Json& block = doc["blocks"][b];
            QCOMPARE(block["block"].get<size_t>(), b);
            QCOMPARE(block["streams"].get<int>(), schedule::counts(r.program[b]).streams);
            QCOMPARE(block["program"].size(), r.program[b].instructions.size());
        }
    }

    // Merged and synthetic launches are written as the format says.
    void launchForms() {
        const Run& both = programOf("inception_v3", "ios-both");
        bool merged = false;
        const Json bothDoc = documentOf(both, "ios-both");
        for (const Json& block : bothDoc["blocks"])
            for (const Json& in : block["program"])
                if (in.contains("nodes")) {
                    merged = true;
                    std::string joined;
                    for (const Json& n : in["nodes"])
                        joined += (joined.empty() ? "" : "+") + n.get<std::string>();
                    QCOMPARE(in["node"].get<std::string>(), joined);
                    QVERIFY(joined.find('+') != std::string::npos);
                }
        QVERIFY2(merged, "ios-both merges convolutions of inception_v3");
        const Run& asap = programOf("inception_v3", "raf-asap");
        bool synthetic = false;
        const Json asapDoc = documentOf(asap, "raf-asap");
        for (const Json& block : asapDoc["blocks"])
            for (const Json& in : block["program"])
                if (in.contains("synthetic")) {
                    synthetic = true;
                    QVERIFY(in["synthetic"] == true);
                    QVERIFY(!in.contains("nodes"));
                }
        QVERIFY2(synthetic, "raf-asap launches tuple pseudo-ops before concatenations");
    }

    void malformed_data() {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < badCases().size(); ++i)
            QTest::newRow(badCases()[i].name) << static_cast<int>(i);
    }
    void malformed() {
        QFETCH(int, index);
        const Run& r = programOf("inception_v3", "raf-asap");
        Json doc = documentOf(r, "raf-asap");
        const QStringList fragments = badCases()[static_cast<size_t>(index)].breakIt(doc, r);
        const QString error = testing::userErrorOf(
            [&] { io::programFromJson(doc, r.dags, "p.json", "inception_v3"); });
        QVERIFY2(!error.isEmpty(), "accepted");
        for (const QString& f : fragments)
            QVERIFY2(error.contains(f), qPrintable(error + "  (wanted: " + f + ")"));
    }

    // A wait whose removal leaves a dependency unordered: the verifier refuses the file.
    void missingWaitIsRefused() {
        const Run& r = programOf("inception_v3", "raf-asap");
        bool refused = false;
        for (size_t b = 0; b < r.program.size() && !refused; ++b) {
            const auto& code = r.program[b].instructions;
            for (size_t i = 0; i < code.size() && !refused; ++i) {
                if (code[i].kind != schedule::InstrKind::Wait)
                    continue;
                schedule::Program broken = r.program;
                broken[b].instructions.erase(broken[b].instructions.begin() +
                                             static_cast<std::ptrdiff_t>(i));
                if (schedule::programProblem(r.dags[b], broken[b]).empty())
                    continue; // this wait was redundant
                const Json doc = util::parseJsonText(
                    util::dumpJson(io::programJson("inception_v3", "x", 0, r.dags, broken), 2),
                    "p.json");
                const QString error =
                    testing::userErrorOf([&] { io::programFromJson(doc, r.dags, "p.json"); });
                QVERIFY2(error.startsWith(QStringLiteral("p.json: block %1 stream program").arg(b)),
                         qPrintable(error));
                QVERIFY2(error.contains(QLatin1String("is not ordered")), qPrintable(error));
                refused = true;
            }
        }
        QVERIFY2(refused, "some wait of raf-asap's program orders a dependency");
    }

    void fileRoundTrip() {
        const Run& r = programOf("squeezenet", "raf-wavefront");
        const QString dir =
            QDir::tempPath() +
            QStringLiteral("/tst_program_json_%1").arg(QCoreApplication::applicationPid());
        QVERIFY(QDir().mkpath(dir));
        const std::string path = (dir + QStringLiteral("/p.json")).toStdString();
        io::writeProgramFile(path, r.graph.name, "raf-wavefront", r.latencyMs, r.dags, r.program);
        QCOMPARE(io::readProgramFile(path, r.dags, "squeezenet"), r.program);
        QVERIFY(testing::userErrorOf([&] {
                    io::readProgramFile(path, r.dags, "inception_v3");
                }).contains(QLatin1String("not 'inception_v3'")));
        QDir(dir).removeRecursively();
    }

    // One flow per wait, from its event's record; times on the program timeline's clock; in
    // the Chrome trace an "s"/"f" pair per flow on the streams' tracks, which still imports.
    void flowsJoinRecordsToWaits() {
        const Run& r = programOf("inception_v3", "raf-asap");
        const cost::SimulatedGpuCostModel cost(r.graph, *cost::findBundledDevice("V100"));
        const std::vector<eval::ProgramFlow> flows = eval::programFlows(r.dags, r.program, cost);
        int waits = 0;
        for (const auto& block : r.program)
            waits += schedule::counts(block).waits;
        QVERIFY(waits > 0);
        QCOMPARE(static_cast<int>(flows.size()), waits);
        const eval::Timeline tl = eval::buildProgramTimeline(r.dags, r.program, cost);
        for (const eval::ProgramFlow& f : flows) {
            const auto& code = r.program[static_cast<size_t>(f.block)].instructions;
            const auto& rec = code[static_cast<size_t>(f.recordInstruction)];
            const auto& wait = code[static_cast<size_t>(f.waitInstruction)];
            QVERIFY(rec.kind == schedule::InstrKind::Record);
            QVERIFY(wait.kind == schedule::InstrKind::Wait);
            QCOMPARE(rec.event, wait.event);
            QVERIFY(f.recordInstruction < f.waitInstruction);
            QCOMPARE(f.fromStream, rec.stream);
            QCOMPARE(f.toStream, wait.stream);
            QVERIFY2(f.fromUs <= f.toUs + 1e-9, "a wait is released after its record");
            QVERIFY(f.toUs <= tl.latencyUs + 1e-6);
        }
        QVERIFY(flows.back().block > 0 && flows.back().fromUs > 0);

        // In the trace each arrow runs from the kernel the record captured to the one the wait
        // guards, its "s" and "f" at their slices' starts on their streams' tracks.
        const std::vector<io::TraceFlow> arrows = io::traceFlows(tl, flows);
        QCOMPARE(arrows.size(), flows.size());
        const std::string text = io::chromeTraceJson(tl, {"inception_v3", "raf-asap"}, arrows);
        const Json trace = util::parseJsonText(text, "t.json");
        std::map<int64_t, std::pair<Json, Json>> byId;
        for (const Json& e : trace["traceEvents"]) {
            if (e["ph"] == "s")
                byId[e["id"].get<int64_t>()].first = e;
            else if (e["ph"] == "f")
                byId[e["id"].get<int64_t>()].second = e;
        }
        QCOMPARE(byId.size(), flows.size());
        size_t i = 0;
        for (const auto& [id, pair] : byId) {
            const auto& [s, f] = pair;
            QVERIFY(!s.is_null() && !f.is_null());
            const eval::TimelineKernel& from =
                tl.kernels[static_cast<size_t>(arrows[i].fromKernel)];
            const eval::TimelineKernel& to = tl.kernels[static_cast<size_t>(arrows[i].toKernel)];
            QCOMPARE(from.stream, flows[i].fromStream);
            QCOMPARE(to.stream, flows[i].toStream);
            QVERIFY(from.endUs <= flows[i].fromUs + 1e-6); // captured by the record
            QVERIFY(to.startUs >= flows[i].toUs - 1e-6);   // released by the wait
            QCOMPARE(s["tid"].get<int>(), io::trace::streamTid(flows[i].fromStream));
            QCOMPARE(f["tid"].get<int>(), io::trace::streamTid(flows[i].toStream));
            QCOMPARE(f["bp"].get<std::string>(), std::string("e"));
            QVERIFY(s["name"] == f["name"]);
            QCOMPARE(s["name"].get<std::string>(), "e" + std::to_string(flows[i].event));
            ++i;
        }
        // The importer skips the flow events: the timeline reads back as without them.
        QCOMPARE(io::parseChromeTrace(text, "t.json").kernels.size(), tl.kernels.size());
    }
};

QTEST_GUILESS_MAIN(TestProgramJson)
#include "tst_program_json.moc"
