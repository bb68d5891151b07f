// SPDX-License-Identifier: Apache-2.0
// `ios-sched profile --store` under concurrency and kills (issue 34, docs/gpu.md "Sharing
// measurements"), run as a team would, through the ios-sched binary on mock devices
// (IOS_PROFILING_MOCK): 8 concurrent runs of overlapping models into one SQLite store (and
// into PostgreSQL when IOS_TEST_POSTGRES_URL names a server) lose nothing — the store exports
// byte for byte what a serial run's does; runs killed (SIGKILL) at seeded moments leave a store
// that opens and holds only whole graphs of correct measurements, and a re-run completes it to
// the serial run's; 4 shards merged export byte for byte what one process does; two mock
// devices in one store are never mixed; the Slurm and Kubernetes examples parse and run.
// Every run uses SOURCE_DATE_EPOCH and --repeat 10, so equal measurements are equal bytes.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <memory>
#include <vector>

namespace {

constexpr int kStagesPerGraph = 16;

QProcessEnvironment environment(const QString& mock) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("IOS_PROFILING_MOCK", mock);
    env.insert("SOURCE_DATE_EPOCH", "1700000000");
    return env;
}

struct Run {
    int code = -1;
    QByteArray out, err;
};

Run sched(const QStringList& args, const QString& mock = "1") {
    QProcess p;
    p.setProcessEnvironment(environment(mock));
    p.start(QStringLiteral(IOS_SCHED_PATH), args);
    Run r;
    if (!p.waitForFinished(300000))
        return r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QStringList profileArgs(const QString& model, const QString& url, int repeat = 10) {
    QStringList args = {"profile", model, "--store", url, "--repeat", QString::number(repeat)};
    return args << "--no-search"
                << "--stages-per-graph" << QString::number(kStagesPerGraph);
}

// The store's export (deterministic: equal stores, equal bytes).
QByteArray exportOf(const QString& url) {
    const Run r = sched({"store", "export", url, "-o", "-"});
    if (r.code != 0)
        qWarning("store export %s: %s", qPrintable(url), r.err.constData());
    return r.code == 0 ? r.out : QByteArray();
}

// The export's samples, each spelled out in full (device, operators by signature, values):
// comparable between stores that hold different subsets (their index lists differ).
QStringList samplesOf(const QByteArray& exported) {
    const QJsonObject doc = QJsonDocument::fromJson(exported).object();
    const QJsonArray ops = doc["operators"].toArray();
    const QJsonArray devices = doc["devices"].toArray();
    QStringList out;
    for (const QJsonValue& v : doc["samples"].toArray()) {
        QJsonObject s = v.toObject();
        s["device"] = devices[s["device"].toInt()];
        QJsonArray groups;
        for (const QJsonValue& g : s["groups"].toArray()) {
            QJsonArray named;
            for (const QJsonValue& op : g.toArray())
                named.append(ops[op.toInt()]);
            groups.append(named);
        }
        s["groups"] = groups;
        out << QString::fromUtf8(QJsonDocument(s).toJson(QJsonDocument::Compact));
    }
    out.sort();
    return out;
}

} // namespace

class TestProfileStore : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QByteArray serial_;           // squeezenet then inception_v3, one process at a time
    QStringList serialInception_; // inception_v3 alone, its samples

    QString path(const QString& name) const { return dir_.filePath(name); }

    // 8 profile runs at once, models alternating, into `url`; all must exit 0.
    void profileConcurrently(const QString& url) {
        std::vector<std::unique_ptr<QProcess>> runs;
        for (int i = 0; i < 8; ++i) {
            auto p = std::make_unique<QProcess>();
            p->setProcessEnvironment(environment("1"));
            p->start(QStringLiteral(IOS_SCHED_PATH),
                     profileArgs(i % 2 == 0 ? "inception_v3" : "squeezenet", url));
            runs.push_back(std::move(p));
        }
        for (auto& p : runs) {
            QVERIFY(p->waitForFinished(300000));
            QVERIFY2(p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0,
                     p->readAllStandardError().constData());
        }
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        for (const QString model : {"squeezenet", "inception_v3"})
            QCOMPARE(sched(profileArgs(model, path("serial.db"))).code, 0);
        serial_ = exportOf(path("serial.db"));
        QVERIFY(serial_.contains("\"samples\""));
        QCOMPARE(sched(profileArgs("inception_v3", path("inception.db"))).code, 0);
        serialInception_ = samplesOf(exportOf(path("inception.db")));
        QVERIFY(serialInception_.size() > 1000);
    }

    void eightConcurrentRunsIntoSqliteLoseNothing() {
        const QString url = "sqlite:" + path("concurrent.db");
        profileConcurrently(url);
        QCOMPARE(exportOf(url), serial_);
        // Run again: everything is there, nothing is added.
        const Run again = sched(profileArgs("inception_v3", url) << "--json");
        QCOMPARE(again.code, 0);
        QCOMPARE(QJsonDocument::fromJson(again.out)["entries_added"].toInt(), 0);
        QCOMPARE(QJsonDocument::fromJson(again.out)["measured"].toInt(), 0);
    }

    void eightConcurrentRunsIntoPostgresLoseNothing() {
        const QString url = qEnvironmentVariable("IOS_TEST_POSTGRES_URL");
        if (url.isEmpty())
            QSKIP("IOS_TEST_POSTGRES_URL is not set (the PostgreSQL test fixture sets it)");
        sched({"store", "prune", url, "--before", "4102444800"}); // empty the shared server
        profileConcurrently(url);
        QCOMPARE(exportOf(url), serial_);
    }

    // Seeded kill moments, one after another on one store: after each, the store opens and
    // holds whole graphs (the first k × 16 classes: a graph is one transaction) of exactly the
    // reference run's values; a final run completes it to the reference run's store. The
    // moments fall in the measuring stretch of an uncut run (its length read from --json;
    // 40 timed replays per graph widen it), at seeded fractions of it: where a kill lands
    // varies with the machine's speed, what is asserted does not.
    void killedRunsLeaveWholeGraphsAndResume() {
        constexpr int kRepeat = 40;
        const QString reference = "sqlite:" + path("kill-reference.db");
        QElapsedTimer clock;
        clock.start();
        const Run uncut = sched(profileArgs("inception_v3", reference, kRepeat) << "--json");
        const double wallMs = static_cast<double>(clock.elapsed());
        QCOMPARE(uncut.code, 0);
        const double measureMs =
            1000 * QJsonDocument::fromJson(uncut.out)["measurement_seconds"].toDouble();
        const QStringList all = samplesOf(exportOf(reference));
        const QByteArray complete = exportOf(reference);
        int cut = 0;
        QStringList heldAfter; // for the log: samples after each kill
        for (const quint32 seed : {1U, 2U, 3U, 4U, 5U, 6U}) {
            QRandomGenerator random(seed);
            const double at = wallMs - measureMs + measureMs * random.bounded(0.95);
            const QString file = path(QString("killed-%1.db").arg(seed));
            const QString url = "sqlite:" + file;
            QProcess p;
            p.setProcessEnvironment(environment("1"));
            p.start(QStringLiteral(IOS_SCHED_PATH), profileArgs("inception_v3", url, kRepeat));
            QVERIFY(p.waitForStarted());
            if (!p.waitForFinished(std::max(1, static_cast<int>(at)))) {
                p.kill(); // SIGKILL
                ++cut;
                QVERIFY(p.waitForFinished(300000));
            }
            if (QFile::exists(file)) { // else killed before it created the store
                const Run info = sched({"store", "info", url});
                QVERIFY2(info.code == 0, info.err.constData());
                const QStringList held = samplesOf(exportOf(url));
                heldAfter << QString::number(held.size());
                QVERIFY2(held.size() % kStagesPerGraph == 0 || held.size() == all.size(),
                         qPrintable(QString::number(held.size())));
                for (const QString& s : held)
                    QVERIFY2(all.contains(s), qPrintable(s));
            }
            QCOMPARE(sched(profileArgs("inception_v3", url, kRepeat)).code, 0);
            QCOMPARE(exportOf(url), complete);
        }
        qInfo("%d of 6 runs were killed before they finished; samples then: %s of %lld", cut,
              qPrintable(heldAfter.join(", ")), static_cast<long long>(all.size()));
    }

    void fourShardsMergedEqualOneProcess() {
        QStringList shards;
        for (int i = 0; i < 4; ++i) {
            const QString shard = path(QString("shard-%1.db").arg(i));
            for (const QString model : {"squeezenet", "inception_v3"}) {
                const Run r =
                    sched(profileArgs(model, shard) << "--shard" << QString("%1/4").arg(i));
                QCOMPARE(r.code, 0);
                QVERIFY(r.err.contains("no search"));
            }
            shards << shard;
        }
        QCOMPARE(sched(QStringList{"store", "merge"} << shards << "-o" << path("merged.db")).code,
                 0);
        QCOMPARE(exportOf(path("merged.db")), serial_);
        // Merging again changes nothing.
        QCOMPARE(sched(QStringList{"store", "merge"} << shards << "-o" << path("merged.db")).code,
                 0);
        QCOMPARE(exportOf(path("merged.db")), serial_);
    }

    void twoMockDevicesNeverMix() {
        const QString both = path("two-devices.db");
        const QString onlyB = path("only-b.db");
        const QString onlyOne = path("only-1.db");
        const auto profile = [](const QString& url, const QString& mock) {
            const Run r = sched(profileArgs("squeezenet", url) << "--json", mock);
            return QJsonDocument::fromJson(r.out)["identity_id"].toString();
        };
        const QString idOne = profile(both, "1");
        const QString idB = profile(both, "mock-b");
        QVERIFY(!idOne.isEmpty() && !idB.isEmpty() && idOne != idB);
        profile(onlyB, "mock-b");
        profile(onlyOne, "1");
        const auto latency = [](const QString& costModel) {
            const Run r = sched({"optimize", "squeezenet", "--cost-model", costModel, "--json"});
            if (r.code != 0)
                qWarning("%s", r.err.constData());
            return QJsonDocument::fromJson(r.out)["total"]["latency_ms"].toDouble(-1);
        };
        const Run ambiguous = sched({"optimize", "squeezenet", "--cost-model", "store:" + both});
        QCOMPARE(ambiguous.code, 1);
        QVERIFY2(ambiguous.err.contains(idOne.toUtf8()) && ambiguous.err.contains(idB.toUtf8()),
                 ambiguous.err.constData());
        const double b = latency("store:" + both + "@" + idB);
        const double one = latency("store:" + both + "@" + idOne);
        QVERIFY(b > 0 && one > 0);
        QCOMPARE(b, latency("store:" + onlyB));
        QCOMPARE(one, latency("store:" + onlyOne));
        QVERIFY(std::abs(b - one) > 0.1 * one);
    }

    // docs/examples/profile-array.sbatch: valid bash, and run as task 1 of 4 (mock device,
    // one small model) it profiles that shard into its own store.
    void theSlurmArrayScriptRuns() {
        const QString script = QStringLiteral(IOS_SOURCE_DIR "/docs/examples/profile-array.sbatch");
        QProcess check;
        check.start("bash", {"-n", script});
        QVERIFY(check.waitForFinished());
        QCOMPARE(check.exitCode(), 0);
        QProcess p;
        QProcessEnvironment env = environment("1");
        env.insert("SLURM_ARRAY_TASK_ID", "1");
        env.insert("SLURM_ARRAY_TASK_COUNT", "4");
        env.insert("IOS_SCHED", QStringLiteral(IOS_SCHED_PATH));
        env.insert("MODELS", "squeezenet");
        env.insert("OUT_DIR", path("slurm"));
        p.setProcessEnvironment(env);
        p.start("bash", {script});
        QVERIFY(p.waitForFinished(120000));
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(p.exitCode() == 0, err.constData());
        QVERIFY2(err.contains("shard 1/4"), err.constData());
        // What `ios-sched profile squeezenet --store ... --shard 1/4` writes.
        const QString reference = path("squeezenet-1-of-4.db");
        QCOMPARE(sched({"profile", "squeezenet", "--store", reference, "--shard", "1/4"}).code, 0);
        const QByteArray written = exportOf(path("slurm/profile-1-of-4.db"));
        QVERIFY(!samplesOf(written).isEmpty());
        QCOMPARE(samplesOf(written), samplesOf(exportOf(reference)));
    }

    // docs/examples/profile-indexed-job.yaml: loads as YAML, is an Indexed Job whose SHARDS
    // equals its completions, and its command, run as pod 2 with ios-sched on the PATH and a
    // SQLite STORE_URL, profiles that shard.
    void theKubernetesIndexedJobRuns() {
        const QString yaml =
            QStringLiteral(IOS_SOURCE_DIR "/docs/examples/profile-indexed-job.yaml");
        QProcess load;
        load.start("python3",
                   {"-c",
                    "import json, sys, yaml\n"
                    "job = yaml.safe_load(open(sys.argv[1]))\n"
                    "spec = job['spec']\n"
                    "c = spec['template']['spec']['containers'][0]\n"
                    "env = {e['name']: e.get('value') for e in c['env']}\n"
                    "print(json.dumps({'mode': spec['completionMode'], 'completions': "
                    "spec['completions'], 'shards': env['SHARDS'], 'command': c['command'], "
                    "'script': c['args'][0]}))\n",
                    yaml});
        QVERIFY(load.waitForFinished(60000));
        if (load.exitCode() != 0 && load.readAllStandardError().contains("No module named"))
            QSKIP("python3-yaml is not installed");
        const QJsonObject job = QJsonDocument::fromJson(load.readAllStandardOutput()).object();
        QCOMPARE(job["mode"].toString(), QString("Indexed"));
        QCOMPARE(job["shards"].toString(), QString::number(job["completions"].toInt()));
        QCOMPARE(job["command"].toArray().first().toString(), QString("/bin/sh"));
        QDir().mkpath(path("bin"));
        QVERIFY(QFile::link(QStringLiteral(IOS_SCHED_PATH), path("bin/ios-sched")));
        QProcess p;
        QProcessEnvironment env = environment("1");
        env.insert("PATH", path("bin") + ":" + env.value("PATH"));
        env.insert("JOB_COMPLETION_INDEX", "2");
        env.insert("SHARDS", "4");
        env.insert("MODELS", "squeezenet");
        env.insert("STORE_URL", "sqlite:" + path("pod-2.db"));
        p.setProcessEnvironment(env);
        p.start("/bin/sh", {"-c", job["script"].toString()});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY(!samplesOf(exportOf("sqlite:" + path("pod-2.db"))).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestProfileStore)
#include "tst_profile_store.moc"
