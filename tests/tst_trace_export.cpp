// Chrome trace event JSON (the schema Perfetto and chrome://tracing read: required fields per
// phase, non-overlapping and time-ordered complete events per track) and CSV; golden file
// for the Figure 2 demo graph.
#include "baseline_timeline.h"
#include "bundled_models.h"
#include "eval/timeline.h"
#include "io/trace_export.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <map>

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
        const QJsonArray events = parseEvents(io::chromeTraceJson(tl, {graph.name, "x"}));
        QVERIFY(!events.isEmpty());

        std::map<std::pair<int, int>, double> lastEnd; // (pid, tid) → end of the last X event
        double lastCounter = -1;
        int kernels = 0, stages = 0, counters = 0, threadNames = 0;
        for (const QJsonValue& v : events) {
            const QJsonObject e = v.toObject();
            for (const char* key : {"name", "ph", "pid"})
                QVERIFY2(e.contains(QLatin1String(key)), key);
            const QString ph = e.value(QStringLiteral("ph")).toString();
            const int pid = e.value(QStringLiteral("pid")).toInt();
            if (ph == QStringLiteral("M")) {
                QVERIFY(
                    e.value(QStringLiteral("args")).toObject().contains(QStringLiteral("name")));
                threadNames +=
                    e.value(QStringLiteral("name")).toString() == QStringLiteral("thread_name");
            } else if (ph == QStringLiteral("X")) {
                QVERIFY(e.contains(QStringLiteral("tid")) && e.contains(QStringLiteral("ts")) &&
                        e.contains(QStringLiteral("dur")));
                const double ts = e.value(QStringLiteral("ts")).toDouble();
                const double dur = e.value(QStringLiteral("dur")).toDouble();
                QVERIFY(ts >= 0 && dur >= 0);
                const auto track = std::make_pair(pid, e.value(QStringLiteral("tid")).toInt());
                auto it = lastEnd.find(track);
                if (it != lastEnd.end())
                    QVERIFY2(ts >= it->second - 1e-9,
                             "events of a track overlap or go back in time");
                lastEnd[track] = ts + dur;
                (e.value(QStringLiteral("cat")).toString() == QStringLiteral("kernel") ? kernels
                                                                                       : stages)++;
            } else if (ph == QStringLiteral("C")) {
                const double ts = e.value(QStringLiteral("ts")).toDouble();
                QVERIFY(ts > lastCounter);
                lastCounter = ts;
                const QJsonObject args = e.value(QStringLiteral("args")).toObject();
                const double pct = args.value(QStringLiteral("active_sm_pct")).toDouble(-1);
                QVERIFY(pct >= 0 && pct <= 100);
                ++counters;
            } else {
                QFAIL(qPrintable(QStringLiteral("unexpected phase ") + ph));
            }
        }
        QCOMPARE(kernels, static_cast<int>(tl.kernels.size()));
        QCOMPARE(stages, static_cast<int>(tl.stages.size()));
        QCOMPARE(threadNames, tl.streams + 1);
        QVERIFY(counters >= 2);
        // The stage track ends at the latency.
        QVERIFY(qAbs(lastEnd[{0, 0}] - tl.latencyUs) < 0.01);
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
