// SPDX-License-Identifier: Apache-2.0
#include "ref/reference_executor.h"

#include "ir/validate.h"
#include "schedule/merged_weights.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace ios::ref {

namespace {

std::string shapeText(const ir::TensorShape& s) {
    return ir::detail::shapeText(s);
}

// Output extent of a floor-mode sliding window (as ir/shape_inference.cpp computes it).
int64_t windowExtent(int64_t in, int64_t k, int64_t s, int64_t p) {
    const int64_t span = in + 2 * p - k;
    if (span < 0 || s < 1)
        throw std::invalid_argument("window does not fit the input");
    return span / s + 1;
}

// Output positions o in [0, out) whose input position o·s − p + k lies in [0, in).
std::pair<int64_t, int64_t> validRange(int64_t out, int64_t in, int64_t s, int64_t p, int64_t k) {
    const int64_t shift = p - k; // o·s ≥ shift and o·s ≤ in − 1 + shift
    const int64_t lo = shift <= 0 ? 0 : (shift + s - 1) / s;
    const int64_t last = in - 1 + shift;
    const int64_t hi = last < 0 ? 0 : std::min(out, last / s + 1);
    return {std::min(lo, hi), hi};
}

} // namespace

Tensor::Tensor(ir::TensorShape s, double fill)
    : shape(s), data(static_cast<size_t>(s.elements()), fill) {}

Tensor Tensor::channels(int64_t begin, int64_t end) const {
    if (begin < 0 || end > shape.c || begin >= end)
        throw std::invalid_argument("channel range out of bounds");
    Tensor t({end - begin, shape.h, shape.w});
    const auto plane = static_cast<size_t>(shape.h * shape.w);
    std::copy_n(data.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(begin) * plane),
                t.data.size(), t.data.begin());
    return t;
}

uint64_t nameSeed(const std::string& name, uint64_t seed) {
    uint64_t h = 1469598103934665603ULL ^ seed; // FNV-1a
    for (unsigned char ch : name) {
        h ^= ch;
        h *= 1099511628211ULL;
    }
    return h;
}

std::vector<double> uniformValues(size_t count, uint64_t streamSeed, double scale) {
    std::vector<double> v(count);
    uint64_t state = streamSeed;
    for (double& x : v) { // splitmix64
        state += 0x9e3779b97f4a7c15ULL;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        const double unit = static_cast<double>(z >> 11) * 0x1.0p-53; // [0, 1)
        x = (2 * unit - 1) * scale;
    }
    return v;
}

Tensor randomTensor(ir::TensorShape shape, const std::string& name, uint64_t seed) {
    Tensor t(shape);
    t.data = uniformValues(t.data.size(), nameSeed(name, seed), 1.0);
    return t;
}

ConvWeights randomConvWeights(const ir::Node& conv, int64_t inChannels, uint64_t seed) {
    const ir::ConvAttrs& a = conv.conv;
    const int64_t fanIn = inChannels / a.groups * a.kernel.h * a.kernel.w;
    ConvWeights w;
    w.weights =
        uniformValues(static_cast<size_t>(a.outChannels * fanIn), nameSeed(conv.name + "/w", seed),
                      std::sqrt(3.0 / static_cast<double>(std::max<int64_t>(fanIn, 1))));
    w.bias =
        uniformValues(static_cast<size_t>(a.outChannels), nameSeed(conv.name + "/b", seed), 0.1);
    return w;
}

ConvWeights mergedConvWeights(const std::vector<const ir::Node*>& members,
                              const std::vector<ConvWeights>& memberWeights, int64_t inChannels) {
    if (members.size() != memberWeights.size())
        throw std::invalid_argument("mergedConvWeights: one weight set per member");
    const schedule::MergedConvLayout layout = schedule::mergedConvLayout(members, inChannels);
    auto [weights, bias] = schedule::placeMergedWeights<double>(layout, [&](size_t i) {
        return std::pair{memberWeights[i].weights, memberWeights[i].bias};
    });
    return {std::move(weights), std::move(bias)};
}

// Direct convolution, one output plane at a time and one weight at a time over the plane:
// the innermost loop runs over contiguous output columns (vectorisable for stride 1).
Tensor conv2d(const Tensor& in, const ir::ConvAttrs& a, const ConvWeights& w) {
    const int64_t groups = a.groups;
    if (groups < 1 || in.shape.c % groups != 0 || a.outChannels % groups != 0)
        throw std::invalid_argument("conv2d: groups do not divide the channels");
    const int64_t inPer = in.shape.c / groups, outPer = a.outChannels / groups;
    const int64_t kh = a.kernel.h, kw = a.kernel.w, sh = a.stride.h, sw = a.stride.w;
    if (w.weights.size() != static_cast<size_t>(a.outChannels * inPer * kh * kw) ||
        w.bias.size() != static_cast<size_t>(a.outChannels))
        throw std::invalid_argument("conv2d: weights of the wrong size");
    const int64_t oh = windowExtent(in.shape.h, kh, sh, a.padding.h);
    const int64_t ow = windowExtent(in.shape.w, kw, sw, a.padding.w);
    Tensor out({a.outChannels, oh, ow});
    for (int64_t o = 0; o < a.outChannels; ++o) {
        double* plane = &out.at(o, 0, 0);
        std::fill(plane, plane + oh * ow, w.bias[static_cast<size_t>(o)]);
        const int64_t g = o / outPer;
        for (int64_t i = 0; i < inPer; ++i) {
            const double* src = &in.at(g * inPer + i, 0, 0);
            for (int64_t ky = 0; ky < kh; ++ky) {
                const auto [y0, y1] = validRange(oh, in.shape.h, sh, a.padding.h, ky);
                for (int64_t kx = 0; kx < kw; ++kx) {
                    const auto [x0, x1] = validRange(ow, in.shape.w, sw, a.padding.w, kx);
                    const double wv =
                        w.weights[static_cast<size_t>(((o * inPer + i) * kh + ky) * kw + kx)];
                    for (int64_t y = y0; y < y1; ++y) {
                        const double* row = src + (y * sh - a.padding.h + ky) * in.shape.w;
                        double* dst = plane + y * ow;
                        const int64_t shift = kx - a.padding.w;
                        if (sw == 1)
                            for (int64_t x = x0; x < x1; ++x)
                                dst[x] += wv * row[x + shift];
                        else
                            for (int64_t x = x0; x < x1; ++x)
                                dst[x] += wv * row[x * sw + shift];
                    }
                }
            }
        }
    }
    activate(out, a.act);
    return out;
}

Tensor pool2d(const Tensor& in, const ir::PoolAttrs& attrs) {
    ir::PoolAttrs a = attrs;
    if (a.type == ir::PoolType::GlobalMax || a.type == ir::PoolType::GlobalAvg)
        a = {a.type, {in.shape.h, in.shape.w}, {1, 1}, {0, 0}};
    const bool isMax = a.type == ir::PoolType::Max || a.type == ir::PoolType::GlobalMax;
    const int64_t oh = windowExtent(in.shape.h, a.kernel.h, a.stride.h, a.padding.h);
    const int64_t ow = windowExtent(in.shape.w, a.kernel.w, a.stride.w, a.padding.w);
    // count_include_pad: an average window always divides by its full size.
    const auto windowSize = static_cast<double>(a.kernel.h * a.kernel.w);
    Tensor out({in.shape.c, oh, ow});
    for (int64_t c = 0; c < in.shape.c; ++c)
        for (int64_t y = 0; y < oh; ++y)
            for (int64_t x = 0; x < ow; ++x) {
                double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
                bool any = false;
                for (int64_t ky = 0; ky < a.kernel.h; ++ky) {
                    const int64_t iy = y * a.stride.h - a.padding.h + ky;
                    if (iy < 0 || iy >= in.shape.h)
                        continue;
                    for (int64_t kx = 0; kx < a.kernel.w; ++kx) {
                        const int64_t ix = x * a.stride.w - a.padding.w + kx;
                        if (ix < 0 || ix >= in.shape.w)
                            continue; // padding: ignored by max, a zero for avg
                        const double v = in.at(c, iy, ix);
                        acc = isMax ? std::max(acc, v) : acc + v;
                        any = true;
                    }
                }
                out.at(c, y, x) = !any ? 0.0 : isMax ? acc : acc / windowSize;
            }
    return out;
}

void activate(Tensor& t, ir::ActType act) {
    switch (act) {
    case ir::ActType::Identity:
        return;
    case ir::ActType::Relu:
        for (double& v : t.data)
            v = std::max(v, 0.0);
        return;
    case ir::ActType::Tanh:
        for (double& v : t.data)
            v = std::tanh(v);
        return;
    case ir::ActType::Sigmoid:
        for (double& v : t.data)
            v = 1.0 / (1.0 + std::exp(-v));
        return;
    case ir::ActType::Gelu:
        for (double& v : t.data)
            v = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        return;
    }
}

Tensor gatherTokens(const Tensor& in, const ir::TokenAttrs& attrs,
                    const std::vector<double>& learned, const std::vector<double>& embedding) {
    const int64_t c = in.shape.c, positions = in.shape.h * in.shape.w;
    const auto outPositions = static_cast<int64_t>(attrs.index.size());
    if (outPositions != attrs.outHw.h * attrs.outHw.w ||
        static_cast<int64_t>(learned.size()) != c * attrs.learnedTokens() ||
        (attrs.embed &&
         static_cast<int64_t>(embedding.size()) != attrs.tableChannels(c) * attrs.tablePositions()))
        throw std::invalid_argument("gatherTokens: sizes do not match");
    const int64_t tableC = attrs.tableChannels(c), tableP = attrs.tablePositions();
    Tensor out({c, attrs.outHw.h, attrs.outHw.w});
    for (int64_t i = 0; i < outPositions; ++i) {
        const int64_t from = attrs.index[static_cast<size_t>(i)];
        if (from >= positions)
            throw std::invalid_argument("gatherTokens: index outside the input");
        for (int64_t ch = 0; ch < c; ++ch) {
            double v = from >= 0 ? in.data[static_cast<size_t>(ch * positions + from)]
                                 : learned[static_cast<size_t>((-1 - from) * c + ch)];
            if (attrs.embed)
                v += embedding[static_cast<size_t>((ch % tableC) * tableP + i % tableP)];
            out.data[static_cast<size_t>(ch * outPositions + i)] = v;
        }
    }
    return out;
}

Tensor matmul(const Tensor& a, const Tensor& b, const ir::MatmulAttrs& attrs) {
    const int64_t heads = attrs.heads, windows = attrs.windows;
    const int64_t positions = a.shape.h * a.shape.w;
    if (heads < 1 || a.shape.c % heads != 0 || b.shape.c % heads != 0 || windows < 1 ||
        positions % windows != 0 || (b.shape.h * b.shape.w) % windows != 0)
        throw std::invalid_argument("matmul: heads or windows do not divide the operands");
    const int64_t keys = b.shape.h * b.shape.w / windows; // B's positions per window
    const int64_t m = positions / windows;                // A's positions per window
    const int64_t d = b.shape.c / heads;                  // channels per head of B
    if (attrs.transposeB ? a.shape.c != b.shape.c : a.shape.c != heads * keys)
        throw std::invalid_argument("matmul: operand shapes do not match");
    const int64_t outC = attrs.transposeB ? heads * keys : b.shape.c;
    Tensor out({outC, a.shape.h, a.shape.w});
    // Positions p of A and j of B in row-major (y, x) order: data[c · positions + p].
    const auto A = [&](int64_t c, int64_t p) {
        return a.data[static_cast<size_t>(c * positions + p)];
    };
    const auto B = [&](int64_t c, int64_t w, int64_t j) {
        return b.data[static_cast<size_t>(c * keys * windows + w * keys + j)];
    };
    for (int64_t g = 0; g < heads; ++g)
        for (int64_t p = 0; p < positions; ++p) {
            const int64_t w = p / m; // the window of A's position p
            if (attrs.transposeB) {
                for (int64_t j = 0; j < keys; ++j) {
                    double sum = 0;
                    for (int64_t e = 0; e < d; ++e)
                        sum += A(g * d + e, p) * B(g * d + e, w, j);
                    out.data[static_cast<size_t>((g * keys + j) * positions + p)] =
                        attrs.alpha * sum;
                }
            } else {
                for (int64_t e = 0; e < d; ++e) {
                    double sum = 0;
                    for (int64_t j = 0; j < keys; ++j)
                        sum += A(g * keys + j, p) * B(g * d + e, w, j);
                    out.data[static_cast<size_t>((g * d + e) * positions + p)] = attrs.alpha * sum;
                }
            }
        }
    return out;
}

Tensor normalize(const Tensor& in, const ir::NormAttrs& a) {
    if (a.groups < 1 || in.shape.c % a.groups != 0)
        throw std::invalid_argument("normalize: groups do not divide the channels");
    Tensor out(in.shape);
    const int64_t width = in.shape.c / a.groups;
    const auto n = static_cast<double>(width);
    for (int64_t g = 0; g < a.groups; ++g)
        for (int64_t y = 0; y < in.shape.h; ++y)
            for (int64_t x = 0; x < in.shape.w; ++x) {
                const int64_t c0 = g * width, c1 = c0 + width;
                if (a.type == ir::NormType::LayerNorm) {
                    double mean = 0, var = 0;
                    for (int64_t c = c0; c < c1; ++c)
                        mean += in.at(c, y, x);
                    mean /= n;
                    for (int64_t c = c0; c < c1; ++c)
                        var += (in.at(c, y, x) - mean) * (in.at(c, y, x) - mean);
                    const double scale = 1.0 / std::sqrt(var / n + a.epsilon);
                    for (int64_t c = c0; c < c1; ++c)
                        out.at(c, y, x) = (in.at(c, y, x) - mean) * scale;
                } else {
                    double peak = in.at(c0, y, x), sum = 0;
                    for (int64_t c = c0; c < c1; ++c)
                        peak = std::max(peak, in.at(c, y, x));
                    for (int64_t c = c0; c < c1; ++c)
                        sum += std::exp(in.at(c, y, x) - peak);
                    for (int64_t c = c0; c < c1; ++c)
                        out.at(c, y, x) = std::exp(in.at(c, y, x) - peak) / sum;
                }
            }
    return out;
}

void ReferenceExecutor::setWeights(const std::string& convName, ConvWeights weights) {
    explicitWeights_[convName] = std::move(weights);
}

ConvWeights ReferenceExecutor::weightsOf(const ir::Node& conv, int64_t inChannels) const {
    if (auto it = explicitWeights_.find(conv.name); it != explicitWeights_.end())
        return it->second;
    return randomConvWeights(conv, inChannels, seed_);
}

void ReferenceExecutor::setInput(Tensor input) {
    input_ = std::move(input);
}

const Tensor& ReferenceExecutor::output(const std::string& name) const {
    auto it = outputs_.find(name);
    if (it == outputs_.end())
        throw UserError("no output: the node has not run", {}, name);
    return it->second;
}

// Terms concatenated along channels; the values of a term added, or multiplied for an
// element/mul node; a 1×1 value broadcast over H×W (element nodes, as shape inference allows).
Tensor ReferenceExecutor::gather(const ir::Node& node, const std::vector<ir::Term>& terms) const {
    const bool mul = node.kind == ir::NodeKind::Element && node.element == ir::ElementOp::Mul;
    ir::TensorShape shape{0, 1, 1};
    for (const ir::Term& term : terms) {
        if (term.empty())
            throw UserError("has an empty input term", {}, node.name);
        shape.c += term.front().channels();
        for (const ir::ValueRef& v : term) {
            if (!hasOutput(v.node))
                throw UserError("reads '" + v.node + "', which has not been computed", {},
                                node.name);
            const Tensor& src = output(v.node);
            if (v.begin < 0 || v.end > src.shape.c || v.channels() != term.front().channels())
                throw UserError("bad channel range of input '" + v.node + "'", {}, node.name);
            shape.h = std::max(shape.h, src.shape.h);
            shape.w = std::max(shape.w, src.shape.w);
        }
    }
    if (shape.c == 0)
        throw UserError("has no inputs", {}, node.name);
    Tensor out(shape);
    int64_t offset = 0;
    for (const ir::Term& term : terms) {
        for (size_t k = 0; k < term.size(); ++k) {
            const ir::ValueRef& v = term[k];
            const Tensor& src = output(v.node);
            const bool broadcast = src.shape.h == 1 && src.shape.w == 1;
            if (!broadcast && (src.shape.h != shape.h || src.shape.w != shape.w))
                throw UserError("input '" + v.node + "' has another spatial size", {}, node.name);
            for (int64_t c = 0; c < v.channels(); ++c)
                for (int64_t y = 0; y < shape.h; ++y)
                    for (int64_t x = 0; x < shape.w; ++x) {
                        const double s =
                            broadcast ? src.at(v.begin + c, 0, 0) : src.at(v.begin + c, y, x);
                        double& d = out.at(offset + c, y, x);
                        d = k == 0 ? s : mul ? d * s : d + s;
                    }
        }
        offset += term.front().channels();
    }
    return out;
}

void ReferenceExecutor::runNode(const ir::Node& node) {
    using ir::NodeKind;
    Tensor out;
    switch (node.kind) {
    case NodeKind::Placeholder:
        throw UserError("a placeholder can only be the graph input", {}, node.name);
    case NodeKind::Opaque:
        throw UserError("an opaque (imported, undescribed) operator has no reference semantics", {},
                        node.name);
    case NodeKind::Sequential: // inner nodes in order, each reading the previous one
        if (node.nodes.empty())
            throw UserError("sequential node has no inner nodes", {}, node.name);
        for (const ir::Node& inner : node.nodes)
            runNode(inner);
        out = output(node.nodes.back().name);
        break;
    case NodeKind::Conv: {
        const Tensor in = gather(node, node.inputs);
        const ConvWeights w = weightsOf(node, in.shape.c);
        const size_t expected = static_cast<size_t>(
            node.conv.outChannels * (in.shape.c / std::max<int64_t>(node.conv.groups, 1)) *
            node.conv.kernel.h * node.conv.kernel.w);
        if (w.weights.size() != expected ||
            w.bias.size() != static_cast<size_t>(node.conv.outChannels))
            throw UserError("weights of the wrong size (" + std::to_string(w.weights.size()) +
                                " weights for " + std::to_string(expected) + ", " +
                                std::to_string(w.bias.size()) + " biases)",
                            {}, node.name);
        out = conv2d(in, node.conv, w);
        break;
    }
    case NodeKind::Pool:
        out = pool2d(gather(node, node.inputs), node.pool);
        break;
    case NodeKind::Relu:
    case NodeKind::Activation:
        out = gather(node, node.inputs);
        activate(out, node.kind == NodeKind::Relu ? ir::ActType::Relu : node.activation);
        break;
    case NodeKind::Norm:
        out = normalize(gather(node, node.inputs), node.norm);
        break;
    case NodeKind::Identity:
    case NodeKind::Element:
        out = gather(node, node.inputs);
        break;
    case NodeKind::Tokens: {
        // Learned tokens and the embedding: random like conv weights, from (name, seed).
        const Tensor in = gather(node, node.inputs);
        const auto c = static_cast<size_t>(in.shape.c);
        const std::vector<double> learned =
            uniformValues(c * static_cast<size_t>(node.tokens.learnedTokens()),
                          nameSeed(node.name + "/tokens", seed_), 1.0);
        const std::vector<double> embedding =
            node.tokens.embed
                ? uniformValues(static_cast<size_t>(node.tokens.tableChannels(in.shape.c) *
                                                    node.tokens.tablePositions()),
                                nameSeed(node.name + "/embedding", seed_), 1.0)
                : std::vector<double>{};
        out = gatherTokens(in, node.tokens, learned, embedding);
        break;
    }
    case NodeKind::Matmul:
        if (node.inputs.size() != 2)
            throw UserError("a matmul reads two operands", {}, node.name);
        out = matmul(gather(node, {node.inputs[0]}), gather(node, {node.inputs[1]}), node.matmul);
        break;
    }
    if (node.outputShape.elements() != 0 && out.shape != node.outputShape)
        throw UserError("computed output shape " + shapeText(out.shape) +
                            " differs from the declared " + shapeText(node.outputShape),
                        {}, node.name);
    outputs_[node.name] = std::move(out);
}

void ReferenceExecutor::run(const ir::Graph& graph) {
    outputs_.clear();
    const ir::Node& in = graph.input;
    Tensor input = input_ ? *input_ : randomTensor(in.outputShape, in.name, seed_);
    if (input.shape != in.outputShape)
        throw UserError("input of shape " + shapeText(input.shape) + " for a graph input of " +
                            shapeText(in.outputShape),
                        {}, in.name);
    outputs_[in.name] = std::move(input);
    for (const ir::Block& block : graph.blocks) {
        if (!hasOutput(block.enterName))
            throw UserError("the block's entry has not been computed", {}, block.enterName);
        for (const ir::Node* op : block.operators()) {
            try {
                runNode(*op);
            } catch (const std::invalid_argument& e) {
                throw UserError(e.what(), {}, op->name);
            }
        }
    }
}

} // namespace ios::ref
