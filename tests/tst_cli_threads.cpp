// SPDX-License-Identifier: Apache-2.0
// Every output is byte-identical for --threads 1, 2 and 7 (issue 18): optimize --json
// --stats, the saved schedule and model, compare --json (a metaflow row included), specialize
// --json, metaflow --json and its rewritten model, trace JSON; only
// wall-clock fields ("seconds", "search_seconds") are left out. Bad thread counts are refused.
#include "build_flavour.h"
#include "cli_run.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace ios;

namespace {

// The JSON text with every "seconds"/"search_seconds" member removed, at any depth.
QJsonValue withoutSeconds(const QJsonValue& v) {
    if (v.isObject()) {
        QJsonObject o;
        const QJsonObject in = v.toObject();
        for (auto it = in.begin(); it != in.end(); ++it)
            // Provenance names the command line (its --threads) and the time it ran.
            if (it.key() != QLatin1String("seconds") &&
                it.key() != QLatin1String("search_seconds") &&
                it.key() != QLatin1String("provenance"))
                o.insert(it.key(), withoutSeconds(it.value()));
        return o;
    }
    if (v.isArray()) {
        QJsonArray a;
        for (const QJsonValue& x : v.toArray())
            a.append(withoutSeconds(x));
        return a;
    }
    return v;
}

QByteArray stripped(const std::string& json) {
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    if (error.error != QJsonParseError::NoError)
        return "unparsable: " + QByteArray::fromStdString(json);
    const QJsonValue v =
        withoutSeconds(doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(doc.object()));
    return v.isArray() ? QJsonDocument(v.toArray()).toJson() : QJsonDocument(v.toObject()).toJson();
}

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("missing " + path.toUtf8());
}

} // namespace

class TestCliThreads : public QObject {
    Q_OBJECT

private slots:
    void outputsSameForEveryThreadCount_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("squeezenet") << "squeezenet";
        QTest::newRow("inception_v3") << "inception_v3";
        if (kFullModels)
            QTest::newRow("nasnet_large") << "nasnet_large";
    }
    void outputsSameForEveryThreadCount() {
        QFETCH(QString, model);
        const std::string m = model.toStdString();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QList<QByteArray> first;
        for (const char* threads : {"1", "2", "7"}) {
            const std::string t = threads;
            const std::string base =
                dir.filePath(QStringLiteral("t%1_").arg(threads)).toStdString();
            QList<QByteArray> outs;
            const auto opt = testing::runCli({"optimize", m, "--stats", "--json", "--threads", t,
                                              "--save-schedule", base + "schedule.json", "-o",
                                              base + "model.ios.json"});
            QCOMPARE(opt.code, 0);
            outs << stripped(opt.out)
                 << stripped(
                        fileBytes(QString::fromStdString(base + "schedule.json")).toStdString())
                 << fileBytes(QString::fromStdString(base + "model.ios.json"));
            const auto cmp = testing::runCli({"compare", m, "--json", "--threads", t});
            QCOMPARE(cmp.code, 0);
            outs << stripped(cmp.out);
            const auto spec = testing::runCli({"specialize", m, "--batches", "1,4", "--devices",
                                               "V100,K80", "--json", "--threads", t});
            QCOMPARE(spec.code, 0);
            outs << stripped(spec.out);
            // MetaFlow's search, its rewritten model and IOS-both on it.
            const auto mf = testing::runCli(
                {"metaflow", m, "--json", "--threads", t, "-o", base + "metaflow.ios.json"});
            QCOMPARE(mf.code, 0);
            outs << stripped(mf.out)
                 << fileBytes(QString::fromStdString(base + "metaflow.ios.json"));
            const auto trace = testing::runCli(
                {"trace", m, "--strategy", "ios-both", "--threads", t, "-o", base + "trace.json"});
            QCOMPARE(trace.code, 0);
            outs << stripped(fileBytes(QString::fromStdString(base + "trace.json")).toStdString());
            if (first.isEmpty()) {
                first = outs;
                continue;
            }
            for (int i = 0; i < outs.size(); ++i)
                QVERIFY2(outs[i] == first[i], qPrintable(QStringLiteral("output %1 differs at "
                                                                        "--threads %2")
                                                             .arg(i)
                                                             .arg(threads)));
        }
    }

    void badThreadCountsRefused_data() {
        QTest::addColumn<QString>("value");
        for (const char* v : {"0", "-1", "257", "many", ""})
            QTest::newRow(v) << v;
    }
    void badThreadCountsRefused() {
        QFETCH(QString, value);
        const auto r =
            testing::runCli({"optimize", "squeezenet", "--threads", value.toStdString()});
        QCOMPARE(r.code, 1);
        QVERIFY2(QString::fromStdString(r.err).contains(QLatin1String("--threads")), r.err.c_str());
        QVERIFY(r.out.empty());
    }
};

QTEST_GUILESS_MAIN(TestCliThreads)
#include "tst_cli_threads.moc"
