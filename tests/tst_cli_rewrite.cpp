// SPDX-License-Identifier: Apache-2.0
// `ios-sched memory --rewrite none|all|best` (docs/cli.md, docs/memory.md "Identity graph
// rewriting"): the A5 example's peaks with and without rewriting in text and JSON, the
// rewrite counts per block, every key the command printed before, and the refusal of an
// unknown mode.
#include "cli_run.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ios;

namespace {

using testing::runCli;

const std::string kFourBranch = IOS_TEST_DATA_DIR "/serenity_four_branch.ios.json";

QJsonObject memoryJson(std::vector<std::string> extra) {
    std::vector<std::string> args = {"memory", kFourBranch, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const testing::CliRun r = runCli(args);
    if (r.code != 0)
        return {};
    return QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).object();
}

} // namespace

class TestCliRewrite : public QObject {
    Q_OBJECT

private slots:
    void modes_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("assembly");
        QTest::addColumn<qint64>("peak");
        QTest::addColumn<qint64>("unrewritten");
        QTest::addColumn<int>("rewrites");
        QTest::newRow("none") << "none"
                              << "core" << qint64{20480} << qint64{20480} << 0;
        QTest::newRow("all") << "all"
                             << "core" << qint64{16384} << qint64{20480} << 1;
        QTest::newRow("best") << "best"
                              << "core" << qint64{16384} << qint64{20480} << 1;
        QTest::newRow("best, materialized")
            << "best"
            << "materialized" << qint64{16384} << qint64{32768} << 1;
    }
    void modes() {
        QFETCH(QString, mode);
        QFETCH(QString, assembly);
        QFETCH(qint64, peak);
        QFETCH(qint64, unrewritten);
        QFETCH(int, rewrites);
        const QJsonObject j =
            memoryJson({"--rewrite", mode.toStdString(), "--assembly", assembly.toStdString()});
        QCOMPARE(j.value("rewrite").toString(), mode);
        QCOMPARE(j.value("peak_bytes").toInteger(), peak);
        QCOMPARE(j.value("unrewritten_peak_bytes").toInteger(), unrewritten);
        QCOMPARE(j.value("file_peak_bytes").toInteger(), unrewritten); // the graph as it is
        for (const char* key : {"model", "order", "seconds", "blocks"})
            QVERIFY2(j.contains(key), key);
        const QJsonArray blocks = j.value("blocks").toArray();
        QCOMPARE(blocks.size(), 1);
        const QJsonObject b = blocks.first().toObject();
        for (const char* key : {"block", "peak_bytes", "file_peak_bytes", "optimal", "entries",
                                "expansions", "partitions", "tau_trace", "seconds", "order"})
            QVERIFY2(b.contains(key), key);
        QCOMPARE(b.value("rewrites").toInt(), rewrites);
        QCOMPARE(b.value("rewrite_matches").toInt(), 1);
        QCOMPARE(b.value("unrewritten_peak_bytes").toInteger(), unrewritten);
        QCOMPARE(b.value("order").toArray().size(), rewrites == 0 ? 5 : 8);
        QVERIFY(b.value("optimal").toBool());
    }

    void bestIsTheDefault() {
        QCOMPARE(memoryJson({}).value("rewrite").toString(), QString("best"));
        const testing::CliRun text = runCli({"memory", kFourBranch});
        QCOMPARE(text.code, 0);
        const QString out = QString::fromStdString(text.out);
        QVERIFY2(out.contains("rewrite best") && out.contains("1/1") &&
                     out.contains("peak 16.0 KiB (16384 B), without rewriting 20.0 KiB (20480 B)"),
                 text.out.c_str());
    }

    void unknownModeIsRefused() {
        const testing::CliRun r = runCli({"memory", kFourBranch, "--rewrite", "some"});
        QCOMPARE(r.code, 1);
        QVERIFY2(QString::fromStdString(r.err).contains("--rewrite must be one of none, all, best"),
                 r.err.c_str());
        QVERIFY(r.out.empty());
    }
};

QTEST_GUILESS_MAIN(TestCliRewrite)
#include "tst_cli_rewrite.moc"
