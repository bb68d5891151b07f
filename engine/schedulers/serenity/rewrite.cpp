#include "schedulers/serenity/rewrite.h"

#include "ir/validate.h"
#include "util/error.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace ios::schedulers::serenity {

namespace {

// Terms of one value each, at least two: a concatenation the patterns take.
bool isPlainConcat(const std::vector<ir::Term>& terms) {
    return terms.size() >= 2 &&
           std::all_of(terms.begin(), terms.end(), [](const ir::Term& t) { return t.size() == 1; });
}

void addNames(const ir::Node& node, std::unordered_set<std::string>& names) {
    names.insert(node.name);
    for (const ir::Node& inner : node.nodes)
        addNames(inner, names);
}

std::unordered_set<std::string> nodeNames(const ir::Graph& graph) {
    std::unordered_set<std::string> names;
    addNames(graph.input, names);
    for (const ir::Block& b : graph.blocks) {
        addNames(b.enterNode, names);
        for (const ir::Node* op : b.operators())
            addNames(*op, names);
    }
    return names;
}

// The pattern at schedule operator `op` of a block: y's terms and the concat node they come
// from, or nothing. `inner` are the block's inner nodes by name, `reads` the number of values
// that name each node.
std::optional<RewriteMatch> matchConv(const ir::Node& op,
                                      const std::unordered_map<std::string, const ir::Node*>& inner,
                                      const std::unordered_map<std::string, int>& reads) {
    if (op.kind != ir::NodeKind::Conv)
        return std::nullopt;
    RewriteMatch m;
    const std::vector<ir::Term>* terms = &op.inputs;
    if (!isPlainConcat(op.inputs)) {
        if (op.inputs.size() != 1 || op.inputs.front().size() != 1)
            return std::nullopt;
        const ir::ValueRef& v = op.inputs.front().front();
        const auto it = inner.find(v.node);
        if (it == inner.end())
            return std::nullopt;
        const ir::Node& concat = *it->second;
        if (concat.kind != ir::NodeKind::Identity || !isPlainConcat(concat.inputs) ||
            v.begin != 0 || v.end != concat.outputShape.c || reads.at(concat.name) != 1)
            return std::nullopt;
        m.concat = concat.name;
        terms = &concat.inputs;
    }
    for (const ir::Term& t : *terms)
        m.terms.push_back(t.front());
    const int64_t c = m.inChannels();
    if (op.conv.groups == 1)
        m.kind = RewriteKind::ChannelWise;
    else if (op.conv.groups == c && op.conv.outChannels == c)
        m.kind = RewriteKind::KernelWise;
    else
        return std::nullopt;
    m.conv = op;
    return m;
}

// The partial convs and the node named y that combines them (rewriteGraph's contract).
std::vector<ir::Node> rewrittenNodes(const RewriteMatch& m) {
    std::vector<ir::Node> out;
    const ir::Node& y = m.conv;
    ir::Node combine;
    combine.name = y.name;
    combine.hintName = y.hintName;
    combine.outputShape = y.outputShape;
    ir::Term sum;
    for (size_t i = 0; i < m.terms.size(); ++i) {
        ir::Node p;
        p.kind = ir::NodeKind::Conv;
        p.name = p.hintName = m.members[i];
        // A member reads one value, not a concatenation: the term's in-place flag (the concat
        // writing x_i into its buffer) has no meaning there and validation refuses it.
        ir::ValueRef x = m.terms[i];
        x.inPlace = false;
        p.inputs = {{std::move(x)}};
        p.conv = y.conv;
        const int64_t c = m.terms[i].channels();
        if (m.kind == RewriteKind::ChannelWise) {
            p.conv.act = ir::ActType::Identity;
            sum.push_back({p.name, 0, y.conv.outChannels});
        } else {
            p.conv.groups = c;
            p.conv.outChannels = c;
            combine.inputs.push_back({{p.name, 0, c}});
        }
        out.push_back(std::move(p));
    }
    if (m.kind == RewriteKind::ChannelWise) {
        combine.inputs = {std::move(sum)};
        combine.kind =
            y.conv.act == ir::ActType::Identity ? ir::NodeKind::Identity : ir::NodeKind::Activation;
        combine.activation = y.conv.act;
    } else {
        combine.kind = ir::NodeKind::Identity;
    }
    out.push_back(std::move(combine));
    return out;
}

// Removes the marked ops and tensors and renumbers the rest (order kept).
void compact(ir::MemoryProblem& p, const std::vector<char>& dropOp,
             const std::vector<char>& dropTensor) {
    std::vector<int> opIndex(p.ops.size(), -1), tensorIndex(p.tensors.size(), -1);
    std::vector<ir::MemoryProblem::Op> ops;
    std::vector<ir::MemoryProblem::Tensor> tensors;
    for (size_t t = 0; t < p.tensors.size(); ++t)
        if (dropTensor[t] == 0) {
            tensorIndex[t] = static_cast<int>(tensors.size());
            tensors.push_back(std::move(p.tensors[t]));
        }
    for (size_t i = 0; i < p.ops.size(); ++i)
        if (dropOp[i] == 0) {
            opIndex[i] = static_cast<int>(ops.size());
            ops.push_back(std::move(p.ops[i]));
        }
    auto remap = [](std::vector<int>& indices, const std::vector<int>& to) {
        for (int& i : indices)
            if (i >= 0)
                i = to[static_cast<size_t>(i)];
    };
    for (ir::MemoryProblem::Op& op : ops) {
        op.output = tensorIndex[static_cast<size_t>(op.output)];
        remap(op.inputs, tensorIndex);
        if (op.output < 0 || std::find(op.inputs.begin(), op.inputs.end(), -1) != op.inputs.end())
            throw std::logic_error("rewritten memory problem: op '" + op.name +
                                   "' uses a removed tensor");
    }
    for (ir::MemoryProblem::Tensor& t : tensors)
        remap(t.producers, opIndex);
    remap(p.opOfBlockOp, opIndex);
    remap(p.assemblyOf, opIndex);
    p.ops = std::move(ops);
    p.tensors = std::move(tensors);
}

} // namespace

std::string_view toString(RewriteKind kind) {
    return kind == RewriteKind::ChannelWise ? "channel-wise" : "kernel-wise";
}

int64_t RewriteMatch::inChannels() const {
    int64_t c = 0;
    for (const ir::ValueRef& v : terms)
        c += v.channels();
    return c;
}

std::vector<RewriteMatch> findRewrites(const ir::Graph& graph) {
    std::unordered_set<std::string> taken = nodeNames(graph);
    std::vector<RewriteMatch> out;
    for (size_t b = 0; b < graph.blocks.size(); ++b) {
        const ir::Block& block = graph.blocks[b];
        std::unordered_map<std::string, const ir::Node*> inner;
        std::unordered_map<std::string, int> reads;
        for (const ir::Node& n : block.innerNodes)
            inner.emplace(n.name, &n);
        for (const ir::Node* op : block.operators())
            for (const ir::Term& t : op->externalInputs())
                for (const ir::ValueRef& v : t)
                    ++reads[v.node];
        for (const ir::Node* op : block.operators()) {
            std::optional<RewriteMatch> m = matchConv(*op, inner, reads);
            if (!m)
                continue;
            m->block = static_cast<int>(b);
            for (size_t i = 0; i < m->terms.size(); ++i) {
                std::string name = op->name + ".part" + std::to_string(i + 1);
                while (taken.count(name) != 0)
                    name += '_';
                taken.insert(name);
                m->members.push_back(std::move(name));
            }
            out.push_back(std::move(*m));
        }
    }
    return out;
}

GraphRewrite rewriteGraph(const ir::Graph& graph, const std::vector<RewriteMatch>& matches) {
    GraphRewrite out;
    out.graph = graph;
    out.applied = matches;
    std::map<std::pair<int, std::string>, const RewriteMatch*> byConv;
    std::map<std::pair<int, std::string>, const RewriteMatch*> byConcat;
    for (const RewriteMatch& m : out.applied) {
        if (m.block < 0 || static_cast<size_t>(m.block) >= graph.blocks.size() ||
            !byConv.emplace(std::pair(m.block, m.conv.name), &m).second)
            throw std::logic_error("rewriteGraph: match of '" + m.conv.name +
                                   "' is not one of this graph's, or repeated");
        if (!m.concat.empty())
            byConcat.emplace(std::pair(m.block, m.concat), &m);
    }
    size_t found = 0;
    for (size_t b = 0; b < out.graph.blocks.size(); ++b) {
        ir::Block& block = out.graph.blocks[b];
        const int bi = static_cast<int>(b);
        std::vector<ir::Node> nodes;
        bool changed = false;
        for (const ir::Node* op : block.operators()) {
            const auto m = byConv.find({bi, op->name});
            if (m != byConv.end()) {
                if (!(*op == m->second->conv))
                    throw std::logic_error("rewriteGraph: '" + op->name +
                                           "' differs from its match");
                for (ir::Node& n : rewrittenNodes(*m->second))
                    nodes.push_back(std::move(n));
                changed = true;
                ++found;
            } else if (byConcat.count({bi, op->name}) == 0) {
                nodes.push_back(*op);
            }
        }
        if (!changed)
            continue;
        block.exitNode = std::move(nodes.back());
        nodes.pop_back();
        block.innerNodes = std::move(nodes);
        block.stages.clear();
        block.parts.clear();
    }
    if (found != out.applied.size())
        throw std::logic_error("rewriteGraph: a match names a conv the graph does not have");
    // The rewritten graph keeps the IR's invariants (names that exist, in-place flags only
    // where valid): a violation is this rewrite's bug, never the user's file.
    try {
        ir::validateAndInferShapes(out.graph);
    } catch (const UserError& e) {
        throw std::logic_error(std::string("Serenity's rewrite broke the graph's invariants: ") +
                               e.what());
    }
    return out;
}

std::vector<ref::ConvWeights> memberWeights(const RewriteMatch& m, const ref::ConvWeights& w) {
    const ir::ConvAttrs& a = m.conv.conv;
    const int64_t c = m.inChannels();
    const int64_t kernel = a.kernel.h * a.kernel.w;
    const int64_t inPerGroup = m.kind == RewriteKind::ChannelWise ? c : 1;
    if (w.weights.size() != static_cast<size_t>(a.outChannels * inPerGroup * kernel) ||
        w.bias.size() != static_cast<size_t>(a.outChannels))
        throw std::invalid_argument("memberWeights: weights of '" + m.conv.name +
                                    "' have the wrong size");
    std::vector<ref::ConvWeights> out;
    int64_t offset = 0; // first channel of the term
    for (size_t i = 0; i < m.terms.size(); ++i) {
        const int64_t ci = m.terms[i].channels();
        ref::ConvWeights p;
        auto copy = [&](int64_t from, int64_t count) {
            const auto begin = w.weights.begin() + static_cast<std::ptrdiff_t>(from * kernel);
            p.weights.insert(p.weights.end(), begin,
                             begin + static_cast<std::ptrdiff_t>(count * kernel));
        };
        if (m.kind == RewriteKind::ChannelWise) { // W[o][offset .. offset + ci) for every o
            for (int64_t o = 0; o < a.outChannels; ++o)
                copy(o * c + offset, ci);
            p.bias = i == 0 ? w.bias : std::vector<double>(w.bias.size(), 0.0);
        } else { // the filters and biases of channels offset .. offset + ci
            copy(offset, ci);
            p.bias.assign(w.bias.begin() + offset, w.bias.begin() + offset + ci);
        }
        out.push_back(std::move(p));
        offset += ci;
    }
    return out;
}

void setMemberWeights(const std::vector<RewriteMatch>& applied, ref::ReferenceExecutor& executor) {
    for (const RewriteMatch& m : applied) {
        std::vector<ref::ConvWeights> w =
            memberWeights(m, executor.weightsOf(m.conv, m.inChannels()));
        for (size_t i = 0; i < w.size(); ++i)
            executor.setWeights(m.members[i], std::move(w[i]));
    }
}

ir::MemoryProblem rewrittenBlockProblem(const GraphRewrite& rewrite, const ir::BlockDag& dag,
                                        int block, const ir::MemoryOptions& options) {
    ir::MemoryProblem p = ir::blockMemoryProblem(rewrite.graph, dag, block, options);
    std::unordered_map<std::string, int> blockOpOf;
    for (size_t i = 0; i < dag.ops.size(); ++i)
        blockOpOf.emplace(dag.ops[i]->name, static_cast<int>(i));
    std::vector<char> dropOp(p.ops.size(), 0), dropTensor(p.tensors.size(), 0);
    auto drop = [&](int op) {
        dropOp[static_cast<size_t>(op)] = 1;
        dropTensor[static_cast<size_t>(p.ops[static_cast<size_t>(op)].output)] = 1;
    };
    for (const RewriteMatch& m : rewrite.applied) {
        if (m.block != block)
            continue;
        const auto combineOp = static_cast<size_t>(blockOpOf.at(m.conv.name));
        const int combine = p.opOfBlockOp[combineOp];
        if (p.assemblyOf[combineOp] >= 0)
            drop(p.assemblyOf[combineOp]);
        const int y = p.ops[static_cast<size_t>(combine)].output;
        dropOp[static_cast<size_t>(combine)] = 1;
        p.opOfBlockOp[combineOp] = -1;
        ir::MemoryProblem::Tensor& out = p.tensors[static_cast<size_t>(y)];
        out.producers.clear();
        for (const std::string& member : m.members) {
            const int op = p.opOfBlockOp[static_cast<size_t>(blockOpOf.at(member))];
            dropTensor[static_cast<size_t>(p.ops[static_cast<size_t>(op)].output)] = 1;
            ir::MemoryProblem::Op& o = p.ops[static_cast<size_t>(op)];
            o.output = y;
            o.accumulateBytes = m.kind == RewriteKind::ChannelWise ? out.bytes : 0;
            out.producers.push_back(op);
        }
        if (options.countWeights && m.kind == RewriteKind::ChannelWise)
            p.constantBytes -= static_cast<int64_t>(m.members.size() - 1) *
                               m.conv.conv.outChannels * options.bytesPerElement;
    }
    compact(p, dropOp, dropTensor);
    ir::finishMemoryProblem(p);
    return p;
}

std::vector<ir::MemoryProblem> rewrittenMemoryProblems(const GraphRewrite& rewrite,
                                                       const std::vector<ir::BlockDag>& dags,
                                                       const ir::MemoryOptions& options) {
    std::vector<ir::MemoryProblem> out;
    out.reserve(dags.size());
    for (size_t b = 0; b < dags.size(); ++b)
        out.push_back(rewrittenBlockProblem(rewrite, dags[b], static_cast<int>(b), options));
    return out;
}

} // namespace ios::schedulers::serenity
