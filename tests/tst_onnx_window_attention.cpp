// SPDX-License-Identifier: Apache-2.0
// The importer on window attention (issue 31): Swin's shifted-window block as PyTorch 1.13
// exports it (windows in the batch axis of MatMul, a relative-position bias shared by the
// windows, a shift mask shared by the heads) and MaxViT's (Einsum over [B, windows, heads,
// tokens, d]). The imported graph is checked against the attention computed by hand from the
// reference executor's own weights.
#include "attention_check.h"
#include "io/native_json.h"
#include "io/onnx_import.h"
#include "ir/metrics.h"
#include "onnx_test_builder.h"
#include "onnx_test_support.h"
#include "ref/reference_executor.h"

#include <QtTest>
#include <cmath>
#include <functional>

using namespace ios;
using ios::test::Builder;
using ios::test::errorOf;
using ios::test::findOp;
using ios::test::kindCounts;
using ios::test::optimizeAndVerify;

namespace {

// A 4×4 map of kC channels in kW windows of kN = 2×2 tokens, kHeads heads of kD channels.
constexpr int64_t kC = 8, kW = 4, kN = 4, kHeads = 2, kD = 4;

void pick(Builder& b, const std::string& name, const std::string& x, const std::string& y,
          int64_t index) {
    b.scalarInt(name + ".index", index);
    Builder::attr(b.node("Gather", name, {x, name + ".index"}, {y}), "axis", int64_t{0});
}

// Window partition of a 1×1 conv's output into [kW, kN, kC] tokens, the packed projection.
void windowTokens(Builder& b) {
    b.conv("c", "x", "h", kC, kC, 1);
    b.transpose("to_last", "h", "l", {0, 2, 3, 1});
    b.reshape("split", "l", "s", {1, 2, 2, 2, 2, kC});
    b.transpose("gather_windows", "s", "sw", {0, 1, 3, 2, 4, 5});
    b.reshape("partition", "sw", "w", {kW, kN, kC});
    b.weight("qkv.w", {kC, 3 * kC});
    b.node("MatMul", "qkv", {"w", "qkv.w"}, {"p"});
}

struct Options {
    int64_t maskWindows = kW; // the shift mask's window extent (a wrong one breaks it)
};

// Swin: q, k, v by Reshape [W, N, 3, heads, d] → Transpose (2, 0, 3, 1, 4) → Gather;
// scores = q·scale·kᵀ + bias [1, heads, N, N], viewed [1, W, heads, N, N] + mask
// [1, W, 1, N, N]; softmax; · v; back to [W, N, C].
std::string swinBlock(const Options& o = {}) {
    Builder b({1, kC, 4, 4});
    windowTokens(b);
    b.reshape("heads", "p", "p5", {kW, kN, 3, kHeads, kD});
    b.transpose("qkv.t", "p5", "pt", {2, 0, 3, 1, 4});
    pick(b, "q.pick", "pt", "q0", 0);
    pick(b, "k.pick", "pt", "k0", 1);
    pick(b, "v.pick", "pt", "v", 2);
    b.real("scale", 0.5f);
    b.node("Mul", "q.scale", {"q0", "scale"}, {"q"});
    b.transpose("k.t", "k0", "kt", {0, 1, 3, 2});
    b.node("MatMul", "scores", {"q", "kt"}, {"s0"});
    b.weight("bias.table", {1, kHeads, kN, kN});
    b.node("Add", "bias", {"s0", "bias.table"}, {"s1"});
    b.reshape("by_window", "s1", "s2", {1, kW, kHeads, kN, kN});
    b.weight("mask.table", {1, o.maskWindows, 1, kN, kN});
    b.node("Add", "mask", {"s2", "mask.table"}, {"s3"});
    b.reshape("unwindow", "s3", "s4", {kW, kHeads, kN, kN});
    Builder::attr(b.node("Softmax", "softmax", {"s4"}, {"a"}), "axis", int64_t{-1});
    b.node("MatMul", "mix", {"a", "v"}, {"m"});
    b.transpose("m.t", "m", "m1", {0, 2, 1, 3});
    b.reshape("merge", "m1", "y", {kW, kN, kC});
    b.output("y");
    return b.bytes();
}

// MaxViT: q, k, v as channel slices viewed [1, W, N, heads, d] → [1, W, heads, N, d]; the
// products as Einsum (the equations as torch writes them, with spaces).
std::string maxvitBlock(const std::string& scoresEquation = "B G H I D, B G H J D -> B G H I J") {
    Builder b({1, kC, 4, 4});
    windowTokens(b);
    for (int64_t k = 0; k < 3; ++k) {
        const std::string name = std::string(1, "qkv"[k]);
        b.ints(name + ".b", {k * kC});
        b.ints(name + ".e", {(k + 1) * kC});
        b.ints(name + ".a", {-1});
        b.node("Slice", name + ".slice", {"p", name + ".b", name + ".e", name + ".a"},
               {name + "0"});
        b.reshape(name + ".heads", name + "0", name + "1", {1, kW, kN, kHeads, kD});
        b.transpose(name + ".t", name + "1", name + (k == 0 ? "2" : ""), {0, 1, 3, 2, 4});
    }
    b.real("scale", 0.5f);
    b.node("Mul", "q.scale", {"q2", "scale"}, {"q"});
    Builder::attr(b.node("Einsum", "scores", {"q", "k"}, {"sc"}), "equation", scoresEquation);
    Builder::attr(b.node("Softmax", "softmax", {"sc"}, {"a"}), "axis", int64_t{-1});
    Builder::attr(b.node("Einsum", "mix", {"a", "v"}, {"m"}), "equation",
                  std::string("B G H I J, B G H J D -> B G H I D"));
    b.transpose("m.t", "m", "m1", {0, 1, 3, 2, 4});
    b.reshape("merge", "m1", "y", {kW, kN, kC});
    b.output("y");
    return b.bytes();
}

// nn.TransformerEncoder's way out and a hand-written scale: tokens [1, 16, C] from a conv,
// scores = (q·kᵀ)·0.5 (the scale on the product, not an operand), softmax, · v, then the mean
// over the tokens (ReduceMean axis 1) and a classifier.
std::string meanPooled() {
    Builder b({1, kC, 4, 4});
    b.conv("c", "x", "h", kC, kC, 1);
    b.reshape("flat", "h", "f", {1, kC, 16});
    b.transpose("to_tokens", "f", "t", {0, 2, 1});
    for (const char* p : {"q", "k", "v"}) {
        b.weight(std::string(p) + ".w", {kC, kC});
        b.node("MatMul", std::string(p) + ".proj", {"t", std::string(p) + ".w"}, {p});
    }
    b.transpose("k.t", "k", "kt", {0, 2, 1});
    b.node("MatMul", "scores", {"q", "kt"}, {"s0"});
    b.real("scale", 0.5f);
    b.node("Mul", "scale.mul", {"s0", "scale"}, {"s"});
    Builder::attr(b.node("Softmax", "softmax", {"s"}, {"a"}), "axis", int64_t{-1});
    b.node("MatMul", "mix", {"a", "v"}, {"m"});
    auto* mean = b.node("ReduceMean", "mean", {"m"}, {"pooled"});
    Builder::attr(mean, "axes", std::vector<int64_t>{1});
    Builder::attr(mean, "keepdims", int64_t{0});
    b.weight("head.w", {10, kC});
    Builder::attr(b.node("Gemm", "head", {"pooled", "head.w"}, {"y"}), "transB", int64_t{1});
    b.output("y");
    return b.bytes();
}

// softmax(½·q·kᵀ + added)·v per window and head from the projection the reference executor
// made (q, k, v: channels [0, C), [C, 2C), [2C, 3C) of it) against the IR's "mix".
double attentionError(const ir::Graph& g, const ref::ReferenceExecutor& r,
                      const std::function<double(int64_t, int64_t, int64_t, int64_t)>& added) {
    const ref::Tensor& qkv = r.output(findOp(g, "qkv")->name);
    return ios::test::attentionError(
        {&qkv, 0, &qkv, kC, &qkv, 2 * kC, &r.output("mix"), kHeads, kD, kW, kN, 0.5}, added);
}

} // namespace

class TestOnnxWindowAttention : public QObject {
    Q_OBJECT

private slots:
    void swinWindowsAreMatmulWindows() {
        const ir::Graph g = io::parseOnnx(swinBlock(), "swin.onnx");
        QVERIFY(!kindCounts(g).contains("opaque"));
        for (const char* name : {"scores", "mix"}) {
            const ir::Node* m = findOp(g, name);
            QVERIFY(m && m->kind == ir::NodeKind::Matmul);
            QCOMPARE(m->matmul.heads, kHeads);
            QCOMPARE(m->matmul.windows, kW);
        }
        QCOMPARE(findOp(g, "scores")->matmul.alpha, 0.5);
        QCOMPARE(findOp(g, "scores")->outputShape.c, kHeads * kN);
        // The bias repeats along the positions every window, the mask along the channels
        // every head: tables of heads·N × N and N × W·N values.
        const ir::Node* bias = findOp(g, "bias");
        const ir::Node* mask = findOp(g, "mask");
        QVERIFY(bias && mask && bias->tokens.embed && mask->tokens.embed);
        QCOMPARE(bias->tokens.embedChannels, int64_t{0});
        QCOMPARE(bias->tokens.embedPositions, kN);
        QCOMPARE(mask->tokens.embedChannels, kN);
        QCOMPARE(mask->tokens.embedPositions, int64_t{0});
        const ir::NodeIndex index(g);
        const ir::OperatorMetrics mb = ir::computeMetrics(*bias, index),
                                  mm = ir::computeMetrics(*mask, index);
        QCOMPARE(mb.parameters, kHeads * kN * kN);
        QCOMPARE(mm.parameters, kW * kN * kN);
        optimizeAndVerify(g);
        QVERIFY(io::parseNativeJson(io::writeNativeJson(g), "swin.json") == g);
    }

    // Score (w, h, i, j) gets bias[h, i, j] + mask[w, i, j]: the tables as the reference
    // executor drew them, read with their periods.
    void swinComputesWhatTheGraphSays() {
        const ir::Graph g = io::parseOnnx(swinBlock(), "swin.onnx");
        ref::ReferenceExecutor r(7);
        r.run(g);
        const std::vector<double> bias =
            ref::uniformValues(kHeads * kN * kN, ref::nameSeed("bias/embedding", 7), 1.0);
        const std::vector<double> mask =
            ref::uniformValues(kN * kW * kN, ref::nameSeed("mask/embedding", 7), 1.0);
        const double worst = attentionError(g, r, [&](int64_t w, int64_t h, int64_t i, int64_t j) {
            return bias[static_cast<size_t>((h * kN + j) * kN + i)] +
                   mask[static_cast<size_t>(j * kW * kN + w * kN + i)];
        });
        QVERIFY2(worst < 1e-12, qPrintable(QString::number(worst)));
    }

    void maxvitEinsumIsTheSameProduct() {
        const ir::Graph g = io::parseOnnx(maxvitBlock(), "maxvit.onnx");
        QVERIFY(!kindCounts(g).contains("opaque"));
        const ir::Node* scores = findOp(g, "scores");
        const ir::Node* mix = findOp(g, "mix");
        QVERIFY(scores && mix && scores->kind == ir::NodeKind::Matmul);
        QVERIFY(scores->matmul.transposeB && !mix->matmul.transposeB);
        QCOMPARE(scores->matmul.windows, kW);
        QCOMPARE(mix->matmul.heads, kHeads);
        ref::ReferenceExecutor r(9);
        r.run(g);
        const double worst = attentionError(g, r, {});
        QVERIFY2(worst < 1e-12, qPrintable(QString::number(worst)));
        optimizeAndVerify(g);
    }

    void scaleOnTheProductAndMeanOverTokens() {
        const ir::Graph g = io::parseOnnx(meanPooled(), "encoder.onnx");
        const auto kinds = kindCounts(g);
        QVERIFY(!kinds.contains("activation") && !kinds.contains("opaque")); // nothing dropped
        QCOMPARE(findOp(g, "scores")->matmul.alpha, 0.5);
        const ir::Node* mean = findOp(g, "mean");
        QVERIFY(mean && mean->kind == ir::NodeKind::Pool &&
                mean->pool.type == ir::PoolType::GlobalAvg);
        QCOMPARE(mean->outputShape, (ir::TensorShape{kC, 1, 1}));
        ref::ReferenceExecutor r(2);
        r.run(g);
        const ref::Tensor& mixed = r.output("mix");
        for (int64_t c = 0; c < kC; ++c) {
            double sum = 0;
            for (int64_t p = 0; p < 16; ++p)
                sum += mixed.data[static_cast<size_t>(c * 16 + p)];
            QVERIFY(std::abs(r.output("mean").data[static_cast<size_t>(c)] - sum / 16) < 1e-12);
        }
        optimizeAndVerify(g);
    }

    void badWindowAttentionNamesTheNodeAndDims() {
        Options mask;
        mask.maskWindows = 3; // 3 windows' masks for 4 windows
        QString e = errorOf(swinBlock(mask));
        QVERIFY2(e.contains("test.onnx") && e.contains("mask") && e.contains("broadcast"),
                 qPrintable(e));
        e = errorOf(maxvitBlock("B G H I D, B G H J E -> B G H I J"));
        QVERIFY2(e.contains("scores") && e.contains("Einsum"), qPrintable(e));
        e = errorOf(maxvitBlock("B G H I D, B G H J D"));
        QVERIFY2(e.contains("scores") && e.contains("einsum equation"), qPrintable(e));
        e = errorOf(maxvitBlock("B G H I D, B G H I D -> B G H I Z"));
        QVERIFY2(e.contains("scores") && e.contains("'Z'"), qPrintable(e));
    }
};

QTEST_APPLESS_MAIN(TestOnnxWindowAttention)
#include "tst_onnx_window_attention.moc"
