// SPDX-License-Identifier: Apache-2.0
#include "rewrite/identity_rule.h"

#include "util/error.h"

#include <algorithm>
#include <stdexcept>

namespace ios::rewrite {

namespace {

// Terms of one value each, at least two: a concatenation the pattern takes.
bool isPlainConcat(const std::vector<ir::Term>& terms) {
    return terms.size() >= 2 &&
           std::all_of(terms.begin(), terms.end(), [](const ir::Term& t) { return t.size() == 1; });
}

void addNames(const ir::Node& node, std::unordered_set<std::string>& names) {
    names.insert(node.name);
    for (const ir::Node& inner : node.nodes)
        addNames(inner, names);
}

// `name` with '_' appended until `taken` lacks it; then added to `taken`.
std::string uniqueName(std::string name, std::unordered_set<std::string>& taken) {
    while (taken.count(name) != 0)
        name += '_';
    taken.insert(name);
    return name;
}

int64_t channelsOf(const std::vector<ir::ValueRef>& terms) {
    int64_t c = 0;
    for (const ir::ValueRef& v : terms)
        c += v.channels();
    return c;
}

// Term i's copies of the chain (`names`: copyNames' for this term), each reading the one
// before, the first x_i; returns the value the partial conv reads.
ir::ValueRef copyChain(const PartialConvSplit& split, size_t i, const std::string* names,
                       std::vector<ir::Node>& out) {
    // A member reads one value, not a concatenation: the term's in-place flag (the concat
    // writing x_i into its buffer) has no meaning there and validation refuses it.
    ir::ValueRef x = split.terms[i];
    x.inPlace = false;
    const std::vector<const ir::Node*> copied = split.copied();
    for (size_t j = 0; j < copied.size(); ++j) {
        ir::Node f;
        f.kind = copied[j]->kind;
        f.activation = copied[j]->activation;
        f.name = f.hintName = names[j];
        f.inputs = {{std::move(x)}};
        x = ir::ValueRef{f.name, 0, split.terms[i].channels()};
        out.push_back(std::move(f));
    }
    return x;
}

// The copies, the partial convs named `names` and the node named y that combines them.
std::vector<ir::Node> partialConvNodes(const PartialConvSplit& split,
                                       const std::vector<std::string>& names,
                                       const std::vector<std::string>& copies) {
    std::vector<ir::Node> out;
    const size_t perTerm = split.copied().size();
    const ir::Node& y = *split.conv;
    const bool channelWise = split.form == PartialConvForm::ChannelWise;
    ir::Node combine;
    combine.name = y.name;
    combine.hintName = y.hintName;
    combine.outputShape = y.outputShape;
    ir::Term sum;
    for (size_t i = 0; i < split.terms.size(); ++i) {
        ir::Node p;
        p.kind = ir::NodeKind::Conv;
        p.name = p.hintName = names[i];
        p.inputs = {{copyChain(split, i, copies.data() + i * perTerm, out)}};
        p.conv = y.conv;
        const int64_t c = split.terms[i].channels();
        if (channelWise) {
            p.conv.act = ir::ActType::Identity;
            sum.push_back({p.name, 0, y.conv.outChannels});
        } else {
            p.conv.groups = c;
            p.conv.outChannels = c;
            combine.inputs.push_back({{p.name, 0, c}});
        }
        out.push_back(std::move(p));
    }
    if (channelWise) {
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

} // namespace

std::vector<const ir::Node*> PartialConvSplit::copied() const {
    std::vector<const ir::Node*> out;
    if (concat != nullptr && concat->kind != ir::NodeKind::Identity)
        out.push_back(concat);
    for (const ir::Node* n : through)
        if (n->kind != ir::NodeKind::Identity)
            out.push_back(n);
    return out;
}

bool isElementWise(const ir::Node& node) {
    return node.kind == ir::NodeKind::Relu || node.kind == ir::NodeKind::Activation ||
           node.kind == ir::NodeKind::Identity;
}

std::string_view toString(PartialConvForm form) {
    return form == PartialConvForm::ChannelWise ? "channel-wise" : "kernel-wise";
}

PartialConvMatcher::PartialConvMatcher(const ir::Graph& graph, int block) {
    const ir::Block& b = graph.blocks.at(static_cast<size_t>(block));
    for (const ir::Node& n : b.innerNodes)
        inner_.emplace(n.name, &n);
    for (const ir::Node* op : b.operators())
        for (const ir::Term& t : op->externalInputs())
            for (const ir::ValueRef& v : t)
                ++reads_[v.node];
}

std::optional<PartialConvSplit> PartialConvMatcher::at(const ir::Node& op) const {
    if (op.kind != ir::NodeKind::Conv)
        return std::nullopt;
    PartialConvSplit m;
    const std::vector<ir::Term>* terms = &op.inputs;
    // Walk down from y through element-wise nodes, each read whole and only by the one above,
    // to the first one that concatenates k ≥ 2 terms.
    const ir::Node* reader = &op;
    while (!isPlainConcat(reader->inputs)) {
        if (reader->inputs.size() != 1 || reader->inputs.front().size() != 1)
            return std::nullopt;
        const ir::ValueRef& v = reader->inputs.front().front();
        const auto it = inner_.find(v.node);
        if (it == inner_.end())
            return std::nullopt;
        const ir::Node& below = *it->second;
        if (!isElementWise(below) || v.begin != 0 || v.end != below.outputShape.c ||
            reads_.at(below.name) != 1)
            return std::nullopt;
        if (reader != &op)
            m.through.insert(m.through.begin(), reader);
        reader = &below;
    }
    if (reader != &op) {
        m.concat = reader;
        terms = &reader->inputs;
    }
    for (const ir::Term& t : *terms)
        m.terms.push_back(t.front());
    const int64_t c = channelsOf(m.terms);
    if (op.conv.groups == 1)
        m.form = PartialConvForm::ChannelWise;
    else if (op.conv.groups == c && op.conv.outChannels == c)
        m.form = PartialConvForm::KernelWise;
    else
        return std::nullopt;
    m.conv = &op;
    return m;
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

std::vector<std::string> partialConvNames(const PartialConvSplit& split,
                                          std::unordered_set<std::string>& taken) {
    std::vector<std::string> names;
    for (size_t i = 0; i < split.terms.size(); ++i)
        names.push_back(uniqueName(split.conv->name + ".part" + std::to_string(i + 1), taken));
    return names;
}

std::vector<std::string> partialConvMatchNodes(const PartialConvSplit& split) {
    std::vector<std::string> nodes{split.conv->name};
    if (split.concat != nullptr)
        nodes.push_back(split.concat->name);
    for (const ir::Node* n : split.through)
        nodes.push_back(n->name);
    return nodes;
}

std::vector<std::string> copyNames(const PartialConvSplit& split,
                                   std::unordered_set<std::string>& taken) {
    std::vector<std::string> names;
    const std::vector<const ir::Node*> copied = split.copied();
    for (size_t i = 0; i < split.terms.size(); ++i)
        for (const ir::Node* f : copied)
            names.push_back(uniqueName(f->name + ".part" + std::to_string(i + 1), taken));
    return names;
}

std::vector<Match> findPartialConvMatches(const ir::Graph& graph, int block,
                                          const std::vector<bool>* allowed) {
    const PartialConvMatcher matcher(graph, block);
    const std::vector<const ir::Node*> ops =
        graph.blocks.at(static_cast<size_t>(block)).operators();
    std::vector<Match> out;
    for (size_t i = 0; i < ops.size(); ++i) {
        if (allowed != nullptr && !(*allowed)[i])
            continue;
        if (const std::optional<PartialConvSplit> s = matcher.at(*ops[i]))
            out.push_back(Match{RuleId::S1, block, partialConvMatchNodes(*s)});
    }
    return out;
}

void applyPartialConvs(const ir::Graph& before, ir::Block& block, const Match& match,
                       Provenance& provenance) {
    const ir::Block& original = before.blocks.at(static_cast<size_t>(match.block));
    const std::vector<const ir::Node*> ops = original.operators();
    const auto y = std::find_if(ops.begin(), ops.end(),
                                [&](const ir::Node* n) { return n->name == match.nodes.front(); });
    const std::optional<PartialConvSplit> split =
        y == ops.end() ? std::nullopt : PartialConvMatcher(before, match.block).at(**y);
    if (!split || partialConvMatchNodes(*split) != match.nodes)
        throw UserError("substitution S1: '" + match.nodes.front() +
                            "' is no convolution over that concatenation",
                        {}, match.nodes.front());
    const std::unordered_set<std::string> removed(match.nodes.begin() + 1, match.nodes.end());
    std::unordered_set<std::string> taken = nodeNames(before);
    const std::vector<std::string> names = partialConvNames(*split, taken);
    const std::vector<std::string> copies = copyNames(*split, taken);
    std::vector<ir::Node> nodes;
    for (const ir::Node* op : ops) {
        if (op == *y)
            for (ir::Node& n : partialConvNodes(*split, names, copies))
                nodes.push_back(std::move(n));
        else if (removed.count(op->name) == 0)
            nodes.push_back(*op);
    }
    block.exitNode = std::move(nodes.back());
    nodes.pop_back();
    block.innerNodes = std::move(nodes);
    block.parts.clear();
    provenance.created = names;
    provenance.created.insert(provenance.created.end(), copies.begin(), copies.end());
    provenance.created.push_back(match.nodes.front());
}

std::vector<ref::ConvWeights> partialConvWeights(const ir::Node& conv, PartialConvForm form,
                                                 const std::vector<ir::ValueRef>& terms,
                                                 const ref::ConvWeights& w) {
    const ir::ConvAttrs& a = conv.conv;
    const int64_t c = channelsOf(terms);
    const int64_t kernel = a.kernel.h * a.kernel.w;
    const bool channelWise = form == PartialConvForm::ChannelWise;
    const int64_t inPerGroup = channelWise ? c : 1;
    if (w.weights.size() != static_cast<size_t>(a.outChannels * inPerGroup * kernel) ||
        w.bias.size() != static_cast<size_t>(a.outChannels))
        throw std::invalid_argument("partial conv weights: weights of '" + conv.name +
                                    "' have the wrong size");
    std::vector<ref::ConvWeights> out;
    int64_t offset = 0; // first channel of the term
    for (size_t i = 0; i < terms.size(); ++i) {
        const int64_t ci = terms[i].channels();
        ref::ConvWeights p;
        auto copy = [&](int64_t from, int64_t count) {
            const auto begin = w.weights.begin() + static_cast<std::ptrdiff_t>(from * kernel);
            p.weights.insert(p.weights.end(), begin,
                             begin + static_cast<std::ptrdiff_t>(count * kernel));
        };
        if (channelWise) { // W[o][offset .. offset + ci) for every o
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

} // namespace ios::rewrite
