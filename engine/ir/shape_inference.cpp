// SPDX-License-Identifier: Apache-2.0
// Shape rules per node kind (docs/formats.md "Model structure").
#include "ir/validate.h"
#include "util/error.h"

#include <cmath>
#include <string>

namespace ios::ir::detail {
// (shared with validate.cpp through validate.h)

std::string shapeText(const TensorShape& s) {
    return "[" + std::to_string(s.c) + ", " + std::to_string(s.h) + ", " + std::to_string(s.w) +
           "]";
}

static void requireRange(const Node& node, const char* what, int64_t v, int64_t lo, int64_t hi) {
    if (v < lo || v > hi)
        throw UserError(std::string(what) + " = " + std::to_string(v) + " is out of range [" +
                            std::to_string(lo) + ", " + std::to_string(hi) + "]",
                        {}, node.name);
}

static void requireHw(const Node& node, const char* what, const Hw& v, int64_t lo) {
    requireRange(node, what, v.h, lo, kMaxKernel);
    requireRange(node, what, v.w, lo, kMaxKernel);
}

static TensorShape checkedShape(const Node& node, int64_t c, int64_t h, int64_t w) {
    if (c <= 0 || h <= 0 || w <= 0)
        throw UserError("inferred output shape " + shapeText({c, h, w}) + " is empty", {},
                        node.name);
    if (c > kMaxDim || h > kMaxDim || w > kMaxDim || c * h > kMaxElements / w)
        throw UserError("inferred output shape " + shapeText({c, h, w}) + " is too large", {},
                        node.name);
    return {c, h, w};
}

// Sliding-window output extent (floor mode, as the IOS reference and PyTorch compute it).
static int64_t windowExtent(const Node& node, int64_t in, int64_t k, int64_t s, int64_t p) {
    const int64_t span = in + 2 * p - k;
    if (span < 0)
        throw UserError("kernel " + std::to_string(k) + " does not fit input extent " +
                            std::to_string(in) + " with padding " + std::to_string(p),
                        {}, node.name);
    return span / s + 1;
}

// Channels and H×W of the concatenated, element-wise combined inputs.
static TensorShape combinedInput(const Node& node, const std::vector<Term>& terms,
                                 const ShapeLookup& shapeOf) {
    if (terms.empty())
        throw UserError("has no inputs", {}, node.name);
    TensorShape in{0, -1, -1};
    for (const Term& term : terms) {
        if (term.empty())
            throw UserError("has an empty input term", {}, node.name);
        const int64_t width = term.front().channels();
        for (const ValueRef& v : term) {
            const TensorShape* src = shapeOf(v.node);
            if (src == nullptr)
                throw UserError("unknown input '" + v.node + "'", {}, node.name);
            if (v.begin < 0 || v.end > src->c || v.begin >= v.end)
                throw UserError("channel range [" + std::to_string(v.begin) + ", " +
                                    std::to_string(v.end) + ") of input '" + v.node +
                                    "' is out of bounds (it has " + std::to_string(src->c) +
                                    " channels)",
                                {}, node.name);
            if (v.channels() != width)
                throw UserError("element-wise combined inputs have different channel counts (" +
                                    std::to_string(width) + " vs " + std::to_string(v.channels()) +
                                    " from '" + v.node + "')",
                                {}, node.name);
            // An element op broadcasts a 1x1 value over H x W (squeeze-excitation scales).
            const bool broadcast = node.kind == NodeKind::Element &&
                                   ((src->h == 1 && src->w == 1) || (in.h == 1 && in.w == 1));
            if (in.h < 0 || (broadcast && in.h == 1 && in.w == 1)) {
                in.h = src->h;
                in.w = src->w;
            } else if ((in.h != src->h || in.w != src->w) && !broadcast) {
                throw UserError("inputs have different spatial sizes (" + std::to_string(in.h) +
                                    "x" + std::to_string(in.w) + " vs " + std::to_string(src->h) +
                                    "x" + std::to_string(src->w) + " from '" + v.node + "')",
                                {}, node.name);
            }
        }
        in.c += width;
        if (in.c > kMaxDim)
            throw UserError("concatenated input has too many channels", {}, node.name);
    }
    return in;
}

// One operand of a matmul: a single value (a term of several would be a sum).
static TensorShape matmulOperand(const Node& node, const std::vector<Term>& terms, size_t i,
                                 const ShapeLookup& shapeOf) {
    return combinedInput(node, {terms[i]}, shapeOf);
}

// docs/formats.md "matmul": operands' channels split into heads, their positions into
// windows; B's positions per window are the contracted (A·V) or produced (Q·Kᵀ) axis.
static TensorShape matmulShape(const Node& node, const ShapeLookup& shapeOf) {
    const MatmulAttrs& a = node.matmul;
    if (node.inputs.size() != 2)
        throw UserError("a matmul reads two operands (input terms), not " +
                            std::to_string(node.inputs.size()),
                        {}, node.name);
    requireRange(node, "heads", a.heads, 1, kMaxDim);
    requireRange(node, "windows", a.windows, 1, kMaxDim);
    if (!std::isfinite(a.alpha))
        throw UserError("alpha must be a finite number", {}, node.name);
    const TensorShape x = matmulOperand(node, node.inputs, 0, shapeOf);
    const TensorShape y = matmulOperand(node, node.inputs, 1, shapeOf);
    const auto dims = [](const TensorShape& s) { return shapeText(s); };
    if (x.c % a.heads != 0 || y.c % a.heads != 0)
        throw UserError("heads = " + std::to_string(a.heads) +
                            " does not divide the operands' channels (" + dims(x) + " and " +
                            dims(y) + ")",
                        {}, node.name);
    if ((x.h * x.w) % a.windows != 0 || (y.h * y.w) % a.windows != 0)
        throw UserError("windows = " + std::to_string(a.windows) +
                            " does not divide the operands' positions (" + dims(x) + " and " +
                            dims(y) + ")",
                        {}, node.name);
    const int64_t keys = y.h * y.w / a.windows; // B's positions per window
    if (a.transposeB) {
        if (x.c != y.c)
            throw UserError("A·Bᵀ needs operands with equal channels per head (A " + dims(x) +
                                ", B " + dims(y) + ")",
                            {}, node.name);
        if (keys > kMaxDim / a.heads)
            throw UserError("heads × B's positions is too large", {}, node.name);
        return checkedShape(node, a.heads * keys, x.h, x.w);
    }
    if (x.c != a.heads * keys)
        throw UserError("A·B needs A's channels (" + dims(x) + ") to be heads (" +
                            std::to_string(a.heads) + ") × B's positions per window (" + dims(y) +
                            " / " + std::to_string(a.windows) + ")",
                        {}, node.name);
    return checkedShape(node, y.c, x.h, x.w);
}

} // namespace ios::ir::detail

namespace ios::ir {

TensorShape inferShape(const Node& node, const ShapeLookup& shapeOf) {
    using namespace detail;
    switch (node.kind) {
    case NodeKind::Placeholder:
        return checkedShape(node, node.outputShape.c, node.outputShape.h, node.outputShape.w);
    case NodeKind::Opaque: // declared shape; inputs of any shape (each value must exist)
        for (const Term& term : node.inputs)
            for (const ValueRef& v : term) {
                const TensorShape* src = shapeOf(v.node);
                if (src == nullptr)
                    throw UserError("unknown input '" + v.node + "'", {}, node.name);
                if (v.begin < 0 || v.end > src->c || v.begin >= v.end)
                    throw UserError("channel range of input '" + v.node + "' is out of bounds", {},
                                    node.name);
            }
        return checkedShape(node, node.outputShape.c, node.outputShape.h, node.outputShape.w);
    case NodeKind::Sequential: {
        if (node.nodes.empty())
            throw UserError("sequential node has no inner nodes", {}, node.name);
        // Each inner node reads the previous one; the first reads the outside world.
        TensorShape prev{};
        std::string prevName;
        for (size_t i = 0; i < node.nodes.size(); ++i) {
            const Node& inner = node.nodes[i];
            if (inner.kind == NodeKind::Sequential || inner.kind == NodeKind::Placeholder)
                throw UserError("a sequential node may not contain a " +
                                    std::string(toString(inner.kind)) + " node",
                                {}, inner.name);
            if (i == 0) {
                prev = inferShape(inner, shapeOf);
            } else {
                const TensorShape before = prev;
                prev = inferShape(inner, [&](const std::string& name) -> const TensorShape* {
                    return name == prevName ? &before : nullptr;
                });
            }
            prevName = inner.name;
        }
        return prev;
    }
    case NodeKind::Matmul:
        return matmulShape(node, shapeOf);
    default:
        break;
    }

    const TensorShape in = combinedInput(node, node.inputs, shapeOf);
    switch (node.kind) {
    case NodeKind::Conv: {
        const ConvAttrs& a = node.conv;
        requireRange(node, "out_channels", a.outChannels, 1, kMaxDim);
        requireRange(node, "groups", a.groups, 1, kMaxDim);
        requireHw(node, "kernel", a.kernel, 1);
        requireHw(node, "stride", a.stride, 1);
        requireHw(node, "padding", a.padding, 0);
        if (in.c % a.groups != 0 || a.outChannels % a.groups != 0)
            throw UserError("groups = " + std::to_string(a.groups) +
                                " does not divide input channels (" + std::to_string(in.c) +
                                ") and out_channels (" + std::to_string(a.outChannels) + ")",
                            {}, node.name);
        return checkedShape(node, a.outChannels,
                            windowExtent(node, in.h, a.kernel.h, a.stride.h, a.padding.h),
                            windowExtent(node, in.w, a.kernel.w, a.stride.w, a.padding.w));
    }
    case NodeKind::Pool: {
        const PoolAttrs& a = node.pool;
        if (a.type == PoolType::GlobalAvg || a.type == PoolType::GlobalMax)
            return checkedShape(node, in.c, 1, 1);
        requireHw(node, "kernel", a.kernel, 1);
        requireHw(node, "stride", a.stride, 1);
        requireHw(node, "padding", a.padding, 0);
        return checkedShape(node, in.c,
                            windowExtent(node, in.h, a.kernel.h, a.stride.h, a.padding.h),
                            windowExtent(node, in.w, a.kernel.w, a.stride.w, a.padding.w));
    }
    case NodeKind::Tokens: {
        const TokenAttrs& a = node.tokens;
        requireRange(node, "out_hw", a.outHw.h, 1, kMaxDim);
        requireRange(node, "out_hw", a.outHw.w, 1, kMaxDim);
        if (a.index.empty() || static_cast<int64_t>(a.index.size()) != a.outHw.h * a.outHw.w)
            throw UserError("tokens: index has " + std::to_string(a.index.size()) +
                                " entries for out_hw " + std::to_string(a.outHw.h) + "x" +
                                std::to_string(a.outHw.w),
                            {}, node.name);
        const int64_t positions = in.h * in.w;
        for (int64_t i : a.index)
            if (i >= positions || i < -kMaxDim)
                throw UserError("tokens: index " + std::to_string(i) + " is outside the input's " +
                                    std::to_string(positions) + " positions",
                                {}, node.name);
        // The embedding table repeats along the channels and positions: its extents divide them.
        const auto period = [&](const char* field, int64_t p, int64_t extent) {
            if (p < 0 || (p > 0 && extent % p != 0))
                throw UserError("tokens: " + std::string(field) + " = " + std::to_string(p) +
                                    " does not divide " + std::to_string(extent),
                                {}, node.name);
        };
        period("embed_channels", a.embedChannels, in.c);
        period("embed_positions", a.embedPositions, a.outHw.h * a.outHw.w);
        return checkedShape(node, in.c, a.outHw.h, a.outHw.w);
    }
    case NodeKind::Norm: {
        const NormAttrs& a = node.norm;
        requireRange(node, "groups", a.groups, 1, kMaxDim);
        if (in.c % a.groups != 0)
            throw UserError("groups = " + std::to_string(a.groups) +
                                " does not divide the input channels (" + std::to_string(in.c) +
                                ")",
                            {}, node.name);
        if (!(a.epsilon >= 0 && a.epsilon <= 1)) // NaN fails too
            throw UserError("epsilon must be in [0, 1]", {}, node.name);
        return checkedShape(node, in.c, in.h, in.w);
    }
    default: // identity, relu, activation, element: shape of the combined input
        return checkedShape(node, in.c, in.h, in.w);
    }
}

} // namespace ios::ir
