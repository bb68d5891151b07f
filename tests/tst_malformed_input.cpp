// SPDX-License-Identifier: Apache-2.0
// Malformed model files: every class of bad input gives an ios::UserError that names the file
// (and the node, when there is one), never a crash; failed writes leave no output behind.
#include "io/model_file.h"
#include "util/error.h"
#include "util/file_util.h"
#include "util/json_text.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <unistd.h>

using namespace ios;
using Json = util::Json;

namespace {

const QString kFigure2 = QStringLiteral(IOS_SOURCE_DIR "/sample_models/demo_figure2.ios.json");

std::string figure2Text() {
    return util::readTextFile(kFigure2.toStdString());
}

// demo_figure2 with the value at JSON pointer `at` replaced (or, for a null `value`, removed).
std::string mutated(const std::string& at, const Json& value) {
    Json doc = Json::parse(figure2Text());
    const Json::json_pointer ptr(at);
    if (value.is_null())
        doc.at(ptr.parent_pointer()).erase(ptr.back());
    else
        doc[ptr] = value;
    return doc.dump(1);
}

const std::string kConv = "/blocks/0/inner_nodes/0";  // node "1" (a), a 1x1 conv on the input
const std::string kConvB = "/blocks/0/inner_nodes/1"; // node "2" (b), reads "1"

Json parsed(const char* json) {
    return Json::parse(json);
}

} // namespace

class TestMalformedInput : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void rejected_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected"); // part of the message
        QTest::addColumn<QString>("node");     // the node the error names, or empty

        const std::string good = figure2Text();
        auto row = [](const char* name, const std::string& text, const char* expected,
                      const char* node = "") {
            QTest::newRow(name) << QByteArray::fromStdString(text) << QString(expected)
                                << QString(node);
        };

        row("empty", "", "the file is empty");
        row("blank", " \n\t ", "the file is empty");
        for (size_t cut : {size_t{1}, size_t{17}, size_t{300}, good.size() / 2, good.size() - 1})
            QTest::newRow(qPrintable(QStringLiteral("truncated at %1").arg(cut)))
                << QByteArray::fromStdString(good.substr(0, cut)) << "not valid JSON"
                << "";
        QRandomGenerator rng(20210402); // fixed seed: the same bytes on every run
        for (int len : {1, 7, 64, 4096}) {
            QByteArray bytes(len, Qt::Uninitialized);
            for (char& b : bytes)
                b = char(rng.bounded(256));
            bytes[0] = char(0x80 | rng.bounded(128)); // never a valid JSON start
            QTest::newRow(qPrintable(QStringLiteral("random %1 bytes").arg(len)))
                << bytes << "not valid JSON"
                << "";
        }
        std::string nonUtf8 = good;
        nonUtf8.replace(nonUtf8.find("\"concat\""), 8, "\"conc\xff\xfe\"");
        row("non-UTF-8 string", nonUtf8, "not valid JSON");
        row("trailing garbage", good + "}", "not valid JSON");
        row("deep nesting", std::string(200000, '['), "nests deeper than 64");
        row("deep nesting in a field",
            "{\"name\": " + std::string(200000, '[') + std::string(200000, ']') + "}",
            "nests deeper than 64");
        row("top level array", "[]", "must be an object");

        // Wrong types, per field.
        row("model name", mutated("/name", 5), "field 'name' must be a string");
        row("blocks", mutated("/blocks", Json::object()), "field 'blocks' must be an array");
        row("block", mutated("/blocks/0", 3), "blocks[0]: must be an object");
        row("enter_name", mutated("/blocks/0/enter_name", Json::array()),
            "field 'enter_name' must be a string");
        row("inner_nodes", mutated("/blocks/0/inner_nodes", "x"),
            "field 'inner_nodes' must be an array");
        row("stages", mutated("/blocks/0/stages", 1), "field 'stages' must be an array");
        row("stage group", mutated("/blocks/0/stages/0", parsed("[[1]]")),
            "field 'stages' must hold arrays of operator names");
        row("node", mutated(kConv, "conv"), "blocks[0].inner_nodes[0]: must be an object");
        row("node name", mutated(kConv + "/name", 1), "field 'name' must be a string");
        row("type", mutated(kConv + "/type", 1), "field 'type' must be a string", "1");
        row("hint_name", mutated(kConv + "/hint_name", Json::array()),
            "field 'hint_name' must be a string", "1");
        row("inputs", mutated(kConv + "/inputs", "0"), "field 'inputs' must be an array", "1");
        row("input term", mutated(kConv + "/inputs/0", 0), "term 0 must be an array", "1");
        row("input value", mutated(kConv + "/inputs/0/0", parsed("[\"0\", 0]")),
            "not [name, begin, end]", "1");
        row("input name", mutated(kConv + "/inputs/0/0/0", 0), "not [name, begin, end]", "1");
        row("out_channels", mutated(kConv + "/out_channels", "192"),
            "field 'out_channels' must be an integer", "1");
        row("kernel", mutated(kConv + "/kernel", parsed("[1]")),
            "field 'kernel' must be an array of 2 integers", "1");
        row("stride", mutated(kConv + "/stride", "1"), "field 'stride' must be an array", "1");
        row("padding", mutated(kConv + "/padding", parsed("[0, 0, 0]")),
            "field 'padding' must be an array of 2", "1");
        row("groups", mutated(kConv + "/groups", 1.5), "field 'groups' must be an integer", "1");
        row("boolean groups", mutated(kConv + "/groups", true), "field 'groups'", "1");
        row("act", mutated(kConv + "/act", "swish"), "field 'act' must be one of", "1");
        row("output_shape", mutated(kConv + "/output_shape", parsed("[192, 15]")),
            "field 'output_shape' must be an array of 3", "1");

        // Missing fields.
        for (const char* f : {"type", "hint_name", "inputs", "out_channels", "kernel", "stride",
                              "padding", "groups", "act", "output_shape"})
            QTest::newRow(qPrintable(QStringLiteral("missing %1").arg(f)))
                << QByteArray::fromStdString(mutated(kConv + "/" + f, nullptr))
                << QStringLiteral("missing field '%1'").arg(f) << "1";
        row("missing name", mutated(kConv + "/name", nullptr),
            "blocks[0].inner_nodes[0]: missing field 'name'");
        for (const char* f : {"enter_name", "enter_node", "inner_nodes", "exit_node", "stages"})
            QTest::newRow(qPrintable(QStringLiteral("missing block %1").arg(f)))
                << QByteArray::fromStdString(mutated(std::string("/blocks/0/") + f, nullptr))
                << QStringLiteral("blocks[0]: missing field '%1'").arg(f) << "";
        for (const char* f : {"name", "input", "blocks"})
            QTest::newRow(qPrintable(QStringLiteral("missing model %1").arg(f)))
                << QByteArray::fromStdString(mutated(std::string("/") + f, nullptr))
                << QStringLiteral("missing field '%1'").arg(f) << "";

        row("unknown node type", mutated(kConv + "/type", "foo"), "unknown node type 'foo'", "1");
        row("unknown field", mutated(kConv + "/dilation", parsed("[1, 1]")),
            "unknown field 'dilation'", "1");
        row("unknown input", mutated(kConvB + "/inputs/0/0/0", "99"), "unknown input '99'", "2");
        row("cycle", mutated(kConv + "/inputs", parsed("[[[\"2\", 0, 384]]]")), "cycle", "1");
        row("channel range", mutated(kConv + "/inputs/0/0/2", 999), "out of bounds", "1");
        row("empty channel range", mutated(kConv + "/inputs/0/0/2", 0), "out of bounds", "1");
        row("shape mismatch", mutated(kConv + "/output_shape", parsed("[192, 14, 15]")),
            "does not match the inferred", "1");
        row("zero kernel", mutated(kConv + "/kernel", parsed("[0, 1]")), "kernel = 0", "1");
        row("zero stride", mutated(kConv + "/stride", parsed("[1, 0]")), "stride = 0", "1");
        row("zero out_channels", mutated(kConv + "/out_channels", 0), "out_channels = 0", "1");
        row("zero groups", mutated(kConv + "/groups", 0), "groups = 0", "1");
        row("negative kernel", mutated(kConv + "/kernel", parsed("[-1, 1]")),
            "field 'kernel' must be an array of 2 integers in [0, 4096]", "1");
        row("out_channels 1e30", mutated(kConv + "/out_channels", 1e30),
            "field 'out_channels' must be an integer", "1");
        row("out_channels 2^63", mutated(kConv + "/out_channels", uint64_t{1} << 63),
            "field 'out_channels' must be an integer", "1");
        row("out_channels -1", mutated(kConv + "/out_channels", -1),
            "field 'out_channels' must be an integer", "1");
        std::string huge = good;
        huge.replace(huge.find("\"out_channels\": 192"), 19,
                     "\"out_channels\": 123456789012345678901234567890");
        row("out_channels beyond uint64", huge, "field 'out_channels' must be an integer", "1");
        row("channel begin -2^63", mutated(kConv + "/inputs/0/0/1", INT64_MIN), "not [name", "1");
        row("huge input", mutated("/input/output_shape", parsed("[1048576, 1048576, 1048576]")),
            "too large", "0");
        row("duplicate name", mutated(kConvB + "/name", "1"), "duplicate node name", "1");
        row("stage names unknown operator", mutated("/blocks/0/stages/0/0/0", "zz"),
            "stage 0 names 'zz', which is not an operator of the block");
        // Stages must be a schedule of the block (convert passes them on).
        row("stage repeats an operator", mutated("/blocks/0/stages", parsed(R"([[["1"], ["1"]]])")),
            "block 0: the stages are not a schedule of the block: stage 1 schedules the "
            "operator a second time",
            "1");
        row("stages miss an operator",
            mutated("/blocks/0/stages", parsed(R"([[["1"]], [["2"]], [["3"]], [["4"]]])")),
            "the schedule misses the operator", "5");
        row("stage runs an operator before its input",
            mutated("/blocks/0/stages", parsed(R"([[["2"]], [["1"]], [["3"], ["4"]], [["5"]]])")),
            "stage 1 runs the operator before its input '1'", "2");
        row("empty stage group", mutated("/blocks/0/stages", parsed("[[[]]]")),
            "stage 1, group 1 is empty");
        row("exit node read inside its block",
            mutated("/blocks/0/inner_nodes/4",
                    parsed(R"({"type": "relu", "name": "9", "hint_name": "9",
                               "inputs": [[["5", 0, 960]]], "output_shape": [960, 15, 15]})")),
            "reads '5', the exit node of block 0", "9");
    }

    void rejected() {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        QFETCH(QString, node);
        const QString path = dir_.filePath(QStringLiteral("bad.ios.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(f.write(text), text.size());
        f.close();
        try {
            io::loadModelFile(path.toStdString());
            QFAIL("loaded without error");
        } catch (const UserError& e) {
            const QString what = QString::fromStdString(e.what());
            QVERIFY2(what.startsWith(path + QStringLiteral(": ")), qPrintable(what));
            QVERIFY2(what.contains(expected), qPrintable(what));
            QCOMPARE(QString::fromStdString(e.node()), node);
            if (!node.isEmpty())
                QVERIFY2(what.contains(QStringLiteral("node '%1': ").arg(node)), qPrintable(what));
        }
    }

    void badPaths_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing") << "no-such.ios.json"
                                 << "cannot open file";
        QTest::newRow("directory") << "a-dir.ios.json"
                                   << "is a directory";
        QTest::newRow("extension") << "model.txt"
                                   << "supported: .ios.json";
        QTest::newRow("dot is write-only") << "model.dot"
                                           << "can be written but not read";
    }
    void badPaths() {
        QFETCH(QString, path);
        QFETCH(QString, expected);
        QVERIFY(QDir(dir_.path()).mkpath(QStringLiteral("a-dir.ios.json")));
        const std::string full = dir_.filePath(path).toStdString();
        try {
            io::loadModelFile(full);
            QFAIL("loaded without error");
        } catch (const UserError& e) {
            QCOMPARE(e.file(), full);
            QVERIFY2(QString::fromStdString(e.message()).contains(expected), e.what());
        }
    }

    // A failed save throws, names the path, and leaves neither the file nor a temporary.
    void saveFailsCleanly_data() {
        QTest::addColumn<QString>("target"); // relative to a fresh directory
        QTest::addColumn<QString>("expected");
        QTest::newRow("nonexistent directory") << "missing/out.ios.json"
                                               << "No such file";
        QTest::newRow("parent is a file") << "file/out.json"
                                          << "Not a directory";
        QTest::newRow("target is a directory") << "sub.ios.json"
                                               << "is a directory";
        QTest::newRow("read-only directory") << "ro/out.dot"
                                             << "Permission denied";
        QTest::newRow("bad extension") << "out.png"
                                       << "unsupported file extension";
    }
    void saveFailsCleanly() {
        QFETCH(QString, target);
        QFETCH(QString, expected);
        QTemporaryDir root;
        QVERIFY(root.isValid());
        QDir d(root.path());
        QVERIFY(d.mkdir(QStringLiteral("sub.ios.json")) && d.mkdir(QStringLiteral("ro")));
        QFile file(d.filePath(QStringLiteral("file")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        QVERIFY(QFile::setPermissions(d.filePath(QStringLiteral("ro")),
                                      QFile::ReadOwner | QFile::ExeOwner));
        if (target.startsWith(QStringLiteral("ro/")) &&
            ::access(qPrintable(d.filePath("ro")), W_OK) == 0)
            QSKIP("running as root: a read-only directory is still writable");
        const QStringList before =
            d.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);

        const ir::Graph g = io::loadModelFile(kFigure2.toStdString());
        const std::string path = d.filePath(target).toStdString();
        try {
            io::saveModelFile(g, path);
            QFAIL("saved without error");
        } catch (const UserError& e) {
            QCOMPARE(e.file(), path);
            QVERIFY2(QString::fromStdString(e.message()).contains(expected), e.what());
        }
        QCOMPARE(d.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), before);
        QCOMPARE(QDir(d.filePath(QStringLiteral("sub.ios.json")))
                     .entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden)
                     .size(),
                 0);
        QCOMPARE(QDir(d.filePath(QStringLiteral("ro")))
                     .entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden)
                     .size(),
                 0);
        QFile::setPermissions(d.filePath(QStringLiteral("ro")),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }

    // Saving over an existing file replaces it whole.
    void saveReplacesAtomically() {
        QTemporaryDir root;
        const std::string path = root.filePath(QStringLiteral("m.ios.json")).toStdString();
        util::writeFileAtomically(path, "old contents that are longer than the new ones");
        const ir::Graph g = io::loadModelFile(kFigure2.toStdString());
        io::saveModelFile(g, path);
        QCOMPARE(util::readTextFile(path), figure2Text());
        QCOMPARE(QDir(root.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestMalformedInput)
#include "tst_malformed_input.moc"
