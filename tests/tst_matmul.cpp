// SPDX-License-Identifier: Apache-2.0
// The IR's matmul kind (products of two activations per attention head) through the engine:
// shape rules and their errors, FLOPs, the reference executor on hand-computed cases, the
// native and IOS JSON formats, the simulated GPU and the IOS search on a self-attention block.
#include "cost/simulated_gpu_cost_model.h"
#include "eval/evaluate.h"
#include "io/ios_json.h"
#include "io/native_json.h"
#include "ir/metrics.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "ref/reference_executor.h"
#include "schedulers/baselines.h"
#include "schedulers/ios_dp.h"
#include "util/error.h"

#include <QtTest>

using namespace ios;
using namespace ios::testing;

namespace {

// One self-attention block over 3×2 positions of 8 channels, two heads of four: q, k, v
// projections (1×1 convs), scores = q·kᵀ/2, softmax per head, mix = attention·v, output
// projection. `heads` may be set to anything to provoke errors.
ir::Graph attention(int64_t heads = 2) {
    ir::Graph g;
    g.name = "attention";
    g.input = placeholder("x", {8, 3, 2});
    const auto x = concat({val("x", 0, 8)});
    std::vector<Node> ops{conv("q", x, 8, {1, 1}, {1, 1}, {0, 0}, 1, ir::ActType::Identity),
                          conv("k", x, 8, {1, 1}, {1, 1}, {0, 0}, 1, ir::ActType::Identity),
                          conv("v", x, 8, {1, 1}, {1, 1}, {0, 0}, 1, ir::ActType::Identity),
                          matmul("scores", val("q", 0, 8), val("k", 0, 8), heads, true, 0.5)};
    Node soft = node(NodeKind::Norm, "soft", concat({val("scores", 0, 12)}));
    soft.norm = {ir::NormType::Softmax, heads, 0};
    ops.push_back(soft);
    ops.push_back(matmul("mix", val("soft", 0, 12), val("v", 0, 8), heads, false));
    Node out = conv("out", concat({val("mix", 0, 8)}), 8, {1, 1}, {1, 1}, {0, 0}, 1,
                    ir::ActType::Identity);
    g.blocks.push_back(block(g.input, std::move(ops), out));
    return g;
}

const ir::Node& find(const ir::Graph& g, const std::string& name) {
    for (const ir::Node* op : g.blocks.front().operators())
        if (op->name == name)
            return *op;
    throw std::logic_error("no node " + name);
}

QString errorOf(const ir::Graph& g) {
    try {
        ir::Graph copy = g;
        ir::validateAndInferShapes(copy);
    } catch (const UserError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

ref::Tensor tensor(ir::TensorShape shape, std::vector<double> values) {
    ref::Tensor t(shape);
    t.data = std::move(values);
    return t;
}

} // namespace

class TestMatmul : public QObject {
    Q_OBJECT

private slots:
    void shapesAndFlops() {
        ir::Graph g = attention();
        ir::validateAndInferShapes(g);
        // Scores: heads × key positions channels at every query position; mix: v's channels.
        QCOMPARE(find(g, "scores").outputShape, (ir::TensorShape{12, 3, 2}));
        QCOMPARE(find(g, "mix").outputShape, (ir::TensorShape{8, 3, 2}));
        const ir::NodeIndex index(g);
        // 2 · positions_A · positions_B · channels, for both products.
        QCOMPARE(ir::computeMetrics(find(g, "scores"), index).flops, int64_t{2 * 6 * 6 * 8});
        QCOMPARE(ir::computeMetrics(find(g, "mix"), index).flops, int64_t{2 * 6 * 6 * 8});
        QCOMPARE(ir::computeMetrics(find(g, "mix"), index).parameters, int64_t{0});
    }

    void badOperandsNameTheNodeAndDims() {
        QVERIFY(errorOf(attention(3)).contains("heads = 3 does not divide the operands' channels"));
        ir::Graph g = attention();
        g.blocks[0].innerNodes[3].inputs[1][0].end = 4; // k: 4 of its 8 channels
        QVERIFY2(errorOf(g).contains("'scores'") &&
                     errorOf(g).contains("equal channels per head (A [8, 3, 2], B [4, 3, 2])"),
                 qPrintable(errorOf(g)));
        g = attention();
        g.blocks[0].innerNodes[5].inputs[0][0].end = 6; // A·V with 6 of 12 score channels
        QVERIFY2(errorOf(g).contains("'mix'") && errorOf(g).contains("heads (2) × B's positions"),
                 qPrintable(errorOf(g)));
        g = attention();
        g.blocks[0].innerNodes[3].inputs.pop_back();
        QVERIFY(errorOf(g).contains("a matmul reads two operands (input terms), not 1"));
    }

    void referenceComputesHandWorkedProducts() {
        // One head, A: 2 channels × 2 positions, B: 2 channels × 3 positions.
        const ref::Tensor a = tensor({2, 2, 1}, {1, 2, 3, 4}); // A[c, p]: c0 = (1, 2), c1 = (3, 4)
        const ref::Tensor b = tensor({2, 3, 1}, {1, 0, 2, 0, 1, -1});
        // out[j, p] = Σ_c A[c, p] B[c, j]: j0 = (1, 2), j1 = (3, 4), j2 = (2 − 3, 4 − 4).
        const ref::Tensor s = ref::matmul(a, b, {1, true, 1.0});
        QCOMPARE(s.shape, (ir::TensorShape{3, 2, 1}));
        QCOMPARE(s.data, (std::vector<double>{1, 2, 3, 4, -1, 0}));
        // A·B: A has 3 channels (B's positions) × 2 positions; out[e, p] = Σ_j A[j, p] B[e, j].
        const ref::Tensor w = tensor({3, 2, 1}, {1, 0, 0, 1, 1, 1});
        const ref::Tensor m = ref::matmul(w, b, {1, false, 2.0});
        // e0: B row (1, 0, 2) → p0: 1 + 2 = 3, p1: 0 + 2 = 2; e1: (0, 1, −1) → p0: −1, p1: 0.
        QCOMPARE(m.data, (std::vector<double>{6, 4, -2, 0}));
        // Heads are independent: changing head 1 of B leaves head 0's scores alone.
        const ref::Tensor a2 = tensor({4, 1, 1}, {1, 2, 3, 4});
        ref::Tensor b2 = tensor({4, 2, 1}, {1, 1, 1, 1, 1, 1, 1, 1});
        const ref::Tensor before = ref::matmul(a2, b2, {2, true, 1.0});
        b2.data[5] = 10;
        const ref::Tensor after = ref::matmul(a2, b2, {2, true, 1.0});
        QCOMPARE(before.data[0], after.data[0]);
        QCOMPARE(before.data[1], after.data[1]);
        QVERIFY(before.data[2] != after.data[2] || before.data[3] != after.data[3]);
    }

    // Windows: positions split into equal groups multiplied on their own (Swin).
    void windowsShapesFlopsAndErrors() {
        ir::Graph g = attention();
        ir::Node& scores = g.blocks[0].innerNodes[3];
        scores.matmul.windows = 3; // 3 windows of 2 positions: keys per window 2
        g.blocks[0].innerNodes[4].inputs = {{val("scores", 0, 4)}};
        ir::Node& mix = g.blocks[0].innerNodes[5];
        mix.matmul.windows = 3;
        mix.inputs[0] = {val("soft", 0, 4)};
        ir::validateAndInferShapes(g);
        QCOMPARE(find(g, "scores").outputShape, (ir::TensorShape{4, 3, 2}));
        const ir::NodeIndex index(g);
        // 2 · positions_A · keys per window · channels: a third of the global product.
        QCOMPARE(ir::computeMetrics(find(g, "scores"), index).flops, int64_t{2 * 6 * 2 * 8});
        QCOMPARE(ir::computeMetrics(find(g, "mix"), index).flops, int64_t{2 * 6 * 2 * 8});
        QVERIFY(io::parseNativeJson(io::writeNativeJson(g), "w.json") == g);
        g.blocks[0].innerNodes[3].matmul.windows = 4; // 4 does not divide 6 positions
        QVERIFY2(errorOf(g).contains("'scores'") &&
                     errorOf(g).contains("windows = 4 does not divide the operands' positions"),
                 qPrintable(errorOf(g)));
        g.blocks[0].innerNodes[3].matmul.windows = 0;
        QVERIFY2(errorOf(g).contains("windows"), qPrintable(errorOf(g)));
    }

    void referenceMultipliesEachWindowOnItsOwn() {
        // One head, 1 channel, 4 positions in 2 windows: scores[j, w·2 + i] = A[w·2 + i] ·
        // B[w·2 + j], never across windows.
        const ref::Tensor a = tensor({1, 4, 1}, {1, 2, 3, 4});
        const ref::Tensor b = tensor({1, 4, 1}, {10, 20, 30, 40});
        const ref::Tensor s = ref::matmul(a, b, {1, true, 1.0, 2});
        QCOMPARE(s.shape, (ir::TensorShape{2, 4, 1}));
        // Key j = 0: (1·10, 2·10, 3·30, 4·30); j = 1: (1·20, 2·20, 3·40, 4·40).
        QCOMPARE(s.data, (std::vector<double>{10, 20, 90, 120, 20, 40, 120, 160}));
        // A·V per window: out[0, w·2 + i] = Σ_j s[j, w·2 + i] · V[w·2 + j].
        const ref::Tensor v = tensor({1, 4, 1}, {1, -1, 2, 0});
        const ref::Tensor m = ref::matmul(s, v, {1, false, 1.0, 2});
        QCOMPARE(m.data, (std::vector<double>{10 - 20, 20 - 40, 180, 240}));
    }

    // An added table that repeats: out[c, i] = x[c, i] + T[c mod 4, i mod 3].
    void embeddingTableRepeats() {
        ir::Graph g;
        g.name = "table";
        g.input = placeholder("x", {8, 3, 2});
        Node add = node(NodeKind::Tokens, "add", concat({val("x", 0, 8)}));
        add.tokens.index = {0, 1, 2, 3, 4, 5};
        add.tokens.outHw = {3, 2};
        add.tokens.embed = true;
        add.tokens.embedChannels = 4;
        add.tokens.embedPositions = 3;
        g.blocks.push_back(block(g.input, {}, add));
        ir::validateAndInferShapes(g);
        const ir::NodeIndex index(g);
        const ir::OperatorMetrics m = ir::computeMetrics(g.blocks[0].exitNode, index);
        QCOMPARE(m.parameters, int64_t{12});
        QCOMPARE(m.flops, int64_t{48});
        ref::ReferenceExecutor r(4);
        r.run(g);
        const std::vector<double> table =
            ref::uniformValues(12, ref::nameSeed("add/embedding", 4), 1.0);
        const ref::Tensor& x = r.output("x");
        const ref::Tensor& out = r.output("add");
        for (int64_t c = 0; c < 8; ++c)
            for (int64_t i = 0; i < 6; ++i)
                QCOMPARE(out.data[static_cast<size_t>(c * 6 + i)],
                         x.data[static_cast<size_t>(c * 6 + i)] +
                             table[static_cast<size_t>((c % 4) * 3 + i % 3)]);
        QVERIFY(io::parseNativeJson(io::writeNativeJson(g), "t.json") == g);
        g.blocks[0].exitNode.tokens.embedPositions = 4; // does not divide 6 positions
        QVERIFY2(errorOf(g).contains("'add'") &&
                     errorOf(g).contains("embed_positions = 4 does not divide 6"),
                 qPrintable(errorOf(g)));
    }

    void attentionRowsSumToOneAndTheGraphRuns() {
        ir::Graph g = attention();
        ir::validateAndInferShapes(g);
        ref::ReferenceExecutor r(3);
        r.run(g);
        const ref::Tensor& soft = r.output("soft");
        for (int64_t head = 0; head < 2; ++head)
            for (int64_t y = 0; y < 3; ++y) {
                double sum = 0;
                for (int64_t c = 6 * head; c < 6 * head + 6; ++c)
                    sum += soft.at(c, y, 1);
                QVERIFY(std::abs(sum - 1) < 1e-12);
            }
        QCOMPARE(r.output("out").shape, (ir::TensorShape{8, 3, 2}));
    }

    void formats() {
        ir::Graph g = attention();
        ir::validateAndInferShapes(g);
        QVERIFY(io::parseNativeJson(io::writeNativeJson(g), "a.json") == g);
        std::vector<std::string> warnings;
        io::writeIosJson(g, &warnings);
        QVERIFY(std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
            return w.find("products of two activations (attention) at 'scores', 'mix'") !=
                   std::string::npos;
        }));
    }

    void simulatedAndScheduled() {
        ir::Graph g = attention();
        ir::validateAndInferShapes(g);
        const auto dags = ir::buildDags(g);
        const cost::SimulatedGpuCostModel model(g, *cost::findBundledDevice("V100"), 4);
        const double sequential = eval::totalLatencyMs(dags, schedulers::sequential(dags), model);
        QVERIFY(sequential > 0);
        schedulers::Options o;
        o.strategy = schedulers::Strategy::Both;
        const auto best = schedulers::optimize(ir::PreparedModel(g), o, model);
        QVERIFY(best.latencyMs <= sequential + 1e-12);
        // The q, k, v projections read one input: IOS may merge or run them concurrently.
        QVERIFY(best.latencyMs < sequential);
    }
};

QTEST_APPLESS_MAIN(TestMatmul)
#include "tst_matmul.moc"
