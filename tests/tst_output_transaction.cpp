// SPDX-License-Identifier: Apache-2.0
// util::OutputTransaction (engine/util/output_file.h): the outputs of one command are written
// together or not at all; a failed or abandoned transaction changes no existing file and leaves
// no temporary; replaced files keep their mode; what is not a writable regular file is refused
// (issue 19, defect 7 and "Also": permissions, symlinks, FIFOs, stale temporaries).
#include "util/error.h"
#include "util/file_util.h"
#include "util/output_file.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <cstdio>
#include <fcntl.h>
#include <functional>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ios;

namespace {

// What must not change about an existing output: bytes, inode, mode, mtime (ns).
struct FileState {
    std::string bytes;
    ino_t inode = 0;
    mode_t mode = 0;
    timespec mtime = {};
    bool operator==(const FileState& o) const {
        return bytes == o.bytes && inode == o.inode && mode == o.mode &&
               mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec;
    }
};

FileState stateOf(const QString& path) {
    FileState s;
    struct stat st = {};
    if (::lstat(qPrintable(path), &st) != 0)
        return s;
    s.inode = st.st_ino;
    s.mode = st.st_mode;
    s.mtime = st.st_mtim;
    if (S_ISREG(st.st_mode))
        s.bytes = util::readTextFile(path.toStdString());
    return s;
}

QStringList entries(const QString& dir) {
    return QDir(dir).entryList(
        QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

void writeWithMode(const QString& path, const std::string& text, mode_t mode) {
    util::writeFileAtomically(path.toStdString(), text);
    QCOMPARE(::chmod(qPrintable(path), mode), 0);
}

mode_t modeOf(const QString& path) {
    struct stat st = {};
    return ::stat(qPrintable(path), &st) == 0 ? (st.st_mode & 07777) : 0;
}

// A pid that no process has now: a child that has exited and been reaped.
pid_t deadPid() {
    const pid_t pid = ::fork();
    if (pid == 0)
        ::_exit(0);
    ::waitpid(pid, nullptr, 0);
    return pid;
}

QString errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const UserError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestOutputTransaction : public QObject {
    Q_OBJECT

private slots:
    void init() {
        qunsetenv("IOS_OUTPUT_NO_TMPFILE");
        ::umask(022);
    }

    // "-" is standard output: no file checks, written at the commit after the files, through
    // descriptor 1 (captured here in a file), and only one output may go there.
    void standardOutput() {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("f.txt")).toStdString();
        util::checkOutputPath("-");
        {
            util::OutputTransaction out;
            out.check("-", "the trace");
            QVERIFY_THROWS_EXCEPTION(UserError, out.check("-", "the program"));
        }
        const std::string captured = dir.filePath(QStringLiteral("stdout")).toStdString();
        std::fflush(stdout);
        const int saved = ::dup(STDOUT_FILENO);
        const int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        QVERIFY(saved >= 0 && fd >= 0);
        ::dup2(fd, STDOUT_FILENO);
        ::close(fd);
        {
            util::OutputTransaction out;
            out.check("-");
            out.check(file);
            out.stage("-", "to stdout\n");
            out.stage(file, "to the file\n");
            out.commit();
        }
        ::dup2(saved, STDOUT_FILENO);
        ::close(saved);
        QCOMPARE(util::readTextFile(captured), std::string("to stdout\n"));
        QCOMPARE(util::readTextFile(file), std::string("to the file\n"));
    }

    // Unnamed (O_TMPFILE) and named temporaries behave the same to the caller.
    void stageFailureKeepsEveryOutput_data() {
        QTest::addColumn<bool>("named");
        QTest::newRow("O_TMPFILE") << false;
        QTest::newRow("named temporaries") << true;
    }
    // Defect 7: the first output staged, the second fails → the first is untouched.
    void stageFailureKeepsEveryOutput() {
        QFETCH(bool, named);
        if (named)
            qputenv("IOS_OUTPUT_NO_TMPFILE", "1");
        QTemporaryDir root;
        const QString a = root.filePath(QStringLiteral("a.json"));
        QVERIFY(QDir(root.path()).mkdir(QStringLiteral("sub")));
        const QString b = root.filePath(QStringLiteral("sub/b.json"));
        writeWithMode(a, "old a", 0600);
        const FileState before = stateOf(a);
        {
            util::OutputTransaction outputs;
            outputs.check(a.toStdString());
            outputs.check(b.toStdString());
            outputs.stage(a.toStdString(), "new a");
            QCOMPARE(entries(root.path()).size(), named ? 3 : 2);    // a, sub (+ a's temporary)
            QVERIFY(QDir(root.path()).rmdir(QStringLiteral("sub"))); // b's folder goes away
            const QString error = errorOf([&] { outputs.stage(b.toStdString(), "new b"); });
            QVERIFY2(error.contains(QStringLiteral("sub/b.json: cannot write file")),
                     qPrintable(error));
        }
        QVERIFY(stateOf(a) == before);
        QCOMPARE(entries(root.path()), QStringList{QStringLiteral("a.json")});
    }

    // A target that became a directory while the command ran stops the whole commit.
    void commitChecksEveryTargetFirst() {
        QTemporaryDir root;
        const QString a = root.filePath(QStringLiteral("a.json"));
        const QString b = root.filePath(QStringLiteral("b.json"));
        writeWithMode(a, "old a", 0644);
        const FileState before = stateOf(a);
        util::OutputTransaction outputs;
        outputs.stage(a.toStdString(), "new a");
        outputs.stage(b.toStdString(), "new b");
        QVERIFY(QDir(root.path()).mkdir(QStringLiteral("b.json")));
        const QString error = errorOf([&] { outputs.commit(); });
        QVERIFY2(error.contains(QStringLiteral("not a regular file")), qPrintable(error));
        QVERIFY(stateOf(a) == before);
        QCOMPARE(entries(root.path()), (QStringList{"a.json", "b.json"}));
    }

    void commitWritesAll() {
        QTemporaryDir root;
        const QString a = root.filePath(QStringLiteral("a.json"));
        const QString b = root.filePath(QStringLiteral("b.json"));
        writeWithMode(a, "old a", 0644);
        util::OutputTransaction outputs;
        outputs.stage(a.toStdString(), "new a");
        outputs.stage(b.toStdString(), "new b");
        QCOMPARE(util::readTextFile(a.toStdString()), std::string("old a")); // not yet
        outputs.commit();
        QCOMPARE(util::readTextFile(a.toStdString()), std::string("new a"));
        QCOMPARE(util::readTextFile(b.toStdString()), std::string("new b"));
        QCOMPARE(entries(root.path()), (QStringList{"a.json", "b.json"}));
        QCOMPARE(modeOf(b), mode_t{0644}); // a new file: 0666 less the umask
    }

    void abandonedTransactionWritesNothing() {
        QTemporaryDir root;
        const QString a = root.filePath(QStringLiteral("a.json"));
        {
            util::OutputTransaction outputs;
            outputs.stage(a.toStdString(), "new a");
        }
        QVERIFY(entries(root.path()).isEmpty());
    }

    // "Also": a 0600 output came back 0644; the mode of the replaced file is kept.
    void modeKept_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("0600") << 0600;
        QTest::newRow("0640") << 0640;
        QTest::newRow("0664") << 0664;
        QTest::newRow("0755") << 0755;
    }
    void modeKept() {
        QFETCH(int, mode);
        QTemporaryDir root;
        const QString a = root.filePath(QStringLiteral("a.json"));
        writeWithMode(a, "old", static_cast<mode_t>(mode));
        util::writeFileAtomically(a.toStdString(), "new");
        QCOMPARE(util::readTextFile(a.toStdString()), std::string("new"));
        QCOMPARE(modeOf(a), static_cast<mode_t>(mode));
    }

    // "Also": read-only outputs were silently replaced (even as root), and FIFOs, devices and
    // directories replaced by regular files: all refused, the target and folder unchanged.
    void refused_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("read-only 0444") << "readonly"
                                        << "it is read-only (mode 0444)";
        QTest::newRow("read-only 0400") << "readonly400"
                                        << "it is read-only (mode 0400)";
        QTest::newRow("FIFO") << "fifo"
                              << "it is a FIFO (named pipe), not a regular file";
        QTest::newRow("directory") << "dir"
                                   << "it is a directory";
        QTest::newRow("link to a device") << "devlink"
                                          << "it is a character device";
        QTest::newRow("link to nothing") << "dangling"
                                         << "symbolic link to a missing file";
        QTest::newRow("link to a directory") << "dirlink"
                                             << "it is a directory";
        QTest::newRow("empty name") << "empty"
                                    << "the output file name is empty";
    }
    void refused() {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        QTemporaryDir root;
        const QString out = kind == "empty" ? QString() : root.filePath(QStringLiteral("out.json"));
        const QByteArray o = out.toLocal8Bit();
        if (kind == "readonly")
            writeWithMode(out, "mine", 0444);
        else if (kind == "readonly400")
            writeWithMode(out, "mine", 0400);
        else if (kind == "fifo")
            QCOMPARE(::mkfifo(o.constData(), 0644), 0);
        else if (kind == "dir")
            QVERIFY(QDir(root.path()).mkdir(QStringLiteral("out.json")));
        else if (kind == "devlink")
            QCOMPARE(::symlink("/dev/null", o.constData()), 0);
        else if (kind == "dangling")
            QCOMPARE(::symlink("nowhere.json", o.constData()), 0);
        else if (kind == "dirlink")
            QCOMPARE(::symlink(qPrintable(root.path()), o.constData()), 0);
        const QStringList before = entries(root.path());
        const FileState state = stateOf(out);
        for (const bool early : {true, false}) {
            const QString error = errorOf([&] {
                if (early)
                    util::checkOutputPath(out.toStdString());
                else
                    util::writeFileAtomically(out.toStdString(), "new");
            });
            QVERIFY2(error.contains(expected), qPrintable(error));
            QVERIFY2(error.startsWith(out + (out.isEmpty() ? "" : ": ")), qPrintable(error));
        }
        QCOMPARE(entries(root.path()), before);
        QVERIFY(stateOf(out) == state);
    }

    // Decided (docs/cli.md): a link to a regular file is written through; the link stays.
    void symlinkWrittenThrough() {
        QTemporaryDir root;
        const QString file = root.filePath(QStringLiteral("real.json"));
        const QString link = root.filePath(QStringLiteral("link.json"));
        writeWithMode(file, "old", 0600);
        QCOMPARE(::symlink("real.json", qPrintable(link)), 0);
        util::writeFileAtomically(link.toStdString(), "new");
        QVERIFY(QFileInfo(link).isSymLink());
        QCOMPARE(util::readTextFile(file.toStdString()), std::string("new"));
        QCOMPARE(modeOf(file), mode_t{0600});
        QCOMPARE(entries(root.path()), (QStringList{"link.json", "real.json"}));
    }

    void sameFileTwiceRefused() {
        QTemporaryDir root;
        const QString cwd = QDir::currentPath();
        QVERIFY(QDir::setCurrent(root.path()));
        util::OutputTransaction outputs;
        outputs.check("a.json");
        const QString error = errorOf([&] { outputs.check("./a.json"); });
        QDir::setCurrent(cwd);
        QVERIFY2(error.contains(QStringLiteral("another output of this command")),
                 qPrintable(error));
    }

    // A folder that takes no new files fails the check, before any work.
    void folderWithoutNewFilesRefused() {
        if (!QFileInfo(QStringLiteral("/proc/self")).isDir())
            QSKIP("no /proc");
        const QString error = errorOf([] { util::checkOutputPath("/proc/x.json"); });
        QVERIFY2(error.startsWith(QStringLiteral("/proc/x.json: cannot write file:")) &&
                     error.contains(QStringLiteral("folder '/proc'")),
                 qPrintable(error));
    }

    // Where O_TMPFILE is missing, a kill -9 leaves a named temporary; the next output to that
    // folder removes it when its process is gone, and keeps those of live processes and files
    // that only look alike.
    void staleTemporariesRemoved() {
        QTemporaryDir root;
        const QString dead =
            QStringLiteral(".a.json.ios-tmp-%1-7").arg(static_cast<qint64>(deadPid()));
        const QString live = QStringLiteral(".a.json.ios-tmp-%1-7").arg(::getppid());
        const QStringList keep{QStringLiteral(".a.json.ios-tmp-x-1"), QStringLiteral("a.json"),
                               live, QStringLiteral("b.ios-tmp-1-1")};
        for (const QString& name : keep + QStringList{dead})
            util::writeFileAtomically(root.filePath(name).toStdString(), "x");
        util::checkOutputPath(root.filePath(QStringLiteral("c.json")).toStdString());
        QStringList expected = keep;
        expected.sort();
        QCOMPARE(entries(root.path()), expected);
    }
};

QTEST_GUILESS_MAIN(TestOutputTransaction)
#include "tst_output_transaction.moc"
