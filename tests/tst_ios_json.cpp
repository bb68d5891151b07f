// SPDX-License-Identifier: Apache-2.0
// IOS JSON import/export: byte-exact round trips of the bundled and reference models, the
// NasNet parts file, the key layout of node kinds the reference files do not contain, and the
// exchange with the IOS authors' own code: files their export_config() wrote load, and what
// the writer gives has every key their Graph.from_config() reads (docs/formats.md).
#include "io/ios_json.h"
#include "io/model_file.h"
#include "io/native_json.h"
#include "ir/validate.h"
#include "reference_models.h"
#include "util/error.h"
#include "util/file_util.h"
#include "util/json_text.h"

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <map>

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
const QString kAuthorsDir = QStringLiteral(IOS_SOURCE_DIR "/tests/data/authors_export");

using util::Json;

// The keys the IOS authors' Graph.from_config() reads from each node type (python/ios/ir.py of
// github.com/mit-han-lab/inter-operator-scheduler); a missing one is a KeyError there.
const std::map<std::string, std::vector<std::string>>& authorsRequiredKeys() {
    static const std::map<std::string, std::vector<std::string>> keys = {
        {"placeholder", {"type", "name", "hint_name", "output_shape"}},
        {"conv",
         {"type", "name", "hint_name", "inputs", "out_channels", "kernel", "stride", "padding",
          "groups", "act", "output_shape"}},
        {"pool",
         {"type", "name", "hint_name", "inputs", "pool_type", "kernel", "stride", "padding",
          "output_shape"}},
        {"identity", {"type", "name", "hint_name", "inputs", "output_shape"}},
        {"relu", {"type", "name", "hint_name", "inputs", "output_shape"}},
        {"activation",
         {"type", "name", "hint_name", "inputs", "act_type", "inplace", "output_shape"}},
        {"element", {"type", "name", "hint_name", "inputs", "op_type", "output_shape"}},
        {"sequential", {"type", "name", "hint_name", "nodes", "output_shape"}},
    };
    return keys;
}

bool isOneOf(const Json& v, std::initializer_list<const char*> values) {
    return v.is_string() && std::any_of(values.begin(), values.end(), [&](const char* x) {
               return v.get_ref<const std::string&>() == x;
           });
}

// One node as the authors' loader and runtimes take it; names the problem, empty when fine.
std::string authorsNodeProblem(const Json& n) {
    if (!n.is_object() || !n.contains("type") || !n["type"].is_string())
        return "a node without a string type";
    const std::string type = n["type"].get<std::string>();
    const auto it = authorsRequiredKeys().find(type);
    if (it == authorsRequiredKeys().end())
        return "type '" + type + "' unknown to the authors' loader";
    for (const std::string& k : it->second)
        if (!n.contains(k))
            return type + " '" + n.value("name", "?") + "' lacks '" + k + "'";
    if (type == "conv" && !isOneOf(n["act"], {"relu", "sigmoid", "tanh", "identity"}))
        return "conv act " + n["act"].dump();
    if (type == "pool" && !isOneOf(n["pool_type"], {"max", "avg", "global_max", "global_avg"}))
        return "pool_type " + n["pool_type"].dump();
    if (type == "activation" &&
        (!n["inplace"].is_boolean() || !isOneOf(n["act_type"], {"relu", "tanh", "sigmoid"})))
        return "activation " + n["act_type"].dump() + " inplace " + n["inplace"].dump();
    if (type == "element" && !isOneOf(n["op_type"], {"add", "mul"}))
        return "op_type " + n["op_type"].dump();
    for (const Json& inner : n.value("nodes", Json::array()))
        if (std::string p = authorsNodeProblem(inner); !p.empty())
            return p;
    return {};
}

// A whole written model against the authors' loader: the model and block keys it reads, each
// node's keys and values, stages as lists of lists of names.
std::string authorsModelProblem(const Json& m) {
    for (const char* k : {"name", "input", "blocks"})
        if (!m.contains(k))
            return std::string("the model lacks '") + k + "'";
    if (std::string p = authorsNodeProblem(m["input"]); !p.empty())
        return p;
    for (const Json& b : m["blocks"]) {
        for (const char* k : {"enter_name", "enter_node", "inner_nodes", "exit_node", "stages"})
            if (!b.contains(k))
                return std::string("a block lacks '") + k + "'";
        for (const Json& n : b["inner_nodes"])
            if (std::string p = authorsNodeProblem(n); !p.empty())
                return p;
        if (std::string p = authorsNodeProblem(b["exit_node"]); !p.empty())
            return p;
        if (!b["stages"].is_array())
            return "stages " + b["stages"].dump();
    }
    return {};
}

// The authors' file as this writer gives it back: pool_type in its canonical spelling, null
// stages as [] (docs/formats.md "The IOS authors' code").
void normaliseAuthorsFile(Json& j) {
    if (j.is_object()) {
        if (j.contains("pool_type")) {
            const std::string t = j["pool_type"].get<std::string>();
            const bool max = t.find("max") != std::string::npos;
            j["pool_type"] = t.find("global") != std::string::npos
                                 ? (max ? "global_max" : "global_avg")
                                 : (max ? "max" : "avg");
        }
        if (j.contains("stages") && j["stages"].is_null())
            j["stages"] = Json::array();
    }
    if (j.is_structured())
        for (Json& v : j)
            normaliseAuthorsFile(v);
}

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
    // Every file the authors' export_config() wrote (their networks, their optimizer's output)
    // loads; written back it is their file (up to the two normalisations) key for key, in
    // their key order, and has everything their loader reads; read again it is the same graph.
    void authorsFiles_data() {
        addFiles(kAuthorsDir);
        QVERIFY(iosJsonFiles(kAuthorsDir).size() >= 9);
    }
    void authorsFiles() {
        QFETCH(QString, path);
        const std::string text = readFile(path);
        const ir::Graph g = io::parseIosJson(text, path.toStdString());
        const std::string written = io::writeIosJson(g);
        const Json out = util::parseJsonDocument(written, "written").root();
        QCOMPARE(QString::fromStdString(authorsModelProblem(out)), QString());
        Json theirs = util::parseJsonDocument(text, "theirs").root();
        normaliseAuthorsFile(theirs);
        QVERIFY2(out == theirs, "written back, the authors' file changed");
        QVERIFY(io::parseIosJson(written, "written") == g);
    }

    // What the authors' files hold that this project's own files do not.
    void authorsVariants() {
        const ir::Graph alex = io::parseIosJson(readFile(kAuthorsDir + "/alexnet.ios.json"), "a");
        QVERIFY(alex.blocks[0].stages.empty());                               // "stages": null
        QVERIFY(alex.blocks[0].innerNodes[1].pool.type == ir::PoolType::Max); // "max_pool"
        const ir::Graph res =
            io::parseIosJson(readFile(kAuthorsDir + "/resnet50_expansion1.ios.json"), "r");
        int inPlace = 0;
        for (const ir::Block& b : res.blocks)
            for (const ir::Node* op : b.operators())
                inPlace += op->kind == ir::NodeKind::Activation && op->activationInPlace;
        QCOMPARE(inPlace, 16); // the ReLU closing each bottleneck
        const ir::Graph merged = io::parseIosJson(
            readFile(kAuthorsDir + "/resnet50_expansion1_dp_merge_const.ios.json"), "m");
        QCOMPARE(merged.blocks[2].innerNodes[0].hintName, std::string("18 19"));
    }

    // Their own ResNet-50 adds each bottleneck's 64-channel conv to a 256-channel skip (their
    // shape inference takes the first value's channels, their CUDA runtime reads the first 64
    // channels of the skip's buffer): read that way, with one warning naming the nodes.
    void authorsResnet50ReadsAsTheirRuntime() {
        const std::string text = readFile(kAuthorsDir + "/wider_sums/resnet50.ios.json");
        std::vector<std::string> warnings;
        const ir::Graph g = io::parseIosJson(text, "r50", &warnings);
        QCOMPARE(warnings.size(), size_t{1});
        QVERIFY2(warnings[0].find("4 element-wise nodes combine inputs of different widths: "
                                  "'7' (64 of 256 channels from '3')") != std::string::npos,
                 warnings[0].c_str());
        const ir::Node& sum = g.blocks[1].innerNodes[4];
        QCOMPARE(sum.name, std::string("7"));
        QCOMPARE(sum.inputs.size(), size_t{1});
        QCOMPARE(sum.inputs[0][1].node, std::string("3"));
        QCOMPARE(sum.inputs[0][1].begin, int64_t{0});
        QCOMPARE(sum.inputs[0][1].end, int64_t{64});
        QCOMPARE(sum.outputShape.c, int64_t{64});
        // Written back it says so in the file: their loader reads it, this one without warning.
        const std::string written = io::writeIosJson(g);
        QCOMPARE(QString::fromStdString(
                     authorsModelProblem(util::parseJsonDocument(written, "w").root())),
                 QString());
        std::vector<std::string> again;
        QVERIFY(io::parseIosJson(written, "written", &again) == g);
        QVERIFY(again.empty());
        // Without a sink it still loads (the warning is only not said).
        QVERIFY(io::parseIosJson(text, "r50") == g);
    }

    // What their runtime cannot read is still refused: a later value narrower than the first
    // (it would read past that buffer), and any wider sum in the native format (this
    // project's own files imitate no runtime).
    void widerSumsRefusedOtherwise() {
        std::string text = readFile(kAuthorsDir + "/wider_sums/resnet50.ios.json");
        const std::string original = R"([["6", 0, 64], ["3", 0, 256]])";
        const size_t at = text.find(original);
        QVERIFY(at != std::string::npos);
        text.replace(at, original.size(), R"([["3", 0, 256], ["6", 0, 64]])");
        try {
            io::parseIosJson(text, "swapped");
            QFAIL("a narrower later value was accepted");
        } catch (const UserError& e) {
            QVERIFY2(std::string(e.what()).find("node '7': element-wise combined inputs have "
                                                "different channel counts (256 vs 64") !=
                         std::string::npos,
                     e.what());
        }
        Json model =
            util::parseJsonDocument(readFile(kAuthorsDir + "/wider_sums/resnet50.ios.json"), "r50")
                .root();
        Json native = Json::object();
        native["format"] = io::kNativeFormatName;
        native["version"] = io::kNativeFormatVersion;
        native["model"] = model;
        QVERIFY_THROWS_EXCEPTION(UserError, io::parseNativeJson(native.dump(), "native"));
    }

    // The writer's output against the authors' loader for every bundled model and for a graph
    // holding each node kind (activation and element included).
    void writerGivesAuthorsKeys_data() { addFiles(kSampleDir); }
    void writerGivesAuthorsKeys() {
        QFETCH(QString, path);
        ir::Graph g = io::parseIosJson(readFile(path), path.toStdString());
        ir::Node act;
        act.kind = ir::NodeKind::Activation;
        act.activation = ir::ActType::Tanh;
        act.name = act.hintName = "extra_activation";
        act.inputs = {{{g.blocks[0].enterName, 0, g.input.outputShape.c}}};
        ir::Node elem = act;
        elem.kind = ir::NodeKind::Element;
        elem.name = elem.hintName = "extra_element";
        elem.inputs = {{{act.name, 0, act.inputs[0][0].end},
                        {g.blocks[0].enterName, 0, act.inputs[0][0].end}}};
        ir::Block& b = g.blocks[0];
        b.innerNodes.insert(b.innerNodes.begin(), {act, elem});
        if (!b.stages.empty())
            b.stages.insert(b.stages.begin(), {{{act.name}}, {{elem.name}}});
        ir::validateAndInferShapes(g);
        const Json out = util::parseJsonDocument(io::writeIosJson(g), "written").root();
        QCOMPARE(QString::fromStdString(authorsModelProblem(out)), QString());
        QVERIFY(out["blocks"][0]["inner_nodes"][0]["inplace"] == Json(false));
        QVERIFY(out["blocks"][0]["inner_nodes"][1]["op_type"] == Json("add"));
    }

    // inplace: optional on reading (older files of this tool), a boolean when present; a
    // pool_type the authors' runtimes would not run is refused, their spellings accepted.
    void authorsFieldChecks_data() {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("error"); // empty: loads
        const QString act = QStringLiteral("\"act_type\": \"sigmoid\",");
        QTest::newRow("inplace absent") << act << act << "";
        QTest::newRow("inplace true") << act << act + " \"inplace\": true,"
                                      << "";
        QTest::newRow("inplace not boolean") << act << act + " \"inplace\": 1,"
                                             << "field 'inplace' must be true or false";
        const QString pool = QStringLiteral("\"pool_type\": \"max\"");
        QTest::newRow("max_pool") << pool << "\"pool_type\": \"max_pool\""
                                  << "";
        QTest::newRow("avg_pool") << pool << "\"pool_type\": \"avg_pool\""
                                  << "";
        QTest::newRow("global_avg_pool") // read as global: a 1×1 output
            << pool << "\"pool_type\": \"global_avg_pool\""
            << "the inferred [192, 1, 1]";
        QTest::newRow("neither max nor avg") << pool << "\"pool_type\": \"sum\""
                                             << "field 'pool_type' must be one of";
    }
    void authorsFieldChecks() {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, error);
        // demo_figure2 with one pool (1×1 max) and one activation
        ir::Graph g = io::parseIosJson(readFile(kSampleDir + "/demo_figure2.ios.json"), "f2");
        ir::Node act;
        act.kind = ir::NodeKind::Activation;
        act.activation = ir::ActType::Sigmoid;
        act.name = act.hintName = "a";
        act.inputs = {{{"1", 0, 192}}};
        act.outputShape = {192, 15, 15};
        ir::Node pool = act;
        pool.kind = ir::NodeKind::Pool;
        pool.name = pool.hintName = "p";
        g.blocks[0].innerNodes.push_back(pool);
        g.blocks[0].innerNodes.push_back(act);
        g.blocks[0].stages.push_back({{"p"}});
        g.blocks[0].stages.push_back({{"a"}});
        QString text = QString::fromStdString(io::writeIosJson(g));
        text.replace(QStringLiteral("\"inplace\": false,"), QString()); // one line each
        text.replace(QRegularExpression(QStringLiteral("\\s+")), QStringLiteral(" "));
        QVERIFY2(text.count(from) >= 1, qPrintable(from));
        text.replace(from, to);
        try {
            const ir::Graph got = io::parseIosJson(text.toStdString(), "edited");
            QVERIFY2(error.isEmpty(), "loaded");
            const ir::Node& a = got.blocks[0].innerNodes.back();
            QCOMPARE(a.activationInPlace, to.contains(QStringLiteral("true")));
        } catch (const UserError& e) {
            QVERIFY2(!error.isEmpty() && QString::fromUtf8(e.what()).contains(error), e.what());
        }
    }

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
        QVERIFY(written.find("\"act_type\": \"sigmoid\",\n     \"inplace\": false,\n     "
                             "\"output_shape\"") != std::string::npos);
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

    // A GELU (ONNX import) has no act_type in the IOS authors' code: written as 'gelu', read
    // back as written, and the writer says so.
    void geluWarnsAndRoundTrips() {
        ir::Graph g = io::parseIosJson(readFile(kSampleDir + "/demo_figure2.ios.json"), "f2");
        ir::Node& first = g.blocks[0].innerNodes[0];
        QVERIFY(first.kind == ir::NodeKind::Conv);
        first.conv.act = ir::ActType::Gelu;
        std::vector<std::string> warnings;
        const std::string written = io::writeIosJson(g, &warnings);
        QCOMPARE(warnings.size(), size_t{1});
        QVERIFY2(warnings.front().starts_with("GELU activations at '" + first.name + "'"),
                 warnings.front().c_str());
        QVERIFY(written.find("\"act\": \"gelu\"") != std::string::npos);
        QVERIFY(io::parseIosJson(written, "w") == g);
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
