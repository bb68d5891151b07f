// SPDX-License-Identifier: Apache-2.0
// The kernel model's launch arithmetic on hand-computed cases: occupancy limits, waves and
// tail waves, the kernels each operator kind launches, batch scaling.
#include "cost/device_profile.h"
#include "cost/kernel_model.h"
#include "cost/stage_memo.h"
#include "ir_builders.h"
#include "util/error.h"

#include <QTest>
#include <cstdio>
#include <map>

using namespace ios;
using namespace ios::cost;
using namespace ios::testing;

namespace {

const DeviceProfile& v100() {
    return *findBundledDevice("V100");
}

KernelDesc kernel(int64_t ctas, int threads, int regs, int64_t smem) {
    KernelDesc k;
    k.name = "test";
    k.ctas = ctas;
    k.threadsPerCta = threads;
    k.registersPerThread = regs;
    k.sharedMemPerCta = smem;
    k.flops = 1e6 * static_cast<double>(ctas);
    k.efficiency = 0.5;
    return k;
}

// Shapes of the nodes of a test: producer name → output shape.
struct Shapes {
    std::map<std::string, ir::TensorShape> shapes;
    ir::ShapeLookup lookup() const {
        return [this](const std::string& n) -> const ir::TensorShape* {
            auto it = shapes.find(n);
            return it == shapes.end() ? nullptr : &it->second;
        };
    }
};

std::vector<std::string> names(const std::vector<KernelDesc>& ks) {
    std::vector<std::string> out;
    for (const KernelDesc& k : ks)
        out.push_back(k.name);
    return out;
}

} // namespace

class TestKernelModel : public QObject {
    Q_OBJECT

private slots:
    void occupancyLimits_data() {
        QTest::addColumn<int>("ctas");
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("regs");
        QTest::addColumn<int>("smemKb");
        QTest::addColumn<int>("ctasPerSm");
        QTest::addColumn<QString>("limiter");
        QTest::addColumn<int>("waves");
        QTest::addColumn<int>("tail");
        // V100: 80 SMs, 32 CTAs, 2048 threads, 65536 registers, 96 KB shared memory per SM.
        // 256 threads × 128 regs = 32768 regs per CTA → 2 per SM; 160 slots; 400 = 2 waves + 80.
        QTest::newRow("registers") << 400 << 256 << 128 << 32 << 2 << "registers" << 3 << 80;
        // 64 threads × 32 regs: 2048 regs per CTA → 32 by registers, 32 by threads, 32 CTAs.
        QTest::newRow("ctas") << 2560 << 64 << 32 << 0 << 32 << "ctas" << 1 << 2560;
        // 1024 threads → 2 per SM by threads (regs 32 → 32768 per CTA → 2 as well; threads
        // is checked first).
        QTest::newRow("threads") << 161 << 1024 << 32 << 0 << 2 << "threads" << 2 << 1;
        // 40 KB of shared memory → 2 per SM; 12 CTAs fit in one partial wave.
        QTest::newRow("shared memory") << 12 << 128 << 32 << 40 << 2 << "shared memory" << 1 << 12;
        // 255 registers round up to 256 per thread (8192 per warp); 8 warps → 65536 → 1 per SM.
        QTest::newRow("register rounding") << 81 << 256 << 255 << 0 << 1 << "registers" << 2 << 1;
    }
    void occupancyLimits() {
        QFETCH(int, ctas);
        QFETCH(int, threads);
        QFETCH(int, regs);
        QFETCH(int, smemKb);
        QFETCH(int, ctasPerSm);
        QFETCH(QString, limiter);
        QFETCH(int, waves);
        QFETCH(int, tail);
        const Occupancy o =
            occupancy(kernel(ctas, threads, regs, static_cast<int64_t>(smemKb) * 1024), v100());
        QCOMPARE(o.ctasPerSm, ctasPerSm);
        QCOMPARE(QString::fromStdString(o.limiter), limiter);
        QCOMPARE(o.residentCtas, static_cast<int64_t>(ctasPerSm) * 80);
        QCOMPARE(o.waves, static_cast<int64_t>(waves));
        QCOMPARE(o.tailCtas, static_cast<int64_t>(tail));
    }

    // Solo time = full waves at the full-wave rate + the tail wave at its own (partial) rate.
    void soloTimeIsWavesPlusTail() {
        const KernelDesc k = kernel(400, 256, 128, 0); // 2 per SM: 160 slots, 2 full waves + 80
        const double full = 1.0 / ctaRates({{&k, 160}}, v100()).front();
        const double tail = 1.0 / ctaRates({{&k, 80}}, v100()).front();
        QCOMPARE(soloKernelUs(k, v100()), 2 * full + tail);
        // A half-empty tail wave has each CTA alone on its SM: it runs at least as fast.
        QVERIFY(tail <= full);
        // One more CTA adds a whole wave.
        const KernelDesc k2 = kernel(481, 256, 128, 0);
        const double tail1 = 1.0 / ctaRates({{&k2, 1}}, v100()).front();
        QCOMPARE(soloKernelUs(k2, v100()),
                 3 * (1.0 / ctaRates({{&k2, 160}}, v100()).front()) + tail1);
    }

    // More resident warps than an SM can issue for slow every CTA down (IOS §6.3).
    void sharingSlowsCtas() {
        const KernelDesc k = kernel(1280, 256, 32, 0); // 8 per SM by threads
        const double alone = ctaRates({{&k, 80}}, v100()).front();
        const double crowded = ctaRates({{&k, 640}}, v100()).front();
        QVERIFY(crowded < alone);
        QVERIFY(crowded * 640 >= alone * 80); // but the device as a whole does more
    }

    void elementwiseKernels() {
        Shapes s;
        s.shapes["x"] = {64, 56, 56};
        Node relu = node(NodeKind::Relu, "r", concat({val("x", 0, 64)}));
        relu.outputShape = {64, 56, 56};
        const auto ks = operatorKernels(relu, s.lookup(), 1, v100());
        QCOMPARE(ks.size(), size_t{1});
        QCOMPARE(ks[0].name, std::string("relu"));
        // 200704 elements, 256 threads × 4 elements per CTA → 196 CTAs, 8 per SM, one wave.
        QCOMPARE(ks[0].ctas, static_cast<int64_t>(196));
        QCOMPARE(occupancy(ks[0], v100()).waves, static_cast<int64_t>(1));
        QCOMPARE(ks[0].dramBytes, 2.0 * 4 * 200704);
        // Batch 4: four times the elements and CTAs.
        const auto k4 = operatorKernels(relu, s.lookup(), 4, v100());
        QCOMPARE(k4[0].ctas, static_cast<int64_t>(784));
        QCOMPARE(k4[0].dramBytes, 4 * ks[0].dramBytes);
    }

    void inputAssembly() {
        Shapes s;
        s.shapes["a"] = {8, 4, 4};
        s.shapes["b"] = {8, 4, 4};
        // concat(a, b): one copy kernel per term; a sum: one kernel.
        Node cat = node(NodeKind::Identity, "cat", concat({val("a", 0, 8), val("b", 0, 8)}));
        cat.outputShape = {16, 4, 4};
        QCOMPARE(names(operatorKernels(cat, s.lookup(), 1, v100())),
                 (std::vector<std::string>{"concat_copy", "concat_copy"}));
        Node add = node(NodeKind::Identity, "add", sum({val("a", 0, 8), val("b", 0, 8)}));
        add.outputShape = {8, 4, 4};
        QCOMPARE(names(operatorKernels(add, s.lookup(), 1, v100())),
                 (std::vector<std::string>{"sum_2"}));
        // An alias (one term, one whole value) launches nothing.
        Node alias = node(NodeKind::Identity, "alias", concat({val("a", 0, 8)}));
        alias.outputShape = {8, 4, 4};
        QVERIFY(operatorKernels(alias, s.lookup(), 1, v100()).empty());
        // A channel slice is a pointer offset at batch 1 and a strided copy at batch 2.
        Node slice = node(NodeKind::Relu, "sl", concat({val("a", 0, 4)}));
        slice.outputShape = {4, 4, 4};
        QCOMPARE(names(operatorKernels(slice, s.lookup(), 1, v100())),
                 (std::vector<std::string>{"relu"}));
        QCOMPARE(names(operatorKernels(slice, s.lookup(), 2, v100())),
                 (std::vector<std::string>{"slice_copy", "relu"}));
    }

    // An in-place term (rule R5) launches no copy: exactly the flagged terms lose theirs,
    // and the others' copy kernels are the unflagged node's, field for field.
    void inPlaceTermsLaunchNoCopy() {
        Shapes s;
        s.shapes["a"] = {8, 4, 4};
        s.shapes["b"] = {4, 4, 4};
        s.shapes["c"] = {6, 4, 4};
        Node cat = node(NodeKind::Identity, "cat",
                        concat({val("a", 0, 8), val("b", 0, 4), val("c", 0, 6)}));
        cat.outputShape = {18, 4, 4};
        const std::vector<KernelDesc> all = operatorKernels(cat, s.lookup(), 1, v100());
        QCOMPARE(all.size(), size_t{3});
        for (int mask = 0; mask < 8; ++mask) {
            Node flagged = cat;
            std::vector<size_t> kept;
            for (size_t t = 0; t < 3; ++t) {
                flagged.inputs[t].front().inPlace = (mask >> t) & 1;
                if (!flagged.inputs[t].front().inPlace)
                    kept.push_back(t);
            }
            for (int batch : {1, 2}) {
                const std::vector<KernelDesc> ks =
                    operatorKernels(flagged, s.lookup(), batch, v100());
                const std::vector<KernelDesc> ref = operatorKernels(cat, s.lookup(), batch, v100());
                QCOMPARE(ks.size(), kept.size());
                for (size_t i = 0; i < kept.size(); ++i) {
                    QCOMPARE(ks[i].name, ref[kept[i]].name);
                    QCOMPARE(ks[i].ctas, ref[kept[i]].ctas);
                    QCOMPARE(ks[i].dramBytes, ref[kept[i]].dramBytes);
                }
            }
        }
        // Inside a sequential: its first node's terms.
        Node relu = node(NodeKind::Relu, "r", concat({val("a", 0, 8), val("b", 0, 4)}));
        relu.outputShape = {12, 4, 4};
        relu.inputs[1].front().inPlace = true;
        Node seq = sequential("s", {relu});
        seq.outputShape = relu.outputShape;
        QCOMPARE(names(operatorKernels(seq, s.lookup(), 1, v100())),
                 (std::vector<std::string>{"concat_copy", "relu"}));
    }

    // The operator signature the stage memo classes and the rewrite cost memo key on tells a
    // flagged term from a copied one, and ignores names: a renamed node with inputs of the same
    // shapes has the same signature.
    void signatureIncludesInPlace() {
        Shapes s;
        s.shapes["a"] = {8, 4, 4};
        s.shapes["b"] = {8, 4, 4};
        s.shapes["c"] = {8, 4, 4};
        Node cat = node(NodeKind::Identity, "cat", concat({val("a", 0, 8), val("b", 0, 8)}));
        cat.outputShape = {16, 4, 4};
        std::string plain;
        appendOperatorSignature(cat, s.lookup(), plain);
        Node renamed = node(NodeKind::Identity, "other", concat({val("c", 0, 8), val("a", 0, 8)}));
        renamed.outputShape = {16, 4, 4};
        std::string same;
        appendOperatorSignature(renamed, s.lookup(), same);
        QCOMPARE(same, plain);
        cat.inputs[1].front().inPlace = true;
        std::string second;
        appendOperatorSignature(cat, s.lookup(), second);
        cat.inputs[0].front().inPlace = true;
        cat.inputs[1].front().inPlace = false;
        std::string first;
        appendOperatorSignature(cat, s.lookup(), first);
        QVERIFY(second != plain);
        QVERIFY(first != plain);
        QVERIFY(first != second);
    }

    // Terms and values are delimited: a sum of two values, two copied terms, an unknown
    // input shape and a nested node each give a signature of their own.
    void signatureSeparatesStructure() {
        Shapes s;
        s.shapes["a"] = {8, 4, 4};
        s.shapes["b"] = {8, 4, 4};
        auto signature = [&s](const Node& n) {
            std::string out;
            appendOperatorSignature(n, s.lookup(), out);
            return out;
        };
        Node cat = node(NodeKind::Identity, "cat", concat({val("a", 0, 8), val("b", 0, 8)}));
        Node add = node(NodeKind::Identity, "cat", sum({val("a", 0, 8), val("b", 0, 8)}));
        Node unknown = node(NodeKind::Identity, "cat", concat({val("a", 0, 8), val("z", 0, 8)}));
        Node nested = cat;
        nested.nodes.push_back(node(NodeKind::Relu, "r", concat({val("a", 0, 8)})));
        const std::vector<std::string> all = {signature(cat), signature(add), signature(unknown),
                                              signature(nested)};
        for (size_t i = 0; i < all.size(); ++i)
            for (size_t j = i + 1; j < all.size(); ++j)
                QVERIFY(all[i] != all[j]);
        QCOMPARE(signature(cat), signature(Node(cat)));
    }

    void convKernels() {
        Shapes s;
        s.shapes["x"] = {384, 15, 15};
        // Figure 2's conv a: 1×1, 384 → 192 on 15×15, fused ReLU → one implicit-GEMM kernel
        // whose grid is ceil(192 / tileM) × ceil(225 / tileN).
        Node a = conv("a", concat({val("x", 0, 384)}), 192, {1, 1});
        a.outputShape = {192, 15, 15};
        const auto ks = operatorKernels(a, s.lookup(), 1, v100());
        QCOMPARE(ks.size(), size_t{1});
        int tm = 0, tn = 0, split = 1;
        QVERIFY(std::sscanf(ks[0].name.c_str(), "conv_igemm_%dx%d_splitk%d", &tm, &tn, &split) >=
                2);
        const int64_t grid = ((192 + tm - 1) / tm) * ((225 + tn - 1) / tn);
        QCOMPARE(ks[0].ctas, grid * split);
        // Executed flops: whole tiles of 2 × tileM × tileN × (K / split), K = 384.
        QCOMPARE(ks[0].flops,
                 2.0 * static_cast<double>(ks[0].ctas) * tm * tn * ((384 + split - 1) / split));
        // Without an activation, cuDNN adds the bias in a second kernel.
        Node b = conv("b", concat({val("x", 0, 384)}), 192, {1, 1}, {1, 1}, {0, 0}, 1,
                      ir::ActType::Identity);
        b.outputShape = {192, 15, 15};
        QCOMPARE(operatorKernels(b, s.lookup(), 1, v100()).back().name, std::string("bias_add"));
        // Depthwise 3×3: a direct kernel, one thread per output element, 256 per CTA.
        Node dw = conv("dw", concat({val("x", 0, 384)}), 384, {3, 3}, {1, 1}, {1, 1}, 384);
        dw.outputShape = {384, 15, 15};
        const auto dk = operatorKernels(dw, s.lookup(), 1, v100());
        QCOMPARE(dk[0].name, std::string("conv_depthwise_direct"));
        QCOMPARE(dk[0].ctas, static_cast<int64_t>((384 * 225 + 255) / 256));
        QCOMPARE(dk[0].flops, 2.0 * 9 * 384 * 225);
    }

    // cuDNN's fp32 depthwise kernel streams at about a quarter of the DRAM peak
    // (pytorch/pytorch#18631: 2 × 32 × 512 × 512 in and out, 3×3, 1.02 ms on a Titan Xp of
    // 548 GB/s, 24 %); the model gives that fraction on any device, here the V100's 900 GB/s.
    void depthwiseStreamsAtAQuarterOfThePeak() {
        Shapes s;
        s.shapes["x"] = {32, 512, 512};
        Node dw = conv("dw", concat({val("x", 0, 32)}), 32, {3, 3}, {1, 1}, {1, 1}, 32);
        dw.outputShape = {32, 512, 512};
        const auto dk = operatorKernels(dw, s.lookup(), 2, v100());
        QCOMPARE(dk.size(), size_t{1});
        const double compulsory = 2.0 * 2 * 32 * 512 * 512 * 4 + 32 * 9 * 4;
        const double fraction =
            compulsory / (soloKernelUs(dk[0], v100()) * 1e-6) / (v100().dramBandwidthGBs * 1e9);
        QVERIFY2(fraction > 0.22 && fraction < 0.245, qPrintable(QString::number(fraction)));
    }

    void batchScalesConvWork() {
        Shapes s;
        s.shapes["x"] = {256, 35, 35};
        Node c = conv("c", concat({val("x", 0, 256)}), 256, {3, 3}, {1, 1}, {1, 1});
        c.outputShape = {256, 35, 35};
        const auto k1 = operatorKernels(c, s.lookup(), 1, v100());
        const auto k32 = operatorKernels(c, s.lookup(), 32, v100());
        const double t1 = soloKernelUs(k1[0], v100());
        const double t32 = soloKernelUs(k32[0], v100());
        // 32× the work takes longer, but far less than 32× (batch 1 under-fills the GPU).
        QVERIFY(t32 > 4 * t1);
        QVERIFY(t32 < 32 * t1);
        // Activations scale with the batch; the 2.4 MB of weights (and the split-K partial
        // sums a batch-1 algorithm may add) do not.
        QVERIFY(k32[0].dramBytes > 4 * k1[0].dramBytes);
        QVERIFY(k32[0].dramBytes < 32 * k1[0].dramBytes);
    }

    void sequentialRunsItsNodesInOrder() {
        Shapes s;
        s.shapes["x"] = {64, 28, 28};
        s.shapes["s.r"] = {64, 28, 28};
        s.shapes["s.dw"] = {64, 28, 28};
        Node r = node(NodeKind::Relu, "s.r", concat({val("x", 0, 64)}));
        r.outputShape = {64, 28, 28};
        Node dw = conv("s.dw", concat({val("s.r", 0, 64)}), 64, {3, 3}, {1, 1}, {1, 1}, 64,
                       ir::ActType::Identity);
        dw.outputShape = {64, 28, 28};
        Node pw = conv("s.pw", concat({val("s.dw", 0, 64)}), 128, {1, 1}, {1, 1}, {0, 0}, 1,
                       ir::ActType::Identity);
        pw.outputShape = {128, 28, 28};
        Node seq = sequential("s", {r, dw, pw});
        seq.outputShape = {128, 28, 28};
        const auto ks = names(operatorKernels(seq, s.lookup(), 1, v100()));
        QCOMPARE(ks.size(), size_t{5});
        QCOMPARE(ks[0], std::string("relu"));
        QCOMPARE(ks[1], std::string("conv_depthwise_direct"));
        QCOMPARE(ks[2], std::string("bias_add"));
        QCOMPARE(ks[4], std::string("bias_add"));
    }

    void unknownInputIsAUserError() {
        Shapes s;
        Node r = node(NodeKind::Relu, "r", concat({val("missing", 0, 4)}));
        r.outputShape = {4, 2, 2};
        QVERIFY_THROWS_EXCEPTION(ios::UserError, operatorKernels(r, s.lookup(), 1, v100()));
    }
};

QTEST_GUILESS_MAIN(TestKernelModel)
#include "tst_kernel_model.moc"
