// SPDX-License-Identifier: Apache-2.0
#include "cost/kernel_model.h"

#include "util/error.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ios::cost {

namespace {

constexpr double kBytes = 4; // fp32

int64_t ceilDiv(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

// One tile shape of a cuDNN-like implicit-GEMM convolution: the CTA computes tileM output
// channels × tileN output pixels. Bigger tiles reuse more data per loaded byte and reach a
// higher fraction of peak, but give fewer CTAs (IOS §2: small convolutions cannot fill the
// GPU). The figures follow the shapes of cuDNN/CUTLASS SGEMM kernels.
struct TileConfig {
    int tileM, tileN, threads, registers, sharedKb;
    double efficiency;
};
constexpr TileConfig kGemmTiles[] = {
    {128, 128, 256, 128, 32, 0.80}, {128, 64, 128, 128, 24, 0.74}, {64, 64, 128, 64, 16, 0.64},
    {64, 32, 64, 64, 12, 0.52},     {32, 32, 64, 48, 8, 0.40},
};

// Winograd F(2x2, 3x3), fused: 16 GEMMs over 4×4 transformed tiles; 2.25× fewer
// multiplications, plus the transforms (counted as 25 % extra work).
constexpr TileConfig kWinogradTile{64, 32, 256, 128, 48, 0.70};
constexpr double kWinogradTransformOverhead = 1.25;

// TF32 tensor-core implicit GEMM (cuDNN's default math on Ampere and later): CUTLASS-shaped
// tiles of 4-8 warps. Efficiencies are fractions of the TF32 peak; they are lower than the
// FFMA tiles' because at these sizes the operands' loads through shared memory, not the MMA
// units, bound the inner loop.
constexpr TileConfig kTf32Tiles[] = {
    {128, 128, 256, 128, 64, 0.45},
    {128, 64, 128, 128, 48, 0.40},
    {64, 64, 128, 128, 32, 0.34},
    {64, 32, 128, 96, 24, 0.26},
};

constexpr int kMaxSplitK = 4;
constexpr int64_t kMinSplitKDepth = 128; // reduction depth per slice

// Element-wise kernels: 256 threads, 4 elements per thread (vectorised, grid-stride).
constexpr int kElementThreads = 256;
constexpr int kElementsPerThread = 4;
constexpr double kElementEfficiency = 0.5;

// cuDNN's fp32 depthwise (grouped, one input channel per group) convolution streams at about a
// quarter of the DRAM peak, where a copy reaches DeviceProfile::sm's bandwidthEfficiency:
// 2 × 32 × 512 × 512 fp32 in and out, 3×3 (134 MB), in 1.02 ms on a
// Titan Xp (548 GB/s), cuDNN 7.4 (pytorch/pytorch#18631; unchanged with cuDNN 7.6.0,
// pytorch/pytorch#15513, where NVIDIA says cuDNN's depthwise kernels are fast only for
// fp16 on Volta and Turing). IOS §6.3 names the same cause for TVM beating IOS on NasNet
// and RandWire (cuDNN 7.6.5). docs/cost-model.md "Depthwise convolutions".
constexpr double kDepthwiseDramFraction = 134.2e6 / 1.02e-3 / 547.7e9; // 0.240

KernelDesc elementwise(std::string name, double elements, double bytes, double flopsPerElement) {
    KernelDesc k;
    k.name = std::move(name);
    k.threadsPerCta = kElementThreads;
    k.registersPerThread = 32;
    k.ctas = std::max<int64_t>(
        1, ceilDiv(static_cast<int64_t>(elements), kElementThreads * kElementsPerThread));
    k.flops = elements * flopsPerElement;
    k.efficiency = kElementEfficiency;
    k.dramBytes = bytes;
    return k;
}

struct ConvGeometry {
    int64_t batch, cin, ih, iw, cout, oh, ow, kh, kw, sh, sw, groups;
    double inputBytes() const { return kBytes * batch * cin * ih * iw; }
    double weightBytes() const { return kBytes * (cout * (cin / groups) * kh * kw + cout); }
    double outputBytes() const { return kBytes * batch * cout * oh * ow; }
};

KernelDesc gemmConv(const ConvGeometry& g, const TileConfig& t, int64_t m, int64_t n, int64_t k,
                    int64_t gemms, double workScale, std::string name) {
    KernelDesc d;
    d.name = std::move(name);
    const int64_t gridM = ceilDiv(m, t.tileM);
    const int64_t gridN = ceilDiv(n, t.tileN);
    d.ctas = g.groups * gridM * gridN;
    d.threadsPerCta = t.threads;
    d.registersPerThread = t.registers;
    d.sharedMemPerCta = int64_t{t.sharedKb} * 1024;
    d.flops = 2.0 * static_cast<double>(d.ctas) * t.tileM * t.tileN * static_cast<double>(k) *
              static_cast<double>(gemms) * workScale;
    d.efficiency = t.efficiency;
    d.dramBytes = g.inputBytes() + g.weightBytes() + g.outputBytes();
    // Every column of CTAs re-reads the weights, every row the input (through L2).
    d.reuseBytes = static_cast<double>(gridN - 1) * g.weightBytes() +
                   static_cast<double>(gridM - 1) * g.inputBytes();
    d.workingSetBytes = g.inputBytes() + g.weightBytes();
    return d;
}

// Depthwise: a direct kernel, one thread per output element, whose DRAM traffic is
// `trafficScale` times the compulsory bytes.
KernelDesc depthwiseKernel(const ConvGeometry& g, double trafficScale) {
    const double out = static_cast<double>(g.batch * g.cout * g.oh * g.ow);
    KernelDesc d = elementwise("conv_depthwise_direct", out, 0, 2.0 * g.kh * g.kw);
    d.ctas = std::max<int64_t>(1, ceilDiv(static_cast<int64_t>(out), kElementThreads));
    d.efficiency = 0.45;
    d.dramBytes = trafficScale * (g.inputBytes() + g.weightBytes() + g.outputBytes());
    d.workingSetBytes = g.inputBytes();
    return d;
}

// The traffic scale at which the measured kernel of kDepthwiseDramFraction runs on `device`
// as long as it did: its compulsory bytes at that fraction of the peak. The kernel is bound by
// its memory there, whose time grows linearly with the bytes.
double depthwiseTrafficScale(const DeviceProfile& device) {
    const ConvGeometry measured{2, 32, 512, 512, 32, 512, 512, 3, 3, 1, 1, 32};
    const KernelDesc plain = depthwiseKernel(measured, 1.0);
    const double t1 = soloKernelUs(plain, device);
    const double t2 = soloKernelUs(depthwiseKernel(measured, 2.0), device);
    const double target =
        plain.dramBytes / (kDepthwiseDramFraction * device.dramBytesPerSecond()) * 1e6;
    const double scale = 1.0 + (target - t1) / (t2 - t1);
    return std::isfinite(scale) && scale > 1.0 ? scale : 1.0;
}

// The fastest algorithm on an idle GPU, as cudnnFindConvolutionForwardAlgorithm would pick
// (the IOS runtime, §5, asks cuDNN for the fastest one per convolution).
KernelDesc convKernel(const ConvGeometry& g, const DeviceProfile& device) {
    std::vector<KernelDesc> candidates;
    const int64_t cinPerGroup = g.cin / g.groups;
    const int64_t coutPerGroup = g.cout / g.groups;
    if (cinPerGroup == 1 && g.groups > 1)
        return depthwiseKernel(g, depthwiseTrafficScale(device));
    const int64_t n = g.batch * g.oh * g.ow;
    const int64_t k = cinPerGroup * g.kh * g.kw;
    const auto addGemm = [&](const TileConfig& t, const std::string& name, double peakScale) {
        KernelDesc whole = gemmConv(g, t, coutPerGroup, n, k, 1, 1.0, name);
        whole.peakScale = peakScale;
        candidates.push_back(std::move(whole));
        // Split-K: slices of the reduction run in separate CTAs and add their partial sums
        // into the output, trading output traffic for parallelism on small grids.
        for (int split = 2; split <= kMaxSplitK && k / split >= kMinSplitKDepth; split *= 2) {
            KernelDesc d = gemmConv(g, t, coutPerGroup, n, ceilDiv(k, split), 1, 1.0,
                                    name + "_splitk" + std::to_string(split));
            d.ctas *= split;
            d.flops *= split;
            d.dramBytes += 2.0 * (split - 1) * g.outputBytes();
            d.peakScale = peakScale;
            candidates.push_back(std::move(d));
        }
    };
    for (const TileConfig& t : kGemmTiles)
        addGemm(t, "conv_igemm_" + std::to_string(t.tileM) + "x" + std::to_string(t.tileN), 1.0);
    if (device.tf32Convolutions())
        for (const TileConfig& t : kTf32Tiles)
            addGemm(t, "conv_tf32_igemm_" + std::to_string(t.tileM) + "x" + std::to_string(t.tileN),
                    device.tf32PeakTflops / device.fp32PeakTflops);
    if (g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.groups == 1) {
        const int64_t tiles = g.batch * ceilDiv(g.oh, 2) * ceilDiv(g.ow, 2);
        candidates.push_back(gemmConv(g, kWinogradTile, g.cout, tiles, g.cin, 16,
                                      kWinogradTransformOverhead, "conv_winograd_2x2_3x3"));
    }
    size_t best = 0;
    double bestUs = soloKernelUs(candidates[0], device);
    for (size_t i = 1; i < candidates.size(); ++i) {
        const double us = soloKernelUs(candidates[i], device);
        if (us < bestUs) {
            bestUs = us;
            best = i;
        }
    }
    return candidates[best];
}

// A strided-batched SGEMM (cuBLAS-like: the FFMA tiles above, the fastest on an idle GPU;
// TF32 is off for matmuls by default in PyTorch and cuBLAS): `batches` independent
// M×N×K products. The byte counts are whole operands and output.
KernelDesc batchedGemm(int64_t batches, int64_t m, int64_t n, int64_t k, double aBytes,
                       double bBytes, double outBytes, const DeviceProfile& device) {
    KernelDesc best;
    double bestUs = 0;
    for (const TileConfig& t : kGemmTiles) {
        KernelDesc d;
        d.name = "gemm_batched_" + std::to_string(t.tileM) + "x" + std::to_string(t.tileN);
        const int64_t gridM = ceilDiv(m, t.tileM);
        const int64_t gridN = ceilDiv(n, t.tileN);
        d.ctas = batches * gridM * gridN;
        d.threadsPerCta = t.threads;
        d.registersPerThread = t.registers;
        d.sharedMemPerCta = int64_t{t.sharedKb} * 1024;
        d.flops = 2.0 * static_cast<double>(d.ctas) * t.tileM * t.tileN * static_cast<double>(k);
        d.efficiency = t.efficiency;
        d.dramBytes = aBytes + bBytes + outBytes;
        // Every column of CTAs re-reads A, every row B (through L2).
        d.reuseBytes =
            static_cast<double>(gridN - 1) * aBytes + static_cast<double>(gridM - 1) * bBytes;
        d.workingSetBytes = aBytes + bBytes;
        const double us = soloKernelUs(d, device);
        if (best.name.empty() || us < bestUs) {
            best = std::move(d);
            bestUs = us;
        }
    }
    return best;
}

const ir::TensorShape& shapeOf(const ir::ValueRef& v, const ir::ShapeLookup& lookup,
                               const ir::Node& node) {
    const ir::TensorShape* s = lookup(v.node);
    if (s == nullptr)
        throw UserError("input '" + v.node + "' has no known shape", {}, node.name);
    return *s;
}

// IOS runtime input assembly (see operatorKernels), appended to `out`.
void inputKernels(const ir::Node& node, const ir::ShapeLookup& lookup, int batch,
                  bool concatInPlace, std::vector<KernelDesc>& out) {
    const auto& terms = node.inputs;
    for (const ir::Term& term : terms) {
        for (const ir::ValueRef& v : term) {
            const ir::TensorShape& s = shapeOf(v, lookup, node);
            const bool slice = v.begin != 0 || v.end != s.c;
            if (batch > 1 && slice) {
                const double e = static_cast<double>(batch * v.channels() * s.h * s.w);
                out.push_back(elementwise("slice_copy", e, 2 * kBytes * e, 0));
            }
        }
        if (term.size() > 1) {
            const ir::TensorShape& s = shapeOf(term.front(), lookup, node);
            const double e = static_cast<double>(batch * term.front().channels() * s.h * s.w);
            out.push_back(elementwise("sum_" + std::to_string(term.size()), e,
                                      kBytes * e * static_cast<double>(term.size() + 1),
                                      static_cast<double>(term.size() - 1)));
        }
    }
    // A matmul's terms are its two operands, not a concatenation.
    if (terms.size() > 1 && !concatInPlace && node.kind != ir::NodeKind::Matmul) {
        for (const ir::Term& term : terms) {
            if (term.size() == 1 && term.front().inPlace)
                continue; // its producer already wrote into the concatenation's buffer
            const ir::TensorShape& s = shapeOf(term.front(), lookup, node);
            const double e = static_cast<double>(batch * term.front().channels() * s.h * s.w);
            out.push_back(elementwise("concat_copy", e, 2 * kBytes * e, 0));
        }
    }
}

int64_t inputChannels(const ir::Node& node) {
    int64_t c = 0;
    for (const ir::Term& term : node.inputs)
        if (!term.empty())
            c += term.front().channels();
    return c;
}

void nodeKernels(const ir::Node& node, const ir::ShapeLookup& lookup, int batch,
                 const DeviceProfile& device, std::vector<KernelDesc>& out) {
    using ir::NodeKind;
    if (node.kind == NodeKind::Sequential) {
        for (const ir::Node& inner : node.nodes)
            nodeKernels(inner, lookup, batch, device, out);
        return;
    }
    if (node.kind == NodeKind::Placeholder)
        return;
    const ir::TensorShape& o = node.outputShape;
    const double outElems = static_cast<double>(batch * o.elements());
    if (node.kind == NodeKind::Element) {
        // One kernel per term writes its combination straight into the output slice.
        for (const ir::Term& term : node.inputs) {
            const ir::TensorShape& s = shapeOf(term.front(), lookup, node);
            const double e = static_cast<double>(batch * term.front().channels() * s.h * s.w);
            out.push_back(
                elementwise(node.element == ir::ElementOp::Add ? "element_add" : "element_mul", e,
                            kBytes * e * static_cast<double>(term.size() + 1),
                            static_cast<double>(term.size() - 1)));
        }
        return;
    }
    inputKernels(node, lookup, batch, device.concatInPlace, out);
    const ir::TensorShape& in = shapeOf(node.inputs.front().front(), lookup, node);
    switch (node.kind) {
    case NodeKind::Conv: {
        const ir::ConvAttrs& a = node.conv;
        const ConvGeometry g{
            batch, inputChannels(node), in.h,       in.w,       a.outChannels, o.h,
            o.w,   a.kernel.h,          a.kernel.w, a.stride.h, a.stride.w,    a.groups};
        out.push_back(convKernel(g, device));
        if (a.act == ir::ActType::Identity) // cuDNN fuses bias+activation, not bias alone
            out.push_back(elementwise("bias_add", outElems, 2 * kBytes * outElems, 1));
        break;
    }
    case NodeKind::Pool: {
        const ir::PoolAttrs& a = node.pool;
        const double inBytes =
            kBytes * static_cast<double>(batch * inputChannels(node) * in.h * in.w);
        if (a.type == ir::PoolType::GlobalAvg || a.type == ir::PoolType::GlobalMax) {
            // One warp per channel plane, eight planes per CTA.
            KernelDesc k = elementwise("global_pool", outElems, inBytes + kBytes * outElems,
                                       static_cast<double>(in.h * in.w));
            k.ctas = std::max<int64_t>(1, ceilDiv(static_cast<int64_t>(outElems), 8));
            out.push_back(k);
        } else {
            KernelDesc k = elementwise(a.type == ir::PoolType::Max ? "max_pool" : "avg_pool",
                                       outElems, inBytes + kBytes * outElems,
                                       static_cast<double>(a.kernel.h * a.kernel.w));
            k.ctas = std::max<int64_t>(1, ceilDiv(static_cast<int64_t>(outElems), kElementThreads));
            out.push_back(k);
        }
        break;
    }
    case NodeKind::Relu:
    case NodeKind::Activation:
        out.push_back(elementwise(node.kind == NodeKind::Relu ? "relu" : "activation", outElems,
                                  2 * kBytes * outElems, 1));
        break;
    case NodeKind::Norm: {
        // One warp per normalized row (a position's channel group), eight rows per CTA; the
        // row stays in registers, so the input is read once (docs/cost-model.md).
        const bool layerNorm = node.norm.type == ir::NormType::LayerNorm;
        const double params = layerNorm ? 2.0 * kBytes * static_cast<double>(o.c) : 0.0;
        KernelDesc k = elementwise(layerNorm ? "layernorm" : "softmax", outElems,
                                   2 * kBytes * outElems + params, layerNorm ? 7 : 5);
        const int64_t rows = batch * o.h * o.w * node.norm.groups;
        k.ctas = std::max<int64_t>(1, ceilDiv(rows, 8));
        out.push_back(k);
        break;
    }
    case NodeKind::Tokens: {
        // One thread per output element: read the source position (or learned token) and
        // the embedding, write the output.
        const ir::TokenAttrs& a = node.tokens;
        const double params =
            kBytes * static_cast<double>(o.c * a.learnedTokens()) +
            (a.embed ? kBytes * static_cast<double>(a.tableChannels(o.c) * a.tablePositions()) : 0);
        out.push_back(
            elementwise("token_gather", outElems, 2 * kBytes * outElems + params, a.embed ? 1 : 0));
        break;
    }
    case NodeKind::Matmul: {
        // Per sample, head and window: M = A's positions, N = B's positions (A·Bᵀ) or d
        // (A·V), K = d (A·Bᵀ) or B's positions (A·V), positions per window.
        const ir::TensorShape& b = shapeOf(node.inputs.back().front(), lookup, node);
        const int64_t heads = std::max<int64_t>(1, node.matmul.heads);
        const int64_t windows = std::max<int64_t>(1, node.matmul.windows);
        const int64_t keys = b.h * b.w / windows;
        const int64_t d = node.inputs.back().front().channels() / heads;
        const int64_t positions = in.h * in.w / windows;
        const int64_t n = node.matmul.transposeB ? keys : d;
        const int64_t k = node.matmul.transposeB ? d : keys;
        const auto bytes = [&](int64_t channels, int64_t hw) {
            return kBytes * static_cast<double>(batch * channels * hw);
        };
        out.push_back(batchedGemm(batch * heads * windows, positions, n, k,
                                  bytes(node.inputs.front().front().channels(), in.h * in.w),
                                  bytes(node.inputs.back().front().channels(), b.h * b.w),
                                  kBytes * outElems, device));
        break;
    }
    default: // identity: the input assembly is all it does
        break;
    }
}

} // namespace

Occupancy occupancy(const KernelDesc& kernel, const DeviceProfile& device) {
    struct Limit {
        int64_t ctas;
        const char* name;
    };
    const int64_t threads = std::max(1, kernel.threadsPerCta);
    // Registers are allocated per warp in units of 256 (CUDA occupancy calculator).
    const int64_t regsPerWarp = ((std::max(1, kernel.registersPerThread) * 32 + 255) / 256) * 256;
    const int64_t regsPerCta = regsPerWarp * kernel.warpsPerCta();
    const Limit limits[] = {
        {device.maxCtasPerSm, "ctas"},
        {device.maxThreadsPerSm / threads, "threads"},
        {device.maxRegistersPerSm / regsPerCta, "registers"},
        {kernel.sharedMemPerCta > 0 ? device.maxSharedMemPerSm / kernel.sharedMemPerCta
                                    : device.maxCtasPerSm,
         "shared memory"},
    };
    Occupancy o;
    const Limit* tightest = &limits[0];
    for (const Limit& l : limits)
        if (l.ctas < tightest->ctas)
            tightest = &l;
    // A kernel that does not fit at all would fail to launch; run it one CTA per SM instead.
    o.ctasPerSm = static_cast<int>(std::max<int64_t>(1, tightest->ctas));
    o.limiter = tightest->name;
    o.residentCtas = int64_t{o.ctasPerSm} * device.smCount;
    const int64_t ctas = std::max<int64_t>(1, kernel.ctas);
    o.waves = ceilDiv(ctas, o.residentCtas);
    o.tailCtas = ctas - (o.waves - 1) * o.residentCtas;
    return o;
}

CtaRateModel::CtaRateModel(const DeviceProfile& device) {
    const SmModel& model = device.sm;
    sms_ = device.smCount;
    const double maxWarps = device.maxWarpsPerSm();
    satC_ = std::max(1.0, device.computeSaturationWarps());
    satM_ = std::max(1.0, model.memorySaturationOccupancy * maxWarps);
    bandwidth_ = device.dramBytesPerSecond() * model.bandwidthEfficiency / 1e6; // B/µs
    inverseBandwidth_ = bandwidth_ > 0 ? 1.0 / bandwidth_ : 0.0;
    smFlops_ = device.smPeakFlops() / 1e6; // flop/µs
    // One SM can draw at most twice its even share of the bandwidth (a few SMs cannot
    // saturate DRAM on their own).
    smBandwidth_ = 2.0 * bandwidth_ / sms_;
    l2_ = static_cast<double>(device.l2Bytes);
    ctaLatencyUs_ = model.ctaLatencyUs;
    computeEfficiency_ = model.computeEfficiency;
}

CtaRateModel::Kernel CtaRateModel::prepare(const KernelDesc& k) const {
    Kernel p;
    const double w = k.warpsPerCta();
    p.warps = std::min(w, satC_);
    p.workingSet = k.workingSetBytes;
    p.ctas = static_cast<double>(std::max<int64_t>(1, k.ctas));
    p.flopsPerCta = k.flops / p.ctas;
    p.computeRate =
        std::min(w, satC_) / satC_ * smFlops_ * k.efficiency * k.peakScale * computeEfficiency_;
    p.computeWork = p.flopsPerCta > 0 ? p.flopsPerCta / p.computeRate : 0.0;
    p.dramBytes = k.dramBytes;
    p.reuseBytes = k.reuseBytes;
    p.memoryRate = std::min(w, satM_) / satM_ * smBandwidth_;
    return p;
}

void CtaRateModel::rates(const Resident* resident, size_t n, double* rates) const {
    struct Entries {
        const Resident* resident;
        Kernel& kernel(size_t i) const { return *resident[i].kernel; }
        int64_t count(size_t i) const { return resident[i].count; }
        bool firstOfKernel(size_t i) const { return resident[i].firstOfKernel; }
    };
    ratesOf(Entries{resident}, n, rates);
}

std::vector<double> ctaRates(const std::vector<ResidentCtas>& resident,
                             const DeviceProfile& device) {
    const CtaRateModel model(device);
    std::vector<CtaRateModel::Kernel> kernels;
    kernels.reserve(resident.size());
    std::vector<CtaRateModel::Resident> entries;
    entries.reserve(resident.size());
    for (size_t i = 0; i < resident.size(); ++i) {
        kernels.push_back(model.prepare(*resident[i].kernel));
        bool first = true;
        for (size_t j = 0; j < i && first; ++j)
            first = resident[j].kernel != resident[i].kernel;
        entries.push_back({&kernels.back(), resident[i].count, first});
    }
    std::vector<double> rates(resident.size());
    model.rates(entries.data(), entries.size(), rates.data());
    return rates;
}

double soloKernelUs(const KernelDesc& kernel, const DeviceProfile& device) {
    const Occupancy o = occupancy(kernel, device);
    const CtaRateModel model(device);
    CtaRateModel::Kernel k = model.prepare(kernel);
    double rate = 0;
    const CtaRateModel::Resident tail{&k, o.tailCtas, true};
    model.rates(&tail, 1, &rate);
    const double tailUs = 1.0 / rate;
    if (o.waves == 1)
        return tailUs;
    const CtaRateModel::Resident full{&k, o.residentCtas, true};
    model.rates(&full, 1, &rate);
    return static_cast<double>(o.waves - 1) * (1.0 / rate) + tailUs;
}

std::vector<KernelDesc> operatorKernels(const ir::Node& node, const ir::ShapeLookup& producerShape,
                                        int batch, const DeviceProfile& device) {
    assert(batch >= 1);
    std::vector<KernelDesc> out;
    nodeKernels(node, producerShape, batch, device, out);
    return out;
}

} // namespace ios::cost
