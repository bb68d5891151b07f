// SPDX-License-Identifier: Apache-2.0
// The lowering state shared by onnx_lowering.cpp (operator rules) and onnx_lowering_graph.cpp
// (the walk over the graph, opaque operators, the output). Internal to engine/io/onnx.
#pragma once

#include "io/onnx/onnx_lowering.h"
#include "io/onnx/onnx_shape.h"
#include "util/error.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

namespace ios::io::onnx::detail {

using ir::ActType;
using ir::NodeKind;
using ir::Term;
using ir::ValueRef;

// How an ONNX data tensor relates to the IR values (`terms`) that hold its contents.
enum class View {
    Plain,    // [1, C, H, W] (or [1, C]) laid out as the terms
    Padded,   // a Pad output: the terms unpadded, awaiting a Conv/Pool to take the padding
    Flat,     // [1, C*H*W] of terms with spatial size termHw (Flatten/Reshape before a Gemm)
    Reshaped, // an intermediate of a channel shuffle (Reshape → Transpose → Reshape)
    // [..., C]: the last axis is the IR's channels and the others enumerate the positions in
    // order (a Transpose (0, 2, 3, 1) of a Plain [1, C, H, W]; token sequences [1, T, C]);
    // operators along the last axis are operators along the IR's channels (docs/onnx.md).
    ChannelsLast,
    // Any other arrangement of the same terms: chanAxes enumerate the channels and posAxes the
    // positions, each major → minor (attention heads: [heads, T, d] has chanAxes {0, 2}).
    Axes,
};

struct Val {
    View view = View::Plain;
    std::vector<Term> terms;
    ir::Hw termHw{1, 1};
    std::vector<int64_t> dims;          // the ONNX dims of this tensor
    std::vector<int64_t> origDims;      // Reshaped: the 4-D dims of the terms
    bool permuted = false;              // Reshaped: a Transpose moved channels
    int irNode = -1;                    // the terms are exactly this node's whole output
    bool poisoned = false;              // produced by an unsupported operator (error mode)
    std::vector<int> chanAxes, posAxes; // Axes: which ONNX axes (size-1 axes in neither)
    double alpha = 1.0; // a scalar factor pending for the MatMul(s) that alone read this value
};

inline int64_t width(const std::vector<Term>& terms) {
    int64_t c = 0;
    for (const Term& t : terms)
        c += t.front().channels();
    return c;
}

// Channels [lo, hi) of a concatenation of terms.
std::vector<Term> sliceTerms(const std::vector<Term>& terms, int64_t lo, int64_t hi);

// The IR activation an ONNX activation costs like (docs/onnx.md).
ActType actFor(const std::string& op);

// [C, H, W·…] of ONNX dims [N, C, H, W, …] ([C, 1, 1] for [N, C]).
ir::TensorShape chw(const std::vector<int64_t>& d);

// Smallest symmetric IR padding giving the ONNX output extent (asymmetric pads, ceil_mode,
// auto_pad and dilation all reduce to this; docs/onnx.md). Throws naming node n.
int64_t fitPadding(const Node& n, int64_t in, int64_t out, int64_t k, int64_t s);

// Whether ONNX axis `axis` of x is the IR's channel axis at every position (for a norm:
// `throughLast` = the operator reduces from the axis to the last one); `groups`, when given,
// receives how many equal channel groups it splits into (attention heads before the axis).
bool isChannelAxis(const Val& x, int64_t axis, bool throughLast, int64_t* groups = nullptr);

// Whether a constant of dims `c` varies at most along x's channel axis (broadcast against x).
bool perChannel(const std::vector<int64_t>& c, const Val& x);

class Lowerer {
    friend class TokenRules; // onnx_tokens.cpp, onnx_attention.cpp: tokens, heads, attention
public:
    Lowerer(const Model& m, const TensorTable& t, bool allowOpaque)
        : model_(m), tensors_(t), allowOpaque_(allowOpaque) {
        for (const Node& n : m.nodes)
            for (const std::string& in : n.inputs)
                if (!in.empty()) {
                    ++uses_[in];
                    consumers_[in].push_back(&n);
                }
        for (const std::string& o : m.outputs)
            ++uses_[o];
    }

    Lowered run(const std::vector<size_t>& order, const std::string& dataInput);

private:
    const std::vector<int64_t>& dimsOf(const Node& n, const std::string& tensor) const {
        auto it = tensors_.find(tensor);
        if (it == tensors_.end() || !it->second.known)
            // The input's dims are known by now (onnx_import.cpp refuses dynamic ones), so
            // the cause is upstream arithmetic, not something --input-shape fixes.
            throw UserError("cannot infer the shape of tensor '" + tensor + "' (" + n.opType +
                                "): it depends on values the importer does not compute (an "
                                "operator it does not fold, or a weight without a declared "
                                "shape)",
                            {}, n.name);
        return it->second.dims;
    }
    const Val* data(const std::string& tensor) const {
        auto it = vals_.find(tensor);
        return it == vals_.end() ? nullptr : &it->second;
    }
    bool soleUse(const std::string& tensor) const {
        auto it = uses_.find(tensor);
        return it != uses_.end() && it->second == 1;
    }
    // A unique IR name: `base`, else base_2, base_3, ... The next suffix to try is kept per
    // base, so 100 000 unnamed nodes cost linear time, not a search from _2 each. (Names are
    // never released, so every suffix below the counter is still taken: the result is the
    // smallest free one, as a search from _2 would find.)
    int add(ir::Node node, const std::string& base) {
        std::string name = base.empty() ? "node" : base;
        if (!names_.insert(name).second) {
            int& k = nextSuffix_.try_emplace(base, 2).first->second;
            do
                name = base + "_" + std::to_string(k++);
            while (!names_.insert(name).second);
        }
        node.name = name;
        nodes_.push_back(std::move(node));
        return static_cast<int>(nodes_.size()) - 1;
    }
    // A Plain value holding node `idx`'s whole output, with ONNX dims `dims`.
    Val nodeVal(int idx, const std::vector<int64_t>& dims) const {
        const ir::Node& n = nodes_[static_cast<size_t>(idx)];
        Val v;
        v.terms = {{ValueRef{n.name, 0, n.outputShape.c}}};
        v.termHw = {n.outputShape.h, n.outputShape.w};
        v.dims = dims;
        v.irNode = idx;
        if (dims.size() == 2)
            v.view = View::Flat;
        return v;
    }
    int newNode(const Node& src, NodeKind kind, std::vector<Term> inputs, const Val& like) {
        ir::Node n;
        n.kind = kind;
        n.hintName = src.opType;
        n.inputs = std::move(inputs);
        n.outputShape = {width(n.inputs), like.termHw.h, like.termHw.w};
        return add(std::move(n), src.name);
    }
    // A value whose terms form one term (materializing a concatenation as an identity node).
    Term oneTerm(const Node& src, const Val& v) {
        if (v.terms.size() == 1)
            return v.terms.front();
        const int idx = newNode(src, NodeKind::Identity, v.terms, v);
        return nodeVal(idx, v.dims).terms.front();
    }
    // `like` with its terms replaced by node idx's output.
    Val replaced(const Val& like, int idx) const {
        Val v = like;
        v.terms = nodeVal(idx, like.dims).terms;
        v.irNode = idx;
        return v;
    }
    ir::Node& irNode(const Val& v) { return nodes_[static_cast<size_t>(v.irNode)]; }

    bool lowerNode(const Node& n, const std::vector<const Val*>& in);
    bool lowerWindow(const Node& n, const Val& x);
    bool lowerActivation(const Node& n, const Val& x);
    bool lowerBinary(const Node& n, const std::vector<const Val*>& in);
    bool lowerShapeOp(const Node& n, const Val& x);
    bool lowerNorm(const Node& n, const std::vector<const Val*>& in);
    bool lowerLinear(const Node& n, const Val& x);
    // data ⊙ a per-channel constant folded into its producer (a conv's weights and bias, a
    // LayerNorm's scale and shift); false when the producer cannot take it.
    bool foldConstant(const Node& n, const Val& x, const std::string& xName,
                      const std::string& constant);
    void opaque(const Node& n, const std::vector<const Val*>& in, const std::string& why);

    const Model& model_;
    const TensorTable& tensors_;
    bool allowOpaque_;
    std::unordered_map<std::string, int> uses_;
    std::unordered_map<std::string, std::vector<const Node*>> consumers_;
    std::unordered_map<std::string, Val> vals_;
    std::vector<ir::Node> nodes_;
    std::unordered_set<std::string> names_;
    std::unordered_map<std::string, int> nextSuffix_; // add(): next suffix per base name
    std::map<std::string, std::vector<std::string>> unsupported_; // op → node names
};

// The network's input (onnx_inputs.cpp): its placeholder, the value the operators read, and
// the embedding lookups that stand for it when the input is token ids.
struct NetworkInput {
    ir::Node placeholder;
    Val val;
    std::vector<const Node*> lookups; // their outputs are `val`; they lower to nothing
};
NetworkInput
networkInput(const std::string& dataInput, const TensorTable& tensors,
             const std::unordered_map<std::string, std::vector<const Node*>>& consumers);

struct Roles; // onnx_roles.h

// Rules for token sequences and attention heads (onnx_tokens.cpp, onnx_attention.cpp): layouts by
// axis roles (docs/onnx.md "Tokens and heads"), position gathers, products of two activations.
class TokenRules {
public:
    explicit TokenRules(Lowerer& l) : l_(l) {}
    // Transpose, Reshape/Flatten/Squeeze/Unsqueeze, Slice, Split and Gather over any view.
    bool layout(const Node& n, const Val& x);
    bool concat(const Node& n, const std::vector<const Val*>& in);
    // ReduceMean/ReduceMax over every position axis (sorted `axes`): a global pool.
    bool reduce(const Node& n, const Val& x, const std::vector<int64_t>& axes);
    // MatMul and Einsum of two activations (onnx_attention.cpp).
    bool matmul(const Node& n, const Val& a, const Val& b);
    bool einsum(const Node& n, const Val& a, const Val& b);
    // x copied into like's order of positions when both hold the same axes in other orders
    // (MaxViT's grid attention added back to its input); nothing otherwise.
    std::optional<Val> inOrderOf(const Node& n, const Val& x, const Val& like);
    // data ⊙ constant that no producer folds: a scalar a MatMul takes, or a learned table
    // added along the positions (a positional embedding).
    bool constant(const Node& n, const Val& x, const std::string& xName,
                  const std::string& constant);
    // Where(constant mask, fill, x) or (mask, x, fill): masked_fill, an added table.
    bool masked(const Node& n, const std::vector<const Val*>& in);

private:
    bool transpose(const Node& n, const Val& x);
    bool reshape(const Node& n, const Val& x);
    bool slice(const Node& n, const Val& x);
    bool split(const Node& n, const Val& x);
    // x cut to `ranges` (one per axis) of extents `out`: a channel range or a position gather.
    std::optional<Val> sliced(const Node& n, const Val& x, const std::vector<SliceRange>& ranges,
                              const std::vector<int64_t>& out);
    bool gather(const Node& n, const Val& x);
    // x's positions copied into the order of `to` (a permutation of x's position axes) by a
    // tokens node named after n with `suffix`, laid out as `hw` when given.
    Val reordered(const Node& n, const char* suffix, const Val& x, const Roles& to,
                  std::optional<ir::Hw> hw);
    // A tokens node reading x's terms: output position i copies x's position index[i].
    Val gathered(const Node& n, const Val& x, std::vector<int64_t> index,
                 const std::vector<int64_t>& dims, const std::vector<int>& posAxes);
    Lowerer& l_;
};

} // namespace ios::io::onnx::detail
