// SPDX-License-Identifier: Apache-2.0
// ios-sched on hostile input files (issue 19: defects 5, 6, 9 and the "Also" list): FIFOs and
// devices as model, cache, results and device profile end in exit 1 with one line naming the
// file; a results file cannot make validate read outside its folder; bad caches are exit 1,
// not "internal error"; a cache of several devices can be replayed for one; an input that does
// not fit a memory limit ends in exit 1 with a message, never an abort.
#include "build_flavour.h"
#include "cli_run.h"
#include "util/file_util.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <sys/stat.h>

using namespace ios;
namespace fs = std::filesystem;
using testing::runCli;

namespace {

// One line on stderr that names `file` and holds `text`.
bool oneLineNaming(const testing::CliRun& r, const std::string& file, const std::string& text) {
    return r.code == 1 && r.err.find(file) != std::string::npos &&
           r.err.find(text) != std::string::npos && r.err.find('\n') == r.err.size() - 1;
}

const char* kEntry = "{\"device\": \"%1\", \"model\": \"squeezenet\", \"batch\": 1, "
                     "\"stage\": \"x\", \"latency_ms\": 1}";

} // namespace

class TestCliInputs : public QObject {
    Q_OBJECT

private slots:
    void init() {
        dir_ = std::make_unique<QTemporaryDir>();
        QVERIFY(dir_->isValid());
        root_ = dir_->path().toStdString();
    }

    void fifosAndDevicesAreRefused_data() {
        QTest::addColumn<QString>("kind");
        QTest::newRow("fifo") << "fifo";
        QTest::newRow("symlink to /dev/zero") << "zero";
    }
    void fifosAndDevicesAreRefused() {
        QFETCH(QString, kind);
        const std::string p = (root_ / "in.json").string();
        if (kind == "fifo")
            QCOMPARE(::mkfifo(p.c_str(), 0600), 0);
        else
            fs::create_symlink("/dev/zero", p);
        const std::string what = kind == "fifo" ? "FIFO" : "character device";
        const std::vector<std::vector<std::string>> commands{
            {"info", p},
            {"optimize", "squeezenet", "--device", p},
            {"optimize", "squeezenet", "--cost-model", "cache:" + p},
            {"validate", p},
        };
        for (const auto& args : commands) {
            const testing::CliRun r = runCli(args);
            QVERIFY2(oneLineNaming(r, p, what), (args[0] + ": " + r.err).c_str());
        }
    }

    void validateResolvesReferencesInsideTheResultsFolder_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("run");
        QTest::addColumn<QString>("expected");
        QTest::newRow("model absolute") << "/etc/passwd"
                                        << "r"
                                        << "\"model\" '/etc/passwd'";
        QTest::newRow("model parent") << "../x.json"
                                      << "r"
                                      << "points outside";
        QTest::newRow("model fifo in folder") << "fifo.json"
                                              << "r"
                                              << "FIFO";
        QTest::newRow("run escapes") << "squeezenet"
                                     << "../../../tmp/x"
                                     << "points outside";
        QTest::newRow("run absolute") << "squeezenet"
                                      << "/tmp/x"
                                      << "is an absolute path";
    }
    void validateResolvesReferencesInsideTheResultsFolder() {
        QFETCH(QString, model);
        QFETCH(QString, run);
        QFETCH(QString, expected);
        QCOMPARE(::mkfifo((root_ / "fifo.json").c_str(), 0600), 0);
        const std::string results = (root_ / "results.json").string();
        util::writeFileAtomically(
            results, QString("{\"model\": \"%1\", \"run\": \"%2\", \"results\": [{\"strategy\": "
                             "\"greedy\", \"latency\": {\"median_ms\": 1.0}}]}")
                         .arg(model, run)
                         .toStdString());
        const testing::CliRun r = runCli({"validate", results});
        QVERIFY2(oneLineNaming(r, "results.json", expected.toStdString()) ||
                     oneLineNaming(r, "fifo.json", expected.toStdString()),
                 r.err.c_str());
    }

    void badCachesAreUserErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("format a number") << "{\"format\": 1}"
                                         << "not a measurement cache";
        QTest::newRow("entry a number")
            << "{\"format\": \"ios-explorer-measurements\", \"version\": 1, \"entries\": [5]}"
            << "entries[0] must be an object";
        QTest::newRow("device a number")
            << "{\"format\": \"ios-explorer-measurements\", \"version\": 1, \"entries\": "
               "[{\"device\": 1}]}"
            << "entries[0] must be an object";
        QTest::newRow("duplicate key") << "{\"format\": 1, \"format\": 2}"
                                       << "duplicate key";
    }
    void badCachesAreUserErrors() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const std::string cache = (root_ / "c.json").string();
        util::writeFileAtomically(cache, text.toStdString());
        const testing::CliRun r =
            runCli({"optimize", "squeezenet", "--cost-model", "cache:" + cache});
        QVERIFY2(oneLineNaming(r, "c.json", expected.toStdString()), r.err.c_str());
    }

    void cacheOfSeveralDevicesTakesADevice() {
        const std::string cache = (root_ / "two.json").string();
        util::writeFileAtomically(
            cache, QString("{\"format\": \"ios-explorer-measurements\", \"version\": 1, "
                           "\"entries\": [%1, %2]}")
                       .arg(QString(kEntry).arg("A"), QString(kEntry).arg("B"))
                       .toStdString());
        const testing::CliRun both =
            runCli({"optimize", "squeezenet", "--cost-model", "cache:" + cache});
        QVERIFY2(oneLineNaming(both, "two.json",
                               "(A, B); choose one of them (with --cost-model "
                               "cache:FILE@DEVICE)"),
                 both.err.c_str());
        // With @A the cache is replayed for A: it now fails only on a stage never measured.
        const testing::CliRun a =
            runCli({"optimize", "squeezenet", "--cost-model", "cache:" + cache + "@A"});
        QVERIFY2(oneLineNaming(a, "two.json", "was not measured on A"), a.err.c_str());
        const testing::CliRun c =
            runCli({"optimize", "squeezenet", "--cost-model", "cache:" + cache + "@C"});
        QVERIFY2(oneLineNaming(c, "two.json", "no device 'C'"), c.err.c_str());
    }

    void memoryLimitEndsInAMessageNotAnAbort() {
        if (kSanitizedBuild)
            QSKIP("ulimit -v cannot be combined with AddressSanitizer's shadow memory");
        // 30 MB of empty arrays (under the 32 MiB model cap) parse to ~20x their size: under
        // a 300 MiB address-space limit the parser runs out of memory. The old parser aborted
        // ("terminate called after throwing std::bad_alloc").
        const fs::path big = root_ / "big.json";
        std::string text = "[";
        for (int i = 0; i < 10'000'000; ++i)
            text += i ? ",[]" : "[]";
        util::writeFileAtomically(big, text + "]");
        QProcess p;
        p.start("bash", {"-c", QString("ulimit -v 307200; exec '%1' info '%2'")
                                   .arg(IOS_SCHED_PATH, QString::fromStdString(big.string()))});
        QVERIFY(p.waitForFinished(-1));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 1, qPrintable(err));
        QVERIFY2(err.contains("big.json") && err.contains("not enough memory"), qPrintable(err));
    }

private:
    std::unique_ptr<QTemporaryDir> dir_;
    fs::path root_;
};

QTEST_GUILESS_MAIN(TestCliInputs)
#include "tst_cli_inputs.moc"
