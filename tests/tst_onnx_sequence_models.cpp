// SPDX-License-Identifier: Apache-2.0
// The importer on transformer graphs beyond the vision models (issue 31): a decoder block on a
// token-sequence input [1, T, D] (a text model's embedded input) with q, k and v Split from one
// projection and a causal mask applied by Where (masked_fill), and attention written with
// Einsum over channel-major operands ([B, heads, d, positions], a conv network's attention)
// whose result is permuted by the equation; token ids looked up in an embedding table. The
// imported graphs are checked against attention
// computed by hand from the reference executor's own values.
#include "attention_check.h"
#include "io/native_json.h"
#include "io/onnx_import.h"
#include "ir/metrics.h"
#include "onnx_test_builder.h"
#include "onnx_test_support.h"
#include "ref/reference_executor.h"

#include <QtTest>
#include <cmath>

using namespace ios;
using ios::test::AttentionCheck;
using ios::test::attentionError;
using ios::test::Builder;
using ios::test::errorOf;
using ios::test::findOp;
using ios::test::kindCounts;
using ios::test::optimizeAndVerify;

namespace {

constexpr int64_t kT = 6, kC = 8, kHeads = 2, kD = 4;

// x [1, T, 16] → Linear (16 → C) → qkv Linear → Split → heads → q·kᵀ · ½, masked_fill(mask,
// −1e9) → softmax → · v → merge heads. `maskDims` may be set off to break the mask.
std::string causalBlock(std::vector<int64_t> maskDims = {1, 1, kT, kT}) {
    Builder b({1, kT, 16});
    b.weight("emb.w", {16, kC});
    b.node("MatMul", "emb", {"x", "emb.w"}, {"e"});
    b.weight("qkv.w", {kC, 3 * kC});
    b.node("MatMul", "qkv", {"e", "qkv.w"}, {"p"});
    b.ints("sizes", {kC, kC, kC});
    Builder::attr(b.node("Split", "split", {"p", "sizes"}, {"q0", "k0", "v0"}), "axis", int64_t{2});
    b.reshape("q.heads", "q0", "q1", {1, kT, kHeads, kD});
    b.transpose("q.t", "q1", "q", {0, 2, 1, 3});
    b.reshape("k.heads", "k0", "k1", {1, kT, kHeads, kD});
    b.transpose("k.t", "k1", "kt", {0, 2, 3, 1});
    b.reshape("v.heads", "v0", "v1", {1, kT, kHeads, kD});
    b.transpose("v.t", "v1", "v", {0, 2, 1, 3});
    b.node("MatMul", "scores", {"q", "kt"}, {"s0"});
    b.real("scale", 0.5f);
    b.node("Mul", "scale.mul", {"s0", "scale"}, {"s"});
    b.weight("mask", maskDims); // a constant (a buffer exported without its values)
    b.real("fill", -1e9f);
    b.node("Where", "masked", {"mask", "fill", "s"}, {"sm"});
    Builder::attr(b.node("Softmax", "softmax", {"sm"}, {"a"}), "axis", int64_t{-1});
    b.node("MatMul", "mix", {"a", "v"}, {"m"});
    b.transpose("m.t", "m", "m1", {0, 2, 1, 3});
    b.reshape("merge", "m1", "y", {1, kT, kC});
    b.output("y");
    return b.bytes();
}

// q, k, v: 1×1 convs of a [1, C, 2, 3] map viewed [1, heads, d, 6]; scores by
// `scoresEquation`, softmax over the keys, the mix by `mixEquation` into [1, heads, d, 6]
// (or [1, heads, 6, d] and a Transpose back when `mixPositionsMajor`), reshaped to the map.
std::string einsumBlock(const std::string& scoresEquation, const std::string& mixEquation,
                        bool mixPositionsMajor = false) {
    Builder b({1, kC, 2, 3});
    for (const char* p : {"q", "k", "v"}) {
        const std::string name(p);
        b.conv(name, "x", name + ".c", kC, kC, 1);
        b.reshape(name + ".heads", name + ".c", name + "0", {1, kHeads, kD, kT});
    }
    b.transpose("q.t", "q0", "qt", {0, 1, 3, 2}); // [1, heads, positions, d]
    const bool qPositionsMajor = scoresEquation.rfind("bhid", 0) == 0;
    Builder::attr(b.node("Einsum", "scores", {qPositionsMajor ? "qt" : "q0", "k0"}, {"s"}),
                  "equation", scoresEquation);
    Builder::attr(b.node("Softmax", "softmax", {"s"}, {"a"}), "axis", int64_t{-1});
    Builder::attr(b.node("Einsum", "mix", {"a", "v0"}, {"m"}), "equation", mixEquation);
    std::string m = "m";
    if (mixPositionsMajor) {
        b.transpose("m.t", "m", "mt", {0, 1, 3, 2});
        m = "mt";
    }
    b.reshape("merge", m, "y", {1, kC, 2, 3});
    b.output("y");
    return b.bytes();
}

// Token ids [1, T] (int64) looked up in a [100, C] table, a positional embedding added, then
// the causal block's projection; `idsType` 1 (float) makes the ids a second float input.
// With `tokenTypes`, a second integer input looked up in a [2, C] table is added first (BERT's
// token type ids).
std::string embeddedIds(int32_t idsType = 7, bool tokenTypes = false) {
    Builder b({1, kT});
    b.g->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(idsType);
    b.weight("table", {100, kC});
    Builder::attr(b.node("Gather", "lookup", {"table", "x"}, {"e0"}), "axis", int64_t{0});
    std::string e0 = "e0";
    if (tokenTypes) {
        b.input("types", {1, kT});
        b.g->mutable_input(b.g->input_size() - 1)
            ->mutable_type()
            ->mutable_tensor_type()
            ->set_elem_type(7);
        b.weight("type_table", {2, kC});
        Builder::attr(b.node("Gather", "type_lookup", {"type_table", "types"}, {"t0"}), "axis",
                      int64_t{0});
        b.node("Add", "types.add", {"e0", "t0"}, {"e1"});
        e0 = "e1";
    }
    b.weight("pos", {1, kT, kC});
    b.node("Add", "pos.add", {e0, "pos"}, {"e"});
    b.weight("proj.w", {kC, 2 * kC});
    b.node("MatMul", "proj", {"e", "proj.w"}, {"y"});
    b.output("y");
    return b.bytes();
}

} // namespace

class TestOnnxSequenceModels : public QObject {
    Q_OBJECT

private slots:
    // [1, T, D] is D channels at T positions; Split cuts the projection's channels; the mask
    // is a table added to the scores (as Swin's is), shared by the heads; the scale is the
    // product's alpha. Nothing is opaque and the IR computes softmax(½·q·kᵀ + mask)·v.
    void tokenSequenceWithCausalMask() {
        const ir::Graph g = io::parseOnnx(causalBlock(), "causal.onnx");
        QVERIFY(!kindCounts(g).contains("opaque"));
        QCOMPARE(g.input.outputShape, (ir::TensorShape{16, kT, 1}));
        const ir::Node* scores = findOp(g, "scores");
        QVERIFY(scores && scores->kind == ir::NodeKind::Matmul);
        QCOMPARE(scores->matmul.heads, kHeads);
        QVERIFY(scores->matmul.transposeB);
        QCOMPARE(scores->matmul.alpha, 0.5);
        const ir::Node* masked = findOp(g, "masked");
        QVERIFY(masked && masked->kind == ir::NodeKind::Tokens && masked->tokens.embed);
        QCOMPARE(masked->tokens.embedChannels, kT); // keys; repeated for every head
        QCOMPARE(masked->tokens.embedPositions, int64_t{0});
        const ir::NodeIndex index(g);
        QCOMPARE(ir::computeMetrics(*masked, index).parameters, kT * kT);

        ref::ReferenceExecutor r(5);
        r.run(g);
        const std::vector<double> mask =
            ref::uniformValues(kT * kT, ref::nameSeed("masked/embedding", 5), 1.0);
        const ref::Tensor& qkv = r.output(findOp(g, "qkv")->name);
        const AttentionCheck c{&qkv,   0,  &qkv, kC, &qkv, 2 * kC, &r.output("mix"),
                               kHeads, kD, 1,    kT, 0.5};
        const double worst = attentionError(c, [&](int64_t, int64_t, int64_t i, int64_t j) {
            return mask[static_cast<size_t>(j * kT + i)];
        });
        QVERIFY2(worst < 1e-12, qPrintable(QString::number(worst)));
        optimizeAndVerify(g);
        QVERIFY(io::parseNativeJson(io::writeNativeJson(g), "causal.json") == g);
    }

    // The same product whatever the operands' axis order: q and k channel-major
    // ("bhdi,bhdj->bhij") or q positions-major, and the mix written into [heads, d, positions]
    // directly or into [heads, positions, d] and transposed back.
    void einsumInAnyAxisOrder_data() {
        QTest::addColumn<QString>("scores");
        QTest::addColumn<QString>("mix");
        QTest::addColumn<bool>("positionsMajor");
        QTest::newRow("channel-major") << "bhdi,bhdj->bhij"
                                       << "bhij,bhdj->bhdi" << false;
        QTest::newRow("q positions-major") << "bhid,bhdj->bhij"
                                           << "bhij,bhdj->bhid" << true;
        QTest::newRow("other letters") << "nhcq,nhck->nhqk"
                                       << "nhqk,nhck->nhcq" << false;
    }
    void einsumInAnyAxisOrder() {
        QFETCH(QString, scores);
        QFETCH(QString, mix);
        QFETCH(bool, positionsMajor);
        const ir::Graph g = io::parseOnnx(
            einsumBlock(scores.toStdString(), mix.toStdString(), positionsMajor), "conv_attn.onnx");
        QVERIFY(!kindCounts(g).contains("opaque"));
        QVERIFY(findOp(g, "scores")->matmul.transposeB);
        QVERIFY(!findOp(g, "mix")->matmul.transposeB);
        QCOMPARE(findOp(g, "mix")->outputShape, (ir::TensorShape{kC, 2, 3}));
        ref::ReferenceExecutor r(3);
        r.run(g);
        const double worst = attentionError({&r.output("q"), 0, &r.output("k"), 0, &r.output("v"),
                                             0, &r.output("mix"), kHeads, kD, 1, kT, 1.0});
        QVERIFY2(worst < 1e-12, qPrintable(QString::number(worst)));
        optimizeAndVerify(g);
    }

    // A text model's token ids: the embedding lookup's output is the IR's input (C channels at
    // T positions), the table a parameter the load names; the positional embedding and the
    // projection follow as in a vision transformer.
    void tokenIdsStartAtTheirEmbedding() {
        std::vector<std::string> warnings;
        io::ModelLoadOptions options;
        options.warnings = &warnings;
        const ir::Graph g = io::parseOnnx(embeddedIds(), "ids.onnx", options);
        QCOMPARE(g.input.outputShape, (ir::TensorShape{kC, kT, 1}));
        QCOMPARE(g.input.hintName, std::string("embedding"));
        QVERIFY(findOp(g, "lookup") == nullptr);
        const ir::Node* pos = findOp(g, "pos.add");
        QVERIFY(pos && pos->kind == ir::NodeKind::Tokens && pos->tokens.embed);
        QCOMPARE(findOp(g, "proj")->outputShape, (ir::TensorShape{2 * kC, kT, 1}));
        QCOMPARE(warnings.size(), size_t{1});
        QVERIFY2(QString::fromStdString(warnings[0]).contains("'table'"), warnings[0].c_str());
        optimizeAndVerify(g);
        // Token type ids beside the word ids: the word ids (the larger table) are the data,
        // the type embedding a table added along the positions.
        const ir::Graph typed = io::parseOnnx(embeddedIds(7, true), "typed.onnx");
        QCOMPARE(typed.input.name, std::string("x"));
        const ir::Node* types = findOp(typed, "types.add");
        QVERIFY(types && types->kind == ir::NodeKind::Tokens && types->tokens.embed);
        // Float "ids" are not token ids: two float inputs feeding as much stay an error.
        const QString e = errorOf(embeddedIds(1));
        QVERIFY2(e.contains("several data inputs"), qPrintable(e));
    }

    void unsupportedFormsAndBadShapesAreNamed() {
        // A letter summed out of one operand (d and e): not one batched product.
        QString e = errorOf(einsumBlock("bhdi,bhej->bhij", "bhij,bhdj->bhdi"));
        QVERIFY2(e.contains("scores") && e.contains("Einsum"), qPrintable(e));
        // A mask that does not broadcast against the scores names the node.
        e = errorOf(causalBlock({1, 1, kT, kT + 1}));
        QVERIFY2(e.contains("masked") && e.contains("broadcast"), qPrintable(e));
    }
};

QTEST_APPLESS_MAIN(TestOnnxSequenceModels)
#include "tst_onnx_sequence_models.moc"
