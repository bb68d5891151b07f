// SPDX-License-Identifier: Apache-2.0
// Provenance (io/provenance.h): every written schedule, program and measurement cache carries
// who wrote it, for which model content, device, batch, cost model and settings; readers
// ignore provenance fields they do not know and refuse a file made for another model content.
#include "bundled_models.h"
#include "cost/measurement_cache.h"
#include "cost/stage_signature.h"
#include "io/program_json.h"
#include "io/provenance.h"
#include "io/schedule_file.h"
#include "schedule/stream_program.h"
#include "schedulers/baselines.h"
#include "user_error_text.h"
#include "util/error.h"
#include "util/json_number.h"
#include "util/json_text.h"
#include "util/version.h"

#include <QTest>
#include <cstdlib>

using namespace ios;

namespace {

struct Fixture {
    ir::Graph graph = samples::loadBundledModel("squeezenet");
    std::vector<ir::BlockDag> dags = ir::buildDags(graph);
    schedule::Schedule schedule = schedulers::greedy(dags);
    io::Provenance provenance =
        io::provenanceFor("ios-sched test", &graph, cost::findBundledDevice("K80"), 4, "analytic");
};

// The same model with one operator changed (its output channels): same name, other content.
ir::Graph otherVersion(ir::Graph g) {
    g.blocks[0].innerNodes[0].outputShape.c += 1;
    return g;
}

std::string errorOf(const std::function<void()>& f) {
    return testing::userErrorOf(f).toStdString();
}

} // namespace

class TestProvenance : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qputenv("SOURCE_DATE_EPOCH", "1700000000"); }

    void blockNamesEverything() {
        Fixture f;
        f.provenance.settings["strategy"] = "greedy";
        const util::Json j = io::provenanceJson(f.provenance);
        QCOMPARE(j["tool"].get<std::string>(), std::string("ios-explorer"));
        QCOMPARE(j["tool_version"].get<std::string>(), util::toolVersion());
        QCOMPARE(j["command"].get<std::string>(), std::string("ios-sched test"));
        QCOMPARE(j["created"].get<std::string>(), std::string("2023-11-14T22:13:20Z"));
        QCOMPARE(j["model"]["name"].get<std::string>(), f.graph.name);
        QCOMPARE(j["model"]["content_hash"].get<std::string>(), cost::modelContentHash(f.graph));
        QCOMPARE(j["device"]["name"].get<std::string>(), std::string("K80"));
        QCOMPARE(j["device"]["hash"].get<std::string>(),
                 io::deviceProfileHash(*cost::findBundledDevice("K80")));
        QVERIFY(j["device"]["hash"] != io::deviceProfileHash(*cost::findBundledDevice("V100")));
        QCOMPARE(j["batch"].get<int>(), 4);
        QCOMPARE(j["cost_model"].get<std::string>(), std::string("analytic"));
        QCOMPARE(j["settings"]["strategy"].get<std::string>(), std::string("greedy"));
        const std::string comment = io::provenanceComment(f.provenance);
        QVERIFY(comment.rfind("# tool: ios-explorer\n# tool_version: ", 0) == 0);
        QVERIFY(comment.find("\n# batch: 4\n") != std::string::npos);
        // Without a model or device, those members are left out.
        const util::Json bare = io::provenanceJson(io::Provenance{});
        QVERIFY(!bare.contains("model") && !bare.contains("device") && !bare.contains("batch"));
    }

    void scheduleFileCarriesAndChecksIt() {
        Fixture f;
        const std::string text =
            io::writeScheduleFile(f.graph, f.dags, f.schedule, "note", &f.provenance);
        util::Json doc = util::parseJsonText(text, "s.json");
        QCOMPARE(io::provenanceModelHash(doc).value_or(""), cost::modelContentHash(f.graph));
        QCOMPARE(io::parseScheduleFile(text, "s.json", f.graph, f.dags), f.schedule);

        const ir::Graph other = otherVersion(f.graph);
        const std::string refused =
            errorOf([&] { io::parseScheduleFile(text, "s.json", other, ir::buildDags(other)); });
        QVERIFY2(refused.rfind("s.json: made for another model", 0) == 0, refused.c_str());
        QVERIFY(refused.find(cost::modelContentHash(other)) != std::string::npos);

        // Unknown provenance members, and a provenance without a model, are ignored.
        doc["provenance"]["written_by_a_future_version"] = {1, 2, 3};
        QCOMPARE(io::parseScheduleFile(util::dumpJson(doc, 1), "s.json", f.graph, f.dags),
                 f.schedule);
        doc["provenance"].erase("model");
        QCOMPARE(
            io::parseScheduleFile(util::dumpJson(doc, 1), "s.json", other, ir::buildDags(other)),
            f.schedule);
        doc["provenance"] = "free text";
        QCOMPARE(io::parseScheduleFile(util::dumpJson(doc, 1), "s.json", f.graph, f.dags),
                 f.schedule);
        // Files without provenance (older versions) still load.
        QCOMPARE(io::parseScheduleFile(io::writeScheduleFile(f.graph, f.dags, f.schedule), "s.json",
                                       f.graph, f.dags),
                 f.schedule);
    }

    void programFileCarriesAndChecksIt() {
        Fixture f;
        const schedule::Program program = schedule::lower(f.schedule);
        const std::string text =
            io::programFileText(f.graph.name, "greedy", 1.5, f.dags, program, &f.provenance);
        QVERIFY(io::provenanceModelHash(util::parseJsonText(text, "p.json")).has_value());
        QCOMPARE(io::parseProgramFile(text, "p.json", f.dags, f.graph.name, &f.graph).size(),
                 program.size());
        const ir::Graph other = otherVersion(f.graph);
        const std::string refused =
            errorOf([&] { io::parseProgramFile(text, "p.json", f.dags, f.graph.name, &other); });
        QVERIFY2(refused.rfind("p.json: made for another model", 0) == 0, refused.c_str());
        // Without a graph to compare with, the block is only skipped.
        QCOMPARE(io::parseProgramFile(text, "p.json", f.dags).size(), program.size());
    }

    void measurementCacheCarriesIt() {
        Fixture f;
        cost::MeasurementCache cache;
        cache.add({"K80", f.graph.name, 4, "stage-key", 0.25, 3, cost::modelContentHash(f.graph)});
        cache.setProvenance(io::provenanceJson(f.provenance));
        const std::string text = cache.text();
        const util::Json doc = util::parseJsonText(text, "c.json");
        QCOMPARE(doc["provenance"]["batch"].get<int>(), 4);
        const cost::MeasurementCache back = cost::MeasurementCache::parse(text, "c.json");
        QCOMPARE(back.entries().size(), size_t(1));
        QCOMPARE(back.find("K80", f.graph.name, 4, "stage-key").value_or(0), 0.25);
    }
};

QTEST_GUILESS_MAIN(TestProvenance)
#include "tst_provenance.moc"
