// SPDX-License-Identifier: Apache-2.0
// The CLI reads its strategies from the registry only: a scheduler registered in-process shows
// up in `strategies`, in `compare` and as a --strategy choice with nothing else edited; the
// old names still work. Commands run in-process through runCommandLine (app/cli/command.h).
#include "cli_run.h"
#include "schedulers/scheduler.h"
#include "throwaway_scheduler.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <iostream>
#include <sstream>

using namespace ios;

namespace {

using testing::runCli;
using Run = testing::CliRun;

QJsonArray jsonArray(const std::string& text) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(text)).array();
}

QStringList column(const QJsonArray& rows, const char* field) {
    QStringList out;
    for (const QJsonValue& v : rows)
        out << v.toObject().value(QLatin1String(field)).toString();
    return out;
}

} // namespace

class TestCliRegistry : public QObject {
    Q_OBJECT

private slots:
    void strategiesJsonIsTheRegistry() {
        const Run r = runCli({"strategies", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonArray rows = jsonArray(r.out);
        QCOMPARE(column(rows, "key"), testing::registeredKeys());
        for (const QJsonValue& v : rows) {
            const QJsonObject o = v.toObject();
            QVERIFY(!o.value(QLatin1String("label")).toString().isEmpty());
            QVERIFY(!o.value(QLatin1String("description")).toString().isEmpty());
            QVERIFY(o.value(QLatin1String("knobs")).isArray());
        }
        const QJsonObject both =
            rows.at(testing::registeredKeys().indexOf(QLatin1String("ios-both"))).toObject();
        QVERIFY(
            both.value(QLatin1String("knobs")).toArray().contains(QJsonValue(QLatin1String("r"))));
    }

    void throwawaySchedulerReachesEveryList() {
        const testing::ThrowawayRegistration reg;
        const QString key = QLatin1String(testing::kThrowawayKey);
        const Run list = runCli({"strategies", "--json"});
        QCOMPARE(list.code, 0);
        QVERIFY(column(jsonArray(list.out), "key").contains(key));

        const Run compare = runCli({"compare", "demo_figure2", "--json"});
        QCOMPARE(compare.code, 0);
        QCOMPARE(column(QJsonDocument::fromJson(QByteArray::fromStdString(compare.out))
                            .object()
                            .value("strategies")
                            .toArray(),
                        "strategy"),
                 testing::registeredKeys());

        const Run optimize = runCli({"optimize", "demo_figure2", "--strategy", "test-alias"});
        QCOMPARE(optimize.code, 0);
        QVERIFY2(optimize.out.find(testing::kThrowawayKey) != std::string::npos,
                 optimize.out.c_str());

        const Run help = runCli({"optimize", "--help"});
        QVERIFY(help.out.find(testing::kThrowawayKey) != std::string::npos);
    }

    void oldNamesStillWork_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("key");
        QTest::newRow("both") << "both"
                              << "ios-both";
        QTest::newRow("merge") << "merge"
                               << "ios-merge";
        QTest::newRow("parallel") << "parallel"
                                  << "ios-parallel";
    }
    void oldNamesStillWork() {
        QFETCH(QString, name);
        QFETCH(QString, key);
        const Run r =
            runCli({"optimize", "squeezenet", "--strategy", name.toStdString(), "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).object();
        QCOMPARE(o.value(QLatin1String("strategy")).toString(), key);
    }

    void unknownStrategyNamesTheChoices() {
        const Run r = runCli({"trace", "squeezenet", "--strategy", "bogus", "-o", "x.json"});
        QCOMPARE(r.code, 1);
        for (const QString& k : testing::registeredKeys())
            QVERIFY2(r.err.find(k.toStdString()) != std::string::npos, r.err.c_str());
        QVERIFY(!QFile::exists(QStringLiteral("x.json")));
    }
};

QTEST_GUILESS_MAIN(TestCliRegistry)
#include "tst_cli_registry.moc"
