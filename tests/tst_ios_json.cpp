// SPDX-License-Identifier: Apache-2.0
// IOS JSON import/export: byte-exact round trips of the bundled and reference models, the
// NasNet parts file, and the key layout of node kinds the reference files do not contain.
#include "io/ios_json.h"
#include "io/model_file.h"
#include "ir/validate.h"
#include "reference_models.h"
#include "util/error.h"
#include "util/file_util.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace ios;

namespace {

std::string readFile(const QString& path) {
    return util::readTextFile(path.toStdString());
}

QStringList iosJsonFiles(const QString& dir) {
    return QDir(dir).entryList({QStringLiteral("*.ios.json")}, QDir::Files, QDir::Name);
}

const QString kSampleDir = QStringLiteral(IOS_SOURCE_DIR "/sample_models");
const QString kReferenceDir = ios::testing::referenceModelsDir(); // empty: not available

} // namespace

class TestIosJson : public QObject {
    Q_OBJECT

private:
    static void addFiles(const QString& dir) {
        QTest::addColumn<QString>("path");
        for (const QString& f : iosJsonFiles(dir))
            QTest::newRow(qPrintable(f)) << dir + QLatin1Char('/') + f;
    }

    // Parse, write: identical bytes; parse the output again: an equal Graph.
    static void checkRoundTrip(const QString& path) {
        const std::string text = readFile(path);
        const ir::Graph graph = io::parseIosJson(text, path.toStdString());
        const std::string written = io::writeIosJson(graph);
        QVERIFY2(written == text, "written IOS JSON differs from the file");
        const ir::Graph again = io::parseIosJson(written, "written");
        QVERIFY(again == graph);
    }

private slots:
    void bundledRoundTrip_data() {
        addFiles(kSampleDir);
        QVERIFY(iosJsonFiles(kSampleDir).size() >= 7);
    }
    void bundledRoundTrip() {
        QFETCH(QString, path);
        checkRoundTrip(path);
    }

    void referenceRoundTrip_data() {
        if (!kReferenceDir.isEmpty()) {
            addFiles(kReferenceDir);
            return;
        }
        QTest::addColumn<QString>("path");
        QTest::newRow("reference folder absent") << QString(); // Qt Test needs one row
    }
    void referenceRoundTrip() {
        QFETCH(QString, path);
        if (path.isEmpty())
            QSKIP("no reference models folder (IOS_REFERENCE_MODELS_DIR); the bundled copies "
                  "were round-tripped instead");
        checkRoundTrip(path);
    }

    // The bundled copies must be the reference files, byte for byte.
    void bundledEqualsReference() {
        if (kReferenceDir.isEmpty())
            QSKIP("no reference models folder (IOS_REFERENCE_MODELS_DIR); only the bundled "
                  "copies were checked");
        const QStringList reference = QDir(kReferenceDir).entryList(QDir::Files, QDir::Name);
        QCOMPARE(reference.size(), 5);
        for (const QString& f : reference) {
            const QString bundled = kSampleDir + QLatin1Char('/') + f;
            QVERIFY2(QFile::exists(bundled), qPrintable(f + QStringLiteral(" is not bundled")));
            QVERIFY2(readFile(bundled) == readFile(kReferenceDir + QLatin1Char('/') + f),
                     qPrintable(f));
        }
    }

    void modelCounts_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<int>("operators");
        QTest::newRow("inception_v3") << "inception_v3.ios.json" << 13 << 119;
        QTest::newRow("squeezenet") << "squeezenet.ios.json" << 12 << 50;
        QTest::newRow("nasnet_large") << "nasnet_large.ios.json" << 1 << 374;
        QTest::newRow("randwire_large") << "randwire_large.ios.json" << 6 << 120;
    }
    void modelCounts() {
        QFETCH(QString, file);
        QFETCH(int, blocks);
        QFETCH(int, operators);
        const ir::Graph g = io::parseIosJson(readFile(kSampleDir + "/" + file), "m");
        QCOMPARE(int(g.blocks.size()), blocks);
        QCOMPARE(int(g.operatorCount()), operators);
        // The reference stages are the sequential schedule: one operator per stage.
        for (const ir::Block& b : g.blocks) {
            QCOMPARE(b.stages.size(), b.innerNodes.size() + 1);
            QCOMPARE(b.stages.back(), ir::NameStage{{b.exitNode.name}});
        }
    }

    void nasnetParts() {
        ir::Graph g = io::parseIosJson(readFile(kSampleDir + "/nasnet_large.ios.json"), "n");
        QVERIFY(g.blocks[0].parts.empty());
        const std::string partsText = readFile(kSampleDir + "/nasnet_large.parts.json");
        io::applyPartsJson(g, partsText, "parts");
        const std::vector<int> sizes{1,  18, 21, 18, 16, 16, 16, 16, 16, 19, 18, 16, 16,
                                     16, 16, 16, 19, 18, 16, 16, 16, 16, 16, 1,  1};
        const auto& parts = g.blocks[0].parts;
        QCOMPARE(int(parts.size()), 25);
        for (size_t i = 0; i < parts.size(); ++i)
            QCOMPARE(int(parts[i].size()), sizes[i]);
        QCOMPARE(parts[0], std::vector<std::string>{"1"});
        QCOMPARE(parts[1].front(), std::string("4"));
        QCOMPARE(parts[1].back(), std::string("51"));
        QCOMPARE(parts[24], std::vector<std::string>{"1128"});
    }

    void nasnetPartsBesideModelFile() {
        // loadModelFile picks up "<stem>.parts.json" beside "<stem>.ios.json".
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const char* f : {"nasnet_large.ios.json", "nasnet_large.parts.json"})
            QVERIFY(QFile::copy(kSampleDir + "/" + f, dir.filePath(f)));
        const ir::Graph g = io::loadModelFile(dir.filePath("nasnet_large.ios.json").toStdString());
        QCOMPARE(int(g.blocks[0].parts.size()), 25);
    }

    void badPartsFiles_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not object") << "[1]"
                                    << "must be a JSON object";
        QTest::newRow("other model") << R"({"model": "x", "block_index": 0,
            "split_node_names": ["0", "1128"]})"
                                     << "not 'nasnet_large'";
        QTest::newRow("block index") << R"({"block_index": 3, "split_node_names": ["0", "1128"]})"
                                     << "block_index";
        QTest::newRow("not increasing")
            << R"({"block_index": 0, "split_node_names": ["0", "600", "500", "1128"]})"
            << "strictly increasing";
        QTest::newRow("not integer") << R"({"block_index": 0, "split_node_names": ["0", "x1"]})"
                                     << "strictly increasing";
        QTest::newRow("uncovered") << R"({"block_index": 0, "split_node_names": ["0", "600"]})"
                                   << "in no part";
        QTest::newRow("empty part")
            << R"({"block_index": 0, "split_node_names": ["0", "1", "2", "1128"]})"
            << "part 1 of the split rule is empty";
        QTest::newRow("sizes disagree")
            << R"({"block_index": 0, "split_node_names": ["0", "1128"], "part_sizes": [3]})"
            << "part_sizes";
        QTest::newRow("unknown field")
            << R"({"block_index": 0, "split_node_names": ["0", "1128"], "extra": 1})"
            << "unknown field 'extra'";
    }
    void badPartsFiles() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        ir::Graph g = io::parseIosJson(readFile(kSampleDir + "/nasnet_large.ios.json"), "n");
        try {
            io::applyPartsJson(g, text.toStdString(), "p.json");
            QFAIL("no error");
        } catch (const UserError& e) {
            const QString what = QString::fromStdString(e.what());
            QVERIFY2(what.startsWith("p.json: ") && what.contains(expected), qPrintable(what));
        }
        QVERIFY(g.blocks[0].parts.empty());
    }

    // Node kinds absent from the reference files keep the same layout: kind fields between
    // inputs and output_shape.
    void otherNodeKinds() {
        std::string text = readFile(kSampleDir + "/demo_figure2.ios.json");
        ir::Graph g = io::parseIosJson(text, "f2");
        ir::Node act;
        act.kind = ir::NodeKind::Activation;
        act.activation = ir::ActType::Sigmoid;
        act.name = act.hintName = "6";
        act.inputs = {{{"1", 0, 192}}};
        act.outputShape = {192, 15, 15};
        ir::Node elem = act;
        elem.kind = ir::NodeKind::Element;
        elem.activation = ir::Node{}.activation;
        elem.element = ir::ElementOp::Mul;
        elem.name = elem.hintName = "7";
        elem.inputs = {{{"6", 0, 192}, {"1", 0, 192}}};
        g.blocks[0].innerNodes.push_back(act);
        g.blocks[0].innerNodes.push_back(elem);
        g.blocks[0].stages.push_back({{"6"}}); // the stages stay a schedule of the block
        g.blocks[0].stages.push_back({{"7"}});
        const std::string written = io::writeIosJson(g);
        QVERIFY(written.find("\"act_type\": \"sigmoid\",\n     \"output_shape\"") !=
                std::string::npos);
        QVERIFY(written.find("\"op_type\": \"mul\",\n     \"output_shape\"") != std::string::npos);
        QVERIFY(io::parseIosJson(written, "w") == g);
    }

    // Python writes empty lists as "[]" on one line, also with indent=1.
    void emptyLists() {
        ir::Graph g = io::parseIosJson(readFile(kSampleDir + "/demo_figure2.ios.json"), "f2");
        ir::Block& b = g.blocks[0];
        b.exitNode = b.innerNodes[0];
        b.innerNodes.clear();
        b.stages.clear();
        const std::string written = io::writeIosJson(g);
        QVERIFY(written.find("   \"inner_nodes\": [],\n   \"exit_node\": {") != std::string::npos);
        QVERIFY(written.ends_with("   \"stages\": []\n  }\n ]\n}"));
        QVERIFY(io::parseIosJson(written, "w") == g);
    }

    // IOS JSON cannot mark in-place terms (rule R5): the writer leaves the flags out, writes
    // the file a graph without them gives, and says so through `warnings` (also when saving
    // by extension); a graph without flags gives no warning.
    void writerDropsInPlaceWithWarning() {
        const ir::Graph g = io::parseIosJson(readFile(kSampleDir + "/demo_figure2.ios.json"), "f2");
        ir::Graph flagged = g;
        for (ir::Term& t : flagged.blocks[0].exitNode.inputs)
            t.front().inPlace = true;
        ir::validateAndInferShapes(flagged);
        std::vector<std::string> warnings;
        QCOMPARE(io::writeIosJson(flagged, &warnings), io::writeIosJson(g));
        QCOMPARE(warnings.size(), size_t{1});
        QVERIFY2(warnings.front().find("in-place") != std::string::npos &&
                     warnings.front().find("'5'") != std::string::npos,
                 warnings.front().c_str());
        warnings.clear();
        io::writeIosJson(g, &warnings);
        QVERIFY(warnings.empty());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("m.ios.json").toStdString();
        io::saveModelFile(flagged, path, &warnings);
        QCOMPARE(warnings.size(), size_t{1});
        QVERIFY(io::loadModelFile(path) == g);
    }

    // Python's json.dumps(ensure_ascii=True) escapes everything outside printable ASCII.
    void asciiEscaping() {
        ir::Graph g = io::parseIosJson(readFile(kSampleDir + "/demo_figure2.ios.json"), "f2");
        g.blocks[0].innerNodes[0].hintName = "caf\xc3\xa9\t\x7f\"\\/";
        const std::string written = io::writeIosJson(g);
        QVERIFY2(written.find("\"hint_name\": \"caf\\u00e9\\t\\u007f\\\"\\\\/\"") !=
                     std::string::npos,
                 written.c_str());
        QVERIFY(io::parseIosJson(written, "w") == g);
    }
};

QTEST_GUILESS_MAIN(TestIosJson)
#include "tst_ios_json.moc"
