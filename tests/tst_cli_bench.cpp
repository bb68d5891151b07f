// SPDX-License-Identifier: Apache-2.0
// `ios-sched bench`: the per-setting figures (states, transitions, distinct stages, memo hit
// rate, ns per transition, parts searched), --settings, --threads, and --scaling on the
// RandWire-style generator (deterministic graphs whose DP grows with their size).
#include "cli_run.h"
#include "randwire_generator.h"
#include "util/error.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ios;

namespace {

QJsonArray rowsOf(const testing::CliRun& r) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).array();
}

} // namespace

class TestCliBench : public QObject {
    Q_OBJECT

private slots:
    void settingsAndFigures() {
        const auto r = testing::runCli({"bench", "squeezenet", "inception_v3", "--settings",
                                        "both,merge", "--json", "--threads", "2"});
        QCOMPARE(r.code, 0);
        const QJsonArray rows = rowsOf(r);
        QCOMPARE(rows.size(), 4);
        QCOMPARE(rows[0].toObject()["setting"].toString(), QStringLiteral("both r3s8"));
        QCOMPARE(rows[1].toObject()["setting"].toString(), QStringLiteral("merge"));
        const QJsonObject both = rows[2].toObject(); // inception_v3 both r3s8
        QCOMPARE(both["model"].toString(), QStringLiteral("inception_v3"));
        QCOMPARE(both["states"].toInteger(), 1206); // docs/performance.md counts
        QCOMPARE(both["transitions"].toInteger(), 28874);
        QVERIFY(both["stages"].toInteger() > 0);
        QVERIFY(both["stages_priced"].toInteger() <= both["stages"].toInteger());
        const double hit = both["memo_hit_rate"].toDouble();
        QVERIFY(hit >= 0 && hit <= 1);
        QVERIFY(both["parts_searched"].toInteger() <= both["parts"].toInteger());
        QVERIFY(both["ns_per_transition"].toDouble() > 0);
        QCOMPARE(both["operators"].toInteger(), 119);
    }

    void unknownSettingRefused() {
        const auto r = testing::runCli({"bench", "squeezenet", "--settings", "fast"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.find("unknown setting 'fast'") != std::string::npos);
    }

    void scalingGrowsWithTheGraph() {
        const auto r = testing::runCli(
            {"bench", "--scaling", "--settings", "r1s8", "--json", "--cost-model", "analytic"});
        QCOMPARE(r.code, 0);
        const QJsonArray rows = rowsOf(r);
        QCOMPARE(rows.size(), 9); // w = 4 .. 12
        for (int i = 0; i < rows.size(); ++i) {
            const QJsonObject o = rows[i].toObject();
            QCOMPARE(o["model"].toString(), QStringLiteral("randwire_style_%1").arg(3 * (i + 4)));
            QCOMPARE(o["operators"].toInteger(), 3 * (i + 4) + 1); // nodes + the output node
        }
        QVERIFY(rows.last().toObject()["states"].toInteger() >
                10 * rows.first().toObject()["states"].toInteger());
        QCOMPARE(testing::runCli({"bench", "squeezenet", "--scaling"}).code, 1);
    }

    void generatorIsDeterministic() {
        const ir::Graph a = samples::randwireStyleGraph(30);
        QCOMPARE(a.operatorCount(), size_t(31));
        QVERIFY(a == samples::randwireStyleGraph(30));
        QVERIFY(!(a == samples::randwireStyleGraph(30, 2)));
        QVERIFY_THROWS_EXCEPTION(UserError, samples::randwireStyleGraph(4));
    }
};

QTEST_GUILESS_MAIN(TestCliBench)
#include "tst_cli_bench.moc"
