// SPDX-License-Identifier: Apache-2.0
// `ios-sched store info|merge|export|import|prune` and `--cost-model store:URL`, through the
// ios-sched binary: a legacy cache written by `profile` on the mock GPU imports into a store
// that prices the same search as the cache; export/import round-trips byte for byte; merge
// is idempotent; every refusal exits 1 with one line and leaves no store behind.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int code = -1;
    QString out, err;
};

Run ios(const QStringList& args, const QString& cwd) {
    QProcess p;
    p.setWorkingDirectory(cwd);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("IOS_PROFILING_MOCK", "1");
    p.setProcessEnvironment(env);
    p.start(IOS_SCHED_PATH, args);
    p.waitForFinished(300000);
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The latency an optimize line reports ("latency 0.3186 ms").
QString latencyOf(const QString& out) {
    const int at = out.indexOf("latency ");
    return at < 0 ? QString() : out.mid(at, out.indexOf(" ms", at) - at);
}

} // namespace

class TestCliStore : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString d_;

    Run run(const QStringList& args) { return ios(args, d_); }
    void expectUserError(const QStringList& args, const QString& says) {
        const Run r = run(args);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.trimmed().count('\n') == 0 && r.err.contains(says),
                 qPrintable(args.join(' ') + ": " + r.err));
    }

private slots:
    void initTestCase() {
        d_ = dir_.path();
        const Run r = run({"profile", "squeezenet", "--cache", "legacy.json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    void helpForEverySubcommand() {
        QCOMPARE(run({"store", "--help"}).code, 0);
        for (const char* sub : {"info", "merge", "export", "import", "prune"}) {
            const Run r = run({"store", sub, "--help"});
            QCOMPARE(r.code, 0);
            QVERIFY2(r.out.contains(QString("ios-sched store ") + sub), qPrintable(r.out));
        }
        expectUserError({"store"}, "needs a subcommand");
        expectUserError({"store", "frobnicate"}, "unknown store subcommand");
    }

    void importPricesTheSameSearch() {
        const Run imported = run({"store", "import", "legacy.json", "-o", "legacy.db"});
        QVERIFY2(imported.code == 0, qPrintable(imported.err));
        const Run info = run({"store", "info", "legacy.db", "--json"});
        QCOMPARE(info.code, 0);
        const QJsonObject j = QJsonDocument::fromJson(info.out.toUtf8()).object();
        const int entries = QJsonDocument::fromJson(readAll(d_ + "/legacy.json"))
                                .object()["entries"]
                                .toArray()
                                .size();
        QCOMPARE(j["samples"].toInt(), entries);
        QCOMPARE(j["setups"].toArray().size(), 1);
        const Run human = run({"store", "info", "legacy.db"});
        QVERIFY(human.code == 0 && human.out.contains("Mock GPU"));
        const Run fromCache = run({"optimize", "squeezenet", "--cost-model", "cache:legacy.json"});
        const Run fromStore = run({"optimize", "squeezenet", "--cost-model", "store:legacy.db"});
        QVERIFY2(fromStore.code == 0, qPrintable(fromStore.err));
        QVERIFY(!latencyOf(fromCache.out).isEmpty());
        QCOMPARE(latencyOf(fromStore.out), latencyOf(fromCache.out));
        QVERIFY(fromStore.out.contains("store:legacy.db"));
        // Another model's stages are not all there: refused, or simulated when allowed.
        expectUserError({"optimize", "inception_v3", "--cost-model", "store:legacy.db"},
                        "has no measurement of stage");
        expectUserError({"optimize", "inception_v3", "--cost-model", "store:legacy.db"},
                        "(--store-fallback simulated prices such stages");
        const Run fallback = run({"optimize", "inception_v3", "--cost-model", "store:legacy.db",
                                  "--store-fallback", "simulated"});
        QVERIFY2(fallback.code == 0 && fallback.out.contains("stages simulated"),
                 qPrintable(fallback.out + fallback.err));
    }

    void exportImportAndMergeAreLossless() {
        QCOMPARE(run({"store", "import", "legacy.json", "-o", "a.db"}).code, 0);
        QCOMPARE(run({"store", "export", "a.db", "-o", "a.json"}).code, 0);
        const Run toStdout = run({"store", "export", "sqlite:a.db"});
        QCOMPARE(toStdout.out.toUtf8(), readAll(d_ + "/a.json"));
        QCOMPARE(run({"store", "import", "a.json", "-o", "b.db"}).code, 0);
        QCOMPARE(run({"store", "export", "b.db", "-o", "b.json"}).code, 0);
        QCOMPARE(readAll(d_ + "/b.json"), readAll(d_ + "/a.json"));
        for (int i = 0; i < 2; ++i) { // merging twice changes nothing
            const Run m = run({"store", "merge", "a.db", "b.db", "-o", "m.db"});
            QVERIFY2(m.code == 0, qPrintable(m.err));
            QVERIFY(m.out.contains(i == 0 ? "new)" : "(0 new)"));
            QCOMPARE(run({"store", "export", "m.db", "-o", "m.json"}).code, 0);
            QCOMPARE(readAll(d_ + "/m.json"), readAll(d_ + "/a.json"));
        }
    }

    void pruneNeedsAFilter() {
        QCOMPARE(run({"store", "import", "legacy.json", "-o", "p.db"}).code, 0);
        expectUserError({"store", "prune", "p.db"}, "needs a filter");
        expectUserError({"store", "prune", "p.db", "--before", "yesterday"}, "--before");
        expectUserError({"store", "prune", "p.db", "--device", "hnothing"}, "hnothing");
        const QJsonObject info =
            QJsonDocument::fromJson(run({"store", "info", "p.db", "--json"}).out.toUtf8()).object();
        const QString id = info["setups"].toArray()[0].toObject()["id"].toString();
        const Run kept = run({"store", "prune", "p.db", "--before", "1970-01-01"});
        QVERIFY(kept.code == 0 && kept.out.contains("removed 0 samples"));
        const Run pruned = run({"store", "prune", "p.db", "--device", id});
        QVERIFY2(
            pruned.code == 0 &&
                pruned.out.contains(QString("removed %1 samples").arg(info["samples"].toInt())),
            qPrintable(pruned.out + pruned.err));
    }

    void refusalsLeaveNothing() {
        QFile bad(d_ + "/bad.json");
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"format\": \"ios-explorer-measurement-store\", \"version\": 1, \"operators\": "
                  "[\"zz\"], \"devices\": [], \"samples\": []}");
        bad.close();
        expectUserError({"store", "import", "bad.json", "-o", "never.db"}, "operators[0]");
        QVERIFY(!QFile::exists(d_ + "/never.db"));
        QByteArray legacy = readAll(d_ + "/legacy.json");
        legacy.replace("\"squeezenet\"", "\"my_private_net\"");
        QFile other(d_ + "/other.json");
        QVERIFY(other.open(QIODevice::WriteOnly));
        other.write(legacy);
        other.close();
        expectUserError({"store", "import", "other.json", "-o", "never.db"}, "--model FILE");
        QVERIFY(!QFile::exists(d_ + "/never.db"));
        expectUserError({"store", "info", "missing.db"}, "does not exist");
        expectUserError({"store", "info", "legacy.json"}, "not a SQLite database");
        expectUserError({"store", "export", "legacy.db", "-o", "no/such/dir/x.json"}, "x.json");
        expectUserError({"store", "merge", "missing.db", "-o", "never.db"}, "missing.db");
        QVERIFY(!QFile::exists(d_ + "/never.db"));
        expectUserError({"optimize", "squeezenet", "--cost-model", "store:legacy.db",
                         "--store-fallback", "maybe"},
                        "--store-fallback");
    }
};

QTEST_GUILESS_MAIN(TestCliStore)
#include "tst_cli_store.moc"
