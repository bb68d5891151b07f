// SPDX-License-Identifier: Apache-2.0
// ONNX import (issue 8, docs/onnx.md): committed torchvision exports, operator lowering rules
// on small models built with the ONNX protobuf API, blocks at articulation points, malformed
// files, and the optional generated torchvision set (sample_models/onnx/generated).
#include "bundled_models.h"
#include "cost/analytic_cost_model.h"
#include "io/onnx_import.h"
#include "ir/block_dag.h"
#include "ir/metrics.h"
#include "onnx_test_support.h"
#include "schedule/verify.h"
#include "schedulers/ios_dp.h"
#include "util/error.h"

#include <QtTest>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#ifdef IOS_HAVE_ONNX
#include "onnx_test_builder.h"
#endif

using namespace ios;
namespace fs = std::filesystem;
using ios::test::errorOf;
using ios::test::findOp;
using ios::test::kindCounts;
using ios::test::optimizeAndVerify;
using ios::test::totalFlops;
#ifdef IOS_HAVE_ONNX
using ios::test::Builder;
#endif

namespace {

const fs::path kOnnxDir = fs::path(IOS_SOURCE_DIR) / "sample_models" / "onnx";

std::string readBytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The hint the importer's error carries for the front ends to word (Hint::None: no error).
[[maybe_unused]] Hint hintOf(const std::string& bytes) {
    try {
        io::parseOnnx(bytes, "test.onnx", {});
    } catch (const UserError& e) {
        return e.hint();
    }
    return Hint::None;
}

} // namespace

class TestOnnxImport : public QObject {
    Q_OBJECT

private slots:
    void committedModels_data();
    void committedModels();
    void generatedTorchvision_data();
    void generatedTorchvision();
    void inceptionMatchesBundled();
    void inputShapeParsing();
    void malformedBytes_data();
    void malformedBytes();
#ifdef IOS_HAVE_ONNX
    void convBnReluFolds();
    void standaloneBatchNorm();
    void padFoldsIntoConv();
    void addReluIsOneOperator();
    void articulationBlocks();
    void shapeSubgraphFlattenHead();
    void channelShuffleAndSplit();
    void constantInEveryDataType_data();
    void constantInEveryDataType();
    void squeezeExcitationBroadcast();
    void dynamicInputNeedsShape();
    void cycleIsRejected();
    void unsupportedListedAtOnce();
    void parametersExportedAsInputs();
    void erfGeluFolds();
    void opaqueImport();
    void opaqueWithoutShapeNamesNode();
#else
    void withoutOnnxSupport();
#endif
};

void TestOnnxImport::committedModels_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("operators");
    QTest::addColumn<int>("convs");
    QTest::addColumn<double>("publishedGMacs"); // torchvision's model table
    QTest::newRow("squeezenet1_1") << "squeezenet1_1.onnx" << 38 << 26 << 0.35;
    QTest::newRow("mobilenet_v2") << "mobilenet_v2.onnx" << 64 << 53 << 0.30;
    QTest::newRow("shufflenet_v2_x1_0") << "shufflenet_v2_x1_0.onnx" << 91 << 57 << 0.14;
    QTest::newRow("resnet50") << "resnet50.onnx" << 72 << 54 << 4.09;
}

void TestOnnxImport::committedModels() {
    if (!io::onnxSupportAvailable())
        QSKIP("built without ONNX support");
    QFETCH(QString, file);
    QFETCH(int, operators);
    QFETCH(int, convs);
    QFETCH(double, publishedGMacs);
    const fs::path path = kOnnxDir / file.toStdString();
    QVERIFY(fs::file_size(path) < 100 * 1024); // weight-less: a few tens of kB
    const ir::Graph g = samples::loadModel(path.string());
    QCOMPARE(g.input.outputShape, (ir::TensorShape{3, 224, 224}));
    QCOMPARE(g.blocks.back().exitNode.outputShape, (ir::TensorShape{1000, 1, 1}));
    QCOMPARE(static_cast<int>(g.operatorCount()), operators);
    QCOMPARE(kindCounts(g)["conv"], convs);
    QVERIFY(std::abs(totalFlops(g) / 2e9 - publishedGMacs) / publishedGMacs < 0.06);
    optimizeAndVerify(g);
}

void TestOnnxImport::generatedTorchvision_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"inception_v3", "googlenet", "resnet50", "squeezenet1_1", "mobilenet_v2",
                          "mnasnet1_0", "densenet121", "efficientnet_b0", "shufflenet_v2_x1_0"})
        QTest::newRow(n) << n;
}

void TestOnnxImport::generatedTorchvision() {
    QFETCH(QString, name);
    const fs::path path = kOnnxDir / "generated" / (name.toStdString() + ".onnx");
    if (!io::onnxSupportAvailable())
        QSKIP("built without ONNX support");
    if (!fs::exists(path))
        QSKIP(
            "sample_models/onnx/generated is absent: run sample_models/onnx/export_torchvision.py "
            "(needs PyTorch + torchvision)");
    const ir::Graph g = samples::loadModel(path.string());
    QVERIFY(g.operatorCount() > 30);
    QCOMPARE(g.blocks.back().exitNode.outputShape.c, int64_t{1000});
    optimizeAndVerify(g);
}

void TestOnnxImport::inceptionMatchesBundled() {
    const fs::path path = kOnnxDir / "generated" / "inception_v3.onnx";
    if (!io::onnxSupportAvailable() || !fs::exists(path))
        QSKIP("needs ONNX support and sample_models/onnx/generated/inception_v3.onnx");
    const ir::Graph onnx = samples::loadModel(path.string());
    const ir::Graph bundled = samples::loadBundledModel("inception_v3");
    // The two definitions differ by torchvision's classifier (fc 2048 → 1000), one conv here.
    QCOMPARE(onnx.operatorCount(), bundled.operatorCount() + 1);
    QCOMPARE(onnx.blocks.size(), bundled.blocks.size());
    QCOMPARE(totalFlops(onnx) - totalFlops(bundled), 2.0 * 2048 * 1000);
    auto a = kindCounts(onnx), b = kindCounts(bundled);
    ++b["conv"];
    QCOMPARE(a, b);
}

void TestOnnxImport::inputShapeParsing() {
    QCOMPARE(io::parseInputShape("1x3x224x224"), (std::vector<int64_t>{1, 3, 224, 224}));
    QCOMPARE(io::parseInputShape("2,3,32,64"), (std::vector<int64_t>{2, 3, 32, 64}));
    QCOMPARE(io::parseInputShape("1x128x768"), (std::vector<int64_t>{1, 128, 768}));
    for (const char* bad : {"", "1", "1x3x224x224x1", "1x0x2x2", "1xax2x2", "1x-3x2x2", "x"})
        QVERIFY_THROWS_EXCEPTION(UserError, io::parseInputShape(bad));
}

void TestOnnxImport::malformedBytes_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const std::string squeeze = readBytes(kOnnxDir / "squeezenet1_1.onnx");
    std::mt19937 rng(7);
    std::string noise(4096, '\0');
    for (char& c : noise)
        c = static_cast<char>(rng());
    const QString notOnnx = io::onnxSupportAvailable() ? "" : "without ONNX support";
    QTest::newRow("empty") << QByteArray() << (notOnnx.isEmpty() ? "empty file" : notOnnx);
    QTest::newRow("random") << QByteArray(noise.data(), static_cast<int>(noise.size()))
                            << (notOnnx.isEmpty() ? "ONNX" : notOnnx);
    QTest::newRow("truncated") << QByteArray(squeeze.data(), static_cast<int>(squeeze.size() / 2))
                               << (notOnnx.isEmpty() ? "malformed or truncated" : notOnnx);
    QTest::newRow("text") << QByteArray("{\"name\": \"not onnx\"}")
                          << (notOnnx.isEmpty() ? "ONNX" : notOnnx);
}

void TestOnnxImport::malformedBytes() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const QString msg = errorOf(std::string(bytes.constData(), static_cast<size_t>(bytes.size())));
    QVERIFY2(msg.contains("test.onnx") && msg.contains(expected), qPrintable(msg));
}

#ifdef IOS_HAVE_ONNX

void TestOnnxImport::convBnReluFolds() {
    Builder b;
    b.conv("c1", "x", "t1", 8, 16, 3, 1);
    for (const char* p : {"s", "b", "m", "v"})
        b.weight(std::string("bn.") + p, {16});
    b.node("BatchNormalization", "bn", {"t1", "bn.s", "bn.b", "bn.m", "bn.v"}, {"t2"});
    b.node("Relu", "r", {"t2"}, {"y"});
    b.output("y");
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx");
    QCOMPARE(g.operatorCount(), size_t{1});
    const ir::Node& c = g.blocks[0].exitNode;
    QVERIFY(c.kind == ir::NodeKind::Conv);
    QVERIFY(c.conv.act == ir::ActType::Relu);
    QCOMPARE(c.conv.padding, (ir::Hw{1, 1}));
    QCOMPARE(c.outputShape, (ir::TensorShape{16, 16, 16}));
}

void TestOnnxImport::standaloneBatchNorm() {
    Builder b;
    b.conv("c1", "x", "a", 8, 4, 1);
    b.conv("c2", "x", "c", 8, 4, 1);
    Builder::attr(b.node("Concat", "cat", {"a", "c"}, {"cat"}), "axis", int64_t{1});
    for (const char* p : {"s", "b", "m", "v"})
        b.weight(std::string("bn.") + p, {8});
    b.node("BatchNormalization", "bn", {"cat", "bn.s", "bn.b", "bn.m", "bn.v"}, {"n"});
    b.node("Relu", "r", {"n"}, {"y"});
    b.output("y");
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx");
    // c1, c2, the concat (identity) and BN+ReLU as one activation operator.
    QCOMPARE(g.operatorCount(), size_t{4});
    const ir::Node* bn = findOp(g, "bn");
    QVERIFY(bn != nullptr);
    QVERIFY(bn->kind == ir::NodeKind::Activation);
    QVERIFY(bn->activation == ir::ActType::Relu);
    const ir::Node* cat = findOp(g, "cat");
    QVERIFY(cat != nullptr);
    QVERIFY(cat->kind == ir::NodeKind::Identity);
    QCOMPARE(cat->inputs.size(), size_t{2});
}

void TestOnnxImport::padFoldsIntoConv() {
    Builder b;
    b.ints("pads", {0, 0, 2, 2, 0, 0, 2, 2});
    b.node("Pad", "pad", {"x", "pads"}, {"p"});
    b.conv("c", "p", "y", 8, 8, 5);
    b.output("y");
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx");
    QCOMPARE(g.operatorCount(), size_t{1});
    QCOMPARE(g.blocks[0].exitNode.conv.padding, (ir::Hw{2, 2}));
    QCOMPARE(g.blocks[0].exitNode.outputShape, (ir::TensorShape{8, 16, 16}));
}

void TestOnnxImport::addReluIsOneOperator() {
    Builder b;
    b.conv("c1", "x", "a", 8, 8, 3, 1);
    b.node("Add", "add", {"a", "x"}, {"s"});
    b.node("Relu", "r", {"s"}, {"y"});
    b.output("y");
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx");
    QCOMPARE(g.operatorCount(), size_t{2});
    const ir::Node& add = g.blocks.back().exitNode;
    QVERIFY(add.kind == ir::NodeKind::Relu);
    QCOMPARE(add.inputs.size(), size_t{1});
    QCOMPARE(add.inputs[0].size(), size_t{2}); // relu(a + x): one term of two values
}

void TestOnnxImport::articulationBlocks() {
    // x → a → a2 → {b, c → c2} → concat → d → e: blocks [a, a2], [b, c, c2, concat], [d, e].
    Builder b;
    b.conv("a", "x", "ta", 8, 8, 1);
    b.conv("a2", "ta", "ta2", 8, 8, 1);
    b.conv("b", "ta2", "tb", 8, 4, 1);
    b.conv("c", "ta2", "tc", 8, 4, 1);
    b.conv("c2", "tc", "tc2", 4, 4, 3, 1);
    Builder::attr(b.node("Concat", "cat", {"tb", "tc2"}, {"cat"}), "axis", int64_t{1});
    b.conv("d", "cat", "td", 8, 8, 1);
    b.conv("e", "td", "y", 8, 8, 1);
    b.output("y");
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx");
    QCOMPARE(g.blocks.size(), size_t{3});
    QCOMPARE(g.blocks[0].exitNode.name, std::string("a2"));
    QCOMPARE(g.blocks[1].exitNode.name, std::string("cat"));
    QCOMPARE(g.blocks[1].innerNodes.size(), size_t{3});
    QCOMPARE(g.blocks[2].enterName, std::string("cat"));
    QCOMPARE(g.blocks[2].exitNode.name, std::string("e"));
}

void TestOnnxImport::shapeSubgraphFlattenHead() {
    // Shape → Gather(0) → Unsqueeze → Concat(-1) → Reshape: PyTorch's x.view(x.size(0), -1).
    Builder b({1, 8, 4, 4});
    b.node("Shape", "shape", {"x"}, {"s"});
    b.ints("zero", {0});
    b.node("Gather", "gather", {"s", "zero"}, {"n"});
    b.ints("minus1", {-1});
    Builder::attr(b.node("Concat", "cc", {"n", "minus1"}, {"target"}), "axis", int64_t{0});
    b.node("Reshape", "flatten", {"x", "target"}, {"f"});
    b.weight("fc.w", {10, 128});
    Builder::attr(b.node("Gemm", "fc", {"f", "fc.w"}, {"y"}), "transB", int64_t{1});
    b.output("y");
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx");
    QCOMPARE(g.operatorCount(), size_t{1});
    const ir::Node& fc = g.blocks[0].exitNode;
    QVERIFY(fc.kind == ir::NodeKind::Conv); // a dense layer over the whole 4x4 map
    QCOMPARE(fc.conv.kernel, (ir::Hw{4, 4}));
    QCOMPARE(fc.outputShape, (ir::TensorShape{10, 1, 1}));
    QCOMPARE(totalFlops(g), 2.0 * 128 * 10);
}

void TestOnnxImport::channelShuffleAndSplit() {
    Builder b({1, 8, 4, 4});
    b.ints("split", {4, 4});
    Builder::attr(b.node("Split", "split", {"x", "split"}, {"l", "r"}), "axis", int64_t{1});
    b.conv("cr", "r", "r2", 4, 4, 3, 1);
    Builder::attr(b.node("Concat", "cat", {"l", "r2"}, {"cat"}), "axis", int64_t{1});
    b.ints("s5", {1, 2, 4, 4, 4});
    b.node("Reshape", "view", {"cat", "s5"}, {"v"});
    Builder::attr(b.node("Transpose", "tr", {"v"}, {"t"}), "perm",
                  std::vector<int64_t>{0, 2, 1, 3, 4});
    b.ints("s4", {1, 8, 4, 4});
    b.node("Reshape", "shuffle", {"t", "s4"}, {"y"});
    b.output("y");
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx");
    const ir::Node* cr = findOp(g, "cr");
    QVERIFY(cr != nullptr);
    QCOMPARE(cr->inputs, (std::vector<ir::Term>{{ir::ValueRef{"x", 4, 8}}}));
    const ir::Node* shuffle = findOp(g, "shuffle");
    QVERIFY(shuffle != nullptr);
    QVERIFY(shuffle->kind == ir::NodeKind::Identity); // the permutation as one copy
    QCOMPARE(shuffle->outputShape, (ir::TensorShape{8, 4, 4}));
}

void TestOnnxImport::constantInEveryDataType_data() {
    QTest::addColumn<int>("dataType");
    QTest::addColumn<bool>("raw");
    for (int type : {1, 6, 7, 11}) // float, int32, int64, double
        for (bool raw : {false, true})
            QTest::addRow("type %d %s", type, raw ? "raw" : "typed") << type << raw;
}

// Split sizes {2, 6} stored in each integral-valued data type, as typed values or raw bytes.
void TestOnnxImport::constantInEveryDataType() {
    QFETCH(int, dataType);
    QFETCH(bool, raw);
    Builder b({1, 8, 4, 4});
    auto* t = b.g->add_initializer();
    t->set_name("split");
    t->set_data_type(dataType);
    t->add_dims(2);
    std::string bytes;
    auto append = [&bytes](auto v) {
        bytes.append(reinterpret_cast<const char*>(&v), sizeof v); // little-endian host
    };
    for (int64_t v : {2, 6}) {
        switch (dataType) {
        case 1:
            raw ? append(static_cast<float>(v)) : t->add_float_data(static_cast<float>(v));
            break;
        case 6:
            raw ? append(static_cast<int32_t>(v)) : t->add_int32_data(static_cast<int32_t>(v));
            break;
        case 7:
            raw ? append(v) : t->add_int64_data(v);
            break;
        default:
            raw ? append(static_cast<double>(v)) : t->add_double_data(static_cast<double>(v));
        }
    }
    if (raw)
        t->set_raw_data(bytes);
    Builder::attr(b.node("Split", "split", {"x", "split"}, {"l", "r"}), "axis", int64_t{1});
    b.conv("cr", "r", "r2", 6, 6, 3, 1);
    Builder::attr(b.node("Concat", "cat", {"l", "r2"}, {"y"}), "axis", int64_t{1});
    b.output("y");
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx");
    const ir::Node* cr = findOp(g, "cr");
    QVERIFY(cr != nullptr);
    QCOMPARE(cr->inputs, (std::vector<ir::Term>{{ir::ValueRef{"x", 2, 8}}}));
}

void TestOnnxImport::squeezeExcitationBroadcast() {
    Builder b;
    b.node("GlobalAveragePool", "gap", {"x"}, {"p"});
    b.conv("fc", "p", "q", 8, 8, 1);
    b.node("Sigmoid", "sig", {"q"}, {"s"});
    b.node("Mul", "scale", {"x", "s"}, {"y"});
    b.output("y");
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx");
    const ir::Node& mul = g.blocks.back().exitNode;
    QVERIFY(mul.kind == ir::NodeKind::Element);
    QVERIFY(mul.element == ir::ElementOp::Mul);
    QCOMPARE(mul.outputShape, (ir::TensorShape{8, 16, 16}));
    const ir::Node& fc = *findOp(g, "fc");
    QVERIFY(fc.conv.act == ir::ActType::Sigmoid); // the Sigmoid fused into the conv
}

void TestOnnxImport::dynamicInputNeedsShape() {
    Builder b({-1, 3, -1, -1});
    b.conv("c", "x", "y", 3, 4, 3);
    b.output("y");
    QVERIFY(errorOf(b.bytes()).contains("give its shape"));
    QVERIFY(hintOf(b.bytes()) == Hint::InputShape);
    io::ModelLoadOptions o;
    o.inputShape = {1, 3, 32, 48};
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx", o);
    QCOMPARE(g.blocks[0].exitNode.outputShape, (ir::TensorShape{4, 30, 46}));
}

void TestOnnxImport::cycleIsRejected() {
    Builder b;
    b.node("Add", "a1", {"x", "t2"}, {"t1"});
    b.node("Relu", "a2", {"t1"}, {"t2"});
    b.output("t2");
    const QString msg = errorOf(b.bytes());
    QVERIFY2(msg.contains("cycle") && msg.contains("test.onnx"), qPrintable(msg));
}

void TestOnnxImport::unsupportedListedAtOnce() {
    Builder b;
    b.node("LpNormalization", "n1", {"x"}, {"a"});
    b.node("LpNormalization", "n2", {"a"}, {"c"});
    b.node("MyOp", "custom", {"c"}, {"y"})->set_domain("com.example");
    b.output("y");
    const QString msg = errorOf(b.bytes());
    QVERIFY2(msg.contains("LpNormalization x2") && msg.contains("'n1', 'n2'") &&
                 msg.contains("MyOp (domain com.example) x1"),
             qPrintable(msg));
    QVERIFY(hintOf(b.bytes()) == Hint::AllowOpaque);
    QVERIFY2(!msg.contains('\n'), qPrintable(msg)); // the CLI prints errors on one line
}

// Parameters that operators other than convolutions read (a layer scale, a positional
// embedding), exported without values, are graph inputs that reach data slots: the input from
// which the most nodes compute is the data, the others are read as parameters and the load
// says so. Two inputs that feed equally many nodes stay an error naming both.
void TestOnnxImport::parametersExportedAsInputs() {
    Builder b;
    b.conv("c", "x", "h", 8, 8, 1);
    b.weight("gamma", {8, 1, 1});
    b.node("Mul", "layer_scale", {"h", "gamma"}, {"s"});
    // One parameter shared through Identity nodes (as the exporter shares equal weights):
    // they pass it on but do not count.
    b.weight("pos", {1, 8, 16, 16});
    b.node("Identity", "share1", {"pos"}, {"p1"});
    b.node("Identity", "share2", {"p1"}, {"p2"});
    b.node("Identity", "share3", {"p2"}, {"p3"});
    b.node("Add", "pos_embed", {"s", "p1"}, {"t"});
    b.node("Add", "pos_embed_again", {"t", "p3"}, {"u"});
    b.node("Add", "residual", {"u", "x"}, {"y"});
    b.output("y");
    std::vector<std::string> warnings;
    io::ModelLoadOptions o;
    o.warnings = &warnings;
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx", o);
    QCOMPARE(warnings.size(), size_t{1});
    QCOMPARE(QString::fromStdString(warnings[0]),
             QStringLiteral("2 graph inputs without values read as parameters ('gamma', 'pos'): "
                            "'x' feeds the network (5 nodes compute from it)"));
    QCOMPARE(g.input.outputShape, (ir::TensorShape{8, 16, 16}));
    // The per-channel scale folded into the conv's weights, each per-position embedding a
    // tokens node adding its learned table (docs/onnx.md), the residual sum an operator.
    const std::map<std::string, int> kinds{{"conv", 1}, {"identity", 1}, {"tokens", 2}};
    QCOMPARE(kindCounts(g), kinds);
    optimizeAndVerify(g);

    Builder two;
    two.input("z", {1, 8, 16, 16});
    two.node("Add", "sum", {"x", "z"}, {"y"});
    two.output("y");
    const QString msg = errorOf(two.bytes());
    QVERIFY2(msg.contains("several data inputs ('x', 'z', each feeding 1 node)"), qPrintable(msg));
}

// The exact GELU as the exporters write it out (Div, Erf, Add, Mul, Mul) is one GELU: fused
// into the conv before it, or standalone; with other constants it stays what it is (Erf is not
// an operator of the IR); opset 20's Gelu op too, but not its tanh approximation.
void TestOnnxImport::erfGeluFolds() {
    Builder b;
    b.conv("c", "x", "h", 8, 8, 1);
    b.erfGelu("g1", "h", "u");
    b.node("Add", "sum", {"u", "x"}, {"s"});
    b.erfGelu("g2", "s", "y", true);
    b.output("y");
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx");
    QVERIFY(findOp(g, "c")->conv.act == ir::ActType::Gelu);
    const ir::Node& last = g.blocks.back().exitNode;
    QVERIFY(last.kind == ir::NodeKind::Activation && last.activation == ir::ActType::Gelu);
    const std::map<std::string, int> kinds{{"activation", 1}, {"conv", 1}, {"identity", 1}};
    QCOMPARE(kindCounts(g), kinds);
    optimizeAndVerify(g);

    Builder off;
    off.erfGelu("g", "x", "y", false, 0.6f);
    off.output("y");
    QVERIFY2(errorOf(off.bytes()).contains("Erf x1"), qPrintable(errorOf(off.bytes())));

    Builder native({1, 8, 16, 16}, 20);
    native.node("Gelu", "exact", {"x"}, {"u"});
    Builder::attr(native.node("Gelu", "tanh", {"u"}, {"y"}), "approximate", std::string("tanh"));
    native.output("y");
    const QString msg = errorOf(native.bytes());
    QVERIFY2(msg.contains("Gelu: unsupported form x1: 'tanh'"), qPrintable(msg));
}

void TestOnnxImport::opaqueImport() {
    Builder b;
    b.conv("c", "x", "a", 8, 8, 3, 1);
    b.node("MyOp", "custom", {"a"}, {"u"})->set_domain("com.example");
    auto* vi = b.g->add_value_info();
    vi->set_name("u");
    Builder::setDims(vi, {1, 8, 8, 8});
    b.conv("d", "u", "y", 8, 8, 1);
    b.output("y");
    io::ModelLoadOptions o;
    o.allowOpaque = true;
    const ir::Graph g = io::parseOnnx(b.bytes(), "t.onnx", o);
    const ir::Node* op = findOp(g, "custom");
    QVERIFY(op != nullptr);
    QVERIFY(op->kind == ir::NodeKind::Opaque);
    QCOMPARE(op->outputShape, (ir::TensorShape{8, 8, 8}));
    const ir::OperatorMetrics m = ir::computeMetrics(*op, ir::NodeIndex(g));
    QCOMPARE(m.flops, 0.0);
    QCOMPARE(m.bytesRead, int64_t{8 * 16 * 16 * 4});
    QCOMPARE(m.bytesWritten, int64_t{8 * 8 * 8 * 4});
    optimizeAndVerify(g);
}

void TestOnnxImport::opaqueWithoutShapeNamesNode() {
    Builder b;
    b.node("MyOp", "custom", {"x"}, {"y"})->set_domain("com.example");
    b.output("y");
    io::ModelLoadOptions o;
    o.allowOpaque = true;
    const QString msg = errorOf(b.bytes(), o);
    QVERIFY2(msg.contains("node 'custom'") && msg.contains("MyOp"), qPrintable(msg));
}

#else

void TestOnnxImport::withoutOnnxSupport() {
    QVERIFY(!io::onnxSupportAvailable());
    QVERIFY(errorOf("x").contains("built without ONNX support"));
}

#endif

QTEST_GUILESS_MAIN(TestOnnxImport)
#include "tst_onnx_import.moc"
