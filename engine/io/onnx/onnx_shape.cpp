// SPDX-License-Identifier: Apache-2.0
#include "io/onnx/onnx_shape.h"

#include "io/onnx/onnx_checks.h"
#include "io/onnx/onnx_values.h"
#include "util/checked.h"
#include "util/error.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>

namespace ios::io::onnx {

namespace {

using namespace detail;

// A checked result of shape arithmetic, or a UserError naming the node.
int64_t must(const Node& node, std::optional<int64_t> v, const char* what) {
    if (!v)
        fail(node, std::string(what) + " overflows 64-bit integers");
    return *v;
}

class Inference {
public:
    Inference(const Model& m, TensorTable& t) : model_(m), table_(t) {}

    void run(const Node& node);

private:
    const TensorInfo* in(const Node& node, size_t i) const {
        if (i >= node.inputs.size() || node.inputs[i].empty())
            return nullptr;
        auto it = table_.find(node.inputs[i]);
        return it != table_.end() && it->second.known ? &it->second : nullptr;
    }
    const std::vector<int64_t>* valueOf(const Node& node, size_t i) const {
        const TensorInfo* t = in(node, i);
        return t && t->value ? &*t->value : nullptr;
    }
    void set(const Node& node, size_t out, std::vector<int64_t> dims,
             std::optional<std::vector<int64_t>> value = std::nullopt) {
        if (out >= node.outputs.size() || node.outputs[out].empty())
            return;
        checkDims(node, dims);
        if (value && static_cast<int64_t>(value->size()) > kMaxFoldedElements)
            value.reset();
        table_[node.outputs[out]] = TensorInfo{true, std::move(dims), std::move(value)};
    }
    std::optional<std::vector<int64_t>> ints(const Node& node, size_t input,
                                             std::string_view attrName) const {
        return constInts(node, input, attrName, table_);
    }
    void window(const Node& node, const TensorInfo& x, const std::vector<int64_t>& kernel,
                int64_t outChannels);
    void reduce(const Node& node, const TensorInfo& x);
    // Where(cond, a, b): broadcast dims; values folded for small constants.
    void where(const Node& node);
    // Softmax's and LayerNormalization's axis, and LayerNorm's scale and bias against it.
    void checkNormAxis(const Node& node, const TensorInfo& x) const;
    void slice(const Node& node, const TensorInfo& x);
    // Range(start, limit, delta) on folded integers (Swin's shift mask).
    void range(const Node& node);
    // Einsum: each output letter's extent from the operands (docs/onnx.md).
    void einsum(const Node& node);

    const Model& model_;
    TensorTable& table_;
};

void Inference::window(const Node& node, const TensorInfo& x, const std::vector<int64_t>& kernel,
                       int64_t outChannels) {
    const size_t spatial = x.dims.size() - 2;
    if (x.dims.size() < 3 || kernel.size() != spatial)
        fail(node, "kernel rank " + std::to_string(kernel.size()) + " does not match input " +
                       dimsText(x.dims));
    auto strides = node.attrInts("strides");
    auto dil = node.attrInts("dilations");
    auto pads = node.attrInts("pads");
    strides.resize(spatial, 1);
    dil.resize(spatial, 1);
    pads.resize(2 * spatial, 0);
    const std::string autoPad = node.attrString("auto_pad", "NOTSET");
    std::vector<int64_t> out{x.dims[0], outChannels};
    for (size_t i = 0; i < spatial; ++i) {
        const int64_t inExt = x.dims[i + 2];
        if (strides[i] < 1 || dil[i] < 1 || kernel[i] < 1 || pads[i] < 0 || pads[i + spatial] < 0)
            fail(node, "kernel, strides, dilations and pads must be positive");
        if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            out.push_back(inExt / strides[i] + (inExt % strides[i] != 0 ? 1 : 0)); // ceil
        } else if (autoPad == "VALID") {
            out.push_back(windowOutput(node, inExt, kernel[i], strides[i], dil[i], 0, 0, false));
        } else if (autoPad == "NOTSET" || autoPad.empty()) {
            out.push_back(windowOutput(node, inExt, kernel[i], strides[i], dil[i], pads[i],
                                       pads[i + spatial], node.attrInt("ceil_mode", 0) != 0));
        } else {
            fail(node, "unknown auto_pad '" + autoPad + "'");
        }
    }
    set(node, 0, out);
}

void Inference::where(const Node& node) {
    const TensorInfo *c = in(node, 0), *a = in(node, 1), *b = in(node, 2);
    if (c == nullptr || a == nullptr || b == nullptr)
        return;
    const std::vector<int64_t> out = broadcast(node, broadcast(node, c->dims, a->dims), b->dims);
    std::optional<std::vector<int64_t>> value;
    const int64_t n = out.empty() ? 1 : out[0];
    const auto fits = [n](const std::optional<std::vector<int64_t>>& v) {
        return v && (v->size() == 1 || static_cast<int64_t>(v->size()) == n);
    };
    if (out.size() <= 1 && fits(c->value) && fits(a->value) && fits(b->value)) {
        const auto at = [](const std::vector<int64_t>& v, int64_t k) {
            return v[v.size() == 1 ? 0 : static_cast<size_t>(k)];
        };
        value.emplace();
        for (int64_t k = 0; k < n; ++k)
            value->push_back(at(*c->value, k) != 0 ? at(*a->value, k) : at(*b->value, k));
    }
    set(node, 0, out, value);
}

void Inference::range(const Node& node) {
    const auto *start = valueOf(node, 0), *limit = valueOf(node, 1), *delta = valueOf(node, 2);
    if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 ||
        delta->size() != 1)
        return;
    const int64_t a = start->front(), b = limit->front(), d = delta->front();
    if (d == 0 || std::max({std::abs(a), std::abs(b), std::abs(d)}) > kMaxDimValue)
        fail(node, "invalid range " + std::to_string(a) + " to " + std::to_string(b) + " by " +
                       std::to_string(d));
    const int64_t n = std::max<int64_t>(0, d > 0 ? (b - a + d - 1) / d : (a - b - d - 1) / -d);
    std::vector<int64_t> values;
    for (int64_t k = 0; k < n && n <= kMaxFoldedElements; ++k)
        values.push_back(a + k * d);
    set(node, 0, {n}, n <= kMaxFoldedElements ? std::optional(values) : std::nullopt);
}

void Inference::einsum(const Node& node) {
    std::vector<std::vector<int64_t>> operands;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        const TensorInfo* t = in(node, i);
        if (t == nullptr)
            return;
        operands.push_back(t->dims);
    }
    set(node, 0, einsumDims(node, operands));
}

void Inference::checkNormAxis(const Node& node, const TensorInfo& x) const {
    const auto rank = static_cast<int64_t>(x.dims.size());
    const int64_t axis = node.attrInt("axis", -1); // the default is in range whenever -1 is
    if (axis < -rank || axis >= rank)
        fail(node,
             "axis " + std::to_string(axis) + " is out of range for input " + dimsText(x.dims));
    if (node.opType != "LayerNormalization")
        return;
    // Scale and B broadcast to the normalized dims x[axis:].
    const std::vector<int64_t> normalized(x.dims.begin() + (axis < 0 ? axis + rank : axis),
                                          x.dims.end());
    for (size_t i = 1; i < 3; ++i)
        if (const TensorInfo* p = in(node, i); p != nullptr) {
            bool fits = p->dims.size() <= normalized.size();
            for (size_t k = 0; fits && k < p->dims.size(); ++k) {
                const int64_t want = normalized[normalized.size() - p->dims.size() + k];
                fits = p->dims[k] == want || p->dims[k] == 1;
            }
            if (!fits)
                fail(node, std::string(i == 1 ? "scale " : "bias ") + dimsText(p->dims) +
                               " does not match the normalized dims " + dimsText(normalized) +
                               " of input " + dimsText(x.dims));
        }
}

void Inference::reduce(const Node& node, const TensorInfo& x) {
    const auto axesList = ints(node, 1, "axes");
    std::vector<bool> reduced(x.dims.size(), !axesList || axesList->empty());
    if (axesList)
        for (int64_t a : *axesList)
            reduced[normAxis(node, a, x.dims.size())] = true;
    const bool keep = node.attrInt("keepdims", 1) != 0;
    std::vector<int64_t> out;
    for (size_t i = 0; i < x.dims.size(); ++i)
        if (!reduced[i])
            out.push_back(x.dims[i]);
        else if (keep)
            out.push_back(1);
    set(node, 0, out);
}

void Inference::slice(const Node& node, const TensorInfo& x) {
    const auto ranges = sliceRanges(node, x.dims, table_);
    if (!ranges)
        return; // non-constant bounds: shape unknown
    std::vector<int64_t> out;
    for (const SliceRange& r : *ranges)
        out.push_back(r.length());
    std::optional<std::vector<int64_t>> value;
    if (x.value) // shape arithmetic, such as Swin's pads reversed by a Slice of step -1
        value = remapValues(*x.value, x.dims, out,
                            [&](const std::vector<int64_t>& i, std::vector<int64_t>& from) {
                                for (size_t a = 0; a < i.size(); ++a)
                                    from[a] = (*ranges)[a].begin + i[a] * (*ranges)[a].step;
                            });
    set(node, 0, out, value);
}

void Inference::run(const Node& node) {
    const std::string& op = node.opType;
    // Unary arithmetic the lowering does not know (it lists them when they reach the data) but
    // whose shape a constant scale computed from them needs (GPT-style 1 / √d: Reciprocal).
    const bool unaryMath = op == "Sqrt" || op == "Reciprocal" || op == "Neg";
    if (!isKnownOp(node) && !unaryMath) {
        for (size_t o = 0; o < node.outputs.size(); ++o)
            if (auto it = model_.valueInfo.find(node.outputs[o]);
                it != model_.valueInfo.end() && it->second.hasShape &&
                std::none_of(it->second.dims.begin(), it->second.dims.end(),
                             [](int64_t d) { return d < 0; }))
                set(node, o, it->second.dims);
        return;
    }
    if (op == "Constant") {
        if (const Attribute* a = node.attr("value"); a && a->t)
            return set(node, 0, a->t->dims, a->t->ints);
        if (const Attribute* a = node.attr("value_int"))
            return set(node, 0, {}, std::vector<int64_t>{a->i});
        if (const Attribute* a = node.attr("value_ints"))
            return set(node, 0, {static_cast<int64_t>(a->ints.size())}, a->ints);
        if (node.attr("value_float"))
            return set(node, 0, {});
        fail(node, "Constant without a supported value attribute");
    }
    const TensorInfo* x = in(node, 0);
    if (x == nullptr && op != "Sum")
        return; // unknown input: the lowering names the first node it cannot shape
    if (op == "Identity" || op == "Cast" || op == "Dropout" || op == "Relu" || op == "Clip" ||
        op == "Sigmoid" || op == "HardSigmoid" || op == "HardSwish" || op == "Tanh" ||
        op == "LeakyRelu" || op == "BatchNormalization" || op == "Softmax" || op == "Gelu" ||
        op == "LayerNormalization" || op == "Not" || op == "ScatterND" || unaryMath) {
        if (op == "Softmax" || op == "LayerNormalization")
            checkNormAxis(node, *x);
        const bool passValue = op == "Identity" || op == "Cast";
        set(node, 0, x->dims, passValue ? x->value : std::nullopt);
        if (op == "Dropout")
            set(node, 1, x->dims);
        return;
    }
    if (op == "Shape") {
        const auto r = static_cast<int64_t>(x->dims.size());
        int64_t b = node.attrInt("start", 0), e = node.attrInt("end", r);
        b = std::clamp(b < 0 ? b + r : b, int64_t{0}, r);
        e = std::clamp(e < 0 ? e + r : e, int64_t{0}, r);
        std::vector<int64_t> v(x->dims.begin() + b, x->dims.begin() + std::max(b, e));
        return set(node, 0, {static_cast<int64_t>(v.size())}, v);
    }
    // (Pow: dims only; its values are not folded. Swin's head_dim ** -0.5 is a constant.)
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Sum" || op == "Mod" ||
        op == "Equal" || op == "Pow") {
        std::vector<int64_t> dims;
        std::optional<std::vector<int64_t>> value;
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            const TensorInfo* t = in(node, i);
            if (t == nullptr)
                return;
            if (i == 0) {
                dims = t->dims;
                value = t->value;
                continue;
            }
            const std::vector<int64_t> out = broadcast(node, dims, t->dims);
            if (value && t->value && out.size() <= 1 && !out.empty()) {
                std::vector<int64_t> v;
                for (int64_t k = 0; k < out[0]; ++k) {
                    const int64_t a = (*value)[value->size() == 1 ? 0 : static_cast<size_t>(k)];
                    const int64_t b =
                        (*t->value)[t->value->size() == 1 ? 0 : static_cast<size_t>(k)];
                    if (auto r = foldBinary(node, a, b))
                        v.push_back(*r);
                }
                value = v.size() == static_cast<size_t>(out[0]) ? std::optional(v) : std::nullopt;
            } else if (value && t->value && out.empty()) {
                auto r = foldBinary(node, value->at(0), t->value->at(0));
                value = r ? std::optional(std::vector<int64_t>{*r}) : std::nullopt;
            } else {
                value.reset();
            }
            dims = out;
        }
        return set(node, 0, dims, value);
    }
    if (op == "Where")
        return where(node);
    if (op == "Range")
        return range(node);
    if (op == "Einsum")
        return einsum(node);
    if (op == "Expand") { // broadcast to a shape (ViT's class token)
        const std::vector<int64_t>* shape = valueOf(node, 1);
        return shape == nullptr ? void() : set(node, 0, broadcast(node, x->dims, *shape));
    }
    if (op == "Gather") {
        const TensorInfo* idx = in(node, 1);
        if (idx == nullptr)
            return;
        if (x->dims.empty())
            fail(node, "cannot gather from a scalar");
        const size_t axis = normAxis(node, node.attrInt("axis", 0), x->dims.size());
        std::vector<int64_t> out(x->dims.begin(), x->dims.begin() + static_cast<long>(axis));
        out.insert(out.end(), idx->dims.begin(), idx->dims.end());
        out.insert(out.end(), x->dims.begin() + static_cast<long>(axis) + 1, x->dims.end());
        std::optional<std::vector<int64_t>> value;
        if (x->value && idx->value && x->dims.size() == 1) {
            value.emplace();
            for (int64_t i : *idx->value) {
                const int64_t n = x->dims[0];
                if (i < -n || i >= n)
                    fail(node, "index " + std::to_string(i) + " is out of range");
                value->push_back((*x->value)[static_cast<size_t>(i < 0 ? i + n : i)]);
            }
        }
        return set(node, 0, out, value);
    }
    if (op == "Unsqueeze" || op == "Squeeze") {
        const auto axesList = ints(node, 1, "axes");
        std::vector<int64_t> out;
        if (op == "Unsqueeze") {
            if (!axesList)
                fail(node, "Unsqueeze needs constant axes");
            const size_t rank = x->dims.size() + axesList->size();
            std::vector<bool> isNew(rank, false);
            for (int64_t a : *axesList)
                isNew[normAxis(node, a, rank)] = true;
            size_t k = 0;
            for (size_t i = 0; i < rank; ++i)
                out.push_back(isNew[i] ? 1 : (k < x->dims.size() ? x->dims[k++] : 1));
        } else {
            std::vector<bool> drop(x->dims.size(), false);
            for (size_t i = 0; i < x->dims.size(); ++i)
                drop[i] = !axesList && x->dims[i] == 1;
            if (axesList)
                for (int64_t a : *axesList)
                    drop[normAxis(node, a, x->dims.size())] = true;
            for (size_t i = 0; i < x->dims.size(); ++i)
                if (!drop[i])
                    out.push_back(x->dims[i]);
        }
        return set(node, 0, out, x->value);
    }
    if (op == "Concat") {
        if (x->dims.empty())
            fail(node, "cannot concatenate scalars");
        const size_t axis = normAxis(node, node.attrInt("axis", 0), x->dims.size());
        std::vector<int64_t> out = x->dims;
        std::optional<std::vector<int64_t>> value = x->value;
        for (size_t i = 1; i < node.inputs.size(); ++i) {
            const TensorInfo* t = in(node, i);
            if (t == nullptr)
                return;
            if (t->dims.size() != out.size())
                fail(node, "inputs of different ranks");
            for (size_t d = 0; d < out.size(); ++d)
                if (d != axis && t->dims[d] != out[d])
                    fail(node, "inputs " + dimsText(x->dims) + " and " + dimsText(t->dims) +
                                   " differ outside axis " + std::to_string(axis));
            out[axis] =
                must(node, checked::add(out[axis], t->dims[axis]), "the concatenated extent");
            if (value && t->value && out.size() == 1)
                value->insert(value->end(), t->value->begin(), t->value->end());
            else
                value.reset();
        }
        return set(node, 0, out, value);
    }
    if (op == "Reshape") {
        const auto* target = valueOf(node, 1);
        if (target == nullptr)
            return;
        std::vector<int64_t> out;
        int64_t known = 1, inferAt = -1;
        const int64_t total = must(node, checked::product(x->dims), "the input element count");
        const bool allowZero = node.attrInt("allowzero", 0) != 0;
        for (size_t i = 0; i < target->size(); ++i) {
            int64_t d = (*target)[i];
            if (d == 0 && !allowZero) {
                if (i >= x->dims.size())
                    fail(node, "target dim 0 copies a missing input dim");
                d = x->dims[i];
            }
            if (d == -1) {
                if (inferAt >= 0)
                    fail(node, "more than one -1 in the target shape");
                inferAt = static_cast<int64_t>(i);
                out.push_back(1);
                continue;
            }
            if (d < 0 || d > kMaxDimValue)
                fail(node, "invalid target dim " + std::to_string(d));
            known = must(node, checked::mul(known, std::max<int64_t>(d, 1)),
                         "the target element count");
            out.push_back(d);
        }
        if (inferAt >= 0)
            out[static_cast<size_t>(inferAt)] = known == 0 ? 0 : total / known;
        if (must(node, checked::product(out), "the target element count") != total)
            fail(node, "cannot reshape " + dimsText(x->dims) + " to " + dimsText(*target));
        return set(node, 0, out, x->value);
    }
    if (op == "Flatten") {
        const auto r = static_cast<int64_t>(x->dims.size());
        int64_t axis = node.attrInt("axis", 1);
        if (axis < -r || axis > r)
            fail(node, "axis " + std::to_string(axis) + " is out of range");
        axis = axis < 0 ? axis + r : axis;
        const auto mid = x->dims.begin() + axis;
        return set(node, 0,
                   {must(node, checked::product(std::vector<int64_t>(x->dims.begin(), mid)),
                         "the flattened extent"),
                    must(node, checked::product(std::vector<int64_t>(mid, x->dims.end())),
                         "the flattened extent")});
    }
    if (op == "Transpose") {
        std::vector<int64_t> perm = node.attrInts("perm");
        if (perm.empty())
            for (size_t i = x->dims.size(); i-- > 0;)
                perm.push_back(static_cast<int64_t>(i));
        if (perm.size() != x->dims.size())
            fail(node, "perm does not match the input rank");
        std::vector<int64_t> out;
        std::vector<bool> used(perm.size(), false);
        for (int64_t p : perm) {
            const size_t a = normAxis(node, p, x->dims.size());
            if (used[a])
                fail(node, "perm repeats an axis");
            used[a] = true;
            out.push_back(x->dims[a]);
        }
        std::optional<std::vector<int64_t>> value;
        if (x->value)
            value = remapValues(*x->value, x->dims, out,
                                [&](const std::vector<int64_t>& i, std::vector<int64_t>& from) {
                                    for (size_t a = 0; a < i.size(); ++a)
                                        from[normAxis(node, perm[a], i.size())] = i[a];
                                });
        return set(node, 0, out, value);
    }
    if (op == "Slice")
        return slice(node, *x);
    if (op == "Split") {
        if (x->dims.empty())
            fail(node, "cannot split a scalar");
        const size_t axis = normAxis(node, node.attrInt("axis", 0), x->dims.size());
        auto sizes = ints(node, 1, "split");
        const auto n = static_cast<int64_t>(node.outputs.size());
        if (!sizes || sizes->empty()) {
            if (n == 0)
                fail(node, "Split has no outputs");
            const int64_t each = (x->dims[axis] + n - 1) / n;
            sizes = std::vector<int64_t>();
            for (int64_t i = 0, left = x->dims[axis]; i < n; ++i, left -= each)
                sizes->push_back(std::min(each, left));
        }
        std::optional<int64_t> sum = 0;
        for (int64_t s : *sizes)
            sum = s < 0 ? std::nullopt : checked::add(sum, s); // a negative size never adds up
        if (sizes->size() != node.outputs.size() || sum != x->dims[axis])
            fail(node, "split sizes do not add up to the axis extent");
        for (size_t i = 0; i < sizes->size(); ++i) {
            auto d = x->dims;
            d[axis] = (*sizes)[i];
            set(node, i, d);
        }
        return;
    }
    if (op == "Conv") {
        const TensorInfo* w = in(node, 1);
        if (w == nullptr)
            return;
        if (w->dims.size() != x->dims.size() || x->dims.size() < 3)
            fail(node,
                 "weight " + dimsText(w->dims) + " does not match input " + dimsText(x->dims));
        const int64_t groups = node.attrInt("group", 1);
        if (groups < 1 || checked::mul(w->dims[1], groups) != x->dims[1])
            fail(node, "input channels " + std::to_string(x->dims[1]) + " != weight " +
                           dimsText(w->dims) + " x group " + std::to_string(groups));
        std::vector<int64_t> kernel(w->dims.begin() + 2, w->dims.end());
        if (auto ks = node.attrInts("kernel_shape"); !ks.empty() && ks != kernel)
            fail(node,
                 "kernel_shape " + dimsText(ks) + " differs from the weight's " + dimsText(kernel));
        return window(node, *x, kernel, w->dims[0]);
    }
    if (op == "MaxPool" || op == "AveragePool") {
        if (x->dims.size() < 3)
            fail(node, "pool input " + dimsText(x->dims) + " has no spatial axes");
        return window(node, *x, node.attrInts("kernel_shape"), x->dims[1]);
    }
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
        auto out = x->dims;
        for (size_t i = 2; i < out.size(); ++i)
            out[i] = 1;
        return set(node, 0, out);
    }
    if (op == "ReduceMean" || op == "ReduceMax")
        return reduce(node, *x);
    if (op == "Gemm" || op == "MatMul") {
        const TensorInfo* b = in(node, 1);
        if (b == nullptr)
            return;
        if (op == "MatMul" && x->dims.size() >= 2 && b->dims.size() > 2) {
            // Batched (attention's Q·Kᵀ and A·V): leading dims broadcast.
            const std::vector<int64_t> lead(x->dims.begin(), x->dims.end() - 2);
            const std::vector<int64_t> bLead(b->dims.begin(), b->dims.end() - 2);
            if (x->dims.back() != b->dims[b->dims.size() - 2])
                fail(node, "inner dimensions of " + dimsText(x->dims) + " and " +
                               dimsText(b->dims) + " differ");
            std::vector<int64_t> out = broadcast(node, lead, bLead);
            out.push_back(x->dims[x->dims.size() - 2]);
            out.push_back(b->dims.back());
            return set(node, 0, out);
        }
        if (x->dims.size() < 2 || b->dims.size() != 2 || (op == "Gemm" && x->dims.size() != 2))
            fail(node,
                 "unsupported operand shapes " + dimsText(x->dims) + " and " + dimsText(b->dims));
        const bool ta = op == "Gemm" && node.attrInt("transA", 0) != 0;
        const bool tb = op == "Gemm" && node.attrInt("transB", 0) != 0;
        const int64_t k = ta ? x->dims[0] : x->dims.back();
        if (k != (tb ? b->dims[1] : b->dims[0]))
            fail(node, "inner dimensions of " + dimsText(x->dims) + " and " + dimsText(b->dims) +
                           " differ");
        auto out = x->dims;
        if (ta)
            out = {x->dims[1], x->dims[0]};
        out.back() = tb ? b->dims[0] : b->dims[1];
        return set(node, 0, out);
    }
    if (op == "Pad") {
        const auto pads = ints(node, 1, "pads");
        if (!pads)
            return;
        if (pads->size() != 2 * x->dims.size())
            fail(node, "pads has " + std::to_string(pads->size()) + " values for rank " +
                           std::to_string(x->dims.size()));
        auto out = x->dims;
        for (size_t i = 0; i < out.size(); ++i)
            out[i] =
                must(node, checked::add(checked::add(out[i], (*pads)[i]), (*pads)[i + out.size()]),
                     "the padded extent");
        return set(node, 0, out);
    }
    if (op == "ConstantOfShape") {
        const auto* shape = valueOf(node, 0);
        if (shape == nullptr)
            return;
        std::optional<std::vector<int64_t>> value;
        const Attribute* a = node.attr("value");
        const int64_t fill =
            a && a->t && a->t->ints && !a->t->ints->empty() ? a->t->ints->at(0) : 0;
        checkDims(node, *shape);
        const int64_t n = must(node, checked::product(*shape), "the element count");
        if (n <= kMaxFoldedElements)
            value = std::vector<int64_t>(static_cast<size_t>(n), fill);
        return set(node, 0, *shape, value);
    }
}

} // namespace

TensorTable inferTensors(const Model& model, const std::vector<size_t>& order,
                         const std::string& dataInput, const std::vector<int64_t>& inputDims) {
    TensorTable table;
    for (const ValueInfo& v : model.inputs)
        if (v.name == dataInput)
            table[v.name] = TensorInfo{true, inputDims, std::nullopt};
        else if (v.hasShape &&
                 std::none_of(v.dims.begin(), v.dims.end(), [](int64_t d) { return d < 0; }))
            table[v.name] = TensorInfo{true, v.dims, std::nullopt};
    for (const auto& [name, t] : model.initializers)
        table[name] = TensorInfo{true, t.dims, t.ints};
    Inference inf(model, table);
    for (size_t i : order)
        inf.run(model.nodes[i]);
    return table;
}

} // namespace ios::io::onnx
