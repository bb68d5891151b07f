// SPDX-License-Identifier: Apache-2.0
// The mock backend's kernels (MockBackend::execute): the values every kernel computes, straight
// loops on the host buffers.
#include "mock_backend.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ios::profiling {

namespace {

template <class... F> struct Overload : F... { using F::operator()...; };
template <class... F> Overload(F...) -> Overload<F...>;

size_t at(const TensorDims& d, int64_t n, int64_t c, int64_t y, int64_t x) {
    return static_cast<size_t>(((n * d.c + c) * d.h + y) * d.w + x);
}

float activate(ir::ActType act, float v) {
    switch (act) {
    case ir::ActType::Identity:
        return v;
    case ir::ActType::Relu:
        return v > 0 ? v : 0;
    case ir::ActType::Tanh:
        return std::tanh(v);
    case ir::ActType::Sigmoid:
        return 1 / (1 + std::exp(-v));
    case ir::ActType::Gelu:
        return 0.5f * v * (1 + std::erf(v / std::sqrt(2.0f)));
    }
    return v;
}

// ref::matmul on every batch item, summed in double.
void multiply(const MatmulKernel& k, const std::vector<float>& a, const std::vector<float>& b,
              std::vector<float>& out) {
    const int64_t positions = k.aDims.h * k.aDims.w, bPositions = k.bDims.h * k.bDims.w;
    if (k.heads < 1 || k.bDims.c % k.heads != 0 || k.windows < 1 || positions % k.windows != 0 ||
        bPositions % k.windows != 0)
        throw std::logic_error("mock backend: matmul heads or windows do not divide the operands");
    const int64_t d = k.bDims.c / k.heads, keys = bPositions / k.windows;
    const int64_t m = positions / k.windows;
    for (int64_t n = 0; n < k.aDims.n; ++n) {
        const size_t a0 = at(k.aDims, n, 0, 0, 0), b0 = at(k.bDims, n, 0, 0, 0);
        const size_t o0 = at(k.outDims, n, 0, 0, 0);
        const auto A = [&](int64_t c, int64_t p) {
            return double{a[a0 + static_cast<size_t>(c * positions + p)]};
        };
        const auto B = [&](int64_t c, int64_t w, int64_t j) {
            return double{b[b0 + static_cast<size_t>(c * bPositions + w * keys + j)]};
        };
        for (int64_t g = 0; g < k.heads; ++g)
            for (int64_t p = 0; p < positions; ++p) {
                const int64_t w = p / m, outer = k.transposeB ? keys : d;
                for (int64_t i = 0; i < outer; ++i) {
                    double sum = 0;
                    if (k.transposeB)
                        for (int64_t e = 0; e < d; ++e)
                            sum += A(g * d + e, p) * B(g * d + e, w, i);
                    else
                        for (int64_t j = 0; j < keys; ++j)
                            sum += A(g * keys + j, p) * B(g * d + i, w, j);
                    out[o0 + static_cast<size_t>((g * outer + i) * positions + p)] =
                        static_cast<float>(k.alpha * sum);
                }
            }
    }
}

// ref::normalize on every batch item: each row (one position's channel group, strided by H×W
// in NCHW) is read into doubles first, so the kernel may also run in place.
void normalize(const NormKernel& k, const std::vector<float>& in, std::vector<float>& out) {
    const TensorDims& d = k.dims;
    if (k.groups < 1 || d.c % k.groups != 0)
        throw std::logic_error("mock backend: norm groups do not divide the channels");
    const int64_t width = d.c / k.groups, hw = d.h * d.w;
    const auto count = static_cast<double>(width);
    std::vector<double> row(static_cast<size_t>(width));
    for (int64_t n = 0; n < d.n; ++n)
        for (int64_t g = 0; g < k.groups; ++g)
            for (int64_t p = 0; p < hw; ++p) {
                const size_t first = at(d, n, g * width, 0, 0) + static_cast<size_t>(p);
                auto index = [&](size_t c) { return first + c * static_cast<size_t>(hw); };
                for (size_t c = 0; c < row.size(); ++c)
                    row[c] = in[index(c)];
                if (k.type == ir::NormType::LayerNorm) {
                    double mean = 0, var = 0;
                    for (double v : row)
                        mean += v;
                    mean /= count;
                    for (double v : row)
                        var += (v - mean) * (v - mean);
                    const double scale = 1.0 / std::sqrt(var / count + k.epsilon);
                    for (size_t c = 0; c < row.size(); ++c)
                        out[index(c)] = static_cast<float>((row[c] - mean) * scale);
                } else {
                    const double peak = *std::max_element(row.begin(), row.end());
                    double sum = 0;
                    for (double v : row)
                        sum += std::exp(v - peak);
                    for (size_t c = 0; c < row.size(); ++c)
                        out[index(c)] = static_cast<float>(std::exp(row[c] - peak) / sum);
                }
            }
}

// ref::gatherTokens on every batch item.
void gatherTokens(const TokensKernel& k, const std::vector<float>& in,
                  const std::vector<float>& index, const std::vector<float>* learned,
                  const std::vector<float>* table, std::vector<float>& out) {
    const int64_t c = k.outDims.c, inPositions = k.inDims.h * k.inDims.w;
    const int64_t positions = k.outDims.h * k.outDims.w;
    if (k.inDims.c != c || static_cast<int64_t>(index.size()) != positions ||
        (table != nullptr && (k.tableChannels < 1 || k.tablePositions < 1)))
        throw std::logic_error("mock backend: tokens kernel of inconsistent sizes");
    for (int64_t n = 0; n < k.outDims.n; ++n)
        for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t i = 0; i < positions; ++i) {
                const auto from = static_cast<int64_t>(index[static_cast<size_t>(i)]);
                if (from >= inPositions || (from < 0 && learned == nullptr))
                    throw std::logic_error("mock backend: token index outside the input");
                float v = from >= 0 ? in[at(k.inDims, n, ch, 0, 0) + static_cast<size_t>(from)]
                                    : (*learned)[static_cast<size_t>((-1 - from) * c + ch)];
                if (table != nullptr)
                    v += (*table)[static_cast<size_t>((ch % k.tableChannels) * k.tablePositions +
                                                      i % k.tablePositions)];
                out[at(k.outDims, n, ch, 0, 0) + static_cast<size_t>(i)] = v;
            }
}

} // namespace

// Reference semantics of every kernel, straight loops in fp32 (double accumulators).
void MockBackend::execute(const Kernel& kernel) {
    std::visit(
        Overload{
            [&](const CopyKernel& k) {
                auto& s = buf(k.src.buffer);
                auto& d = buf(k.dst.buffer);
                const int64_t hw = k.dst.dims.h * k.dst.dims.w;
                for (int64_t n = 0; n < k.dst.dims.n; ++n)
                    std::copy_n(s.begin() + static_cast<std::ptrdiff_t>(
                                                at(k.src.dims, n, k.src.begin, 0, 0)),
                                k.channels * hw,
                                d.begin() + static_cast<std::ptrdiff_t>(
                                                at(k.dst.dims, n, k.dst.begin, 0, 0)));
            },
            [&](const AccumulateKernel& k) {
                auto& s = buf(k.src.buffer);
                auto& d = buf(k.dst.buffer);
                const int64_t count = k.channels * k.dst.dims.h * k.dst.dims.w;
                for (int64_t n = 0; n < k.dst.dims.n; ++n) {
                    const size_t si = at(k.src.dims, n, k.src.begin, 0, 0);
                    const size_t di = at(k.dst.dims, n, k.dst.begin, 0, 0);
                    for (int64_t i = 0; i < count; ++i) {
                        const auto ii = static_cast<size_t>(i);
                        d[di + ii] = k.op == ir::ElementOp::Mul ? d[di + ii] * s[si + ii]
                                                                : d[di + ii] + s[si + ii];
                    }
                }
            },
            [&](const ConvKernel& k) {
                auto& in = buf(k.in);
                auto& out = buf(k.out);
                auto& w = buf(k.weights);
                auto& b = buf(k.bias);
                const int64_t inPer = k.inDims.c / k.groups, outPer = k.outDims.c / k.groups;
                const int64_t oh = k.outDims.h, ow = k.outDims.w;
                // Output plane by plane, one weight at a time over the plane (cache friendly).
                std::vector<double> plane(static_cast<size_t>(oh * ow));
                for (int64_t n = 0; n < k.outDims.n; ++n)
                    for (int64_t o = 0; o < k.outDims.c; ++o) {
                        std::fill(plane.begin(), plane.end(), b[static_cast<size_t>(o)]);
                        const int64_t g = o / outPer;
                        for (int64_t i = 0; i < inPer; ++i)
                            for (int64_t ky = 0; ky < k.kernel.h; ++ky)
                                for (int64_t kx = 0; kx < k.kernel.w; ++kx) {
                                    const double wv = w[static_cast<size_t>(
                                        ((o * inPer + i) * k.kernel.h + ky) * k.kernel.w + kx)];
                                    for (int64_t y = 0; y < oh; ++y) {
                                        const int64_t iy = y * k.stride.h - k.padding.h + ky;
                                        if (iy < 0 || iy >= k.inDims.h)
                                            continue;
                                        for (int64_t x = 0; x < ow; ++x) {
                                            const int64_t ix = x * k.stride.w - k.padding.w + kx;
                                            if (ix >= 0 && ix < k.inDims.w)
                                                plane[static_cast<size_t>(y * ow + x)] +=
                                                    wv * in[at(k.inDims, n, g * inPer + i, iy, ix)];
                                        }
                                    }
                                }
                        for (int64_t y = 0; y < oh; ++y)
                            for (int64_t x = 0; x < ow; ++x)
                                out[at(k.outDims, n, o, y, x)] = activate(
                                    k.act,
                                    static_cast<float>(plane[static_cast<size_t>(y * ow + x)]));
                    }
            },
            [&](const PoolKernel& k) {
                auto& in = buf(k.in);
                auto& out = buf(k.out);
                const bool isMax = k.type == ir::PoolType::Max || k.type == ir::PoolType::GlobalMax;
                for (int64_t n = 0; n < k.outDims.n; ++n)
                    for (int64_t c = 0; c < k.outDims.c; ++c)
                        for (int64_t y = 0; y < k.outDims.h; ++y)
                            for (int64_t x = 0; x < k.outDims.w; ++x) {
                                double acc = isMax ? -std::numeric_limits<double>::infinity() : 0;
                                for (int64_t ky = 0; ky < k.kernel.h; ++ky)
                                    for (int64_t kx = 0; kx < k.kernel.w; ++kx) {
                                        const int64_t iy = y * k.stride.h - k.padding.h + ky;
                                        const int64_t ix = x * k.stride.w - k.padding.w + kx;
                                        if (iy < 0 || ix < 0 || iy >= k.inDims.h ||
                                            ix >= k.inDims.w)
                                            continue; // padding: ignored by max, counts 0 for avg
                                        const double v = in[at(k.inDims, n, c, iy, ix)];
                                        acc = isMax ? std::max(acc, v) : acc + v;
                                    }
                                if (!isMax)
                                    acc /= static_cast<double>(k.kernel.h * k.kernel.w);
                                out[at(k.outDims, n, c, y, x)] = static_cast<float>(acc);
                            }
            },
            [&](const ActivationKernel& k) {
                auto& in = buf(k.in);
                auto& out = buf(k.out);
                for (size_t i = 0; i < out.size(); ++i)
                    out[i] = activate(k.act, in[i]);
            },
            [&](const NormKernel& k) { normalize(k, buf(k.in), buf(k.out)); },
            [&](const MatmulKernel& k) { multiply(k, buf(k.a), buf(k.b), buf(k.out)); },
            [&](const TokensKernel& k) {
                gatherTokens(k, buf(k.in), buf(k.index), k.learned < 0 ? nullptr : &buf(k.learned),
                             k.table < 0 ? nullptr : &buf(k.table), buf(k.out));
            }},
        kernel);
}

} // namespace ios::profiling
