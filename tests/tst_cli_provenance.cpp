// SPDX-License-Identifier: Apache-2.0
// What ios-sched writes names where it came from (io/provenance.h, docs/formats.md
// "Provenance"): --json documents, schedule files, program files and CSV traces carry the
// tool version, the command line, the model's content hash, the device profile's hash, the
// batch, the cost model and the settings.
#include "bundled_models.h"
#include "cli_run.h"
#include "cost/device_profile.h"
#include "cost/stage_signature.h"
#include "io/provenance.h"
#include "util/json_text.h"
#include "util/version.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ios;

namespace {

util::Json provenanceOf(const std::string& text) {
    const util::Json doc = util::parseJsonText(text, "output");
    return doc.is_object() && doc.contains("provenance") ? doc["provenance"] : util::Json();
}

std::string fileText(const std::string& path) {
    QFile f(QString::fromStdString(path));
    return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

// The checks every block must pass for `model` on `device` at `batch`.
void checkBlock(const util::Json& p, const std::string& model, const std::string& device, int batch,
                const std::string& command) {
    QVERIFY2(p.is_object(), "no provenance block");
    QCOMPARE(p["tool_version"].get<std::string>(), util::toolVersion());
    QCOMPARE(p["command"].get<std::string>(), command);
    QCOMPARE(p["model"]["content_hash"].get<std::string>(),
             cost::modelContentHash(samples::loadBundledModel(model)));
    QCOMPARE(p["device"]["name"].get<std::string>(), device);
    QCOMPARE(p["device"]["hash"].get<std::string>(),
             io::deviceProfileHash(*cost::findBundledDevice(device)));
    QCOMPARE(p["batch"].get<int>(), batch);
    QCOMPARE(p["cost_model"].get<std::string>(), std::string("simulated"));
    QVERIFY(p["settings"].is_object());
}

} // namespace

class TestCliProvenance : public QObject {
    Q_OBJECT

private slots:
    void jsonOutputs() {
        const auto opt = testing::runCli(
            {"optimize", "squeezenet", "--json", "--device", "K80", "--batch", "2", "-r", "2"});
        QCOMPARE(opt.code, 0);
        const util::Json p = provenanceOf(opt.out);
        checkBlock(p, "squeezenet", "K80", 2,
                   "ios-sched optimize squeezenet --json --device K80 --batch 2 -r 2");
        QCOMPARE(p["settings"]["max-group-size"].get<std::string>(), std::string("2"));
        QCOMPARE(p["settings"]["json"].get<bool>(), true);

        const auto cmp = testing::runCli({"compare", "demo_figure2", "--json"});
        QCOMPARE(cmp.code, 0);
        checkBlock(provenanceOf(cmp.out), "demo_figure2", "V100", 1,
                   "ios-sched compare demo_figure2 --json");
        QVERIFY(util::parseJsonText(cmp.out, "compare")["strategies"].is_array());

        const auto info = testing::runCli({"info", "squeezenet", "--json"});
        QCOMPARE(info.code, 0);
        QCOMPARE(provenanceOf(info.out)["model"]["name"].get<std::string>(),
                 std::string("squeezenet"));
    }

    void files() {
        QTemporaryDir dir;
        const std::string schedule = dir.filePath(QStringLiteral("s.json")).toStdString();
        const std::string program = dir.filePath(QStringLiteral("p.json")).toStdString();
        const auto opt = testing::runCli({"optimize", "squeezenet", "--save-schedule", schedule});
        QCOMPARE(opt.code, 0);
        checkBlock(provenanceOf(fileText(schedule)), "squeezenet", "V100", 1,
                   "ios-sched optimize squeezenet --save-schedule " + schedule);
        const auto streams = testing::runCli(
            {"streams", "squeezenet", "--policy", "raf-asap", "-o", program, "--device", "H100"});
        QCOMPARE(streams.code, 0);
        checkBlock(provenanceOf(fileText(program)), "squeezenet", "H100", 1,
                   "ios-sched streams squeezenet --policy raf-asap -o " + program +
                       " --device H100");
        // Native JSON models carry it; IOS JSON (the IOS authors' format) does not.
        const std::string native = dir.filePath(QStringLiteral("m.json")).toStdString();
        const std::string ios = dir.filePath(QStringLiteral("m.ios.json")).toStdString();
        QCOMPARE(testing::runCli({"convert", "squeezenet", native}).code, 0);
        QCOMPARE(provenanceOf(fileText(native))["command"].get<std::string>(),
                 "ios-sched convert squeezenet " + native);
        QCOMPARE(testing::runCli({"convert", native, ios}).code, 0);
        QVERIFY(provenanceOf(fileText(ios)).is_null());
        QCOMPARE(testing::runCli({"info", native}).code, 0);
        // The program reads back, its provenance skipped.
        QCOMPARE(testing::runCli({"streams", "squeezenet", "--load", program}).code, 0);
    }

    void commandLineIsQuoted() {
        QTemporaryDir dir;
        const std::string odd = dir.filePath(QStringLiteral("it's here.json")).toStdString();
        QCOMPARE(testing::runCli({"optimize", "squeezenet", "--save-schedule", odd}).code, 0);
        const std::string quoted = "'" + dir.path().toStdString() + "/it'\\''s here.json'";
        QCOMPARE(provenanceOf(fileText(odd))["command"].get<std::string>(),
                 "ios-sched optimize squeezenet --save-schedule " + quoted);
    }
};

QTEST_GUILESS_MAIN(TestCliProvenance)
#include "tst_cli_provenance.moc"
