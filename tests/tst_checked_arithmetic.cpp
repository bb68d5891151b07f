// SPDX-License-Identifier: Apache-2.0
// Checked arithmetic (issue 19, defects 1 and 8): util/checked.h itself; ONNX shape folding
// that used to trap (Div(INT64_MIN, -1): SIGFPE) or wrap (Sub/Mul/Pad/Reshape products) now
// refuses with a UserError naming the node; operator metrics within the format's bounds that
// used to wrap (2^64 parameters read as 1048576, negative counts) are refused the same way.
#include "io/onnx_import.h"
#include "ir/metrics.h"
#include "ir/model_summary.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "user_error_text.h"
#include "util/checked.h"
#include "util/error.h"

#include <QtTest>
#include <limits>

#ifdef IOS_HAVE_ONNX
#include "onnx_test_builder.h"
#endif

using namespace ios;

namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMaxI = std::numeric_limits<int64_t>::max();

// One block: the input `in` (C x 1 x 1) read by `convs` convolutions, concatenated by `exit`.
ir::Graph convFan(int64_t inChannels, int64_t outChannels, int64_t kernel, int64_t padding,
                  int convs) {
    using namespace testing;
    ir::Graph g;
    g.name = "big";
    g.input = placeholder("in", {inChannels, 1, 1});
    std::vector<Node> inner;
    std::vector<ValueRef> outs;
    for (int i = 0; i < convs; ++i) {
        const std::string name = "conv" + std::to_string(i);
        inner.push_back(conv(name, concat({val("in", 0, inChannels)}), outChannels,
                             {kernel, kernel}, {1, 1}, {padding, padding}));
        outs.push_back(val(name, 0, outChannels));
    }
    g.blocks.push_back(block(g.input, inner, node(NodeKind::Identity, "exit", concat(outs))));
    ir::validateAndInferShapes(g);
    return g;
}

const ir::Node& opNamed(const ir::Graph& g, const std::string& name) {
    for (const ir::Node* op : g.blocks[0].operators())
        if (op->name == name)
            return *op;
    throw std::logic_error("no operator " + name);
}

#ifdef IOS_HAVE_ONNX
// x [1, 8, 4, 4] -> `op`(a, b) on two int64 constants -> Reshape(x, result).
std::string foldModel(const std::string& op, int64_t a, int64_t b) {
    test::Builder m({1, 8, 4, 4});
    if (op == "Pad") {
        m.ints("pads", {0, 0, a, 0, 0, 0, b, 0});
        m.node("Pad", "pad", {"x", "pads"}, {"y"});
    } else if (op == "Reshape") {
        m.ints("target", {a, b, b, b});
        m.node("Reshape", "view", {"x", "target"}, {"y"});
    } else {
        m.ints("a", {a});
        m.ints("b", {b});
        m.node(op, "fold", {"a", "b"}, {"q"});
        m.ints("rest", {8, 4, 4});
        test::Builder::attr(m.node("Concat", "cat", {"q", "rest"}, {"target"}), "axis", int64_t{0});
        m.node("Reshape", "view", {"x", "target"}, {"y"});
    }
    m.output("y");
    return m.bytes();
}
#endif

} // namespace

class TestCheckedArithmetic : public QObject {
    Q_OBJECT

private slots:
    void checkedOperations() {
        QCOMPARE(checked::add(kMaxI, 0), std::optional<int64_t>(kMaxI));
        QVERIFY(!checked::add(kMaxI, 1));
        QVERIFY(!checked::add(kMin, -1));
        QVERIFY(!checked::sub(kMin, 1));
        QVERIFY(!checked::sub(0, kMin));
        QCOMPARE(checked::sub(-1, kMaxI), std::optional<int64_t>(kMin));
        QVERIFY(!checked::mul(kMin, -1));
        QVERIFY(!checked::mul(int64_t{1} << 32, int64_t{1} << 31));
        QCOMPARE(checked::mul(int64_t{1} << 31, -(int64_t{1} << 32)), std::optional<int64_t>(kMin));
        QVERIFY(!checked::div(kMin, -1)); // the SIGFPE of issue 19
        QVERIFY(!checked::div(5, 0));
        QCOMPARE(checked::div(-7, 2), std::optional<int64_t>(-3)); // truncates
        QCOMPARE(checked::product(std::vector<int64_t>{}), std::optional<int64_t>(1));
        QVERIFY(!checked::product(std::vector<int64_t>{1 << 30, 1 << 30, 1 << 30}));
        QCOMPARE(checked::product(std::vector<int64_t>{0, kMaxI, kMaxI}),
                 std::optional<int64_t>(0));
    }

#ifdef IOS_HAVE_ONNX
    void onnxFoldingIsChecked_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<qint64>("a");
        QTest::addColumn<qint64>("b");
        QTest::addColumn<QString>("message");
        // SIGFPE (exit 136) before
        QTest::newRow("Div INT64_MIN by -1") << "Div" << qint64(kMin) << qint64(-1)
                                             << "node 'fold': constant -9223372036854775808 Div "
                                                "-1 overflows 64-bit integers";
        // undefined behaviour before (wrapped to INT64_MAX)
        QTest::newRow("Sub INT64_MIN - 1") << "Sub" << qint64(kMin) << qint64(1)
                                           << "node 'fold': constant -9223372036854775808 Sub 1 "
                                              "overflows 64-bit integers";
        QTest::newRow("Mul INT64_MIN * -1") << "Mul" << qint64(kMin) << qint64(-1)
                                            << "constant -9223372036854775808 Mul -1 overflows";
        QTest::newRow("Div by zero")
            << "Div" << qint64(8) << qint64(0) << "node 'fold': divides the constant 8 by zero";
        QTest::newRow("Mod by zero")
            << "Mod" << qint64(8) << qint64(0) << "node 'fold': takes the constant 8 modulo zero";
        QTest::newRow("Mul 2^40 * 2^40") << "Mul" << (qint64(1) << 40) << (qint64(1) << 40)
                                         << "node 'fold': constant 1099511627776 Mul "
                                            "1099511627776 overflows 64-bit integers";
        QTest::newRow("Pad INT64_MAX twice")
            << "Pad" << qint64(kMaxI) << qint64(kMaxI) << "node 'pad': the padded extent overflows";
        QTest::newRow("Reshape 2^31 cubed") << "Reshape" << qint64(1) << (qint64(1) << 31)
                                            << "node 'view': the target element count overflows";
    }
    void onnxFoldingIsChecked() {
        QFETCH(QString, op);
        QFETCH(qint64, a);
        QFETCH(qint64, b);
        QFETCH(QString, message);
        const std::string bytes = foldModel(op.toStdString(), a, b);
        const QString err = testing::userErrorOf([&] { io::parseOnnx(bytes, "f.onnx", {}); });
        QVERIFY2(!err.isEmpty(), "the model must be refused");
        QVERIFY2(err.startsWith("f.onnx: "), qPrintable(err));
        QVERIFY2(err.contains(message), qPrintable(err));
    }

    void onnxPlainFoldingStillWorks() {
        // 3 - 2 = 1: the target [1, 8, 4, 4] is x's own shape; folding is not refused.
        const std::string bytes = foldModel("Sub", 3, 2);
        const QString err = testing::userErrorOf([&] { io::parseOnnx(bytes, "f.onnx", {}); });
        QVERIFY2(!err.contains("overflow") && !err.contains("zero"), qPrintable(err));
        // ONNX Mod (fmod 0) takes the divisor's sign, as Python's %: -7 mod 8 = 1, the batch.
        const std::string mod = foldModel("Mod", -7, 8);
        QVERIFY(testing::userErrorOf([&] { io::parseOnnx(mod, "f.onnx", {}); }).isEmpty());
        // INT64_MIN % -1 traps in C++ (SIGFPE); ONNX's answer is 0, a Reshape target dim that
        // copies the input's batch.
        const std::string minMod = foldModel("Mod", kMin, -1);
        QVERIFY(testing::userErrorOf([&] { io::parseOnnx(minMod, "f.onnx", {}); }).isEmpty());
    }
#endif

    void metricsRefuseOverflow_data() {
        QTest::addColumn<qint64>("outChannels");
        QTest::addColumn<QString>("message");
        // 2^20 filters of 2^20 x 4096 x 4096 weights: 2^64 + 2^20 parameters (read as 1048576)
        QTest::newRow("2^64 parameters") << (qint64(1) << 20) << "node 'conv0': its parameters";
        // 2^19 filters: 2^63 + 2^19 (read as a negative count)
        QTest::newRow("2^63 parameters") << (qint64(1) << 19) << "node 'conv0': its parameters";
    }
    void metricsRefuseOverflow() {
        QFETCH(qint64, outChannels);
        QFETCH(QString, message);
        const ir::Graph g = convFan(int64_t{1} << 20, outChannels, 4096, 2048, 1);
        const ir::NodeIndex index(g);
        const QString err =
            testing::userErrorOf([&] { ir::computeMetrics(opNamed(g, "conv0"), index); });
        QVERIFY2(err.contains(message) && err.contains("overflow 64-bit integers"),
                 qPrintable(err));
        QVERIFY2(!testing::userErrorOf([&] { ir::summarize(g); }).isEmpty(),
                 "info must refuse it too");
    }

    void metricsSumsAreChecked() {
        // Each conv: just under 2^61 parameters, so just under 2^63 weight bytes: two
        // convolutions' weight bytes overflow int64 (their FLOPs, ~2^62 each, would at three).
        const ir::Graph g = convFan(int64_t{1} << 20, int64_t{1} << 17, 4095, 2047, 3);
        const ir::NodeIndex index(g);
        const ir::OperatorMetrics one = ir::computeMetrics(opNamed(g, "conv0"), index);
        const int64_t perFilter = (int64_t{1} << 20) * 4095 * 4095;
        QCOMPARE(one.parameters, (int64_t{1} << 17) * perFilter + (int64_t{1} << 17));
        QCOMPARE(one.flops, 2 * perFilter * (int64_t{1} << 17) + (int64_t{1} << 17));
        const QString err = testing::userErrorOf([&] { ir::summarize(g); });
        QVERIFY2(err.contains("node 'conv1': its summed weight bytes overflow 64-bit integers"),
                 qPrintable(err));
    }

    void largeCountsAreExact() {
        // 2^10 filters of 2^18 x 4096 x 4096: 2^52 + 2^10 parameters, exact and positive.
        const ir::Graph g = convFan(int64_t{1} << 18, int64_t{1} << 10, 4096, 2048, 1);
        const ir::ModelSummary s = ir::summarize(g);
        QCOMPARE(s.totals.parameters, (int64_t{1} << 52) + (int64_t{1} << 10));
        QCOMPARE(s.totals.weightBytes, 4 * ((int64_t{1} << 52) + (int64_t{1} << 10)));
        QVERIFY(s.totals.flops > 0);
    }
};

QTEST_GUILESS_MAIN(TestCheckedArithmetic)
#include "tst_checked_arithmetic.moc"
