// SPDX-License-Identifier: Apache-2.0
// The importer on self-attention as PyTorch 1.13 exports torchvision's ViT encoder at opset 13
// (issue 31): patch tokens, a class token and a positional embedding, nn.MultiheadAttention's
// packed projection split into q, k and v, heads by Reshape/Transpose, Q·Kᵀ scaled, softmax,
// attention · V, the output projection as a Gemm over [T, C], and the class token read back.
// The imported graph is checked against the attention computed by hand from the reference
// executor's own weights.
#include "attention_check.h"
#include "cost/simulated_gpu_cost_model.h"
#include "io/native_json.h"
#include "io/onnx_import.h"
#include "onnx_test_builder.h"
#include "onnx_test_support.h"
#include "ref/reference_executor.h"
#include "util/error.h"

#include <QtTest>
#include <cmath>

using namespace ios;
using ios::test::Builder;
using ios::test::errorOf;
using ios::test::findOp;
using ios::test::kindCounts;
using ios::test::optimizeAndVerify;

namespace {

constexpr int64_t kC = 8, kHeads = 2, kD = 4, kT = 17; // 16 patches + the class token

void slice(Builder& b, const std::string& name, const std::string& x, const std::string& y,
           int64_t begin, int64_t end) {
    b.ints(name + ".b", {begin});
    b.ints(name + ".e", {end});
    b.ints(name + ".a", {-1});
    b.node("Slice", name, {x, name + ".b", name + ".e", name + ".a"}, {y});
}

// A one-layer ViT over a 4×4 map of kC channels; options break it for the error tests.
struct Options {
    int64_t softmaxAxis = -1;
    std::vector<int64_t> headShape{kT, kHeads, kD};
    int64_t keyLength = kD;           // K of Q·Kᵀ as B has it
    bool separateProjections = false; // q, k, v Linear layers of their own (one input)
};

std::string miniVit(const Options& o = {}) {
    Builder b({1, kC, 4, 4});
    b.conv("patch", "x", "p", kC, kC, 1);
    b.reshape("flatten", "p", "pf", {1, kC, 16});
    b.transpose("to_tokens", "pf", "t", {0, 2, 1});
    b.weight("class_token", {1, 1, kC});
    Builder::attr(b.node("Concat", "cat", {"class_token", "t"}, {"c"}), "axis", int64_t{1});
    b.weight("pos_embedding", {1, kT, kC});
    b.node("Add", "embed", {"c", "pos_embedding"}, {"e"});
    Builder::attr(b.node("LayerNormalization", "ln", {"e"}, {"n"}), "axis", int64_t{-1});
    b.transpose("seq_first", "n", "s", {1, 0, 2});
    if (o.separateProjections) {
        for (const char* p : {"q", "k", "v"}) {
            const std::string name(p);
            b.weight(name + ".w", {kC, kC});
            b.node("MatMul", name + ".proj", {"s", name + ".w"}, {name + "0"});
        }
    } else {
        b.weight("in_proj.w", {kC, 3 * kC});
        b.weight("in_proj.b", {3 * kC});
        b.node("MatMul", "in_proj", {"s", "in_proj.w"}, {"qkv0"});
        b.node("Add", "in_proj.bias", {"in_proj.b", "qkv0"}, {"qkv"});
        slice(b, "q.slice", "qkv", "q0", 0, kC);
        slice(b, "k.slice", "qkv", "k0", kC, 2 * kC);
        slice(b, "v.slice", "qkv", "v0", 2 * kC, 3 * kC);
    }
    b.reshape("q.heads", "q0", "q1", o.headShape);
    b.transpose("q.t", "q1", "q2", {1, 0, 2});
    b.real("scale", 2.0f); // √d
    b.node("Div", "q.scale", {"q2", "scale"}, {"q"});
    b.reshape("k.heads", "k0", "k1", o.headShape);
    b.transpose("k.t", "k1", "kt", {1, 2, 0});
    std::string key = "kt";
    if (o.keyLength != kD) { // keys of the wrong length: Q·Kᵀ cannot multiply
        b.weight("k.bad", {kHeads, o.keyLength, kT});
        key = "k.bad";
    }
    b.reshape("v.heads", "v0", "v1", o.headShape);
    b.transpose("v.t", "v1", "v", {1, 0, 2});
    b.node("MatMul", "scores", {"q", key}, {"sc"});
    Builder::attr(b.node("Softmax", "softmax", {"sc"}, {"a"}), "axis", o.softmaxAxis);
    b.node("MatMul", "mix", {"a", "v"}, {"m"});
    b.transpose("m.t", "m", "m1", {1, 0, 2});
    b.reshape("m.merge", "m1", "m2", {kT, kC});
    b.weight("out_proj.w", {kC, kC});
    b.weight("out_proj.b", {kC});
    Builder::attr(b.node("Gemm", "out_proj", {"m2", "out_proj.w", "out_proj.b"}, {"o0"}), "transB",
                  int64_t{1});
    b.reshape("o.unflatten", "o0", "o1", {kT, 1, kC});
    b.transpose("batch_first", "o1", "o", {1, 0, 2});
    b.node("Add", "residual", {"o", "e"}, {"r"});
    b.scalarInt("first", 0);
    Builder::attr(b.node("Gather", "class_out", {"r", "first"}, {"cls"}), "axis", int64_t{1});
    b.weight("head.w", {10, kC});
    Builder::attr(b.node("Gemm", "head", {"cls", "head.w"}, {"y"}), "transB", int64_t{1});
    b.output("y");
    return b.bytes();
}

// Swin's window plumbing on a 4×4 map of 8 channels, windows of 2×2: partition
// ([1, 4, 4, C] → [1, 2, 2, 2, 2, C] → permute (0, 1, 3, 2, 4, 5) → [4, 4, C]), the reverse,
// then patch merging (four strided slices concatenated along the channels, a Linear 4C → 2C).
std::string windows() {
    Builder b({1, kC, 4, 4});
    b.conv("c", "x", "h", kC, kC, 1);
    b.transpose("to_last", "h", "l", {0, 2, 3, 1});
    b.reshape("split", "l", "s", {1, 2, 2, 2, 2, kC});
    b.transpose("gather_windows", "s", "sw", {0, 1, 3, 2, 4, 5});
    b.reshape("partition", "sw", "w", {4, 4, kC});
    b.reshape("unpartition", "w", "u", {1, 2, 2, 2, 2, kC});
    b.transpose("scatter_windows", "u", "uw", {0, 1, 3, 2, 4, 5});
    b.reshape("reverse", "uw", "r", {1, 4, 4, kC});
    std::vector<std::string> parts;
    for (int64_t dy : {0, 1})
        for (int64_t dx : {0, 1}) {
            const std::string name = "merge" + std::to_string(dy) + std::to_string(dx);
            b.ints(name + ".b", {dy, dx});
            b.ints(name + ".e", {4, 4});
            b.ints(name + ".a", {1, 2});
            b.ints(name + ".s", {2, 2});
            b.node("Slice", name, {"r", name + ".b", name + ".e", name + ".a", name + ".s"},
                   {name + ".y"});
            parts.push_back(name + ".y");
        }
    Builder::attr(b.node("Concat", "merge", parts, {"m"}), "axis", int64_t{-1});
    b.weight("reduction.w", {4 * kC, 2 * kC});
    b.node("MatMul", "reduction", {"m", "reduction.w"}, {"y"});
    b.output("y");
    return b.bytes();
}

} // namespace

class TestOnnxAttention : public QObject {
    Q_OBJECT

private slots:
    void lowersWithoutOpaqueOperators() {
        const ir::Graph g = io::parseOnnx(miniVit(), "test.onnx");
        const auto kinds = kindCounts(g);
        QCOMPARE(kinds.at("matmul"), 2);
        QCOMPARE(kinds.at("tokens"), 2); // class token + embedding, class token read back
        QCOMPARE(kinds.at("norm"), 2);   // LayerNorm, softmax
        QCOMPARE(kinds.at("conv"), 4);   // patches, in_proj, out_proj, head
        QVERIFY(!kinds.contains("opaque"));
        const ir::Node* scores = findOp(g, "scores");
        QVERIFY(scores && scores->kind == ir::NodeKind::Matmul);
        QCOMPARE(scores->matmul.heads, kHeads);
        QVERIFY(scores->matmul.transposeB);
        QCOMPARE(scores->matmul.alpha, 0.5); // the Div by √d, taken by the product
        QCOMPARE(scores->outputShape, (ir::TensorShape{kHeads * kT, kT, 1}));
        QCOMPARE(findOp(g, "softmax")->norm.groups, kHeads);
        const ir::Node* mix = findOp(g, "mix");
        QVERIFY(mix && !mix->matmul.transposeB && mix->matmul.heads == kHeads);
        QCOMPARE(mix->outputShape, (ir::TensorShape{kC, kT, 1}));
        const ir::Node* cat = findOp(g, "cat");
        QVERIFY(cat && cat->kind == ir::NodeKind::Tokens && cat->tokens.embed);
        QCOMPARE(cat->tokens.index.front(), int64_t{-1});
        QCOMPARE(cat->tokens.index.back(), int64_t{15});
        QCOMPARE(findOp(g, "class_out")->tokens.index, std::vector<int64_t>{0});
        optimizeAndVerify(g);
        QVERIFY(io::parseNativeJson(io::writeNativeJson(g), "vit.json") == g);
    }

    // The IR computes what the ONNX graph says, on the reference executor's random weights:
    // tokens = [class token; patches] + embedding, and each head's softmax(q·kᵀ/√d)·v.
    void computesTheAttentionTheGraphSays() {
        const ir::Graph g = io::parseOnnx(miniVit(), "test.onnx");
        ref::ReferenceExecutor r(5);
        r.run(g);
        const ir::Node& cat = *findOp(g, "cat");
        const std::vector<double> learned =
            ref::uniformValues(kC, ref::nameSeed("cat/tokens", 5), 1.0);
        const std::vector<double> table =
            ref::uniformValues(kC * kT, ref::nameSeed("cat/embedding", 5), 1.0);
        const ref::Tensor& patches = r.output(cat.inputs.front().front().node);
        const ref::Tensor& tokens = r.output("cat");
        double worst = 0;
        for (int64_t c = 0; c < kC; ++c)
            for (int64_t t = 0; t < kT; ++t) {
                const double want =
                    (t == 0 ? learned[static_cast<size_t>(c)] : patches.data[c * 16 + t - 1]) +
                    table[static_cast<size_t>(c * kT + t)];
                worst = std::max(worst, std::abs(tokens.at(c, t, 0) - want));
            }
        // q, k, v are channels [0, 8), [8, 16), [16, 24) of the projection; head g holds
        // channels 4g … 4g + 3 of each (Reshape [T, heads, d]).
        const ref::Tensor& qkv = r.output(findOp(g, "scores")->inputs[0][0].node);
        worst =
            std::max(worst, ios::test::attentionError({&qkv, 0, &qkv, kC, &qkv, 2 * kC,
                                                       &r.output("mix"), kHeads, kD, 1, kT, 0.5}));
        // The class token read back is position 0 of the residual sum.
        const ref::Tensor& cls = r.output("class_out");
        const ref::Tensor& sumOut = r.output(findOp(g, "class_out")->inputs[0][0].node);
        for (int64_t c = 0; c < kC; ++c)
            worst = std::max(worst, std::abs(cls.at(c, 0, 0) - sumOut.at(c, 0, 0)));
        QVERIFY2(worst < 1e-12, qPrintable(QString::number(worst)));
    }

    // Separate Q, K and V Linear layers read one input: 1×1 convs the IOS DP merges.
    void separateProjectionsMerge() {
        Options separate;
        separate.separateProjections = true;
        const ir::Graph g = io::parseOnnx(miniVit(separate), "test.onnx");
        QCOMPARE(kindCounts(g).at("conv"), 6);
        const cost::SimulatedGpuCostModel model(g, *cost::findBundledDevice("V100"), 1);
        schedulers::Options o;
        o.strategy = schedulers::Strategy::Merge;
        const ir::PreparedModel prepared(g);
        const schedulers::Result r = schedulers::optimize(prepared, o, model);
        schedule::verify(prepared.dags(), r.schedule);
        int merges = 0;
        for (const auto& block : r.schedule.blocks)
            for (const auto& stage : block.stages)
                merges += stage.kind == schedule::StageKind::Merge ? 1 : 0;
        QVERIFY(merges >= 1);
    }

    // The partition and its reverse are position copies (tokens nodes) whose composition is
    // the identity; patch merging gathers every other position four ways.
    void windowPartitionAndPatchMerging() {
        const ir::Graph g = io::parseOnnx(windows(), "test.onnx");
        const ir::Node* part = findOp(g, "partition");
        const ir::Node* back = findOp(g, "reverse");
        QVERIFY(part && back && part->kind == ir::NodeKind::Tokens &&
                back->kind == ir::NodeKind::Tokens);
        // Window (wy, wx), token (ty, tx) holds map position (2·wy + ty, 2·wx + tx).
        QCOMPARE(part->tokens.index,
                 (std::vector<int64_t>{0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}));
        for (size_t i = 0; i < 16; ++i)
            QCOMPARE(part->tokens.index[static_cast<size_t>(back->tokens.index[i])],
                     static_cast<int64_t>(i));
        QCOMPARE(findOp(g, "merge01")->tokens.index, (std::vector<int64_t>{1, 3, 9, 11}));
        const ir::Node* reduction = findOp(g, "reduction");
        QVERIFY(reduction && reduction->kind == ir::NodeKind::Conv);
        QCOMPARE(reduction->inputs.size(), size_t{4}); // the four gathers, concatenated
        QCOMPARE(reduction->outputShape, (ir::TensorShape{2 * kC, 2, 2}));
        ref::ReferenceExecutor r(3);
        r.run(g);
        QVERIFY(r.output("reverse").data == r.output("c").data); // the round trip is exact
        optimizeAndVerify(g);
    }

    void badAttentionNamesTheNodeAndDims() {
        Options wrongAxis;
        wrongAxis.softmaxAxis = 3;
        QString e = errorOf(miniVit(wrongAxis));
        QVERIFY2(e.contains("test.onnx") && e.contains("softmax") && e.contains("axis"),
                 qPrintable(e));
        Options heads;
        heads.headShape = {kT, 3, kD}; // 3 heads of 4 over 8 channels: the count changes
        e = errorOf(miniVit(heads));
        QVERIFY2(e.contains("q.heads") && e.contains("Reshape"), qPrintable(e));
        Options key;
        key.keyLength = kD + 1;
        e = errorOf(miniVit(key));
        QVERIFY2(e.contains("scores") && e.contains("MatMul"), qPrintable(e));
    }
};

QTEST_APPLESS_MAIN(TestOnnxAttention)
#include "tst_onnx_attention.moc"
