// SPDX-License-Identifier: Apache-2.0
// Weight transforms of the rules (docs/metaflow.md "Equivalence"): replaying them along a
// substitution log turns the original graph's weights into the rewritten graph's, so the
// reference executor checks that both compute the same outputs.
#include "ir/metrics.h"
#include "rewrite/identity_rule.h"
#include "rewrite/rules.h"
#include "util/error.h"

namespace ios::rewrite {

namespace {

int64_t inputChannels(const std::vector<ir::Term>& inputs) {
    int64_t c = 0;
    for (const ir::Term& t : inputs)
        c += t.front().channels();
    return c;
}

const ref::ConvWeights& weightsOf(const WeightMap& w, const std::string& name) {
    auto it = w.find(name);
    if (it == w.end())
        throw UserError("no weights for conv '" + name + "'", {}, name);
    return it->second;
}

// Kernel [out][in][kh][kw] re-laid into [out][in][KH][KW], each kernel at offset (dy, dx).
std::vector<double> embed(const std::vector<double>& w, int64_t outIn, ir::Hw k, ir::Hw K,
                          ir::Hw offset) {
    std::vector<double> e(static_cast<size_t>(outIn * K.h * K.w), 0.0);
    for (int64_t oi = 0; oi < outIn; ++oi)
        for (int64_t y = 0; y < k.h; ++y)
            for (int64_t x = 0; x < k.w; ++x)
                e[static_cast<size_t>((oi * K.h + y + offset.h) * K.w + x + offset.w)] =
                    w[static_cast<size_t>((oi * k.h + y) * k.w + x)];
    return e;
}

} // namespace

WeightMap initialWeights(const ir::Graph& graph, uint64_t seed) {
    WeightMap w;
    for (const ir::Block& b : graph.blocks)
        for (const ir::Node* n : b.operators())
            if (n->kind == ir::NodeKind::Conv)
                w[n->name] = ref::randomConvWeights(*n, inputChannels(n->inputs), seed);
    return w;
}

void transformWeights(const ir::Graph& before, const Match& match, WeightMap& weights) {
    const ir::NodeIndex index(before);
    std::vector<const ir::Node*> m;
    for (const std::string& name : match.nodes) {
        const ir::Node* n = index.find(name);
        if (n == nullptr)
            throw UserError("no operator '" + name + "'", {}, name);
        m.push_back(n);
    }
    const ir::Node& c = *m[0];
    const int64_t cin = inputChannels(c.inputs);
    switch (match.rule) {
    case RuleId::R1:
        weights[m[1]->name] = weightsOf(weights, c.name);
        weights.erase(c.name);
        break;
    case RuleId::R3: {
        ref::ConvWeights merged = ref::mergedConvWeights(
            {m[0], m[1]}, {weightsOf(weights, m[0]->name), weightsOf(weights, m[1]->name)}, cin);
        weights[m[0]->name] = std::move(merged);
        weights.erase(m[1]->name);
        break;
    }
    case RuleId::R4: {
        ref::ConvWeights& w = weights.at(c.name);
        const int64_t outIn = c.conv.outChannels * (cin / c.conv.groups);
        w.weights = embed(w.weights, outIn, c.conv.kernel, {3, 3},
                          {1 - c.conv.padding.h, 1 - c.conv.padding.w});
        break;
    }
    case RuleId::R5: // the identity: an in-place term computes the same values
        break;
    case RuleId::S1: { // y's weights split over its partial convs
        const std::optional<PartialConvSplit> split = PartialConvMatcher(before, match.block).at(c);
        if (!split)
            throw UserError("substitution S1: '" + c.name +
                                "' is no convolution over a concatenation",
                            {}, c.name);
        std::unordered_set<std::string> taken = nodeNames(before);
        const std::vector<std::string> names = partialConvNames(*split, taken);
        std::vector<ref::ConvWeights> parts =
            partialConvWeights(c, split->form, split->terms, weightsOf(weights, c.name));
        for (size_t i = 0; i < parts.size(); ++i)
            weights[names[i]] = std::move(parts[i]);
        weights.erase(c.name);
        break;
    }
    case RuleId::R6:
    case RuleId::R7: {
        // δ: the identity kernel, 1 at the centre tap (padding, padding) from input channel o
        // to output channel o. R6 adds it to W (x is W's own input); R7 appends it as the
        // weights of the extra input y.
        const ref::ConvWeights& w = weightsOf(weights, c.name);
        const int64_t cout = c.conv.outChannels;
        const ir::Hw k = c.conv.kernel;
        const int64_t extra = match.rule == RuleId::R7 ? cout : 0;
        const int64_t inAll = cin + extra;
        ref::ConvWeights t;
        t.bias = w.bias;
        t.weights.assign(static_cast<size_t>(cout * inAll * k.h * k.w), 0.0);
        auto at = [&](int64_t o, int64_t i, int64_t y, int64_t x) -> double& {
            return t.weights[static_cast<size_t>(((o * inAll + i) * k.h + y) * k.w + x)];
        };
        for (int64_t o = 0; o < cout; ++o)
            for (int64_t i = 0; i < cin; ++i)
                for (int64_t y = 0; y < k.h; ++y)
                    for (int64_t x = 0; x < k.w; ++x)
                        at(o, i, y, x) =
                            w.weights[static_cast<size_t>(((o * cin + i) * k.h + y) * k.w + x)];
        for (int64_t o = 0; o < cout; ++o)
            at(o, (match.rule == RuleId::R7 ? cin : 0) + o, c.conv.padding.h, c.conv.padding.w) +=
                1.0;
        weights[m[1]->name] = std::move(t);
        weights.erase(c.name);
        break;
    }
    }
}

} // namespace ios::rewrite
