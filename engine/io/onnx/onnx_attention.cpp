// SPDX-License-Identifier: Apache-2.0
// Attention (docs/onnx.md "Tokens and heads"): MatMul and Einsum of two activations become
// `matmul` nodes, with the batch axes split into heads (channel axes) and windows (position
// axes); constant tables added to activations (positional embeddings, attention biases and
// masks) become the embedding of a `tokens` node.
#include "io/onnx/onnx_roles.h"
#include "io/onnx/onnx_values.h"

#include <algorithm>
#include <numeric>

namespace ios::io::onnx::detail {

namespace {

// The extent of the table a constant of dims `cd` needs along the axes `axes` of x (major →
// minor), broadcast right-aligned: everything from the first axis it varies along (1 when it
// varies along none). The table repeats with that period along the IR axis.
int64_t tableExtent(const std::vector<int64_t>& cd, const std::vector<int64_t>& xDims,
                    const std::vector<int>& axes) {
    const size_t rank = xDims.size();
    int64_t extent = 1;
    bool varies = false;
    for (int a : axes) {
        const auto ax = static_cast<size_t>(a);
        const bool inC = ax + cd.size() >= rank; // the constant has this axis
        varies = varies || (inC && cd[ax + cd.size() - rank] != 1);
        if (varies)
            extent *= xDims[ax];
    }
    return extent;
}

} // namespace

bool TokenRules::matmul(const Node& n, const Val& a0, const Val& b0) {
    // ONNX: A [..., M, K] · B [..., K, N] over equal batch dims. Batch axes among A's channel
    // axes are the IR's heads, those among its position axes the IR's windows.
    const auto ra = rolesOf(a0), rb = rolesOf(b0);
    const size_t rank = a0.dims.size();
    if (!ra || !rb || rank < 2 || b0.dims.size() != rank ||
        !std::equal(a0.dims.begin(), a0.dims.end() - 2, b0.dims.begin()))
        return false;
    const auto m = static_cast<int>(rank - 2), k = static_cast<int>(rank - 1);
    std::vector<int> heads, windows;
    for (int axis : nonUnit(a0.dims, 0, rank - 2))
        (std::find(ra->chan.begin(), ra->chan.end(), axis) != ra->chan.end() ? heads : windows)
            .push_back(axis);
    const auto with = [](std::vector<int> axes, int last, const std::vector<int64_t>& d) {
        if (d[static_cast<size_t>(last)] != 1)
            axes.push_back(last);
        return axes;
    };
    // An operand whose positions are held in another order than the product needs (MaxViT's
    // grid attention: the partition holds them window-major, the grid cells are the batch) is
    // copied into that order first, by a tokens node.
    const auto inOrder = [&](const Val& x, const Roles& r, const std::vector<int>& want,
                             const char* suffix) {
        if (r.pos == want ||
            !std::is_permutation(r.pos.begin(), r.pos.end(), want.begin(), want.end()))
            return x;
        return reordered(n, suffix, x, Roles{r.chan, want}, std::nullopt);
    };
    const Val a = inOrder(a0, *ra, with(windows, m, a0.dims), "/order_a");
    if (ra->chan != with(heads, k, a.dims) || rolesOf(a)->pos != with(windows, m, a.dims))
        return false; // A: heads and K along its channels, windows and M along its positions
    // B's channels hold K (Q·Kᵀ) or its positions do (attention · V).
    const bool transposeB = rb->chan == with(heads, m, b0.dims);
    if (!transposeB && rb->chan != with(heads, k, b0.dims))
        return false;
    const std::vector<int> wantB = with(windows, transposeB ? k : m, b0.dims);
    const Val b = inOrder(b0, *rb, wantB, "/order_b");
    if (rolesOf(b)->pos != wantB)
        return false;
    ir::Node node;
    node.kind = NodeKind::Matmul;
    node.hintName = n.opType;
    node.inputs = {l_.oneTerm(n, a), l_.oneTerm(n, b)};
    node.matmul = {product(a.dims, heads), transposeB, a.alpha * b.alpha, product(a.dims, windows)};
    std::vector<int64_t> out = a.dims; // [..., M, N] (an Einsum may permute it afterwards)
    out[static_cast<size_t>(k)] = b0.dims[static_cast<size_t>(k)];
    node.outputShape = {product(out, with(heads, k, out)), a.termHw.h, a.termHw.w};
    Val v = l_.nodeVal(l_.add(std::move(node), n.name), out);
    v.termHw = a.termHw;
    settle(v, Roles{with(heads, k, out), with(windows, m, out)});
    l_.vals_[n.outputs[0]] = v;
    return true;
}

Val TokenRules::reordered(const Node& n, const char* suffix, const Val& x, const Roles& to,
                          std::optional<ir::Hw> hw) {
    Node named = n;
    named.name = n.name + suffix;
    Val v = gathered(named, x, reorderIndex(x, to.pos), x.dims, to.pos);
    if (hw) { // the same positions, laid out in another H×W
        ir::Node& copy = l_.irNode(v);
        copy.tokens.outHw = *hw;
        copy.outputShape = {copy.outputShape.c, hw->h, hw->w};
        v.terms = l_.nodeVal(v.irNode, v.dims).terms;
        v.termHw = *hw;
    }
    v.alpha = x.alpha;
    settle(v, to);
    return v;
}

std::optional<Val> TokenRules::inOrderOf(const Node& n, const Val& x, const Val& like) {
    const auto rx = rolesOf(x), rl = rolesOf(like);
    if (!rx || !rl || x.dims != like.dims || rx->chan != rl->chan || rx->pos == rl->pos ||
        !std::is_permutation(rx->pos.begin(), rx->pos.end(), rl->pos.begin(), rl->pos.end()))
        return std::nullopt;
    return reordered(n, "/order", x, *rl, like.termHw);
}

namespace {

// Where each letter of `to` sits in `from` (a permutation when both hold the same letters).
std::vector<int64_t> letterPerm(const std::string& from, const std::string& to) {
    std::vector<int64_t> perm;
    for (char c : to)
        perm.push_back(static_cast<int64_t>(from.find(c)));
    return perm;
}

std::vector<int64_t> permutedDims(const std::vector<int64_t>& dims,
                                  const std::vector<int64_t>& perm) {
    std::vector<int64_t> out;
    for (int64_t p : perm)
        out.push_back(dims[static_cast<size_t>(p)]);
    return out;
}

} // namespace

// A batched product of two operands in any axis order: batch letters P (in both operands and
// the output), one contracted letter k (in both, not the output), one free letter i of A and
// one j of B (each in the output). The operands' views are permuted (no copy) into
// [P, i, k] and [P, k, j], multiplied, and the result's view permuted into the output's order.
// Other equations (several contracted or free letters, a letter summed out of one operand)
// stay unsupported.
bool TokenRules::einsum(const Node& n, const Val& a, const Val& b) {
    const std::optional<EinsumSpec> e = parseEinsum(n);
    if (!e || e->inputs.size() != 2)
        return false;
    const std::string &x = e->inputs[0], &y = e->inputs[1], &z = e->output;
    std::string batch, k, i, j;
    for (char c : x + y + z) {
        const bool inX = x.find(c) != std::string::npos, inY = y.find(c) != std::string::npos,
                   inZ = z.find(c) != std::string::npos;
        std::string& role = inX && inY ? (inZ ? batch : k) : (inX ? i : j);
        if (role.find(c) == std::string::npos)
            role += c;
        if ((inX && !inY && !inZ) || (inY && !inX && !inZ))
            return false; // summed out of one operand
    }
    if (k.size() != 1 || i.size() != 1 || j.size() != 1 || x.size() != batch.size() + 2 ||
        y.size() != batch.size() + 2 || z.size() != batch.size() + 2)
        return false;  // a repeated letter (a diagonal) or several free/contracted letters
    std::string order; // the batch letters in the output's order
    for (char c : z)
        if (batch.find(c) != std::string::npos)
            order += c;
    const std::string ax = order + i + k, by = order + k + j, product = order + i + j;
    const std::vector<int64_t> pa = letterPerm(x, ax), pb = letterPerm(y, by);
    const std::optional<Val> va = permuted(a, pa, permutedDims(a.dims, pa));
    const std::optional<Val> vb = permuted(b, pb, permutedDims(b.dims, pb));
    if (!va || !vb || !matmul(n, *va, *vb))
        return false;
    if (product == z)
        return true;
    const std::string& out = n.outputs.at(0);
    const std::vector<int64_t> pz = letterPerm(product, z);
    const std::optional<Val> vz = permuted(l_.vals_.at(out), pz, l_.dimsOf(n, out));
    if (!vz)
        return false;
    l_.vals_[out] = *vz;
    return true;
}

bool TokenRules::masked(const Node& n, const std::vector<const Val*>& in) {
    if (in.size() != 3 || in[0] != nullptr || (in[1] == nullptr) == (in[2] == nullptr))
        return false;
    const size_t k = in[1] != nullptr ? 1 : 2;
    return constant(n, *in[k], n.inputs[k], n.inputs[0]);
}

bool TokenRules::constant(const Node& n, const Val& x, const std::string& xName,
                          const std::string& constant) {
    const std::string& op = n.opType;
    const std::string& out = n.outputs.at(0);
    const std::vector<int64_t>& cd = l_.dimsOf(n, constant);
    const auto count = [](const std::vector<int64_t>& d) {
        return std::accumulate(d.begin(), d.end(), int64_t{1}, std::multiplies<>());
    };
    if ((op == "Mul" || (op == "Div" && n.inputs[0] == xName)) && count(cd) == 1) {
        const auto c = scalarConstant(l_.model_, l_.tensors_, constant);
        if (c && (op == "Mul" || *c != 0) && x.irNode >= 0 && l_.soleUse(xName) &&
            l_.irNode(x).kind == NodeKind::Matmul &&
            x.terms == l_.nodeVal(x.irNode, x.dims).terms) {
            // A scalar on a product's result (scores · 1/√d): its alpha.
            l_.irNode(x).matmul.alpha *= op == "Mul" ? *c : 1.0 / *c;
            l_.vals_[out] = x;
            return true;
        }
        // A scalar on the operand of MatMuls of two activations (1/√d): their alpha.
        const auto& users = l_.consumers_[out];
        // (Whether the other operand is data is known only when the MatMul lowers; a MatMul
        // with a weight refuses a pending factor rather than drop it.)
        if (users.empty() || l_.uses_[out] != static_cast<int>(users.size()) || !c ||
            (op == "Div" && *c == 0) || !std::all_of(users.begin(), users.end(), [](const Node* u) {
                return u->opType == "MatMul" || u->opType == "Einsum";
            }))
            return false;
        Val v = x;
        v.alpha *= op == "Mul" ? *c : 1.0 / *c;
        l_.vals_[out] = v;
        return true;
    }
    const auto roles = rolesOf(x);
    const size_t rank = x.dims.size();
    // Where(constant mask, fill, x) with one fill value (masked_fill: −∞ before a softmax) is an
    // added table shaped like the mask, as Swin's additive mask is.
    const bool masked = op == "Where" && constant == n.inputs[0] &&
                        count(l_.dimsOf(n, n.inputs[xName == n.inputs[1] ? 2 : 1])) == 1;
    if ((op != "Add" && !masked) || !roles || perChannel(cd, x) || cd.size() > rank ||
        l_.dimsOf(n, out) != x.dims)
        return false;
    for (size_t k = 0; k < cd.size(); ++k)
        if (cd[k] != 1 && cd[k] != x.dims[rank - cd.size() + k])
            return false;
    // A table added along the positions (a positional embedding; an attention bias or mask
    // shared by the windows or heads: the table repeats): folded into the tokens node that
    // makes x, else a tokens node of its own.
    const int64_t tableC = tableExtent(cd, x.dims, roles->chan);
    const int64_t tableP = tableExtent(cd, x.dims, roles->pos);
    const int64_t c = width(x.terms), positions = x.termHw.h * x.termHw.w;
    const auto embed = [&](ir::TokenAttrs& t) {
        t.embed = true;
        t.embedChannels = tableC == c ? 0 : tableC;
        t.embedPositions = tableP == positions ? 0 : tableP;
    };
    if (x.irNode >= 0 && l_.soleUse(xName) && l_.irNode(x).kind == NodeKind::Tokens &&
        !l_.irNode(x).tokens.embed) {
        embed(l_.irNode(x).tokens);
        l_.vals_[out] = x;
        return true;
    }
    std::vector<int64_t> identity(static_cast<size_t>(positions));
    std::iota(identity.begin(), identity.end(), 0);
    Val v = gathered(n, x, std::move(identity), x.dims, {});
    l_.irNode(v).tokens.outHw = x.termHw;
    l_.irNode(v).outputShape = {c, x.termHw.h, x.termHw.w};
    embed(l_.irNode(v).tokens);
    v.termHw = x.termHw;
    settle(v, *roles);
    l_.vals_[out] = v;
    return true;
}

} // namespace ios::io::onnx::detail
