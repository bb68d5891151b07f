// SPDX-License-Identifier: Apache-2.0
// `ios-sched streams` (app/cli/cmd_streams.cpp, docs/cli.md): a policy's stream program as
// text and as JSON (docs/formats.md "Stream programs"), written with -o and read back with
// --load at the same latency (also for a block wider than the stream limit), its trace with
// flow arrows, and clear refusals. Commands run
// in-process through runCommandLine (tests/cli_run.h).
#include "cli_run.h"
#include "io/model_file.h"
#include "ir/validate.h"
#include "ir_builders.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace ios;

namespace {

using testing::runCli;

QStringList lines(const std::string& text) {
    return QString::fromStdString(text).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

QJsonObject jsonObject(const QByteArray& text) {
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return {};
    return doc.object();
}

QStringList keys(const QJsonObject& o) {
    QStringList out;
    for (auto it = o.begin(); it != o.end(); ++it)
        out << it.key();
    out.sort();
    return out;
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestCliStreams : public QObject {
    Q_OBJECT

private slots:
    // optimize names a stream program's streams and events instead of stage counts.
    void optimizeReportsPrograms() {
        const testing::CliRun text = runCli({"optimize", "inception_v3", "--strategy", "raf-asap"});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.find("stream program: ") != std::string::npos, text.out.c_str());
        QVERIFY(text.out.find(" stages,") == std::string::npos);
        const testing::CliRun json =
            runCli({"optimize", "inception_v3", "--strategy", "raf-wavefront", "--json"});
        QCOMPARE(json.code, 0);
        const QJsonObject program =
            jsonObject(QByteArray::fromStdString(json.out)).value("program").toObject();
        QVERIFY(program.value("barriers").toInt() > 0);
        QCOMPARE(program.value("events").toInt(), 0);
        const testing::CliRun stages = runCli({"optimize", "inception_v3", "--json"});
        QVERIFY(!jsonObject(QByteArray::fromStdString(stages.out)).contains("program"));
    }

    void text() {
        const testing::CliRun r = runCli({"streams", "inception_v3", "--policy", "raf-asap"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.err.empty());
        const QStringList out = lines(r.out);
        QCOMPARE(out.first(), QStringLiteral("inception_v3: raf-asap, 13 blocks"));
        const QRegularExpression header(QStringLiteral(
            "^block (\\d+): \\d+ launches, \\d+ streams, \\d+ events, \\d+ records, \\d+ waits, "
            "\\d+ barriers, \\d+ syncs$"));
        const QRegularExpression instruction(
            QStringLiteral("^  (s\\d+ (launch \\S+( \\((synthetic|merged)\\))?|record e\\d+|wait "
                           "e\\d+)|barrier|sync)$"));
        int blocks = 0;
        int waits = 0;
        for (int i = 1; i + 1 < out.size(); ++i) {
            const QRegularExpressionMatch m = header.match(out[i]);
            if (m.hasMatch()) {
                QCOMPARE(m.captured(1).toInt(), blocks++);
                continue;
            }
            QVERIFY2(instruction.match(out[i]).hasMatch(), qPrintable(out[i]));
            waits += out[i].contains(QLatin1String(" wait e")) ? 1 : 0;
        }
        QCOMPARE(blocks, 13);
        QVERIFY2(waits > 0, "raf-asap orders streams with events");
        QVERIFY2(QRegularExpression(QStringLiteral("^latency \\d+\\.\\d{4} ms \\(simulated"))
                     .match(out.last())
                     .hasMatch(),
                 qPrintable(out.last()));
    }

    void json() {
        const testing::CliRun r =
            runCli({"streams", "inception_v3", "--policy", "raf-asap", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject doc = jsonObject(QByteArray::fromStdString(r.out));
        QCOMPARE(keys(doc), (QStringList{"blocks", "latency_ms", "model", "policy", "provenance"}));
        QCOMPARE(doc.value(QLatin1String("model")).toString(), QStringLiteral("inception_v3"));
        QCOMPARE(doc.value(QLatin1String("policy")).toString(), QStringLiteral("raf-asap"));
        QVERIFY(doc.value(QLatin1String("latency_ms")).toDouble() > 0);
        const QJsonArray blocks = doc.value(QLatin1String("blocks")).toArray();
        QCOMPARE(blocks.size(), 13);
        QSet<QString> ops;
        for (int b = 0; b < blocks.size(); ++b) {
            const QJsonObject block = blocks[b].toObject();
            QCOMPARE(keys(block), (QStringList{"block", "events", "program", "streams"}));
            QCOMPARE(block.value(QLatin1String("block")).toInt(), b);
            QSet<int> streams;
            for (const QJsonValue& v : block.value(QLatin1String("program")).toArray()) {
                const QJsonObject in = v.toObject();
                const QString op = in.value(QLatin1String("op")).toString();
                ops << op;
                if (op == QLatin1String("launch")) {
                    QVERIFY(!in.value(QLatin1String("node")).toString().isEmpty());
                    streams << in.value(QLatin1String("stream")).toInt(-1);
                    QVERIFY(!in.contains(QLatin1String("event")));
                } else if (op == QLatin1String("record") || op == QLatin1String("wait")) {
                    QCOMPARE(keys(in), (QStringList{"event", "op", "stream"}));
                    QVERIFY(in.value(QLatin1String("event")).toInt(-1) >= 0);
                } else {
                    QVERIFY2(op == QLatin1String("barrier") || op == QLatin1String("sync"),
                             qPrintable(op));
                    QCOMPARE(keys(in), QStringList{"op"});
                }
            }
            QCOMPARE(block.value(QLatin1String("streams")).toInt(), streams.size());
        }
        QVERIFY(ops.contains(QStringLiteral("launch")));
        QVERIFY(ops.contains(QStringLiteral("record")));
        QVERIFY(ops.contains(QStringLiteral("wait")));
    }

    void writeThenLoad() {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("p.json")).toStdString();
        const testing::CliRun written =
            runCli({"streams", "inception_v3", "--policy", "raf-asap", "-o", file, "--json"});
        QCOMPARE(written.code, 0);
        // The file holds what --json prints.
        QCOMPARE(readFile(QString::fromStdString(file)), QByteArray::fromStdString(written.out));
        const testing::CliRun loaded =
            runCli({"streams", "inception_v3", "--load", file, "--json"});
        QCOMPARE(loaded.code, 0);
        // Equal but for the provenance, which names each command line.
        QJsonObject a = jsonObject(QByteArray::fromStdString(written.out));
        QJsonObject b = jsonObject(QByteArray::fromStdString(loaded.out));
        a.remove(QStringLiteral("provenance"));
        b.remove(QStringLiteral("provenance"));
        QCOMPARE(b.value(QLatin1String("latency_ms")).toDouble(),
                 a.value(QLatin1String("latency_ms")).toDouble());
        QCOMPARE(b, a);
        const testing::CliRun text = runCli({"streams", "inception_v3", "--load", file});
        QCOMPARE(text.code, 0);
        QVERIFY2(lines(text.out).first().startsWith(QStringLiteral("inception_v3: program ")),
                 text.out.c_str());
        // Another model refuses the file, naming it.
        const testing::CliRun other = runCli({"streams", "squeezenet", "--load", file});
        QCOMPARE(other.code, 1);
        QVERIFY2(other.err.find(file + ": made for another model: its provenance names model "
                                       "'inception_v3'") != std::string::npos,
                 other.err.c_str());
    }

    // A block wider than the stream limit (4 100 independent relus): each policy that puts
    // independent work on streams of its own writes a program that --load reads back.
    void wideAntichainWritesWhatItLoads_data() {
        QTest::addColumn<QString>("policy");
        for (const char* p : {"greedy", "raf-wavefront", "raf-asap"})
            QTest::newRow(p) << QString::fromLatin1(p);
    }
    void wideAntichainWritesWhatItLoads() {
        QFETCH(QString, policy);
        QTemporaryDir dir;
        const std::string model = dir.filePath(QStringLiteral("wide.ios.json")).toStdString();
        const std::string file = dir.filePath(QStringLiteral("p.json")).toStdString();
        {
            using namespace ios::testing;
            ir::Graph g;
            g.name = "wide";
            g.input = placeholder("in", {2, 2, 2});
            std::vector<ir::Node> inner;
            std::vector<ir::ValueRef> outs;
            for (int i = 0; i < 4100; ++i) {
                inner.push_back(activation("r" + std::to_string(i), concat({val("in", 0, 2)}),
                                           ir::ActType::Relu));
                outs.push_back(val("r" + std::to_string(i), 0, 2));
            }
            g.blocks.push_back(block(g.input, std::move(inner),
                                     node(ir::NodeKind::Identity, "out", concat(outs))));
            ir::validateAndInferShapes(g);
            io::saveModelFile(g, model);
        }
        const testing::CliRun written =
            runCli({"streams", model, "--policy", policy.toStdString(), "-o", file});
        QVERIFY2(written.code == 0, written.err.c_str());
        const testing::CliRun loaded = runCli({"streams", model, "--load", file, "--json"});
        QVERIFY2(loaded.code == 0, loaded.err.c_str());
        const QJsonObject doc = jsonObject(QByteArray::fromStdString(loaded.out));
        const QJsonObject block = doc.value(QLatin1String("blocks")).toArray().at(0).toObject();
        QVERIFY(block.value(QLatin1String("streams")).toInt() <= 4096);
    }

    void trace() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("t.json"));
        const testing::CliRun r = runCli(
            {"streams", "inception_v3", "--policy", "raf-asap", "--trace", file.toStdString()});
        QCOMPARE(r.code, 0);
        const QJsonObject doc = jsonObject(readFile(file));
        QVERIFY(!doc.isEmpty());
        QHash<int, int> starts, finishes;
        for (const QJsonValue& v : doc.value(QLatin1String("traceEvents")).toArray()) {
            const QJsonObject e = v.toObject();
            const QString ph = e.value(QLatin1String("ph")).toString();
            const int id = e.value(QLatin1String("id")).toInt();
            if (ph == QLatin1String("s"))
                ++starts[id];
            if (ph == QLatin1String("f")) {
                ++finishes[id];
                QCOMPARE(e.value(QLatin1String("bp")).toString(), QStringLiteral("e"));
                QVERIFY(e.value(QLatin1String("tid")).toInt() >= 1); // a stream's track
            }
        }
        QVERIFY(!starts.isEmpty());
        QCOMPARE(starts, finishes);
    }

    void refusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("bad policy") << QStringList{"--policy", "nope"} << "'nope'";
        QTest::newRow("policy and load") << QStringList{"--policy", "raf-asap", "--load", "x.json"}
                                         << "--policy or --load, not both";
        QTest::newRow("tuples") << QStringList{"--raf-tuples", "maybe"}
                                << "--raf-tuples must be on or off";
        QTest::newRow("program extension") << QStringList{"-o", "p.txt"} << "written as .json";
        QTest::newRow("missing load")
            << QStringList{"--load", "/nonexistent/p.json"} << "/nonexistent/p.json";
    }
    void refusals() {
        QFETCH(QStringList, args);
        QFETCH(QString, fragment);
        QTemporaryDir dir;
        std::vector<std::string> argv{"streams", "inception_v3"};
        for (const QString& a : args)
            argv.push_back(a == QLatin1String("p.txt") ? dir.filePath(a).toStdString()
                                                       : a.toStdString());
        const testing::CliRun r = runCli(argv);
        QCOMPARE(r.code, 1);
        QVERIFY(r.out.empty());
        QCOMPARE(lines(r.err).size(), 1);
        QVERIFY2(
            QString::fromStdString(r.err).startsWith(QLatin1String("ios-sched streams: error:")),
            r.err.c_str());
        QVERIFY2(QString::fromStdString(r.err).contains(fragment), r.err.c_str());
        if (QTest::currentDataTag() == QLatin1String("bad policy"))
            QVERIFY2(r.err.find("raf-asap") != std::string::npos, "the valid keys are listed");
    }
};

QTEST_GUILESS_MAIN(TestCliStreams)
#include "tst_cli_streams.moc"
