// SPDX-License-Identifier: Apache-2.0
// Token sequences and attention heads (docs/onnx.md "Tokens and heads"). A data tensor's
// ONNX axes play one of two roles over the IR terms that hold it: channel axes enumerate the
// IR channels and position axes the IR positions, each list major → minor (size-1 axes play
// none). Transposes and most reshapes only relabel the roles, so they cost nothing; operators
// that move data between positions (a class token, a selected token, a window partition)
// become `tokens` nodes, and MatMuls of two activations `matmul` nodes.
#include "io/onnx/onnx_roles.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ios::io::onnx::detail {

std::vector<int> nonUnit(const std::vector<int64_t>& dims, size_t from, size_t to) {
    std::vector<int> axes;
    for (size_t a = from; a < to && a < dims.size(); ++a)
        if (dims[a] != 1)
            axes.push_back(static_cast<int>(a));
    return axes;
}

std::optional<Roles> rolesOf(const Val& x) {
    const std::vector<int64_t>& d = x.dims;
    const size_t rank = d.size();
    switch (x.view) {
    case View::Axes:
        return Roles{x.chanAxes, x.posAxes};
    case View::ChannelsLast:
        if (rank < 1)
            return std::nullopt;
        return Roles{nonUnit(d, rank - 1, rank), nonUnit(d, 0, rank - 1)};
    case View::Plain:
        if (rank < 2 || d[0] != 1)
            return std::nullopt;
        return Roles{nonUnit(d, 1, 2), nonUnit(d, 2, rank)};
    case View::Flat:
        if (rank != 2 || d[0] != 1 || x.termHw != ir::Hw{1, 1})
            return std::nullopt;
        return Roles{nonUnit(d, 1, 2), {}};
    default:
        return std::nullopt;
    }
}

void settle(Val& v, const Roles& r) {
    const std::vector<int64_t>& d = v.dims;
    const size_t rank = d.size();
    v.chanAxes = r.chan;
    v.posAxes = r.pos;
    v.view = View::Axes;
    if (rank == 0)
        return;
    const bool lastIsChannels = r.chan == nonUnit(d, rank - 1, rank) && !r.chan.empty();
    if (rank == 4 && d[0] == 1 && r.chan == nonUnit(d, 1, 2) && r.pos == nonUnit(d, 2, 4) &&
        d[2] == v.termHw.h && d[3] == v.termHw.w)
        v.view = View::Plain;
    else if (rank == 2 && d[0] == 1 && r.chan == nonUnit(d, 1, 2) && r.pos.empty() &&
             v.termHw == ir::Hw{1, 1})
        v.view = View::Flat;
    else if (lastIsChannels && r.pos == nonUnit(d, 0, rank - 1))
        v.view = View::ChannelsLast;
    if (v.view != View::Axes) { // the named views imply their roles
        v.chanAxes.clear();
        v.posAxes.clear();
    }
}

namespace {

// The roles after a reshape from `in` to `out` dims, when it only regroups axes within a role
// (each group of input axes consecutive, in order, in one role list); nullopt otherwise.
std::optional<Roles> reshaped(const Roles& r, const std::vector<int64_t>& in,
                              const std::vector<int64_t>& out) {
    const std::vector<int> ia = nonUnit(in, 0, in.size()), oa = nonUnit(out, 0, out.size());
    std::vector<std::pair<std::vector<int>, std::vector<int>>> groups;
    size_t i = 0, o = 0;
    while (i < ia.size() || o < oa.size()) {
        if (i >= ia.size() || o >= oa.size())
            return std::nullopt;
        std::vector<int> gi{ia[i]}, go{oa[o]};
        int64_t pi = in[static_cast<size_t>(ia[i++])], po = out[static_cast<size_t>(oa[o++])];
        while (pi != po) {
            if (pi < po && i < ia.size()) {
                pi *= in[static_cast<size_t>(ia[i])];
                gi.push_back(ia[i++]);
            } else if (po < pi && o < oa.size()) {
                po *= out[static_cast<size_t>(oa[o])];
                go.push_back(oa[o++]);
            } else {
                return std::nullopt;
            }
        }
        groups.emplace_back(std::move(gi), std::move(go));
    }
    Roles next;
    for (const auto* list : {&r.chan, &r.pos}) {
        std::vector<int>& dst = list == &r.chan ? next.chan : next.pos;
        for (size_t k = 0; k < list->size();) {
            const auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& grp) {
                return grp.first.front() == (*list)[k];
            });
            if (g == groups.end() || k + g->first.size() > list->size() ||
                !std::equal(g->first.begin(), g->first.end(), list->begin() + static_cast<long>(k)))
                return std::nullopt;
            dst.insert(dst.end(), g->second.begin(), g->second.end());
            k += g->first.size();
        }
    }
    return next;
}

} // namespace

int64_t product(const std::vector<int64_t>& dims, const std::vector<int>& axes) {
    int64_t p = 1;
    for (int a : axes)
        p *= dims[static_cast<size_t>(a)];
    return p;
}

namespace {

// Every position's coordinates along `axes` (row-major, the last axis fastest).
std::vector<std::vector<int64_t>> coordinates(const std::vector<int64_t>& dims,
                                              const std::vector<int>& axes) {
    std::vector<std::vector<int64_t>> all(static_cast<size_t>(product(dims, axes)),
                                          std::vector<int64_t>(axes.size()));
    for (size_t p = 0; p < all.size(); ++p) {
        auto rest = static_cast<int64_t>(p);
        for (size_t k = axes.size(); k-- > 0;) {
            const int64_t size = dims[static_cast<size_t>(axes[k])];
            all[p][k] = rest % size;
            rest /= size;
        }
    }
    return all;
}

// The row-major position of `coord` (along `axes`) in a tensor of `dims`.
int64_t positionOf(const std::vector<int64_t>& coord, const std::vector<int64_t>& dims,
                   const std::vector<int>& axes) {
    int64_t p = 0;
    for (size_t k = 0; k < axes.size(); ++k)
        p = p * dims[static_cast<size_t>(axes[k])] + coord[k];
    return p;
}

} // namespace

namespace {

struct Scalar {
    bool known = false;
    double value = 0;
    bool integral = false; // an integer tensor: ONNX Div truncates
};

bool isFloatType(int64_t t) {
    return t == kFloat || t == 10 || t == kDouble || t == 16; // float16 10, bfloat16 16
}

Scalar scalarOf(const Model& m, const TensorTable& table, const std::string& name, int depth) {
    const auto single = [](const Tensor& t) {
        if (isFloatType(t.dataType))
            return t.reals && t.reals->size() == 1 ? Scalar{true, t.reals->front(), false}
                                                   : Scalar{};
        return t.ints && t.ints->size() == 1
                   ? Scalar{true, static_cast<double>(t.ints->front()), true}
                   : Scalar{};
    };
    if (const auto it = m.initializers.find(name); it != m.initializers.end())
        return single(it->second);
    const auto p = std::find_if(m.nodes.begin(), m.nodes.end(), [&](const Node& c) {
        return !c.outputs.empty() && c.outputs[0] == name;
    });
    if (p == m.nodes.end() || depth > 8)
        return {};
    const std::string& op = p->opType;
    if (op == "Constant") {
        const Attribute* a = p->attr("value");
        return a != nullptr && a->t ? single(*a->t) : Scalar{};
    }
    if (op == "Cast" && !p->inputs.empty()) {
        Scalar x = scalarOf(m, table, p->inputs[0], depth + 1);
        x.integral = !isFloatType(p->attrInt("to", 0));
        return x;
    }
    if (op != "Pow" && op != "Mul" && op != "Div" && op != "Sqrt" && op != "Add" && op != "Sub" &&
        op != "Reciprocal" && op != "Neg") {
        // Shape arithmetic (a head count from Shape → Gather): the folded integer.
        const auto it = table.find(name);
        return it != table.end() && it->second.value && it->second.value->size() == 1
                   ? Scalar{true, static_cast<double>(it->second.value->front()), true}
                   : Scalar{};
    }
    const Scalar x = p->inputs.empty() ? Scalar{} : scalarOf(m, table, p->inputs[0], depth + 1);
    if (op == "Sqrt")
        return x.known && x.value >= 0 ? Scalar{true, std::sqrt(x.value), false} : Scalar{};
    if (op == "Reciprocal") // a float operation (ONNX defines it for float types)
        return x.known && x.value != 0 ? Scalar{true, 1 / x.value, false} : Scalar{};
    if (op == "Neg")
        return x.known ? Scalar{true, -x.value, x.integral} : Scalar{};
    const Scalar y = p->inputs.size() > 1 ? scalarOf(m, table, p->inputs[1], depth + 1) : Scalar{};
    if (!x.known || !y.known || (op == "Div" && y.value == 0))
        return {};
    const bool integral = x.integral && y.integral;
    if (op == "Pow")
        return {true, std::pow(x.value, y.value), integral};
    if (op == "Mul")
        return {true, x.value * y.value, integral};
    if (op == "Div")
        return {true, integral ? std::trunc(x.value / y.value) : x.value / y.value, integral};
    return {true, op == "Add" ? x.value + y.value : x.value - y.value, integral};
}

} // namespace

std::optional<double> scalarConstant(const Model& m, const TensorTable& table,
                                     const std::string& name) {
    const Scalar s = scalarOf(m, table, name, 0);
    return s.known ? std::optional(s.value) : std::nullopt;
}

bool TokenRules::layout(const Node& n, const Val& x) {
    const std::string& op = n.opType;
    if (op == "Transpose")
        return transpose(n, x);
    if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze")
        return reshape(n, x);
    if (op == "Slice")
        return slice(n, x);
    if (op == "Split")
        return split(n, x);
    if (op == "Gather")
        return gather(n, x);
    return false;
}

std::optional<Val> permuted(const Val& x, std::vector<int64_t> perm, std::vector<int64_t> outDims) {
    const auto roles = rolesOf(x);
    const size_t rank = x.dims.size();
    if (perm.empty())
        for (size_t a = rank; a-- > 0;)
            perm.push_back(static_cast<int64_t>(a));
    if (!roles || perm.size() != rank)
        return std::nullopt;
    std::vector<int> to(rank); // input axis → output axis
    for (size_t a = 0; a < rank; ++a)
        to[static_cast<size_t>(perm[a])] = static_cast<int>(a);
    Roles r;
    for (int a : roles->chan)
        r.chan.push_back(to[static_cast<size_t>(a)]);
    for (int a : roles->pos)
        r.pos.push_back(to[static_cast<size_t>(a)]);
    Val v = x;
    v.dims = std::move(outDims);
    settle(v, r);
    return v;
}

bool TokenRules::transpose(const Node& n, const Val& x) {
    std::optional<Val> v = permuted(x, n.attrInts("perm"), l_.dimsOf(n, n.outputs.at(0)));
    if (v)
        l_.vals_[n.outputs[0]] = std::move(*v);
    return v.has_value();
}

bool TokenRules::reshape(const Node& n, const Val& x) {
    const auto roles = rolesOf(x);
    const std::vector<int64_t>& out = l_.dimsOf(n, n.outputs.at(0));
    auto r = roles ? reshaped(*roles, x.dims, out) : std::nullopt;
    Val v = x;
    if (!r && roles && !std::is_sorted(roles->pos.begin(), roles->pos.end())) {
        // Positions held in another order than the axes' (a window partition's permute, then
        // the merge of windows and tokens): a tokens node copies them into axis order first.
        Roles ordered = *roles;
        std::sort(ordered.pos.begin(), ordered.pos.end());
        r = reshaped(ordered, x.dims, out);
        if (r)
            v = gathered(n, x, reorderIndex(x, ordered.pos), out, r->pos);
    }
    // (A Plain tensor's channels split into [groups, C / groups, H, W] is a channel shuffle's
    // start, which lowerShapeOp takes first; other splits of its channels, such as heads over
    // flattened positions, are relabellings. A permutation of channel axes that a reshape
    // would have to materialise is refused by `reshaped`.)
    if (!r)
        return false;
    v.dims = out;
    settle(v, *r);
    l_.vals_[n.outputs[0]] = v;
    return true;
}

std::vector<int64_t> reorderIndex(const Val& x, const std::vector<int>& pos) {
    const std::vector<int> held = rolesOf(x)->pos;
    std::vector<int64_t> index;
    for (const std::vector<int64_t>& c : coordinates(x.dims, pos)) {
        std::vector<int64_t> at(c.size()); // the coordinates in the held order
        for (size_t k = 0; k < c.size(); ++k)
            at[k] =
                c[static_cast<size_t>(std::find(pos.begin(), pos.end(), held[k]) - pos.begin())];
        index.push_back(positionOf(at, x.dims, held));
    }
    return index;
}

Val TokenRules::gathered(const Node& n, const Val& x, std::vector<int64_t> index,
                         const std::vector<int64_t>& dims, const std::vector<int>& posAxes) {
    const auto count = static_cast<int64_t>(index.size());
    // Two position axes keep their 2-D extent (a conv may follow); otherwise one row.
    const ir::Hw hw = posAxes.size() == 2 ? ir::Hw{dims[static_cast<size_t>(posAxes[0])],
                                                   dims[static_cast<size_t>(posAxes[1])]}
                                          : ir::Hw{count, 1};
    ir::Node node;
    node.kind = NodeKind::Tokens;
    node.hintName = n.opType;
    node.inputs = x.terms;
    node.tokens.index = std::move(index);
    node.tokens.outHw = hw;
    node.outputShape = {width(x.terms), hw.h, hw.w};
    const int idx = l_.add(std::move(node), n.name);
    Val v = x;
    v.terms = l_.nodeVal(idx, dims).terms;
    v.termHw = hw;
    v.irNode = idx;
    v.dims = dims;
    v.alpha = 1.0;
    return v;
}

bool TokenRules::slice(const Node& n, const Val& x) {
    const auto ranges = sliceRanges(n, x.dims, l_.tensors_);
    const auto v = ranges ? sliced(n, x, *ranges, l_.dimsOf(n, n.outputs.at(0))) : std::nullopt;
    if (v)
        l_.vals_[n.outputs[0]] = *v;
    return v.has_value();
}

// Each output is a Slice of consecutive ranges along the axis (q, k and v of one projection
// split along a channels-last axis).
bool TokenRules::split(const Node& n, const Val& x) {
    const auto rank = static_cast<int64_t>(x.dims.size());
    int64_t axis = n.attrInt("axis", 0);
    axis = axis < 0 ? axis + rank : axis;
    if (axis < 0 || axis >= rank)
        return false;
    std::vector<SliceRange> ranges;
    for (int64_t d : x.dims)
        ranges.push_back({0, d, 1});
    SliceRange& along = ranges[static_cast<size_t>(axis)];
    std::vector<Val> parts;
    for (const std::string& o : n.outputs) {
        if (o.empty())
            return false;
        const std::vector<int64_t>& out = l_.dimsOf(n, o);
        along.end = along.begin + out[static_cast<size_t>(axis)];
        auto v = sliced(n, x, ranges, out);
        if (!v)
            return false;
        parts.push_back(std::move(*v));
        along.begin = along.end;
    }
    for (size_t o = 0; o < parts.size(); ++o)
        l_.vals_[n.outputs[o]] = std::move(parts[o]);
    return true;
}

std::optional<Val> TokenRules::sliced(const Node& n, const Val& x,
                                      const std::vector<SliceRange>& ranges,
                                      const std::vector<int64_t>& out) {
    const auto roles = rolesOf(x);
    if (!roles)
        return std::nullopt;
    std::vector<int> cut;
    for (size_t a = 0; a < x.dims.size(); ++a)
        if (out[a] != x.dims[a] || ranges[a].step != 1)
            cut.push_back(static_cast<int>(a));
    const auto isPos = [&](int a) {
        return std::find(roles->pos.begin(), roles->pos.end(), a) != roles->pos.end();
    };
    Val v = x;
    if (cut.empty()) { // every axis whole (un-padding by nothing): the same value
        v.dims = out;
        return v;
    }
    if (cut.size() == 1 && !roles->chan.empty() && cut[0] == roles->chan[0] &&
        ranges[static_cast<size_t>(cut[0])].step == 1) {
        // The major channel axis: a channel range (q, k and v of one projection).
        const int64_t inner =
            product(x.dims, std::vector<int>(roles->chan.begin() + 1, roles->chan.end()));
        const int64_t begin = ranges[static_cast<size_t>(cut[0])].begin * inner;
        v.terms = sliceTerms(x.terms, begin, begin + out[static_cast<size_t>(cut[0])] * inner);
        v.irNode = -1;
    } else if (!cut.empty() && std::all_of(cut.begin(), cut.end(), isPos)) {
        std::vector<int64_t> index; // positions along the kept ranges (a roll, a patch merge)
        for (std::vector<int64_t> c : coordinates(out, roles->pos)) {
            for (size_t k = 0; k < c.size(); ++k) {
                const SliceRange& s = ranges[static_cast<size_t>(roles->pos[k])];
                c[k] = s.begin + s.step * c[k];
            }
            index.push_back(positionOf(c, x.dims, roles->pos));
        }
        v = gathered(n, x, std::move(index), out, roles->pos);
    } else {
        return std::nullopt;
    }
    v.dims = out;
    settle(v, *roles); // Slice keeps the rank: the same axes play the same roles
    return v;
}

bool TokenRules::gather(const Node& n, const Val& x) {
    const auto roles = rolesOf(x);
    const auto rank = static_cast<int64_t>(x.dims.size());
    int64_t axis = n.attrInt("axis", 0);
    axis = axis < 0 ? axis + rank : axis;
    const auto picked = constInts(n, 1, "", l_.tensors_);
    const auto& shape = l_.tensors_.at(n.inputs.at(1)).dims;
    if (!roles || !picked || picked->empty() || axis < 0 || axis >= rank || shape.size() > 1)
        return false;
    const int64_t size = x.dims[static_cast<size_t>(axis)];
    std::vector<int64_t> at;
    for (int64_t i : *picked) {
        if (i < -size || i >= size)
            return false; // shape inference names the node for an index out of range
        at.push_back(i < 0 ? i + size : i);
    }
    const bool scalar = shape.empty(); // the axis goes away
    const auto renumber = [&](const std::vector<int>& axes) {
        std::vector<int> r;
        for (int a : axes)
            if (a != axis || !scalar)
                r.push_back(a > axis && scalar ? a - 1 : a);
        return r;
    };
    const std::vector<int64_t>& out = l_.dimsOf(n, n.outputs.at(0));
    const Roles next{renumber(roles->chan), renumber(roles->pos)};
    Val v = x;
    if (std::find(roles->pos.begin(), roles->pos.end(), axis) != roles->pos.end()) {
        std::vector<int64_t> index; // the picked positions (a class token read back)
        std::vector<int64_t> expanded = x.dims;
        expanded[static_cast<size_t>(axis)] = static_cast<int64_t>(at.size());
        for (std::vector<int64_t> c : coordinates(expanded, roles->pos)) {
            for (size_t k = 0; k < c.size(); ++k)
                if (roles->pos[k] == axis)
                    c[k] = at[static_cast<size_t>(c[k])];
            index.push_back(positionOf(c, x.dims, roles->pos));
        }
        v = gathered(n, x, std::move(index), out, next.pos);
    } else if (scalar && !roles->chan.empty() && roles->chan[0] == axis) {
        const int64_t inner =
            product(x.dims, std::vector<int>(roles->chan.begin() + 1, roles->chan.end()));
        v.terms = sliceTerms(x.terms, at[0] * inner, (at[0] + 1) * inner);
        v.irNode = -1;
    } else {
        return false;
    }
    v.dims = out;
    settle(v, next);
    l_.vals_[n.outputs[0]] = v;
    return true;
}

bool TokenRules::reduce(const Node& n, const Val& x, const std::vector<int64_t>& axes) {
    const auto roles = rolesOf(x);
    if (!roles)
        return false;
    const auto reduced = [&](int a) {
        return std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(a));
    };
    if (!std::all_of(roles->pos.begin(), roles->pos.end(), reduced) ||
        std::any_of(roles->chan.begin(), roles->chan.end(), reduced))
        return false; // along the channels (or only some positions): not a pool
    ir::Node node;
    node.kind = NodeKind::Pool;
    node.hintName = n.opType;
    node.inputs = x.terms;
    node.pool.type = n.opType == "ReduceMax" ? ir::PoolType::GlobalMax : ir::PoolType::GlobalAvg;
    node.pool.kernel = x.termHw;
    node.outputShape = {width(x.terms), 1, 1};
    const std::vector<int64_t>& out = l_.dimsOf(n, n.outputs.at(0));
    Val v = l_.nodeVal(l_.add(std::move(node), n.name), out);
    settle(v, Roles{nonUnit(out, 0, out.size()), {}});
    l_.vals_[n.outputs[0]] = v;
    return true;
}

bool TokenRules::concat(const Node& n, const std::vector<const Val*>& in) {
    const std::vector<int64_t>& outDims = l_.dimsOf(n, n.outputs.at(0));
    const auto rank = static_cast<int64_t>(outDims.size());
    int64_t axis = n.attrInt("axis", 1);
    axis = axis < 0 ? axis + rank : axis;
    Val v;
    bool channels = true; // Plain/Flat along axis 1: the terms concatenated
    for (const Val* p : in) {
        channels = channels && p != nullptr && axis == 1 &&
                   (p->view == View::Plain || p->view == View::Flat) &&
                   (v.terms.empty() || p->termHw == v.termHw);
        if (!channels)
            break;
        v.view = p->view;
        v.termHw = p->termHw;
        v.terms.insert(v.terms.end(), p->terms.begin(), p->terms.end());
    }
    if (channels) {
        v.dims = outDims;
        const auto& users = l_.consumers_[n.outputs[0]];
        const bool onlyConcats = !users.empty() &&
                                 l_.uses_[n.outputs[0]] == static_cast<int>(users.size()) &&
                                 std::all_of(users.begin(), users.end(),
                                             [](const Node* u) { return u->opType == "Concat"; });
        l_.vals_[n.outputs[0]] =
            onlyConcats ? v : l_.replaced(v, l_.newNode(n, NodeKind::Identity, v.terms, v));
        return true;
    }
    const auto first = std::find_if(in.begin(), in.end(), [](const Val* p) { return p; });
    const auto roles = first == in.end() ? std::nullopt : rolesOf(**first);
    if (roles && roles->chan == std::vector<int>{static_cast<int>(axis)}) {
        // Along the one channel axis of a channels-last view (Swin's patch merging): the terms
        // concatenated, when every input is data held the same way.
        Val c = **first;
        c.terms.clear();
        for (const Val* p : in) {
            if (p == nullptr || p->termHw != c.termHw || rolesOf(*p) != roles || p->alpha != 1.0)
                return false;
            c.terms.insert(c.terms.end(), p->terms.begin(), p->terms.end());
        }
        c.dims = outDims;
        c.irNode = -1;
        settle(c, *roles);
        l_.vals_[n.outputs[0]] = c;
        return true;
    }
    // Along a position axis: one source's positions (or gathers of them) and learned tokens.
    if (!roles || std::find(roles->pos.begin(), roles->pos.end(), axis) == roles->pos.end())
        return false;
    std::vector<int64_t> index;
    std::vector<std::vector<int64_t>> sources; // per input: its positions in the source
    std::vector<int64_t> learnedBase(in.size(), 0);
    Val source;
    int64_t learned = 0;
    for (size_t k = 0; k < in.size(); ++k) {
        const std::vector<int64_t>& d = l_.dimsOf(n, n.inputs[k]);
        const int64_t positions = product(d, roles->pos);
        std::vector<int64_t> own(static_cast<size_t>(positions));
        std::iota(own.begin(), own.end(), 0);
        if (const Val* p = in[k]; p == nullptr) {
            learnedBase[k] = learned; // a parameter: each of its positions a learned token
            learned += positions;
        } else {
            const auto r = rolesOf(*p);
            Val src = *p;
            // A tokens node read only here (a roll's two slices) is folded into this one.
            if (p->irNode >= 0 && l_.soleUse(n.inputs[k]) &&
                l_.irNode(*p).kind == NodeKind::Tokens && !l_.irNode(*p).tokens.embed &&
                l_.irNode(*p).tokens.learnedTokens() == 0) {
                own = l_.irNode(*p).tokens.index;
                src.terms = l_.irNode(*p).inputs;
            }
            if (!r || *r != *roles || (!source.terms.empty() && src.terms != source.terms) ||
                p->alpha != 1.0)
                return false;
            source = src;
        }
        sources.push_back(std::move(own));
    }
    for (std::vector<int64_t> c : coordinates(outDims, roles->pos)) {
        const size_t along = static_cast<size_t>(
            std::find(roles->pos.begin(), roles->pos.end(), axis) - roles->pos.begin());
        size_t k = 0;
        for (; k < in.size(); ++k) { // which input holds this coordinate along the axis
            const int64_t extent = l_.dimsOf(n, n.inputs[k])[static_cast<size_t>(axis)];
            if (c[along] < extent)
                break;
            c[along] -= extent;
        }
        const int64_t p = positionOf(c, l_.dimsOf(n, n.inputs[k]), roles->pos);
        index.push_back(in[k] ? sources[k][static_cast<size_t>(p)] : -1 - (learnedBase[k] + p));
    }
    v = gathered(n, source, std::move(index), outDims, roles->pos);
    settle(v, *roles);
    l_.vals_[n.outputs[0]] = v;
    return true;
}

} // namespace ios::io::onnx::detail
