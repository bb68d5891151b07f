// SPDX-License-Identifier: Apache-2.0
// `ios-sched profile` end to end on the mock device (IOS_PROFILING_MOCK=1, as a dry run of
// tools/gpu_measure.sh): the cache it writes (one stage per canonical class; --every-stage:
// every stage) replays the measured search with `optimize --cost-model cache:FILE` on any
// number of threads, a run cut off by --max-graphs resumes to the same cache, bad
// options and a missing GPU exit 1 and write nothing.
#include "cuda_backend.h"
#include "mock_sched.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using Run = ios::testing::SchedRun;

Run sched(const QStringList& args, bool mock = true) {
    return ios::testing::runSchedCaptured(args, mock);
}

QByteArray readAll(const QString& file) {
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A schedule file's stages, without the note that says which command wrote it.
QJsonObject scheduleOf(const QString& file) {
    QJsonObject o = QJsonDocument::fromJson(readAll(file)).object();
    o.remove("note");
    o.remove("provenance"); // names each command line
    return o;
}

} // namespace

class TestCliProfile : public QObject {
    Q_OBJECT

private slots:
    void theCacheReplaysTheMeasuredSearch() {
        QTemporaryDir dir;
        const QString cache = dir.filePath("squeezenet.json");
        const Run r = sched({"profile", "squeezenet", "--cache", cache, "--json", "--save-schedule",
                             dir.filePath("profile.sched.json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QVERIFY2(!j.isEmpty(), r.out.constData()); // stdout holds the result alone
        QVERIFY(j["complete"].toBool());
        const int met = j["stages_met"].toInt();
        QVERIFY(met > 100);
        QCOMPARE(j["measured"].toInt() + j["shared"].toInt() + j["from_cache"].toInt(), met);
        QVERIFY(j["measured"].toInt() == j["distinct_canonical"].toInt());
        QVERIFY(j["graphs"].toInt() >= 1);
        QVERIFY(j["replays"].toInt() >= 12 * j["graphs"].toInt());
        QVERIFY(j["gpu_busy_seconds"].toDouble() > 0);
        QVERIFY(j["replay_command"].toString().contains("--cost-model cache:" + cache));
        QVERIFY(!QFile::exists(cache + ".partial"));

        const Run o = sched({"optimize", "squeezenet", "--cost-model", "cache:" + cache,
                             "--save-schedule", dir.filePath("optimize.sched.json"), "--json"});
        QVERIFY2(o.code == 0, o.err.constData());
        QCOMPARE(scheduleOf(dir.filePath("optimize.sched.json")),
                 scheduleOf(dir.filePath("profile.sched.json")));
        QCOMPARE(
            QJsonDocument::fromJson(o.out).object()["total"].toObject()["latency_ms"].toDouble(),
            j["search"].toArray()[0].toObject()["latency_ms"].toDouble());

        // Text output: the counts and the command to replay.
        const Run t = sched({"profile", "squeezenet", "--cache", cache, "--no-search"});
        QVERIFY2(t.code == 0, t.err.constData());
        QVERIFY(t.out.contains("stages met"));
        QVERIFY(t.out.contains("replay: ios-sched optimize squeezenet"));
        QVERIFY(!t.out.contains("from the cache:"));
    }

    // The cache holds one stage per canonical class (what was measured); `optimize` replays
    // the others by class, on two threads, to the profile's own search.
    void theCompactCacheReplaysOnSeveralThreads_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("squeezenet") << "squeezenet";
        QTest::newRow("inception_v3") << "inception_v3";
    }
    void theCompactCacheReplaysOnSeveralThreads() {
        QFETCH(QString, model);
        QTemporaryDir dir;
        const QString cache = dir.filePath("compact.json");
        const QString every = dir.filePath("every.json");
        const Run r = sched({"profile", model, "--cache", cache, "--json", "--strategy",
                             "ios-both,greedy,sequential", "--save-schedule",
                             dir.filePath("profile.sched.json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        const int classes = j["distinct_canonical"].toInt();
        QVERIFY(classes < j["stages_met"].toInt());
        QCOMPARE(j["measured"].toInt(), classes);
        QCOMPARE(j["entries_written"].toInt(), classes);
        QCOMPARE(j["cache_entries"].toInt(), classes);
        const QJsonArray entries =
            QJsonDocument::fromJson(readAll(cache)).object()["entries"].toArray();
        QCOMPARE(entries.size(), classes);

        const Run o = sched({"optimize", model, "--cost-model", "cache:" + cache, "--threads", "2",
                             "--save-schedule", dir.filePath("optimize.sched.json"), "--json"});
        QVERIFY2(o.code == 0, o.err.constData());
        QCOMPARE(scheduleOf(dir.filePath("optimize.sched.json")),
                 scheduleOf(dir.filePath("profile.sched.json")));
        QCOMPARE(
            QJsonDocument::fromJson(o.out).object()["total"].toObject()["latency_ms"].toDouble(),
            j["search"].toArray()[0].toObject()["latency_ms"].toDouble());

        // --every-stage: every met stage under its own name.
        const Run e = sched({"profile", model, "--cache", every, "--json", "--strategy",
                             "ios-both,greedy,sequential", "--every-stage", "--no-search"});
        QVERIFY2(e.code == 0, e.err.constData());
        const QJsonObject je = QJsonDocument::fromJson(e.out).object();
        QCOMPARE(je["entries_written"].toInt(), je["stages_met"].toInt());
        QCOMPARE(QJsonDocument::fromJson(readAll(every)).object()["entries"].toArray().size(),
                 je["stages_met"].toInt());
    }

    void anInterruptedRunResumes() {
        QTemporaryDir dir;
        const QString uncut = dir.filePath("uncut.json");
        const QString cut = dir.filePath("cut.json");
        const QStringList common = {"profile", "squeezenet",  "--stages-per-graph",
                                    "8",       "--no-search", "--json"};
        QCOMPARE(sched(common + QStringList{"--cache", uncut}).code, 0);
        const Run a = sched(common + QStringList{"--cache", cut, "--max-graphs", "3"});
        QVERIFY2(a.code == 0, a.err.constData());
        QVERIFY(a.err.contains("run the same command again"));
        QVERIFY(!QFile::exists(cut));
        QVERIFY(QFile::exists(cut + ".partial"));
        const QJsonObject ja = QJsonDocument::fromJson(a.out).object();
        QCOMPARE(ja["graphs"].toInt(), 3);
        QVERIFY(!ja["complete"].toBool());
        const Run b = sched(common + QStringList{"--cache", cut});
        QVERIFY2(b.code == 0, b.err.constData());
        const QJsonObject jb = QJsonDocument::fromJson(b.out).object();
        QVERIFY(jb["from_cache"].toInt() >= 24);
        QCOMPARE(jb["measured"].toInt() + ja["measured"].toInt(), jb["distinct_canonical"].toInt());
        QCOMPARE(readAll(cut), readAll(uncut));
        QVERIFY(!QFile::exists(cut + ".partial"));
    }

    void badOptionsExit1_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("no cache") << QStringList{"profile", "squeezenet"};
        QTest::newRow("zero stages per graph")
            << QStringList{"profile", "squeezenet", "--cache", "c.json", "--stages-per-graph", "0"};
        QTest::newRow("unknown strategy")
            << QStringList{"profile", "squeezenet", "--cache", "c.json", "--strategy", "nope"};
        QTest::newRow("unknown model") << QStringList{"profile", "nope", "--cache", "c.json"};
        QTest::newRow("negative max graphs")
            << QStringList{"profile", "squeezenet", "--cache", "c.json", "--max-graphs", "-1"};
    }
    void badOptionsExit1() {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        for (QString& a : args)
            if (a == "c.json")
                a = dir.filePath(a);
        const Run r = sched(args);
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("error"));
        QVERIFY(!QFile::exists(dir.filePath("c.json")));
    }

    void withoutAGpuNothingIsWritten() {
        if (ios::profiling::cudaDevicePresent())
            QSKIP("a CUDA device is available here: the no-GPU path cannot be exercised");
        QTemporaryDir dir;
        const QString cache = dir.filePath("c.json");
        const Run r = sched({"profile", "squeezenet", "--cache", cache}, false);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("no CUDA device available"), r.err.constData());
        QVERIFY(!QFile::exists(cache));
        QVERIFY(!QFile::exists(cache + ".partial"));
    }
};

QTEST_GUILESS_MAIN(TestCliProfile)
#include "tst_cli_profile.moc"
