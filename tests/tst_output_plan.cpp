// SPDX-License-Identifier: Apache-2.0
// The output plan of a command (util::OutputTransaction::check/input, engine/util/output_file.h;
// issue 37 item 1): two outputs that are one file are refused however they are spelled (the
// same name, "./", a symbolic link, a hard link), and so is an output that is also an input;
// the message names both files. Inputs alone never collide, and a name that is no file (a
// bundled model) is no input.
#include "user_error_text.h"
#include "util/file_util.h"
#include "util/output_file.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <unistd.h>

using namespace ios;
using ios::testing::userErrorOf;

class TestOutputPlan : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> root_;
    QString cwd_;

private slots:
    void init() {
        cwd_ = QDir::currentPath();
        root_ = std::make_unique<QTemporaryDir>(); // each test its own folder
        QVERIFY(QDir::setCurrent(root_->path()));
        util::writeFileAtomically("cache.json", "{}");
    }
    void cleanup() { QDir::setCurrent(cwd_); }

    // Every spelling of one file: the second output is refused, naming the first and its role.
    void oneFileTwiceRefused_data() {
        QTest::addColumn<QString>("second");
        QTest::newRow("same name") << "cache.json";
        QTest::newRow("./") << "./cache.json";
        QTest::newRow("absolute") << "ABSOLUTE";
        QTest::newRow("symbolic link") << "link.json";
        QTest::newRow("hard link") << "hard.json";
        QTest::newRow("folder and ..") << "sub/../cache.json";
    }
    void oneFileTwiceRefused() {
        QFETCH(QString, second);
        if (second == "ABSOLUTE")
            second = QDir::current().filePath("cache.json");
        QVERIFY(QDir().mkpath("sub"));
        QCOMPARE(::symlink("cache.json", "link.json"), 0);
        QCOMPARE(::link("cache.json", "hard.json"), 0);
        util::OutputTransaction outputs;
        outputs.check("cache.json", "the measurement cache (--cache)");
        const QString error =
            userErrorOf([&] { outputs.check(second.toStdString(), "--save-schedule"); });
        QVERIFY2(error.contains(second +
                                ": cannot write file: it is the same file as another output "
                                "of this command, the measurement cache (--cache) 'cache.json'"),
                 qPrintable(error));
        QVERIFY2(error.contains("give each output its own file"), qPrintable(error));
    }

    // A file not yet there (a journal) collides by name.
    void aMissingFileCollidesByName() {
        util::OutputTransaction outputs;
        outputs.check("c.json.partial", "the profiling journal");
        const QString error = userErrorOf([&] { outputs.check("./c.json.partial"); });
        QVERIFY2(error.contains("the same file as another output of this command, the profiling "
                                "journal 'c.json.partial'"),
                 qPrintable(error));
    }

    // An output that the command also reads, registered before or after the output.
    void anOutputThatIsAnInputRefused_data() {
        QTest::addColumn<bool>("inputFirst");
        QTest::addColumn<QString>("input");
        QTest::newRow("input first") << true << "cache.json";
        QTest::newRow("output first") << false << "cache.json";
        QTest::newRow("input by hard link") << true << "hard.json";
    }
    void anOutputThatIsAnInputRefused() {
        QFETCH(bool, inputFirst);
        QFETCH(QString, input);
        QCOMPARE(::link("cache.json", "hard.json"), 0);
        util::OutputTransaction outputs;
        const auto in = [&] { outputs.input(input.toStdString(), "the model file"); };
        const auto out = [&] { outputs.check("./cache.json", "-o"); };
        if (inputFirst)
            in();
        else
            out();
        const QString error = userErrorOf(inputFirst ? std::function<void()>(out) : in);
        QVERIFY2(error.contains("./cache.json: cannot write file: it is also the model file '" +
                                input + "', which this command reads"),
                 qPrintable(error));
    }

    void inputsAloneAndOtherFilesPass() {
        util::writeFileAtomically("other.json", "{}");
        util::OutputTransaction outputs;
        outputs.input("cache.json", "the model file");
        outputs.input("./cache.json", "the measurement cache of --cost-model cache:FILE");
        outputs.input("squeezenet", "the model file"); // a bundled name: no file
        outputs.check("squeezenet");                   // so writing that name is not refused
        outputs.check("other.json", "-o");
        outputs.check("new.json", "--save-schedule");
        outputs.stage("other.json", "written");
        outputs.commit();
        QCOMPARE(util::readTextFile("other.json"), std::string("written"));
    }

    // stage() refuses a second staging of one file by a hard link too.
    void stagingOneFileTwiceRefused() {
        QCOMPARE(::link("cache.json", "hard.json"), 0);
        util::OutputTransaction outputs;
        outputs.stage("cache.json", "a");
        const QString error = userErrorOf([&] { outputs.stage("hard.json", "b"); });
        QVERIFY2(error.contains("the same file as another output of this command, 'cache.json'"),
                 qPrintable(error));
        outputs.abort();
        QCOMPARE(util::readTextFile("cache.json"), std::string("{}"));
    }
};

QTEST_GUILESS_MAIN(TestOutputPlan)
#include "tst_output_plan.moc"
