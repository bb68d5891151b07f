// SPDX-License-Identifier: Apache-2.0
// The outputs of an ios-sched command are one transaction (issue 19, defect 7): a failed run
// changes no existing output, a killed or interrupted run leaves no temporary file, replaced
// files keep their mode. In-process runs (runCommandLine) for failures; the built binary
// (QProcess) for kill -9, SIGINT and SIGTERM.
#include "cli_run.h"
#include "util/file_util.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

using namespace ios;

namespace {

testing::CliRun runCli(const QStringList& args) {
    std::vector<std::string> argv;
    for (const QString& a : args)
        argv.push_back(a.toStdString());
    return testing::runCli(argv);
}

// Everything in a folder with each file's bytes, inode, mode and mtime: equal means untouched.
QStringList snapshot(const QString& dir) {
    QStringList rows;
    for (const QString& name : QDir(dir).entryList(
             QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString path = dir + QLatin1Char('/') + name;
        struct stat st = {};
        ::lstat(qPrintable(path), &st);
        QString row = QStringLiteral("%1 %2 %3 %4.%5")
                          .arg(name)
                          .arg(st.st_ino)
                          .arg(st.st_mode, 0, 8)
                          .arg(st.st_mtim.tv_sec)
                          .arg(st.st_mtim.tv_nsec);
        if (S_ISREG(st.st_mode))
            row += QStringLiteral(" ") + QString::number(qHash(QByteArray::fromStdString(
                                             util::readTextFile(path.toStdString()))));
        rows << row;
    }
    return rows;
}

// 'T' once the process stopped itself at the commit (IOS_OUTPUT_TEST_STOP_BEFORE_COMMIT).
char processState(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return '?';
    const QByteArray line = stat.readAll();
    const qsizetype close = line.lastIndexOf(')');
    return close >= 0 && close + 2 < line.size() ? line.at(close + 2) : '?';
}

// Whether the process has installed a handler for `sig` (the SigCgt mask of /proc/PID/status):
// a signal sent earlier, while a slow (sanitizer) build is still starting, would kill it.
bool catchesSignal(qint64 pid, int sig) {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return false;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("SigCgt:"))
            return (line.mid(7).trimmed().toULongLong(nullptr, 16) >> (sig - 1)) & 1;
    return false;
}

void startSched(QProcess& p, const QStringList& args, const QString& dir,
                const QStringList& env = {}) {
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const QString& name : env)
        e.insert(name, QStringLiteral("1"));
    p.setProcessEnvironment(e);
    p.setWorkingDirectory(dir);
    p.start(QStringLiteral(IOS_SCHED_PATH), args);
    QVERIFY(p.waitForStarted(-1));
}

} // namespace

class TestCliOutputs : public QObject {
    Q_OBJECT

private slots:
    // Defect 7: `optimize -o OLD --save-schedule X` with an X that cannot be written exited 1
    // after OLD had been replaced. Now X is refused before the search and OLD is untouched.
    void failedRunKeepsExistingOutputs_data() {
        QTest::addColumn<QString>("second");
        QTest::addColumn<QString>("expected");
        QTest::newRow("/proc") << "/proc/x.json"
                               << "no new file can be created in the folder";
        QTest::newRow("FIFO") << "fifo.json"
                              << "it is a FIFO";
        QTest::newRow("read-only") << "ro.json"
                                   << "it is read-only (mode 0444)";
        QTest::newRow("directory") << "dir.json"
                                   << "it is a directory";
        QTest::newRow("link to nothing") << "dangling.json"
                                         << "symbolic link to a missing file";
        QTest::newRow("same file") << "./OLD.ios.json"
                                   << "another output of this command";
    }
    void failedRunKeepsExistingOutputs() {
        QFETCH(QString, second);
        QFETCH(QString, expected);
        if (second.startsWith(QStringLiteral("/proc/")) &&
            !QFileInfo(QStringLiteral("/proc/self")).isDir())
            QSKIP("no /proc");
        QTemporaryDir root;
        const QString old = root.filePath(QStringLiteral("OLD.ios.json"));
        QCOMPARE(runCli({"optimize", "squeezenet", "--strategy", "sequential", "-o", old}).code, 0);
        QCOMPARE(::mkfifo(qPrintable(root.filePath(QStringLiteral("fifo.json"))), 0644), 0);
        util::writeFileAtomically(root.filePath(QStringLiteral("ro.json")).toStdString(), "mine");
        QCOMPARE(::chmod(qPrintable(root.filePath(QStringLiteral("ro.json"))), 0444), 0);
        QVERIFY(QDir(root.path()).mkdir(QStringLiteral("dir.json")));
        QCOMPARE(::symlink("nowhere", qPrintable(root.filePath(QStringLiteral("dangling.json")))),
                 0);
        const QString target = second.startsWith('/') ? second : root.filePath(second);
        const QStringList before = snapshot(root.path());

        const testing::CliRun r =
            runCli({"optimize", "squeezenet", "-o", old, "--save-schedule", target});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.out.empty(), r.out.c_str());
        const QString err = QString::fromStdString(r.err);
        QVERIFY2(err.count('\n') == 1 && err.contains(target + ": cannot write file: ") &&
                     err.contains(expected),
                 qPrintable(err));
        QCOMPARE(snapshot(root.path()), before);
    }

    void bothOutputsWrittenTogether() {
        QTemporaryDir root;
        const QString model = root.filePath(QStringLiteral("m.ios.json"));
        const QString sched = root.filePath(QStringLiteral("s.json"));
        const testing::CliRun r =
            runCli({"optimize", "squeezenet", "-o", model, "--save-schedule", sched});
        QCOMPARE(r.code, 0);
        QVERIFY(QFileInfo(model).size() > 0 && QFileInfo(sched).size() > 0);
        QCOMPARE(
            QDir(root.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
            (QStringList{"m.ios.json", "s.json"}));
    }

    // "Also": a 0600 output came back 0644. Every command keeps the mode of what it replaces.
    void modeKept_data() {
        QTest::addColumn<QStringList>("args"); // OUT is the output
        QTest::newRow("convert") << QStringList{"convert", "squeezenet", "OUT"};
        QTest::newRow("optimize") << QStringList{"optimize", "squeezenet", "-o", "OUT"};
        QTest::newRow("trace") << QStringList{"trace", "squeezenet", "-o", "OUT"};
    }
    void modeKept() {
        QFETCH(QStringList, args);
        QTemporaryDir root;
        const QString out = root.filePath(args.first() == "trace" ? "t.json" : "m.ios.json");
        util::writeFileAtomically(out.toStdString(), "old");
        QCOMPARE(::chmod(qPrintable(out), 0600), 0);
        args.replaceInStrings(QStringLiteral("OUT"), out);
        QCOMPARE(runCli(args).code, 0);
        struct stat st = {};
        QCOMPARE(::stat(qPrintable(out), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t{0600});
        QVERIFY(QFileInfo(out).size() > 3);
    }

    // kill -9 in the middle of a long search: the old output stays, nothing else appears.
    void killDuringSearchLeavesNothing() {
        QTemporaryDir root;
        const QString out = root.filePath(QStringLiteral("out.ios.json"));
        util::writeFileAtomically(out.toStdString(), "old");
        const QStringList before = snapshot(root.path());
        QProcess p;
        startSched(p,
                   {"optimize", "nasnet_large", "-r", "100", "-s", "100", "-o", out,
                    "--save-schedule", "s.json"},
                   root.path());
        QTest::qWait(300);
        p.kill();
        QVERIFY(p.waitForFinished(-1));
        QCOMPARE(snapshot(root.path()), before);
    }

    // kill -9 with both outputs staged (stopped just before the commit): with O_TMPFILE the
    // staged files have no name, so nothing is left; with named temporaries (file systems
    // without O_TMPFILE) they are left, and the next run in that folder removes them.
    void killWithStagedOutputs_data() {
        QTest::addColumn<bool>("named");
        QTest::newRow("O_TMPFILE") << false;
        QTest::newRow("named temporaries") << true;
    }
    void killWithStagedOutputs() {
        QFETCH(bool, named);
        QTemporaryDir root;
        const QString out = root.filePath(QStringLiteral("out.ios.json"));
        util::writeFileAtomically(out.toStdString(), "old");
        const QStringList before = snapshot(root.path());
        QStringList env{QStringLiteral("IOS_OUTPUT_TEST_STOP_BEFORE_COMMIT")};
        if (named)
            env << QStringLiteral("IOS_OUTPUT_NO_TMPFILE");
        QProcess p;
        startSched(p, {"optimize", "squeezenet", "-o", out, "--save-schedule", "s.json"},
                   root.path(), env);
        QTRY_VERIFY_WITH_TIMEOUT(processState(p.processId()) == 'T', 120000);
        QCOMPARE(snapshot(root.path()).size(), named ? 3 : 1);
        p.kill();
        QVERIFY(p.waitForFinished(-1));
        QCOMPARE(snapshot(root.path()).size(), named ? 3 : 1);
        if (!named)
            QCOMPARE(snapshot(root.path()), before);
        // The next run removes the temporaries of the killed process.
        const QString other = root.filePath(QStringLiteral("other.json"));
        QCOMPARE(runCli({"convert", "squeezenet", other}).code, 0);
        QCOMPARE(snapshot(root.path()).size(), 2);
        QVERIFY(snapshot(root.path()).contains(before.first()));
    }

    // SIGINT/SIGTERM: staged temporaries removed, one line on stderr, exit 128 + signal; in a
    // search (SIGINT) and with outputs staged as named temporaries (SIGTERM).
    void signalsCleanUp_data() {
        QTest::addColumn<int>("sig");
        QTest::addColumn<bool>("staged"); // stopped before the commit, or in the search
        QTest::newRow("SIGINT in the search") << SIGINT << false;
        QTest::newRow("SIGTERM in the search") << SIGTERM << false;
        QTest::newRow("SIGINT staged") << SIGINT << true;
        QTest::newRow("SIGTERM staged") << SIGTERM << true;
    }
    void signalsCleanUp() {
        QFETCH(int, sig);
        QFETCH(bool, staged);
        QTemporaryDir root;
        const QString out = root.filePath(QStringLiteral("out.ios.json"));
        util::writeFileAtomically(out.toStdString(), "old");
        const QStringList before = snapshot(root.path());
        QProcess p;
        if (staged) {
            startSched(p, {"optimize", "squeezenet", "-o", out, "--save-schedule", "s.json"},
                       root.path(),
                       {"IOS_OUTPUT_TEST_STOP_BEFORE_COMMIT", "IOS_OUTPUT_NO_TMPFILE"});
            QTRY_VERIFY_WITH_TIMEOUT(processState(p.processId()) == 'T', 120000);
            QCOMPARE(snapshot(root.path()).size(), 3); // two named temporaries
        } else {
            startSched(p, {"optimize", "nasnet_large", "-r", "100", "-s", "100", "-o", out},
                       root.path());
            QTRY_VERIFY_WITH_TIMEOUT(catchesSignal(p.processId(), sig), 120000);
            QTest::qWait(300); // into the search
        }
        const pid_t pid = static_cast<pid_t>(p.processId());
        QCOMPARE(::kill(pid, sig), 0);
        QCOMPARE(::kill(pid, SIGCONT), 0);
        QVERIFY(p.waitForFinished(-1));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 128 + sig);
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(err.endsWith(sig == SIGINT ? "stopped by SIGINT; no output file was written\n"
                                            : "stopped by SIGTERM; no output file was written\n"),
                 err.constData());
        QCOMPARE(snapshot(root.path()), before);
    }
};

QTEST_GUILESS_MAIN(TestCliOutputs)
#include "tst_cli_outputs.moc"
