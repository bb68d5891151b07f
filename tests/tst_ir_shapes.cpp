// SPDX-License-Identifier: Apache-2.0
// Shape inference and per-operator work/traffic (engine/ir validate + metrics) on operators
// whose numbers are worked out by hand in the table below (fp32, batch 1).
#include "ir/metrics.h"
#include "ir/validate.h"
#include "ir_builders.h"

#include <QtTest>

using namespace ios;
using namespace ios::testing;
using ir::ActType;
using ir::ElementOp;
using ir::PoolType;
using ir::TensorShape;

Q_DECLARE_METATYPE(ios::ir::Node)
Q_DECLARE_METATYPE(ios::ir::TensorShape)

namespace {

struct Expected {
    TensorShape shape;
    double flops;
    qint64 bytesRead;
    qint64 bytesWritten;
    qint64 parameters;
};

// The operator under test is the only operator of the only block, reading the input "in".
ir::Graph singleOperatorGraph(const TensorShape& input, const ir::Node& op) {
    ir::Graph g;
    g.name = "single";
    g.input = placeholder("in", input);
    g.blocks.push_back(block(g.input, {}, op));
    return g;
}

std::vector<ir::Term> in(int64_t channels) {
    return concat({val("in", 0, channels)});
}

} // namespace

class TestIrShapes : public QObject {
    Q_OBJECT

private slots:
    void operators_data();
    void operators();
    void sequentialInnerShapes();
    void declaredShapeIsKept();
};

void TestIrShapes::operators_data() {
    QTest::addColumn<TensorShape>("input");
    QTest::addColumn<ir::Node>("op");
    QTest::addColumn<TensorShape>("shape");
    QTest::addColumn<double>("flops");
    QTest::addColumn<qint64>("bytesRead");
    QTest::addColumn<qint64>("bytesWritten");
    QTest::addColumn<qint64>("parameters");

    auto row = [](const char* tag, TensorShape input, const ir::Node& op, Expected e) {
        QTest::newRow(tag) << input << op << e.shape << e.flops << e.bytesRead << e.bytesWritten
                           << e.parameters;
    };

    // conv: flops = 2 * (Cin/groups) * kh * kw * Cout * Hout * Wout (+ Cout*Hout*Wout for a
    // non-identity activation); parameters = Cout * (Cin/groups) * kh * kw + Cout (bias).
    row("conv 3x3 s1 p1 64->128 relu, 56x56", {64, 56, 56},
        conv("x", in(64), 128, {3, 3}, {1, 1}, {1, 1}),
        {{128, 56, 56},
         2.0 * 64 * 9 * 128 * 56 * 56 + 128 * 56 * 56,
         64 * 56 * 56 * 4,
         128 * 56 * 56 * 4,
         128 * 64 * 9 + 128});
    row("conv 7x7 s2 p3 3->64 identity, 224x224", {3, 224, 224},
        conv("x", in(3), 64, {7, 7}, {2, 2}, {3, 3}, 1, ActType::Identity),
        // (224 + 6 - 7) / 2 + 1 = 112
        {{64, 112, 112},
         2.0 * 3 * 49 * 64 * 112 * 112,
         3 * 224 * 224 * 4,
         64 * 112 * 112 * 4,
         64 * 3 * 49 + 64});
    row("conv 1x7 p(0,3) 128->192, 17x17", {128, 17, 17},
        conv("x", in(128), 192, {1, 7}, {1, 1}, {0, 3}),
        {{192, 17, 17},
         2.0 * 128 * 7 * 192 * 289 + 192 * 289,
         128 * 289 * 4,
         192 * 289 * 4,
         192 * 128 * 7 + 192});
    row("conv 3x3 s2 p0 floor, 35x35", {32, 35, 35},
        conv("x", in(32), 48, {3, 3}, {2, 2}, {0, 0}, 1, ActType::Identity),
        // (35 - 3) / 2 + 1 = 17
        {{48, 17, 17}, 2.0 * 32 * 9 * 48 * 289, 32 * 1225 * 4, 48 * 289 * 4, 48 * 32 * 9 + 48});
    row("conv stride (2,1) 3x3, 9x9", {8, 9, 9},
        conv("x", in(8), 8, {3, 3}, {2, 1}, {0, 0}, 1, ActType::Identity),
        // h = (9 - 3) / 2 + 1 = 4, w = (9 - 3) / 1 + 1 = 7
        {{8, 4, 7}, 2.0 * 8 * 9 * 8 * 28, 8 * 81 * 4, 8 * 28 * 4, 8 * 8 * 9 + 8});
    row("conv groups 4, 64->128, 28x28", {64, 28, 28},
        conv("x", in(64), 128, {3, 3}, {1, 1}, {1, 1}, 4, ActType::Identity),
        {{128, 28, 28}, 2.0 * 16 * 9 * 128 * 784, 64 * 784 * 4, 128 * 784 * 4, 128 * 16 * 9 + 128});
    row("conv depthwise 3x3 s2 p1, 112x112", {32, 112, 112},
        conv("x", in(32), 32, {3, 3}, {2, 2}, {1, 1}, 32, ActType::Identity),
        // (112 + 2 - 3) / 2 + 1 = 56 (floor)
        {{32, 56, 56}, 2.0 * 9 * 32 * 56 * 56, 32 * 112 * 112 * 4, 32 * 56 * 56 * 4, 32 * 9 + 32});
    row("conv tanh on a sum of two values", {16, 4, 4},
        conv("x", sum({val("in", 0, 8), val("in", 8, 16)}), 4, {1, 1}, {1, 1}, {0, 0}, 1,
             ActType::Tanh),
        // the 8x4x4 addition, the 1x1 conv, the activation
        {{4, 4, 4}, 8 * 16 + 2.0 * 8 * 4 * 16 + 4 * 16, 16 * 16 * 4, 4 * 16 * 4, 4 * 8 + 4});

    // pool: flops = window * output elements; global pools use the whole input plane.
    row("max pool 3x3 s2, 147x147", {64, 147, 147},
        pool("x", in(64), PoolType::Max, {3, 3}, {2, 2}),
        // (147 - 3) / 2 + 1 = 73
        {{64, 73, 73}, 9.0 * 64 * 73 * 73, 64 * 147 * 147 * 4, 64 * 73 * 73 * 4, 0});
    row("avg pool 3x3 s1 p1, 35x35", {192, 35, 35},
        pool("x", in(192), PoolType::Avg, {3, 3}, {1, 1}, {1, 1}),
        {{192, 35, 35}, 9.0 * 192 * 1225, 192 * 1225 * 4, 192 * 1225 * 4, 0});
    row("global avg pool, 8x8", {2048, 8, 8}, globalPool("x", in(2048), PoolType::GlobalAvg),
        {{2048, 1, 1}, 64.0 * 2048, 2048 * 64 * 4, 2048 * 4, 0});
    row("global max pool, 13x13", {512, 13, 13}, globalPool("x", in(512), PoolType::GlobalMax),
        {{512, 1, 1}, 169.0 * 512, 512 * 169 * 4, 512 * 4, 0});

    // identity: concatenation is free, a sum costs one add per output element per extra value.
    row("identity concat of three values", {64, 10, 10},
        node(ir::NodeKind::Identity, "x",
             concat({val("in", 0, 32), val("in", 32, 64), val("in", 0, 64)})),
        {{128, 10, 10}, 0, 128 * 100 * 4, 128 * 100 * 4, 0});
    row("identity sum of two values", {64, 10, 10},
        node(ir::NodeKind::Identity, "x", sum({val("in", 0, 32), val("in", 32, 64)})),
        {{32, 10, 10}, 32 * 100, 64 * 100 * 4, 32 * 100 * 4, 0});
    row("identity concat of a sum and a value", {24, 2, 2},
        node(ir::NodeKind::Identity, "x",
             {{val("in", 0, 8), val("in", 8, 16)}, {val("in", 16, 24)}}),
        {{16, 2, 2}, 8 * 4, 24 * 4 * 4, 16 * 4 * 4, 0});
    row("element add of three values", {48, 8, 8},
        element("x", sum({val("in", 0, 16), val("in", 16, 32), val("in", 32, 48)}), ElementOp::Add),
        {{16, 8, 8}, 2 * 16 * 64, 48 * 64 * 4, 16 * 64 * 4, 0});
    row("element mul of two values", {16, 4, 4},
        element("x", sum({val("in", 0, 8), val("in", 8, 16)}), ElementOp::Mul),
        {{8, 4, 4}, 8 * 16, 16 * 16 * 4, 8 * 16 * 4, 0});
    row("relu", {64, 10, 10}, node(ir::NodeKind::Relu, "x", in(64)),
        {{64, 10, 10}, 6400, 6400 * 4, 6400 * 4, 0});
    row("relu of a channel slice", {64, 10, 10},
        node(ir::NodeKind::Relu, "x", concat({val("in", 16, 48)})),
        {{32, 10, 10}, 3200, 3200 * 4, 3200 * 4, 0});
    row("activation sigmoid", {10, 5, 5}, activation("x", in(10), ActType::Sigmoid),
        {{10, 5, 5}, 250, 250 * 4, 250 * 4, 0});

    // sequential (NasNet's separable conv): the sums of relu, depthwise 3x3 p1, pointwise 1x1.
    ir::Node sep = sequential("x", {node(ir::NodeKind::Relu, "x_relu", in(16)),
                                    conv("x_dw", concat({val("x_relu", 0, 16)}), 16, {3, 3}, {1, 1},
                                         {1, 1}, 16, ActType::Identity),
                                    conv("x_pw", concat({val("x_dw", 0, 16)}), 32, {1, 1}, {1, 1},
                                         {0, 0}, 1, ActType::Identity)});
    row("sequential relu, depthwise, pointwise", {16, 10, 10}, sep,
        {{32, 10, 10},
         1600 + 2.0 * 9 * 16 * 100 + 2.0 * 16 * 32 * 100,
         3 * 1600 * 4,
         (1600 + 1600 + 3200) * 4,
         (16 * 9 + 16) + (32 * 16 + 32)});
}

void TestIrShapes::operators() {
    QFETCH(TensorShape, input);
    QFETCH(ir::Node, op);
    QFETCH(TensorShape, shape);
    QFETCH(double, flops);
    QFETCH(qint64, bytesRead);
    QFETCH(qint64, bytesWritten);
    QFETCH(qint64, parameters);

    ir::Graph g = singleOperatorGraph(input, op);
    ir::validateAndInferShapes(g);
    const ir::Node& x = g.blocks[0].exitNode;
    QCOMPARE(x.outputShape, shape);

    // inferShape on its own agrees with the whole-graph pass.
    const TensorShape inferred = ir::inferShape(op, [&](const std::string& name) {
        return name == "in" ? &input : static_cast<const TensorShape*>(nullptr);
    });
    QCOMPARE(inferred, shape);

    const ir::OperatorMetrics m = ir::computeMetrics(x, ir::NodeIndex(g));
    QCOMPARE(static_cast<double>(m.flops), flops);
    QCOMPARE(m.bytesRead, bytesRead);
    QCOMPARE(m.bytesWritten, bytesWritten);
    QCOMPARE(m.parameters, parameters);
    QCOMPARE(m.weightBytes, parameters * ir::kBytesPerElement);
}

void TestIrShapes::sequentialInnerShapes() {
    ir::Graph g = singleOperatorGraph(
        {8, 6, 6},
        sequential("s", {conv("s_a", in(8), 4, {3, 3}, {1, 1}, {0, 0}, 1, ActType::Identity),
                         node(ir::NodeKind::Relu, "s_b", concat({val("s_a", 0, 4)}))}));
    ir::validateAndInferShapes(g);
    const ir::Node& s = g.blocks[0].exitNode;
    QCOMPARE(s.nodes[0].outputShape, (TensorShape{4, 4, 4}));
    QCOMPARE(s.nodes[1].outputShape, (TensorShape{4, 4, 4}));
    QCOMPARE(s.outputShape, (TensorShape{4, 4, 4}));
}

void TestIrShapes::declaredShapeIsKept() {
    ir::Node op = node(ir::NodeKind::Relu, "x", in(3));
    op.outputShape = {3, 5, 5};
    ir::Graph g = singleOperatorGraph({3, 5, 5}, op);
    ir::validateAndInferShapes(g);
    QCOMPARE(g.blocks[0].exitNode.outputShape, (TensorShape{3, 5, 5}));
    QCOMPARE(g.blocks[0].enterNode.outputShape, (TensorShape{3, 5, 5}));
}

QTEST_GUILESS_MAIN(TestIrShapes)
#include "tst_ir_shapes.moc"
