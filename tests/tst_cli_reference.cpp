// SPDX-License-Identifier: Apache-2.0
// The CLI's manual page and shell completions are rendered from the commands' own option
// tables (app/cli/cli_reference.h): every command and option appears, a command registered
// in-process appears with nothing else edited, the page is plain ASCII roff, and the bash
// completion completes in a real bash. Also --version and the exit codes.
#include "args.h"
#include "cli_reference.h"
#include "cli_run.h"
#include "util/version.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

using namespace ios;

namespace {

int runProbe(const std::vector<std::string>& args) {
    cli::ArgParser parser("ios-sched zz-probe FILE [--zz-level N]", "A probe command.");
    parser.positional("FILE", "a file");
    parser.option("--zz-level", "N", "How far", "3");
    parser.option("--zz-mode", "fast|exact", "Which way");
    parser.flag("--zz-flag", "A flag");
    if (!parser.parse(args))
        return cli::kExitOk;
    return cli::kExitOk;
}

// Registered for this suite only: the reference must pick it up from the registry.
IOS_REGISTER_COMMAND(zz_probe, "zz-probe", "A probe registered by the test", runProbe);

std::string roffName(std::string name) {
    std::string out;
    for (char c : name)
        out += c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace

class TestCliReference : public QObject {
    Q_OBJECT

private slots:
    void versionComesFromOnePlace() {
        QVERIFY(QRegularExpression(QStringLiteral("^\\d+\\.\\d+\\.\\d+$"))
                    .match(QString::fromStdString(util::toolVersion()))
                    .hasMatch());
        QCOMPARE(util::toolNameAndVersion(), "ios-explorer " + util::toolVersion());
        for (const char* flag : {"--version", "-v", "-V"}) {
            const testing::CliRun r = testing::runCli({flag});
            QCOMPARE(r.code, 0);
            QCOMPARE(r.out, "ios-sched " + util::toolVersion() + "\n");
            QVERIFY(r.err.empty());
        }
        QVERIFY(contains(testing::runCli({"--help"}).out, "--version"));
    }

    void exitCodes() {
        QCOMPARE(testing::runCli({}).code, cli::kExitUserError);
        QCOMPARE(testing::runCli({"no-such-command"}).code, cli::kExitUserError);
        QCOMPARE(testing::runCli({"models", "--no-such-option"}).code, cli::kExitUserError);
        const testing::CliRun r = testing::runCli({"completion", "fish"});
        QCOMPARE(r.code, cli::kExitUserError);
        QVERIFY(contains(r.err, "unknown shell 'fish'"));
        QCOMPARE(testing::runCli({"models"}).code, cli::kExitOk);
    }

    void everyCommandHasItsTable() {
        const std::vector<cli::CommandReference> ref = cli::cliReference();
        size_t topLevel = 0;
        for (const cli::CommandReference& c : ref) {
            topLevel += c.path.size() == 1 ? 1 : 0;
            if (!c.subcommands.empty())
                continue;
            std::string path;
            for (const std::string& p : c.path)
                path += " " + p;
            QVERIFY2(c.table.usage.rfind("ios-sched" + path, 0) == 0, c.table.usage.c_str());
            QVERIFY(!c.table.options.empty()); // --help at least
        }
        QCOMPARE(topLevel, cli::commandRegistry().size());
        QVERIFY(std::is_sorted(ref.begin(), ref.end(),
                               [](const auto& a, const auto& b) { return a.path[0] < b.path[0]; }));
    }

    void manPageHasEveryCommandAndOption() {
        const std::vector<cli::CommandReference> ref = cli::cliReference();
        const std::string page = cli::manPage(ref);
        QVERIFY(page.rfind(".\\\"", 0) == 0);
        QVERIFY(contains(page, ".TH IOS\\-SCHED 1"));
        QVERIFY(contains(page, util::toolVersion()));
        for (unsigned char c : page)
            QVERIFY2(c < 0x80, "the page must be ASCII (non-ASCII text as \\[uXXXX])");
        for (const cli::CommandReference& c : ref) {
            std::string title = "ios\\-sched";
            for (const std::string& p : c.path)
                title += " " + roffName(p);
            QVERIFY2(contains(page, ".SS \"" + title + "\""), title.c_str());
            for (const cli::OptionTable::Option& o : c.table.options)
                for (const std::string& n : o.names)
                    QVERIFY2(contains(page, roffName(n)), n.c_str());
        }
        QVERIFY(contains(page, "\\fB\\-\\-zz\\-level\\fR \\fIN\\fR"));
        QVERIFY(contains(page, "How far (default: 3)"));
    }

    void completionsListEveryOption() {
        const std::vector<cli::CommandReference> ref = cli::cliReference();
        const std::string bash = cli::bashCompletion(ref);
        const std::string zsh = cli::zshCompletion(ref);
        QVERIFY(zsh.rfind("#compdef ios-sched\n", 0) == 0);
        for (const cli::CommandReference& c : ref) {
            std::string path;
            for (const std::string& p : c.path)
                path += (path.empty() ? "" : " ") + p;
            QVERIFY2(contains(bash, "    \"" + path + "\")"), path.c_str());
            QVERIFY2(contains(zsh, "    \"" + path + "\")"), path.c_str());
            for (const cli::OptionTable::Option& o : c.table.options)
                for (const std::string& n : o.names) {
                    QVERIFY2(contains(bash, n), n.c_str());
                    QVERIFY2(contains(zsh, n), n.c_str());
                }
        }
        QVERIFY(contains(zsh, "'--zz-mode[Which way]:fast|exact:(fast exact)'"));
    }

    void bashCompletesInBash() {
        QTemporaryDir dir;
        const QString script = dir.filePath(QStringLiteral("ios-sched.bash"));
        QFile f(script);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(cli::bashCompletion(cli::cliReference())));
        f.close();
        const auto complete = [&](const QString& words) {
            QProcess bash;
            bash.setWorkingDirectory(dir.path());
            bash.start(QStringLiteral("bash"),
                       {QStringLiteral("-c"),
                        QStringLiteral("source \"$0\"; COMP_WORDS=(%1); "
                                       "COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _ios_sched; "
                                       "printf '%s\\n' \"${COMPREPLY[@]}\"")
                            .arg(words),
                        script});
            if (!bash.waitForFinished(10000) || bash.exitCode() != 0)
                return QStringList{QStringLiteral("<bash failed: %1>")
                                       .arg(QString::fromUtf8(bash.readAllStandardError()))};
            return QString::fromUtf8(bash.readAllStandardOutput())
                .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        };
        QCOMPARE(complete(QStringLiteral("ios-sched zz-pr")), QStringList{"zz-probe"});
        QCOMPARE(complete(QStringLiteral("ios-sched zz-probe --zz-l")), QStringList{"--zz-level"});
        QCOMPARE(complete(QStringLiteral("ios-sched zz-probe --zz-mode e")), QStringList{"exact"});
        QCOMPARE(complete(QStringLiteral("ios-sched store i")), (QStringList{"info", "import"}));
        QVERIFY(complete(QStringLiteral("ios-sched optimize incep")).contains("inception_v3"));
        QVERIFY(complete(QStringLiteral("ios-sched optimize --device V")).contains("V100"));
    }
};

QTEST_GUILESS_MAIN(TestCliReference)
#include "tst_cli_reference.moc"
