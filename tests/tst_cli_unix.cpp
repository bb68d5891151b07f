// SPDX-License-Identifier: Apache-2.0
// Unix conventions of ios-sched (docs/cli.md "Conventions"), run as a real process: "-" is
// standard input where a file is read and standard output where one is written; --quiet
// silences everything but errors; progress shows on a terminal only unless --progress asks;
// exit codes 0 / 1 with one line naming standard input.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int code = -1;
    QByteArray out, err;
};

Run sched(const QStringList& args, const QByteArray& input = {}) {
    QProcess p;
    p.start(QStringLiteral(IOS_SCHED_PATH), args);
    p.write(input);
    p.closeWriteChannel();
    Run r;
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QJsonObject object(const QByteArray& text) {
    return QJsonDocument::fromJson(text).object();
}

// The same without its provenance (which names the command line and the time).
QJsonObject content(const QByteArray& text) {
    QJsonObject o = object(text);
    o.remove(QStringLiteral("provenance"));
    return o;
}

} // namespace

class TestCliUnix : public QObject {
    Q_OBJECT

private slots:
    void modelThroughAPipe() {
        const Run native = sched({"convert", "squeezenet", "-"});
        QCOMPARE(native.code, 0);
        QCOMPARE(object(native.out).value("format").toString(), QStringLiteral("ios-explorer"));
        const Run info = sched({"info", "-", "--json"}, native.out);
        QCOMPARE(info.code, 0);
        QCOMPARE(object(info.out).value("name").toString(), QStringLiteral("squeezenet"));
        // IOS JSON on standard input is told from native JSON by its content.
        QFile ios(QStringLiteral(IOS_SOURCE_DIR "/sample_models/squeezenet.ios.json"));
        QVERIFY(ios.open(QIODevice::ReadOnly));
        const Run fromIos = sched({"convert", "-", "-"}, ios.readAll());
        QCOMPARE(fromIos.code, 0);
        QCOMPARE(content(fromIos.out), content(native.out));
    }

    void badInputOnStandardInput() {
        for (const QByteArray& junk :
             {QByteArray("{\"bad"), QByteArray("\x08\x01garbage"), QByteArray()}) {
            const Run r = sched({"info", "-"}, junk);
            QCOMPARE(r.code, 1);
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY2(r.err.startsWith("ios-sched info: error: standard input: "), r.err);
            QVERIFY(r.out.isEmpty());
        }
    }

    void outputsToStandardOutput() {
        // The data alone on standard output; the summary for people moves to stderr.
        const Run trace = sched({"trace", "squeezenet", "--strategy", "greedy", "-o", "-"});
        QCOMPARE(trace.code, 0);
        QVERIFY(object(trace.out).contains("traceEvents"));
        QVERIFY2(trace.err.startsWith("squeezenet: greedy, "), trace.err);
        const Run schedule = sched({"optimize", "squeezenet", "-q", "--save-schedule", "-"});
        QCOMPARE(schedule.code, 0);
        QVERIFY2(schedule.out.startsWith("{"), schedule.out.left(200));
        const Run two =
            sched({"streams", "squeezenet", "--policy", "raf-asap", "-o", "-", "--trace", "-"});
        QCOMPARE(two.code, 1);
        QVERIFY2(two.err.contains("two outputs cannot both go to standard output"), two.err);
        QVERIFY(two.out.isEmpty());
    }

    void quietKeepsOnlyErrors() {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("g.ios.json"));
        // SqueezeNet's rewritten graph has in-place concatenations IOS JSON cannot mark: a
        // warning, unless --quiet.
        const Run loud = sched({"metaflow", "squeezenet", "-o", out});
        QCOMPARE(loud.code, 0);
        QVERIFY2(loud.err.contains("warning:"), loud.err);
        const Run quiet = sched({"metaflow", "squeezenet", "-o", out, "--quiet"});
        QCOMPARE(quiet.code, 0);
        QCOMPARE(quiet.err, QByteArray());
        QVERIFY(quiet.out.startsWith("squeezenet: MetaFlow"));
        const Run error = sched({"-q", "info", "no-such-model"});
        QCOMPARE(error.code, 1);
        QVERIFY(error.err.contains("error:"));
        // After "--", -q is an argument again.
        QCOMPARE(sched({"info", "--", "-q"}).code, 1);
    }

    void progressOnlyWhenAsked() {
        const Run piped = sched({"optimize", "nasnet_large", "--threads", "1"});
        QCOMPARE(piped.code, 0);
        QVERIFY2(!piped.err.contains("% ("), piped.err);
        const Run asked = sched({"optimize", "nasnet_large", "--threads", "1", "--progress"});
        QCOMPARE(asked.code, 0);
        QVERIFY2(asked.err.contains("optimize nasnet_large: ") && asked.err.contains("% ("),
                 asked.err);
        QVERIFY(!asked.err.contains('\r')); // a line per report, not a redrawn line
        QVERIFY(asked.out.startsWith("nasnet_large: ios-both"));
    }
};

QTEST_GUILESS_MAIN(TestCliUnix)
#include "tst_cli_unix.moc"
