// SPDX-License-Identifier: Apache-2.0
// The CPU reference executor (engine/ref): every node kind against values worked out by hand
// on tiny tensors, deterministic weights per (name, seed), explicit weights and inputs, opaque
// nodes refused, and the bundled models run to finite outputs.
#include "build_flavour.h"
#include "bundled_models.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "ref/reference_executor.h"
#include "util/error.h"

#include <QtTest>
#include <cmath>

using namespace ios;
using namespace ios::testing;
using ir::ActType;
using ir::ElementOp;
using ir::PoolType;
using ir::TensorShape;

Q_DECLARE_METATYPE(ios::ir::Node)
Q_DECLARE_METATYPE(ios::ir::TensorShape)

namespace {

// The operator under test is the only operator of the only block, reading the input "in".
ir::Graph singleOperatorGraph(const TensorShape& input, const ir::Node& op) {
    ir::Graph g;
    g.name = "single";
    g.input = placeholder("in", input);
    g.blocks.push_back(block(g.input, {}, op));
    ir::validateAndInferShapes(g);
    return g;
}

std::vector<ir::Term> in(int64_t channels) {
    return concat({val("in", 0, channels)});
}

ref::Tensor tensor(const TensorShape& shape, const QList<double>& values) {
    ref::Tensor t(shape);
    if (values.size() != static_cast<qsizetype>(t.data.size()))
        qFatal("test table: %lld values for a tensor of %zu", static_cast<long long>(values.size()),
               t.data.size());
    std::copy(values.begin(), values.end(), t.data.begin());
    return t;
}

QList<double> ramp(int n, double from = 1, double step = 1) {
    QList<double> v;
    for (int i = 0; i < n; ++i)
        v.push_back(from + step * i);
    return v;
}

// Runs `op` on `input` and compares its output with `expected` (absolute 1e-12).
void checkOperator(const TensorShape& inputShape, const QList<double>& input, const ir::Node& op,
                   const TensorShape& shape, const QList<double>& expected,
                   const std::optional<ref::ConvWeights>& weights = std::nullopt) {
    const ir::Graph g = singleOperatorGraph(inputShape, op);
    ref::ReferenceExecutor ex;
    ex.setInput(tensor(inputShape, input));
    if (weights)
        ex.setWeights(op.name, *weights);
    ex.run(g);
    const ref::Tensor& out = ex.output(op.name);
    QCOMPARE(out.shape, shape);
    QCOMPARE(out.data.size(), static_cast<size_t>(expected.size()));
    for (size_t i = 0; i < out.data.size(); ++i)
        if (std::abs(out.data[i] - expected[static_cast<qsizetype>(i)]) > 1e-12)
            QFAIL(qPrintable(QString("element %1: got %2, expected %3")
                                 .arg(i)
                                 .arg(out.data[i], 0, 'g', 17)
                                 .arg(expected[static_cast<qsizetype>(i)], 0, 'g', 17)));
}

double maxAbs(const ref::Tensor& t) {
    double m = 0;
    for (double v : t.data)
        m = std::max(m, std::abs(v));
    return m;
}

} // namespace

class TestRefExecutor : public QObject {
    Q_OBJECT

private slots:
    void convolution_data();
    void convolution();
    void pooling_data();
    void pooling();
    void combine_data();
    void combine();
    void activations_data();
    void activations();
    void elementBroadcast();
    void sequentialRunsInOrder();
    void opaqueIsRefused();
    void weightsAreDeterministic();
    void explicitWeightsAndInput();
    void bundledModels_data();
    void bundledModels();
};

void TestRefExecutor::convolution_data() {
    QTest::addColumn<TensorShape>("inputShape");
    QTest::addColumn<QList<double>>("input");
    QTest::addColumn<ir::Node>("op");
    QTest::addColumn<QList<double>>("weights");
    QTest::addColumn<QList<double>>("bias");
    QTest::addColumn<TensorShape>("shape");
    QTest::addColumn<QList<double>>("expected");
    const QList<double> x9 = ramp(9); // 1..9 as a 3×3 plane

    // Zero-padded 5×5 plane, windows at rows/cols {-1,0} and {1,2}: only the corner weight 4
    // sees the 1, then 2·3 + 3·4, 4·2 + 7·4, 5·1 + 6·2 + 8·3 + 9·4.
    QTest::newRow("2x2 stride 2 padding 1")
        << TensorShape{1, 3, 3} << x9
        << conv("c", in(1), 1, {2, 2}, {2, 2}, {1, 1}, 1, ActType::Identity)
        << QList<double>{1, 2, 3, 4} << QList<double>{0} << TensorShape{1, 2, 2}
        << QList<double>{4, 18, 36, 77};
    QTest::newRow("2x2 stride 2 padding 1, bias")
        << TensorShape{1, 3, 3} << x9
        << conv("c", in(1), 1, {2, 2}, {2, 2}, {1, 1}, 1, ActType::Identity)
        << QList<double>{1, 2, 3, 4} << QList<double>{-0.5} << TensorShape{1, 2, 2}
        << QList<double>{3.5, 17.5, 35.5, 76.5};
    // All-ones 3×3, padding 1: the sum of each 3×3 neighbourhood inside the plane.
    QTest::newRow("3x3 padding 1 (same)")
        << TensorShape{1, 3, 3} << x9
        << conv("c", in(1), 1, {3, 3}, {1, 1}, {1, 1}, 1, ActType::Identity)
        << QList<double>(9, 1.0) << QList<double>{0} << TensorShape{1, 3, 3}
        << QList<double>{12, 21, 16, 27, 45, 33, 24, 39, 28};
    QTest::newRow("3x3 valid") << TensorShape{1, 3, 3} << x9
                               << conv("c", in(1), 1, {3, 3}, {1, 1}, {0, 0}, 1, ActType::Identity)
                               << ramp(9) << QList<double>{0} << TensorShape{1, 1, 1}
                               << QList<double>{285}; // Σ i²
    // 1×3 kernel [1, 0, -1], padding (0, 1): out(y, x) = in(y, x-1) − in(y, x+1).
    QTest::newRow("1x3 rectangular")
        << TensorShape{1, 2, 3} << ramp(6)
        << conv("c", in(1), 1, {1, 3}, {1, 1}, {0, 1}, 1, ActType::Identity)
        << QList<double>{1, 0, -1} << QList<double>{0} << TensorShape{1, 2, 3}
        << QList<double>{-2, -2, 2, -5, -2, 5};
    // 3×1 kernel [1, 1, 1] with stride (2, 1): rows {-1..1} and {1..3} of a 4×1 column.
    QTest::newRow("3x1 stride (2,1)")
        << TensorShape{1, 4, 1} << ramp(4)
        << conv("c", in(1), 1, {3, 1}, {2, 1}, {1, 0}, 1, ActType::Identity)
        << QList<double>{1, 1, 1} << QList<double>{0} << TensorShape{1, 2, 1}
        << QList<double>{3, 9};
    // Two input channels summed with weights 1 and 10.
    QTest::newRow("1x1 two input channels")
        << TensorShape{2, 2, 2} << ramp(8)
        << conv("c", in(2), 1, {1, 1}, {1, 1}, {0, 0}, 1, ActType::Identity) << QList<double>{1, 10}
        << QList<double>{0} << TensorShape{1, 2, 2} << QList<double>{51, 62, 73, 84};
    // groups 2: output 0 reads channel 0 only (·2 + 1), output 1 channel 1 only (·−1).
    QTest::newRow("groups 2") << TensorShape{2, 2, 2} << ramp(8)
                              << conv("c", in(2), 2, {1, 1}, {1, 1}, {0, 0}, 2, ActType::Identity)
                              << QList<double>{2, -1} << QList<double>{1, 0} << TensorShape{2, 2, 2}
                              << QList<double>{3, 5, 7, 9, -5, -6, -7, -8};
    QTest::newRow("groups 2, relu")
        << TensorShape{2, 2, 2} << ramp(8)
        << conv("c", in(2), 2, {1, 1}, {1, 1}, {0, 0}, 2, ActType::Relu) << QList<double>{2, -1}
        << QList<double>{1, 0} << TensorShape{2, 2, 2} << QList<double>{3, 5, 7, 9, 0, 0, 0, 0};
    // groups 2 with a 2×2 kernel, stride 2, padding 1 on two channels: channel 1 = channel 0
    // + 9, weights of group 1 are those of group 0 negated: output 1 = −(output 0 + 9·Σw·[in]).
    QTest::newRow("groups 2, 2x2 stride 2 padding 1")
        << TensorShape{2, 3, 3} << ramp(18)
        << conv("c", in(2), 2, {2, 2}, {2, 2}, {1, 1}, 2, ActType::Identity)
        << QList<double>{1, 2, 3, 4, -1, -2, -3, -4} << QList<double>{0, 0} << TensorShape{2, 2, 2}
        << QList<double>{4, 18, 36, 77, -(4 + 36), -(18 + 9 * 7), -(36 + 9 * 6), -(77 + 9 * 10)};
    QTest::newRow("tanh") << TensorShape{1, 1, 2} << QList<double>{0.5, -1}
                          << conv("c", in(1), 1, {1, 1}, {1, 1}, {0, 0}, 1, ActType::Tanh)
                          << QList<double>{2} << QList<double>{0} << TensorShape{1, 1, 2}
                          << QList<double>{std::tanh(1.0), std::tanh(-2.0)};
    QTest::newRow("sigmoid") << TensorShape{1, 1, 2} << QList<double>{0.5, -1}
                             << conv("c", in(1), 1, {1, 1}, {1, 1}, {0, 0}, 1, ActType::Sigmoid)
                             << QList<double>{2} << QList<double>{0} << TensorShape{1, 1, 2}
                             << QList<double>{1 / (1 + std::exp(-1.0)), 1 / (1 + std::exp(2.0))};
}

void TestRefExecutor::convolution() {
    QFETCH(TensorShape, inputShape);
    QFETCH(QList<double>, input);
    QFETCH(ir::Node, op);
    QFETCH(QList<double>, weights);
    QFETCH(QList<double>, bias);
    QFETCH(TensorShape, shape);
    QFETCH(QList<double>, expected);
    ref::ConvWeights w{{weights.begin(), weights.end()}, {bias.begin(), bias.end()}};
    checkOperator(inputShape, input, op, shape, expected, w);
}

void TestRefExecutor::pooling_data() {
    QTest::addColumn<TensorShape>("inputShape");
    QTest::addColumn<QList<double>>("input");
    QTest::addColumn<ir::Node>("op");
    QTest::addColumn<TensorShape>("shape");
    QTest::addColumn<QList<double>>("expected");
    const QList<double> x9 = ramp(9), neg9 = ramp(9, -1, -1);
    const TensorShape s9{1, 3, 3};
    const ir::Hw k2{2, 2}, k3{3, 3}, s1{1, 1}, s2{2, 2}, p0{0, 0}, p1{1, 1};

    QTest::newRow("max 2x2") << s9 << x9 << pool("p", in(1), PoolType::Max, k2, s1, p0)
                             << TensorShape{1, 2, 2} << QList<double>{5, 6, 8, 9};
    // Windows {1}, {2,3}, {4,7}, {5,6,8,9}; the padding never wins, even over negatives.
    QTest::newRow("max 2x2 s2 p1") << s9 << x9 << pool("p", in(1), PoolType::Max, k2, s2, p1)
                                   << TensorShape{1, 2, 2} << QList<double>{1, 3, 7, 9};
    QTest::newRow("max 2x2 s2 p1 negative")
        << s9 << neg9 << pool("p", in(1), PoolType::Max, k2, s2, p1) << TensorShape{1, 2, 2}
        << QList<double>{-1, -2, -4, -5};
    QTest::newRow("max 3x3 s1 p1 negative")
        << s9 << neg9 << pool("p", in(1), PoolType::Max, k3, s1, p1) << TensorShape{1, 3, 3}
        << QList<double>{-1, -1, -2, -1, -1, -2, -4, -4, -5};
    // Floor mode: 3×3 with a 2×2 stride-2 window keeps one window.
    QTest::newRow("max floor mode") << s9 << x9 << pool("p", in(1), PoolType::Max, k2, s2, p0)
                                    << TensorShape{1, 1, 1} << QList<double>{5};
    QTest::newRow("avg 2x2") << s9 << x9 << pool("p", in(1), PoolType::Avg, k2, s1, p0)
                             << TensorShape{1, 2, 2} << QList<double>{3, 4, 6, 7};
    // count_include_pad: every window divides by 4, padding counting as zeros.
    QTest::newRow("avg 2x2 s2 p1 (count_include_pad)")
        << s9 << x9 << pool("p", in(1), PoolType::Avg, k2, s2, p1) << TensorShape{1, 2, 2}
        << QList<double>{0.25, 1.25, 2.75, 7};
    QTest::newRow("avg 3x3 s1 p1 (count_include_pad)")
        << s9 << x9 << pool("p", in(1), PoolType::Avg, k3, s1, p1) << TensorShape{1, 3, 3}
        << QList<double>{12. / 9, 21. / 9, 16. / 9, 27. / 9, 45. / 9,
                         33. / 9, 24. / 9, 39. / 9, 28. / 9};
    QTest::newRow("avg 1x3 rectangular")
        << TensorShape{1, 2, 3} << ramp(6) << pool("p", in(1), PoolType::Avg, {1, 3}, s1, {0, 1})
        << TensorShape{1, 2, 3} << QList<double>{1, 2, 5. / 3, 3, 5, 11. / 3};
    QTest::newRow("global avg") << TensorShape{2, 3, 3} << ramp(18)
                                << globalPool("p", in(2), PoolType::GlobalAvg)
                                << TensorShape{2, 1, 1} << QList<double>{5, 14};
    QTest::newRow("global max") << TensorShape{2, 3, 3} << ramp(18, -9)
                                << globalPool("p", in(2), PoolType::GlobalMax)
                                << TensorShape{2, 1, 1} << QList<double>{-1, 8};
}

void TestRefExecutor::pooling() {
    QFETCH(TensorShape, inputShape);
    QFETCH(QList<double>, input);
    QFETCH(ir::Node, op);
    QFETCH(TensorShape, shape);
    QFETCH(QList<double>, expected);
    checkOperator(inputShape, input, op, shape, expected);
}

// Identity and element nodes on a 3-channel 1×2 input: channel c holds (c+1)·{1, 2}.
void TestRefExecutor::combine_data() {
    QTest::addColumn<ir::Node>("op");
    QTest::addColumn<TensorShape>("shape");
    QTest::addColumn<QList<double>>("expected");
    using ir::NodeKind;
    QTest::newRow("concat of channel slices")
        << node(NodeKind::Identity, "o", concat({val("in", 2, 3), val("in", 0, 2)}))
        << TensorShape{3, 1, 2} << QList<double>{3, 6, 1, 2, 2, 4};
    QTest::newRow("sum term") << node(NodeKind::Identity, "o",
                                      sum({val("in", 0, 1), val("in", 1, 2), val("in", 2, 3)}))
                              << TensorShape{1, 1, 2} << QList<double>{6, 12};
    QTest::newRow("sum term of two channels")
        << node(NodeKind::Identity, "o", sum({val("in", 0, 2), val("in", 1, 3)}))
        << TensorShape{2, 1, 2} << QList<double>{3, 6, 5, 10};
    std::vector<ir::Term> mixed = sum({val("in", 0, 1), val("in", 2, 3)});
    mixed.push_back({val("in", 1, 2)});
    QTest::newRow("sum term then slice") << node(NodeKind::Identity, "o", mixed)
                                         << TensorShape{2, 1, 2} << QList<double>{4, 8, 2, 4};
    QTest::newRow("element add") << element("o", sum({val("in", 0, 1), val("in", 1, 2)}),
                                            ElementOp::Add)
                                 << TensorShape{1, 1, 2} << QList<double>{3, 6};
    QTest::newRow("element mul")
        << element("o", sum({val("in", 0, 1), val("in", 1, 2), val("in", 2, 3)}), ElementOp::Mul)
        << TensorShape{1, 1, 2} << QList<double>{6, 48};
    QTest::newRow("element mul, two terms")
        << element("o", {Term{val("in", 0, 1), val("in", 1, 2)}, Term{val("in", 2, 3)}},
                   ElementOp::Mul)
        << TensorShape{2, 1, 2} << QList<double>{2, 8, 3, 6};
    QTest::newRow("relu node of a sum")
        << node(NodeKind::Relu, "o", sum({val("in", 0, 1), val("in", 1, 2)}))
        << TensorShape{1, 1, 2} << QList<double>{3, 6};
}

void TestRefExecutor::combine() {
    QFETCH(ir::Node, op);
    QFETCH(TensorShape, shape);
    QFETCH(QList<double>, expected);
    checkOperator({3, 1, 2}, {1, 2, 2, 4, 3, 6}, op, shape, expected);
}

void TestRefExecutor::activations_data() {
    QTest::addColumn<int>("act");
    QTest::addColumn<QList<double>>("expected");
    const QList<double> x{-2, -0.5, 0, 1, 3};
    QList<double> tanhs, sigmoids;
    for (double v : x) {
        tanhs.push_back(std::tanh(v));
        sigmoids.push_back(1 / (1 + std::exp(-v)));
    }
    QTest::newRow("identity") << int(ActType::Identity) << x;
    QTest::newRow("relu") << int(ActType::Relu) << QList<double>{0, 0, 0, 1, 3};
    QTest::newRow("tanh") << int(ActType::Tanh) << tanhs;
    QTest::newRow("sigmoid") << int(ActType::Sigmoid) << sigmoids;
    // GELU x·Φ(x), Φ the standard normal distribution function from tables (not from erf):
    // Φ(−2) = 0.0227501319481792, Φ(−0.5) = 0.3085375387259869, Φ(1) = 0.8413447460685429,
    // Φ(3) = 0.9986501019683699.
    QTest::newRow("gelu") << int(ActType::Gelu)
                          << QList<double>{-2 * 0.0227501319481792, -0.5 * 0.3085375387259869, 0,
                                           0.8413447460685429, 3 * 0.9986501019683699};
}

void TestRefExecutor::activations() {
    QFETCH(int, act);
    QFETCH(QList<double>, expected);
    checkOperator({1, 1, 5}, {-2, -0.5, 0, 1, 3}, activation("a", in(1), ActType(act)), {1, 1, 5},
                  expected);
    if (ActType(act) == ActType::Relu) // the relu node kind computes the same
        checkOperator({1, 1, 5}, {-2, -0.5, 0, 1, 3}, node(ir::NodeKind::Relu, "r", in(1)),
                      {1, 1, 5}, expected);
}

// Squeeze-excitation style: an element node scales H×W by a 1×1 value (shape inference lets
// an element op broadcast it).
void TestRefExecutor::elementBroadcast() {
    ir::Graph g;
    g.name = "se";
    g.input = placeholder("in", {2, 1, 2});
    g.blocks.push_back(
        block(g.input, {globalPool("gap", in(2), PoolType::GlobalAvg)},
              element("scale", sum({val("in", 0, 2), val("gap", 0, 2)}), ElementOp::Mul)));
    ir::validateAndInferShapes(g);
    ref::ReferenceExecutor ex;
    ex.setInput(tensor({2, 1, 2}, {1, 3, 2, 6}));
    ex.run(g);
    QCOMPARE(ex.output("gap").data, (std::vector<double>{2, 4}));
    QCOMPARE(ex.output("scale").shape, (TensorShape{2, 1, 2}));
    QCOMPARE(ex.output("scale").data, (std::vector<double>{2, 6, 8, 24}));
}

// A sequential (conv → relu → avg pool) gives its last inner node's output; the inner
// outputs are kept under their own names.
void TestRefExecutor::sequentialRunsInOrder() {
    const ir::Node seq =
        sequential("s", {conv("s_conv", in(1), 1, {1, 1}, {1, 1}, {0, 0}, 1, ActType::Identity),
                         node(ir::NodeKind::Relu, "s_relu", in(1)),
                         pool("s_pool", in(1), PoolType::Avg, {2, 2}, {1, 1}, {0, 0})});
    ir::Node fixed = seq; // each inner node reads the previous one
    fixed.nodes[1].inputs = concat({val("s_conv", 0, 1)});
    fixed.nodes[2].inputs = concat({val("s_relu", 0, 1)});
    const ir::Graph g = singleOperatorGraph({1, 2, 2}, fixed);
    ref::ReferenceExecutor ex;
    ex.setInput(tensor({1, 2, 2}, {1, -2, 3, -4}));
    ex.setWeights("s_conv", {{-1}, {0.5}}); // −x + 0.5
    ex.run(g);
    QCOMPARE(ex.output("s_conv").data, (std::vector<double>{-0.5, 2.5, -2.5, 4.5}));
    QCOMPARE(ex.output("s_relu").data, (std::vector<double>{0, 2.5, 0, 4.5}));
    QCOMPARE(ex.output("s").shape, (TensorShape{1, 1, 1}));
    QCOMPARE(ex.output("s").data, (std::vector<double>{7.0 / 4}));
}

void TestRefExecutor::opaqueIsRefused() {
    ir::Node op = node(ir::NodeKind::Opaque, "mystery", in(1));
    op.outputShape = {1, 2, 2};
    const ir::Graph g = singleOperatorGraph({1, 2, 2}, op);
    ref::ReferenceExecutor ex;
    try {
        ex.run(g);
        QFAIL("an opaque node ran");
    } catch (const UserError& e) {
        QCOMPARE(QString::fromStdString(e.node()), QString("mystery"));
        QVERIFY2(QString(e.what()).contains("opaque"), e.what());
    }
}

void TestRefExecutor::weightsAreDeterministic() {
    const ir::Node c = conv("branch/conv", in(8), 16, {3, 3}, {1, 1}, {1, 1});
    const ref::ConvWeights a = ref::randomConvWeights(c, 8, 7);
    QCOMPARE(a.weights.size(), size_t{16 * 8 * 9});
    QCOMPARE(a.bias.size(), size_t{16});
    QCOMPARE(ref::randomConvWeights(c, 8, 7).weights, a.weights); // same (name, seed)
    QCOMPARE(ref::randomConvWeights(c, 8, 7).bias, a.bias);
    QVERIFY(ref::randomConvWeights(c, 8, 8).weights != a.weights); // another seed
    ir::Node renamed = c;
    renamed.name = "branch/conv2";
    QVERIFY(ref::randomConvWeights(renamed, 8, 7).weights != a.weights); // another name
    // Uniform in ±sqrt(3 / fan_in), mean ≈ 0, and not degenerate.
    const double bound = std::sqrt(3.0 / (8 * 9));
    double sum = 0, lo = 0, hi = 0;
    for (double w : a.weights) {
        QVERIFY(std::abs(w) <= bound);
        sum += w;
        lo = std::min(lo, w);
        hi = std::max(hi, w);
    }
    QVERIFY(std::abs(sum / static_cast<double>(a.weights.size())) < 0.05 * bound);
    QVERIFY(lo < -0.9 * bound && hi > 0.9 * bound);
    for (double b : a.bias)
        QVERIFY(std::abs(b) <= 0.1);
    // Inputs too; and a whole run is repeatable.
    QCOMPARE(ref::randomTensor({2, 3, 3}, "x", 1).data, ref::randomTensor({2, 3, 3}, "x", 1).data);
    QVERIFY(ref::randomTensor({2, 3, 3}, "x", 1).data != ref::randomTensor({2, 3, 3}, "x", 2).data);
    const ir::Graph g = singleOperatorGraph({8, 5, 5}, c);
    ref::ReferenceExecutor e1(3), e2(3), e3(4);
    e1.run(g);
    e2.run(g);
    e3.run(g);
    QCOMPARE(e1.output("branch/conv").data, e2.output("branch/conv").data);
    QVERIFY(e1.output("branch/conv").data != e3.output("branch/conv").data);
    QCOMPARE(e1.weightsOf(c, 8).weights, ref::randomConvWeights(c, 8, 3).weights);
}

void TestRefExecutor::explicitWeightsAndInput() {
    const ir::Node c = conv("c", in(2), 3, {1, 1}, {1, 1}, {0, 0}, 1, ActType::Identity);
    const ir::Graph g = singleOperatorGraph({2, 1, 1}, c);
    ref::ReferenceExecutor ex;
    ex.setInput(tensor({2, 1, 1}, {1, 2}));
    ex.setWeights("c", {{1, 0, 0, 1, 1, 1}, {0, 0, 10}});
    ex.run(g);
    QCOMPARE(ex.output("c").data, (std::vector<double>{1, 2, 13}));
    QCOMPARE(ex.output("in").data, (std::vector<double>{1, 2}));
    QVERIFY(ex.hasOutput("c") && !ex.hasOutput("nothing"));
    QVERIFY_THROWS_EXCEPTION(UserError, ex.output("nothing"));

    ex.setWeights("c", {{1, 2, 3}, {0, 0, 0}}); // too few weights: named error
    try {
        ex.run(g);
        QFAIL("accepted weights of the wrong size");
    } catch (const UserError& e) {
        QCOMPARE(QString::fromStdString(e.node()), QString("c"));
        QVERIFY2(QString(e.what()).contains("wrong size"), e.what());
    }
    ex.setInput(ref::Tensor({3, 1, 1}));
    QVERIFY_THROWS_EXCEPTION(UserError, ex.run(g));
}

void TestRefExecutor::bundledModels_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("demo_inception_module") << "demo_inception_module";
    QTest::newRow("demo_random_dag") << "demo_random_dag";
    if (kFullModels) { // 14 s and minutes under ASan + Debug
        QTest::newRow("squeezenet") << "squeezenet";
        QTest::newRow("inception_v3") << "inception_v3";
    }
}

void TestRefExecutor::bundledModels() {
    QFETCH(QString, model);
    const ir::Graph g = samples::loadBundledModel(model.toStdString());
    ref::ReferenceExecutor ex(1);
    ex.run(g);
    size_t nodes = 1;
    for (const ir::Block& b : g.blocks)
        for (const ir::Node* op : b.operators()) {
            nodes += 1 + op->nodes.size();
            const ref::Tensor& out = ex.output(op->name);
            QCOMPARE(out.shape, op->outputShape);
            for (double v : out.data)
                if (!std::isfinite(v))
                    QFAIL(qPrintable("non-finite value in " + QString::fromStdString(op->name)));
        }
    QCOMPARE(ex.outputs().size(), nodes);
    // The variance-preserving weights keep the last activations O(1): neither vanished nor
    // exploded.
    const double last = maxAbs(ex.output(g.blocks.back().exitNode.name));
    QVERIFY2(last > 1e-3 && last < 1e3, qPrintable(QString::number(last)));
}

QTEST_GUILESS_MAIN(TestRefExecutor)
#include "tst_ref_executor.moc"
