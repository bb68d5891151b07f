// SPDX-License-Identifier: Apache-2.0
// The native versioned format: round trips with explicit parts and stages, the header and
// version checks, part validation, and ".json" sniffing between native and IOS JSON.
#include "bundled_models.h"
#include "io/ios_json.h"
#include "io/model_file.h"
#include "io/native_json.h"
#include "rewrite/rules.h"
#include "util/error.h"
#include "util/file_util.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ios;
using Json = util::Json;

namespace {

std::string nativeWith(const std::string& at, const Json& value) {
    Json doc = Json::parse(io::writeNativeJson(samples::loadBundledModel("demo_figure2")));
    doc[Json::json_pointer(at)] = value;
    return doc.dump(1);
}

} // namespace

class TestNativeJson : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data() {
        QTest::addColumn<QString>("model");
        for (const samples::BundledModel& m : samples::bundledModels())
            QTest::newRow(m.name.data()) << QString::fromUtf8(m.name.data(), m.name.size());
    }
    void roundTrip() {
        QFETCH(QString, model);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const std::string text = io::writeNativeJson(g);
        const ir::Graph back = io::parseNativeJson(text, "native");
        QVERIFY(back == g);
        QCOMPARE(io::writeNativeJson(back), text);
    }

    void keepsPartsAndStages() {
        const ir::Graph g = samples::loadBundledModel("nasnet_large");
        QCOMPARE(int(g.blocks[0].parts.size()), 25);
        const ir::Graph back = io::parseNativeJson(io::writeNativeJson(g), "native");
        QCOMPARE(back.blocks[0].parts, g.blocks[0].parts);
        QCOMPARE(back.blocks[0].stages, g.blocks[0].stages);
        QVERIFY(!back.blocks[0].stages.empty());
    }

    void header() {
        const std::string text = io::writeNativeJson(samples::loadBundledModel("demo_figure2"));
        QVERIFY(
            text.starts_with("{\n \"format\": \"ios-explorer\",\n \"version\": 1,\n \"model\": {"));
        QVERIFY(text.ends_with("}\n"));
    }

    void rejected_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        auto row = [](const char* name, const std::string& text, const char* expected) {
            QTest::newRow(name) << QByteArray::fromStdString(text) << QString(expected);
        };
        row("version 2", nativeWith("/version", 2),
            "\"version\" must be the integer 1 (the native format version this build reads; got "
            "2)");
        row("version 0", nativeWith("/version", 0), "\"version\" must be the integer 1");
        row("version string", nativeWith("/version", "1"), "got a string)");
        row("version 1.0", nativeWith("/version", 1.0), "got 1.0)");
        row("other format", nativeWith("/format", "onnx"),
            "field 'format' must be \"ios-explorer\"");
        row("unknown top-level", nativeWith("/extra", 1), "unknown top-level field 'extra'");
        row("model not object", nativeWith("/model", 1), "the model object: must be an object");
        row("part names unknown operator",
            nativeWith("/model/blocks/0/parts", Json::parse(R"([["1","2","3","4","zz"]])")),
            "node 'zz': part lists an operator that is not in the block");
        row("operator in two parts",
            nativeWith("/model/blocks/0/parts", Json::parse(R"([["1","2","3"],["3","4","5"]])")),
            "node '3': operator appears in two parts");
        row("operator in no part",
            nativeWith("/model/blocks/0/parts", Json::parse(R"([["1","2","3","4"]])")),
            "node '5': operator is in no part");
        row("parts not names", nativeWith("/model/blocks/0/parts", Json::parse("[[1]]")),
            "field 'parts' must hold arrays of operator names");
        Json doc = Json::parse(nativeWith("/version", 1));
        doc["model"]["blocks"][0].erase("parts");
        row("missing parts", doc.dump(), "blocks[0]: missing field 'parts'");
        row("deep", "{\"format\": " + std::string(100, '['), "nests deeper than 64");
        // In-place terms where validation refuses them (ir::inPlaceObstacle), node named.
        const char* exitInputs = "/model/blocks/0/exit_node/inputs";
        row("in place slice",
            nativeWith(exitInputs,
                       Json::parse(R"([[["2",0,384]],[["3",0,384]],[["4",0,96,"in_place"]],
                                                   [["4",96,192]]])")),
            "node '5': input '4' cannot be in place: the term is a channel slice");
        row("in place other reader",
            nativeWith(exitInputs,
                       Json::parse(R"([[["2",0,384]],[["3",0,384,"in_place"]],[["3",0,192]]])")),
            "node '5': input '3' cannot be in place: the producer has other readers");
        row("in place model input",
            nativeWith(exitInputs,
                       Json::parse(R"([[["2",0,384]],[["3",0,384]],[["0",0,192,"in_place"]]])")),
            "node '5': input '0' cannot be in place: the producer is the model input");
        row("in place sum term",
            nativeWith(exitInputs, Json::parse(R"([[["2",0,384,"in_place"],["3",0,384]],
                                                   [["3",0,384]],[["4",0,192]]])")),
            "node '5': input '2' cannot be in place: the term sums several values");
        row("in place one term",
            nativeWith("/model/blocks/0/inner_nodes/1/inputs",
                       Json::parse(R"([[["1",0,192,"in_place"]]])")),
            "node '2': input '1' cannot be in place: the node has fewer than two terms");
        row("in place marker misspelt",
            nativeWith(exitInputs, Json::parse(R"([[["2",0,384,"inplace"]],[["3",0,384]],
                                                   [["4",0,192]]])")),
            "holds a value that is not [name, begin, end[, \"in_place\"]]");
    }
    void rejected() {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        try {
            io::parseNativeJson(text.toStdString(), "m.json");
            QFAIL("parsed without error");
        } catch (const UserError& e) {
            const QString what = QString::fromStdString(e.what());
            QVERIFY2(what.startsWith(QStringLiteral("m.json: ")), qPrintable(what));
            QVERIFY2(what.contains(expected), qPrintable(what));
        }
    }

    // An in-place term (rule R5) survives the native format, which writes it as a fourth
    // element of the value; a graph without flags writes no such element (the other tests'
    // byte-identical files); the IOS JSON reader refuses the marker.
    void inPlaceRoundTrip() {
        const ir::Graph g = samples::loadBundledModel("demo_figure2");
        const auto matches = rewrite::findMatches(g, 0, rewrite::RuleId::R5);
        QCOMPARE(matches.size(), size_t{1});
        const ir::Graph flagged = rewrite::applyMatch(g, matches.front()).graph;
        const std::string text = io::writeNativeJson(flagged);
        QVERIFY(text.find("\"in_place\"") != std::string::npos);
        QVERIFY(io::writeNativeJson(g).find("in_place") == std::string::npos);
        const ir::Graph back = io::parseNativeJson(text, "native");
        QVERIFY(back == flagged);
        QVERIFY(!(back == g));
        for (const ir::Term& t : back.blocks[0].exitNode.inputs)
            QVERIFY(t.front().inPlace);
        QCOMPARE(io::writeNativeJson(back), text);
        Json model = Json::parse(text)["model"];
        for (Json& b : model["blocks"])
            b.erase("parts");
        try {
            io::parseIosJson(model.dump(), "m.ios.json");
            QFAIL("parsed without error");
        } catch (const UserError& e) {
            QVERIFY2(std::string(e.what()).find("not [name, begin, end] with") != std::string::npos,
                     e.what());
        }
    }

    // IOS JSON has no "parts": the strict IOS reader refuses the native block layout.
    void iosReaderRejectsParts() {
        Json doc = Json::parse(nativeWith("/version", 1));
        try {
            io::parseIosJson(doc["model"].dump(), "m.ios.json");
            QFAIL("parsed without error");
        } catch (const UserError& e) {
            QVERIFY2(std::string(e.what()).find("blocks[0]: unknown field 'parts'") !=
                         std::string::npos,
                     e.what());
        }
    }

    // ".json" is native when it has the header, IOS JSON otherwise; saving picks by extension.
    void modelFilesByExtension() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const ir::Graph g = samples::loadBundledModel("nasnet_large");
        const std::string native = dir.filePath("m.json").toStdString();
        const std::string ios = dir.filePath("m.ios.json").toStdString();
        const std::string iosAsJson = dir.filePath("plain.json").toStdString();
        QCOMPARE(io::formatForWrite(native).key, std::string("native"));
        QCOMPARE(io::formatForWrite(ios).key, std::string("ios-json"));
        QCOMPARE(io::formatForWrite(dir.filePath("m.DOT").toStdString()).key, std::string("dot"));
        io::saveModelFile(g, native);
        io::saveModelFile(g, ios);
        util::writeFileAtomically(iosAsJson, util::readTextFile(ios));
        QVERIFY(io::loadModelFile(native) == g);
        QCOMPARE(util::readTextFile(ios),
                 std::string(samples::bundledModelText("nasnet_large"))); // parts not in IOS JSON
        ir::Graph withoutParts = g;
        withoutParts.blocks[0].parts.clear();
        QVERIFY(io::loadModelFile(iosAsJson) == withoutParts);
        QVERIFY(io::loadModelFile(ios) == withoutParts); // no m.parts.json beside it
    }
};

QTEST_GUILESS_MAIN(TestNativeJson)
#include "tst_native_json.moc"
