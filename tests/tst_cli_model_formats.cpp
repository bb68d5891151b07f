// SPDX-License-Identifier: Apache-2.0
// A new model format is one file and one registration line (io/model_format.h): the toy
// format below is registered from this file only, and loading, saving, `convert` (its help,
// its refusals) and the supported-formats text take it, with nothing else edited. The
// built-in formats are entries too.
#include "bundled_models.h"
#include "cli_run.h"
#include "io/model_file.h"
#include "io/native_json.h"
#include "util/error.h"
#include "util/file_util.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ios;

namespace {

// A toy text format: the line "toy:" then the native JSON of the graph.
constexpr std::string_view kToyHeader = "toy:\n";

IOS_REGISTER_MODEL_FORMAT(
    toy, io::ModelFormatEntry{
             .key = "toy",
             .suffix = ".toy",
             .label = "Toy text",
             .rank = 90,
             .read =
                 [](const std::filesystem::path& path, const io::ModelLoadOptions&) {
                     const std::string text = util::readTextFile(path);
                     if (!text.starts_with(kToyHeader))
                         throw UserError("not a toy file", path.string());
                     return io::parseNativeJson(std::string_view(text).substr(kToyHeader.size()),
                                                path.string());
                 },
             .write =
                 [](const ir::Graph& graph, std::vector<std::string>*, const io::Provenance*) {
                     return std::string(kToyHeader) + io::writeNativeJson(graph);
                 }});

// A format that can only be read, to see the refusal name it.
IOS_REGISTER_MODEL_FORMAT(readonly_toy, io::ModelFormatEntry{
                                            .key = "ro-toy",
                                            .suffix = ".rotoy",
                                            .label = "Read-only toy",
                                            .rank = 91,
                                            .read = [](const std::filesystem::path& path,
                                                       const io::ModelLoadOptions&) -> ir::Graph {
                                                throw UserError("never read", path.string());
                                            },
                                            .write = {}});

using testing::runCli;

} // namespace

class TestCliModelFormats : public QObject {
    Q_OBJECT

private slots:
    void builtInFormatsAreEntries() {
        QStringList keys;
        for (const io::ModelFormatEntry& f : io::modelFormats())
            keys << QString::fromStdString(f.key);
        QCOMPARE(keys, QStringList({"ios-json", "native", "onnx", "dot", "toy", "ro-toy"}));
        // The longest suffix wins, case-insensitively.
        QCOMPARE(io::modelFormatFor("a/b.IOS.json")->key, std::string("ios-json"));
        QCOMPARE(io::modelFormatFor("a/b.json")->key, std::string("native"));
        QCOMPARE(io::modelFormatFor("m.Toy")->key, std::string("toy"));
        QVERIFY(!io::modelFormatFor("m.txt"));
        QVERIFY(!io::modelFormatFor(".toy")); // a suffix alone is no file name of that format
        const std::string supported = io::supportedModelFormats();
        QVERIFY2(supported.find(".toy (Toy text)") != std::string::npos, supported.c_str());
        QVERIFY2(supported.find(".onnx (ONNX, read only)") != std::string::npos, supported.c_str());
        QVERIFY2(supported.find(".dot (Graphviz DOT, write only)") != std::string::npos,
                 supported.c_str());
        // A second format for a suffix already taken is a programming error.
        const io::ModelFormatEntry clash{
            .key = "toy2", .suffix = ".toy", .label = "Toy 2", .rank = 92, .read = {}, .write = {}};
        QVERIFY_THROWS_EXCEPTION(std::logic_error, io::registerModelFormat(clash));
    }

    // Saving and loading go through it: the graph comes back equal.
    void roundTripsThroughTheEngine() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("m.toy").toStdString();
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        io::saveModelFile(g, path);
        QVERIFY(util::readTextFile(path).starts_with(kToyHeader));
        QVERIFY(io::loadModelFile(path) == g);
    }

    // `convert` reads and writes it, lists it in its help and refuses what it cannot do.
    void convertUsesIt() {
        QTemporaryDir dir;
        const std::string toy = dir.filePath("sq.toy").toStdString();
        const std::string back = dir.filePath("sq.ios.json").toStdString();
        auto r = runCli({"convert", "squeezenet", toy, "--verbose"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.find("Toy text") != std::string::npos, r.out.c_str());
        r = runCli({"convert", toy, back});
        QCOMPARE(r.code, 0);
        QVERIFY(io::loadModelFile(back) == samples::loadBundledModel("squeezenet"));
        r = runCli({"convert", "--help"});
        QVERIFY2(r.out.find(".toy") != std::string::npos, r.out.c_str());
        QVERIFY2(r.out.find(".onnx") != std::string::npos, r.out.c_str());
        const std::string ro = dir.filePath("sq.rotoy").toStdString();
        r = runCli({"convert", "squeezenet", ro});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.find("can be read but not written") != std::string::npos, r.err.c_str());
        QVERIFY(!QFile::exists(QString::fromStdString(ro)));
        r = runCli({"convert", "squeezenet", dir.filePath("sq.unknown").toStdString()});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.find(".toy (Toy text)") != std::string::npos, r.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCliModelFormats)
#include "tst_cli_model_formats.moc"
