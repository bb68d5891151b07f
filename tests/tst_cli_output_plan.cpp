// SPDX-License-Identifier: Apache-2.0
// One output plan per command (issue 37 item 1): every file a command writes (-o,
// --save-schedule, the measurement cache and its journal FILE.partial, --measure-cache) and
// every file it reads (the model, cache:FILE) are registered in one place; an output that is
// another output (by name, "./", a symbolic link or a hard link) or an input is refused
// before any work with one line naming both, exit 1, and every file stays as it was. Runs
// ios-sched on the mock device (IOS_PROFILING_MOCK=1).
#include "mock_sched.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <unistd.h>

namespace {

using Run = ios::testing::SchedRun;

Run sched(const QStringList& args) {
    return ios::testing::runSchedCaptured(args);
}

QByteArray readAll(const QString& file) {
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The folder's files and their bytes: what a refused command must leave as it was.
QMap<QString, QByteArray> snapshot(const QString& dir) {
    QMap<QString, QByteArray> out;
    for (const QString& name : QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::System))
        out[name] = readAll(QDir(dir).filePath(name));
    return out;
}

constexpr const char* kModel = "demo_inception_module";

} // namespace

class TestCliOutputPlan : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString cache_;

    QString at(const QString& name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        cache_ = at("c.json");
        const Run r = sched({"profile", kModel, "--cache", cache_, "--no-search"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(QFile::exists(cache_));
        QCOMPARE(::symlink("c.json", qPrintable(at("link.json"))), 0);
        QCOMPARE(::link(qPrintable(cache_), qPrintable(at("hard.json"))), 0);
        QVERIFY(QFile::copy(QStringLiteral(IOS_SOURCE_DIR "/sample_models/") + kModel + ".ios.json",
                            at("m.ios.json")));
    }

    // profile --save-schedule naming its own cache or journal, however spelled.
    void profileRefusesAScheduleOverItsCache_data() {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<QString>("other");
        QTest::newRow("the cache") << "c.json"
                                   << "the measurement cache (--cache)";
        QTest::newRow("./") << "./c.json"
                            << "the measurement cache (--cache)";
        QTest::newRow("symbolic link") << "link.json"
                                       << "the measurement cache (--cache)";
        QTest::newRow("hard link") << "hard.json"
                                   << "the measurement cache (--cache)";
        QTest::newRow("the journal") << "c.json.partial"
                                     << "the profiling journal of --cache";
    }
    void profileRefusesAScheduleOverItsCache() {
        QFETCH(QString, schedule);
        QFETCH(QString, other);
        const auto before = snapshot(dir_.path());
        const Run r =
            sched({"profile", kModel, "--cache", cache_, "--save-schedule", at(schedule)});
        QCOMPARE(r.code, 1);
        QVERIFY2(
            r.err.contains(": cannot write file: it is the same file as another output of this "
                           "command, " +
                           other.toUtf8() + " '"),
            r.err.constData());
        QCOMPARE(r.err.count('\n'), 1); // one line
        QCOMPARE(snapshot(dir_.path()), before);
    }

    // --cost-model measured saves its cache as it measures: no other output may be that file.
    void optimizeRefusesAnOutputOverItsMeasureCache_data() {
        QTest::addColumn<QString>("option");
        QTest::newRow("--save-schedule") << "--save-schedule";
        QTest::newRow("-o") << "-o";
    }
    void optimizeRefusesAnOutputOverItsMeasureCache() {
        QFETCH(QString, option);
        const QString m = at("m.json");
        const Run r = sched({"optimize", kModel, "--cost-model", "measured", "--measure-cache", m,
                             option, dir_.path() + "/./m.json"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("the same file as another output of this command, the measurement "
                                "cache (--measure-cache) '" +
                                m.toUtf8() + "'"),
                 r.err.constData());
        QVERIFY(!QFile::exists(m));
    }

    // An output that is an input of the same command: the cache replayed, the model read.
    void anOutputThatIsAnInputIsRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("input");
        QTest::newRow("optimize -o cache:FILE")
            << QStringList{"optimize", kModel, "--cost-model", "cache:c.json", "-o", "hard.json"}
            << "the measurement cache of --cost-model cache:FILE 'c.json'";
        QTest::newRow("optimize -o MODEL")
            << QStringList{"optimize", "m.ios.json", "-o", "./m.ios.json"}
            << "the model file 'm.ios.json'";
        QTest::newRow("profile --cache MODEL")
            << QStringList{"profile", "m.ios.json", "--cache", "m.ios.json"}
            << "the model file 'm.ios.json'";
        QTest::newRow("convert MODEL MODEL")
            << QStringList{"convert", "m.ios.json", "m.ios.json"} << "the model file 'm.ios.json'";
    }
    void anOutputThatIsAnInputIsRefused() {
        QFETCH(QStringList, args);
        QFETCH(QString, input);
        const QString cwd = QDir::currentPath();
        QVERIFY(QDir::setCurrent(dir_.path())); // the child runs here: relative names
        const auto before = snapshot(dir_.path());
        const Run r = sched(args);
        const auto after = snapshot(dir_.path());
        QDir::setCurrent(cwd);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("cannot write file: it is also " + input.toUtf8() +
                                ", which this command reads"),
                 r.err.constData());
        QCOMPARE(after, before);
    }

    // Outputs of their own files still work together.
    void distinctOutputsAreWritten() {
        const Run r =
            sched({"profile", kModel, "--cache", cache_, "--save-schedule", at("s.json")});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(readAll(at("s.json")).contains("\"stages\""));
        QVERIFY(readAll(cache_).contains("ios-explorer-measurements"));
    }
};

QTEST_GUILESS_MAIN(TestCliOutputPlan)
#include "tst_cli_output_plan.moc"
