// SPDX-License-Identifier: Apache-2.0
// Chrome trace event JSON, checked by the strict validator (trace_validator.h: required fields
// per phase, nesting per track, metadata, flows bound to slices) and for its layout (pid 1, the
// stage track, names and sort indices, per-stream counters), and CSV; golden file for the
// Figure 2 demo graph. Every scheduler's traces: tst_trace_flows.
#include "baseline_timeline.h"
#include "bundled_models.h"
#include "eval/timeline.h"
#include "io/trace_export.h"
#include "io/trace_format.h"
#include "trace_validator.h"
#include "util/json_text.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <set>

using namespace ios;

namespace {

using testing::figure2Timeline;

QJsonArray parseEvents(const std::string& json) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return {};
    return doc.object().value(QStringLiteral("traceEvents")).toArray();
}

} // namespace

class TestTraceExport : public QObject {
    Q_OBJECT

private slots:
    void chromeTraceSchema_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("greedy");
        QTest::newRow("figure2 sequential") << "demo_figure2" << false;
        QTest::newRow("figure2 greedy") << "demo_figure2" << true;
        QTest::newRow("squeezenet greedy") << "squeezenet" << true;
    }
    void chromeTraceSchema() {
        QFETCH(QString, model);
        QFETCH(bool, greedy);
        const ir::Graph graph = samples::loadBundledModel(model.toStdString());
        const eval::Timeline tl = testing::baselineTimeline(graph, greedy);
        const std::string text = io::chromeTraceJson(tl, {graph.name, "x"});
        const util::Json doc = util::parseJsonText(text, "t.json");
        const testing::TraceValidation v = testing::validateTrace(doc);
        QVERIFY2(v.problems.empty(), v.problems.empty() ? "" : v.problems.front().c_str());

        std::map<std::string, int> phases, metadata;
        std::set<std::string> counterTracks;
        double stagesEnd = 0;
        for (const util::Json& e : doc["traceEvents"]) {
            ++phases[e["ph"].get<std::string>()];
            if (e["ph"] == "M")
                ++metadata[e["name"].get<std::string>()];
            if (e["ph"] == "C")
                counterTracks.insert(e["name"].get<std::string>());
            QVERIFY(e["pid"] == io::trace::kPid);
            if (e["ph"] == "X" && e["cat"] == io::trace::kStageCategory) {
                QCOMPARE(e["tid"].get<int>(), io::trace::kStageTid);
                stagesEnd = std::max(stagesEnd, e["ts"].get<double>() + e["dur"].get<double>());
            }
        }
        QCOMPARE(phases["X"], static_cast<int>(tl.kernels.size() + tl.stages.size()));
        QCOMPARE(metadata["process_name"], 1);
        QCOMPARE(metadata["process_sort_index"], 1);
        QCOMPARE(metadata["thread_name"], tl.streams + 1);
        QCOMPARE(metadata["thread_sort_index"], tl.streams + 1);
        // The device-wide utilisation and one counter per stream.
        QVERIFY(counterTracks.count(io::trace::kSimulatedCounter));
        QCOMPARE(static_cast<int>(counterTracks.size()), tl.streams + 1);
        QVERIFY(qAbs(stagesEnd - tl.latencyUs) < 0.01); // the stage track ends at the latency
    }

    // The validator catches what viewers draw wrong: a flow end bound to no slice (the layout
    // before pid 1: "f" at the wait's release, between kernels), overlapping slices, pid 0.
    void validatorRefuses_data() {
        QTest::addColumn<QByteArray>("events");
        QTest::addColumn<QString>("fragment");
        const QByteArray names =
            R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"d"}},)"
            R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"s"}},)"
            R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"t"}},)"
            R"({"ph":"X","name":"a","cat":"kernel","ts":0,"dur":5,"pid":1,"tid":1},)"
            R"({"ph":"X","name":"b","cat":"kernel","ts":6,"dur":5,"pid":1,"tid":2},)";
        QTest::newRow("head between slices")
            << names + R"({"ph":"s","name":"e","cat":"kernel","id":1,"ts":0,"pid":1,"tid":1},)"
                       R"({"ph":"f","bp":"e","name":"e","cat":"kernel","id":1,"ts":5.5,"pid":1,)"
                       R"("tid":2})"
            << "binds to no single slice";
        QTest::newRow("no end")
            << names + R"({"ph":"s","name":"e","cat":"kernel","id":1,"ts":0,"pid":1,"tid":1})"
            << "lacks its \"f\"";
        QTest::newRow("overlap")
            << names + R"({"ph":"X","name":"c","cat":"kernel","ts":4,"dur":5,"pid":1,"tid":1})"
            << "without nesting";
        QTest::newRow("pid 0") << names + R"({"ph":"C","name":"u","ts":0,"pid":0,"args":{"x":1}})"
                               << "pid 0";
        QTest::newRow("negative dur")
            << names + R"({"ph":"X","name":"c","cat":"k","ts":40,"dur":-1,"pid":1,"tid":1})"
            << "negative";
        QTest::newRow("unnamed track")
            << names + R"({"ph":"X","name":"c","cat":"k","ts":40,"dur":1,"pid":1,"tid":3})"
            << "no thread_name";
    }
    void validatorRefuses() {
        QFETCH(QByteArray, events);
        QFETCH(QString, fragment);
        const util::Json doc =
            util::parseJsonText("{\"traceEvents\":[" + events.toStdString() + "]}", "t.json");
        const testing::TraceValidation v = testing::validateTrace(doc);
        QVERIFY(!v.problems.empty());
        QVERIFY2(QString::fromStdString(v.problems.front()).contains(fragment),
                 v.problems.front().c_str());
    }

    // Golden file: the greedy schedule of Figure 2 (stage {a, c, d} on three streams, then b,
    // then the concat). Set IOS_UPDATE_GOLDEN=1 to rewrite it after an intended model change.
    void figure2Golden() {
        const std::string json =
            io::chromeTraceJson(figure2Timeline(true), {"demo_figure2", "greedy"});
        const QString path = QStringLiteral(IOS_TEST_DATA_DIR "/demo_figure2_greedy.trace.json");
        if (qEnvironmentVariableIsSet("IOS_UPDATE_GOLDEN")) {
            QFile out(path);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(QByteArray::fromStdString(json));
        }
        QFile golden(path);
        QVERIFY2(golden.open(QIODevice::ReadOnly), qPrintable(path));
        QCOMPARE(QString::fromUtf8(golden.readAll()), QString::fromStdString(json));
    }

    void csv() {
        const auto tl = figure2Timeline(false);
        const std::string text = io::timelineCsv(tl);
        const QStringList lines =
            QString::fromStdString(text).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + static_cast<int>(tl.stages.size() + tl.kernels.size()));
        const int columns = static_cast<int>(lines.front().count(QLatin1Char(',')));
        QCOMPARE(columns, 11);
        for (const QString& l : lines)
            QCOMPARE(static_cast<int>(l.count(QLatin1Char(','))), columns);
        QVERIFY(lines[1].startsWith(QStringLiteral("stage,0,0,")));
    }

    void writesByExtensionAtomically() {
        QTemporaryDir dir;
        const auto tl = figure2Timeline(true);
        const std::string csvPath = dir.filePath(QStringLiteral("t.csv")).toStdString();
        const std::string jsonPath = dir.filePath(QStringLiteral("t.json")).toStdString();
        io::writeTimeline(csvPath, tl, {"demo_figure2", "greedy"});
        io::writeTimeline(jsonPath, tl, {"demo_figure2", "greedy"});
        QFile c(QString::fromStdString(csvPath)), j(QString::fromStdString(jsonPath));
        QVERIFY(c.open(QIODevice::ReadOnly) && j.open(QIODevice::ReadOnly));
        QVERIFY(c.readAll().startsWith("kind,block"));
        QVERIFY(!parseEvents(j.readAll().toStdString()).isEmpty());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2); // no temporaries left
    }
};

QTEST_GUILESS_MAIN(TestTraceExport)
#include "tst_trace_export.moc"
