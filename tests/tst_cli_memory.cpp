// SPDX-License-Identifier: Apache-2.0
// `ios-sched memory`, `ios-sched pareto` and --memory-budget (docs/cli.md, docs/memory.md):
// the JSON object of the memory command and its options, ONNX imports, the budgeted search
// in optimize and compare's peak column, the Pareto points, and clear refusals (exit 1).
#include "cli_run.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ios;

namespace {

using testing::runCli;

QJsonObject object(const std::string& text) {
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text));
    return doc.isObject() ? doc.object() : QJsonObject();
}

qint64 peakOf(const std::vector<std::string>& args) {
    const testing::CliRun r = runCli(args);
    if (r.code != 0)
        return -1;
    return object(r.out).value("peak_bytes").toInteger(-1);
}

const QString kOnnx = QStringLiteral(IOS_SOURCE_DIR "/sample_models/onnx/squeezenet1_1.onnx");

} // namespace

class TestCliMemory : public QObject {
    Q_OBJECT

private slots:
    void memoryJson() {
        const testing::CliRun r = runCli({"memory", "inception_v3", "--json", "--arena", "tflite"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = object(r.out);
        QCOMPARE(j.value("model").toString(), QString("inception_v3"));
        QCOMPARE(j.value("order").toString(), QString("serenity"));
        for (const char* key :
             {"peak_bytes", "seconds", "blocks", "file_peak_bytes", "arena_bytes"})
            QVERIFY2(j.contains(key), key);
        const QJsonArray blocks = j.value("blocks").toArray();
        QCOMPARE(blocks.size(), 13);
        qint64 largest = 0;
        for (const QJsonValue& v : blocks) {
            const QJsonObject b = v.toObject();
            for (const char* key : {"block", "peak_bytes", "entries", "expansions", "partitions",
                                    "tau_trace", "order"})
                QVERIFY2(b.contains(key), key);
            largest = std::max(largest, b.value("peak_bytes").toInteger());
            int ops = 0;
            for (const QJsonValue& size : b.value("partitions").toArray())
                ops += size.toInt();
            QCOMPARE(ops, b.value("order").toArray().size());
            QVERIFY(b.value("peak_bytes").toInteger() <= b.value("file_peak_bytes").toInteger());
            const QJsonArray trace = b.value("tau_trace").toArray();
            QVERIFY(!trace.isEmpty());
            QCOMPARE(trace.last().toArray().at(1).toString(), QString("solution"));
            QVERIFY(b.value("optimal").toBool());
        }
        QCOMPARE(j.value("peak_bytes").toInteger(), largest);
        QVERIFY(j.value("arena_bytes").toInteger() >= j.value("peak_bytes").toInteger());
    }

    void memoryOptionsScale() {
        const qint64 base = peakOf({"memory", "randwire_large", "--json"});
        QVERIFY(base > 0);
        QCOMPARE(peakOf({"memory", "randwire_large", "--json", "--bytes-per-element", "1"}),
                 base / 4);
        QCOMPARE(peakOf({"memory", "randwire_large", "--json", "--batch", "2"}), base * 2);
        const qint64 file = peakOf({"memory", "randwire_large", "--json", "--order", "file"});
        const qint64 kahn = peakOf({"memory", "randwire_large", "--json", "--order", "kahn"});
        QVERIFY(base < file); // RandWire: 18.4 MiB against 22.1 MiB in file order
        QVERIFY(base <= kahn);
        QCOMPARE(peakOf({"memory", "randwire_large", "--json", "--order", "tflite"}), file);
        QVERIFY(peakOf({"memory", "randwire_large", "--json", "--count-weights"}) > base);
        QVERIFY(peakOf({"memory", "randwire_large", "--json", "--assembly", "materialized"}) >=
                base);
        const testing::CliRun none =
            runCli({"memory", "squeezenet", "--json", "--partition", "none"});
        QCOMPARE(none.code, 0);
        QCOMPARE(object(none.out).value("blocks").toArray().size(), 1);
        const testing::CliRun text = runCli({"memory", "randwire_large"});
        QCOMPARE(text.code, 0);
        QVERIFY(QString::fromStdString(text.out).contains("lower"));
        QVERIFY(QString::fromStdString(text.out).contains("ns/exp"));
        const testing::CliRun onnx = runCli({"memory", kOnnx.toStdString(), "--json"});
        QCOMPARE(onnx.code, 0);
        QVERIFY(object(onnx.out).value("peak_bytes").toInteger() > 0);
    }

    void memoryRefusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("order") << QStringList{"--order", "best"} << "--order must be one of";
        QTest::newRow("partition") << QStringList{"--partition", "x"} << "--partition";
        QTest::newRow("limit") << QStringList{"--limit-expansions", "-1"} << "--limit-expansions";
        QTest::newRow("bpe") << QStringList{"--bytes-per-element", "0"} << "--bytes-per-element";
        QTest::newRow("arena") << QStringList{"--arena", "malloc"} << "--arena takes tflite";
        QTest::newRow("assembly") << QStringList{"--assembly", "x"} << "--assembly";
        QTest::newRow("brute") << QStringList{"--order", "brute", "--partition", "blocks"}
                               << "at most 10";
    }
    void memoryRefusals() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        std::vector<std::string> argv = {"memory", "inception_v3"};
        for (const QString& a : args)
            argv.push_back(a.toStdString());
        const testing::CliRun r = runCli(argv);
        QCOMPARE(r.code, 1);
        QVERIFY2(QString::fromStdString(r.err).contains(message), r.err.c_str());
        QVERIFY(r.out.empty());
    }

    void memoryBudgetInOptimize() {
        const testing::CliRun free = runCli({"optimize", "randwire_large", "--json"});
        QCOMPARE(free.code, 0);
        const QJsonObject freeTotal = object(free.out).value("total").toObject();
        const qint64 freePeak = freeTotal.value("peak_bytes").toInteger();
        const qint64 cap = freePeak - 2 * 1024 * 1024;
        const testing::CliRun capped = runCli(
            {"optimize", "randwire_large", "--json", "--memory-budget", std::to_string(cap)});
        QCOMPARE(capped.code, 0);
        const QJsonObject total = object(capped.out).value("total").toObject();
        QVERIFY(total.value("peak_bytes").toInteger() <= cap);
        QCOMPARE(total.value("memory_budget_bytes").toInteger(), cap);
        QVERIFY(total.value("latency_ms").toDouble() >= freeTotal.value("latency_ms").toDouble());
        const testing::CliRun units =
            runCli({"optimize", "randwire_large", "--memory-budget", "19MiB"});
        QCOMPARE(units.code, 0);
        QVERIFY(QString::fromStdString(units.out).contains("budget 19.0 MiB"));

        const testing::CliRun tiny =
            runCli({"optimize", "randwire_large", "--memory-budget", "1KiB"});
        QCOMPARE(tiny.code, 1);
        QVERIFY(QString::fromStdString(tiny.err).contains("no schedule fits"));
        QVERIFY(QString::fromStdString(tiny.err).contains("19317760 B")); // Serenity's minimum
        const testing::CliRun greedy =
            runCli({"optimize", "squeezenet", "--strategy", "greedy", "--memory-budget", "1MiB"});
        QCOMPARE(greedy.code, 1);
        QVERIFY(QString::fromStdString(greedy.err).contains("IOS strategies"));
        const testing::CliRun junk = runCli({"optimize", "squeezenet", "--memory-budget", "lots"});
        QCOMPARE(junk.code, 1);
        QVERIFY(QString::fromStdString(junk.err).contains("size in bytes"));
    }

    void compareHasPeakColumn() {
        const testing::CliRun r = runCli({"compare", "squeezenet", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonArray rows = QJsonDocument::fromJson(QByteArray::fromStdString(r.out))
                                    .object()
                                    .value("strategies")
                                    .toArray();
        QVERIFY(!rows.isEmpty());
        for (const QJsonValue& row : rows)
            QVERIFY(row.toObject().value("peak_bytes").toInteger() > 0);
        const testing::CliRun text = runCli({"compare", "squeezenet"});
        QVERIFY(QString::fromStdString(text.out).contains("peak memory"));
    }

    void paretoPoints() {
        const testing::CliRun r = runCli({"pareto", "randwire_large", "--json", "--points", "5"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = object(r.out);
        const QJsonArray points = j.value("points").toArray();
        QVERIFY(points.size() >= 2);
        QCOMPARE(points.first().toObject().value("budget_bytes").toInteger(), 0);
        QCOMPARE(points.first().toObject().value("peak_bytes").toInteger(),
                 j.value("unconstrained_peak_bytes").toInteger());
        QCOMPARE(points.last().toObject().value("peak_bytes").toInteger(),
                 j.value("smallest_peak_bytes").toInteger());
        double latency = 0;
        for (const QJsonValue& v : points) {
            const QJsonObject p = v.toObject();
            QVERIFY(p.value("latency_ms").toDouble() >= latency);
            latency = p.value("latency_ms").toDouble();
            if (p.value("budget_bytes").toInteger() > 0)
                QVERIFY(p.value("peak_bytes").toInteger() <= p.value("budget_bytes").toInteger());
            QCOMPARE(p.value("schedule").toObject().value("blocks").toArray().size(),
                     object(runCli({"memory", "randwire_large", "--json"}).out)
                         .value("blocks")
                         .toArray()
                         .size());
        }
        const testing::CliRun greedy = runCli({"pareto", "squeezenet", "--strategy", "greedy"});
        QCOMPARE(greedy.code, 1);
        QVERIFY(QString::fromStdString(greedy.err).contains("memory budget"));
        const testing::CliRun few = runCli({"pareto", "squeezenet", "--points", "1"});
        QCOMPARE(few.code, 1);
    }
};

QTEST_GUILESS_MAIN(TestCliMemory)
#include "tst_cli_memory.moc"
