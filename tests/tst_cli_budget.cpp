// SPDX-License-Identifier: Apache-2.0
// The time limit of searches and simulations (issue 19, defect 10): --max-seconds on every
// command that searches, a clear line when the limit is hit mid-run or when the estimate
// already passes it, and the option's validation. Commands run in-process; nothing here
// asserts on a duration (the searches used are far longer than the limits they get).
#include "cli_run.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ios;
using testing::runCli;
using Run = testing::CliRun;

namespace {

// Exit 1 and exactly one line on stderr holding every needle.
void expectOneLine(const Run& r, const std::vector<std::string>& needles) {
    QCOMPARE(r.code, 1);
    QVERIFY2(!r.err.empty() && r.err.back() == '\n', r.err.c_str());
    QVERIFY2(r.err.find('\n') == r.err.size() - 1, r.err.c_str());
    for (const std::string& needle : needles)
        QVERIFY2(r.err.find(needle) != std::string::npos, (needle + " not in: " + r.err).c_str());
}

} // namespace

class TestCliBudget : public QObject {
    Q_OBJECT

private slots:
    // The NasNet search takes seconds; 10 ms stop it and say how far it got and what to do.
    void limitHitMidSearch_data() {
        QTest::addColumn<QString>("command");
        QTest::newRow("optimize") << "optimize";
        QTest::newRow("compare") << "compare";
        QTest::newRow("trace") << "trace";
    }
    void limitHitMidSearch() {
        QFETCH(QString, command);
        std::vector<std::string> args{command.toStdString(), "nasnet_large", "--max-seconds",
                                      "0.01"};
        const QTemporaryDir dir;
        if (command == "trace")
            args.insert(args.end(), {"-o", dir.filePath("t.json").toStdString()});
        const Run r = runCli(args);
        expectOneLine(r, {"nasnet_large", "time limit", "--max-seconds 0.01", "lower -r/-s"});
    }

    // A search that would need minutes is refused after about a second of measurement, long
    // before its limit, with the estimate.
    void estimatePastLimitRefusesEarly() {
        const Run r = runCli({"optimize", "nasnet_large", "--endings", "all", "-r", "8", "-s", "8",
                              "--batch", "16", "--max-seconds", "4"});
        expectOneLine(r, {"nasnet_large", "estimated", "past the time limit", "--max-seconds 4"});
    }

    // 0 is no limit; the default is in the help text; a small search under a limit succeeds.
    void noLimitAndDefault() {
        QCOMPARE(runCli({"optimize", "demo_figure2", "--max-seconds", "0"}).code, 0);
        QCOMPARE(runCli({"optimize", "demo_figure2", "--max-seconds", "30"}).code, 0);
        const Run help = runCli({"optimize", "--help"});
        QCOMPARE(help.code, 0);
        QVERIFY2(help.out.find("--max-seconds S") != std::string::npos, help.out.c_str());
        QVERIFY2(help.out.find("(default: 600)") != std::string::npos, help.out.c_str());
    }

    // A limit set by one command does not leak into the next one run in the same process.
    void limitIsPerCommand() {
        QCOMPARE(runCli({"optimize", "demo_figure2", "--max-seconds", "0.000001"}).code, 1);
        QCOMPARE(runCli({"bench", "--help"}).code, 0);
        QCOMPARE(runCli({"optimize", "demo_figure2"}).code, 0);
    }

    void badValues_data() {
        QTest::addColumn<QString>("value");
        for (const char* v : {"-1", "abc", "nan", "inf", "1e7", "", "5s", "0x10"})
            QTest::newRow(v) << v;
    }
    void badValues() {
        QFETCH(QString, value);
        const Run r = runCli({"optimize", "demo_figure2", "--max-seconds", value.toStdString()});
        expectOneLine(r, {"--max-seconds expects seconds in [0, 1000000]"});
    }
};

QTEST_GUILESS_MAIN(TestCliBudget)
#include "tst_cli_budget.moc"
