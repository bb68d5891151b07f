// SPDX-License-Identifier: Apache-2.0
// Random validated graphs for the rewriting tests: small blocks of convs whose inputs are
// concatenations (their own terms, or an identity node's), depthwise convs over
// concatenations, and the forms rewriting must leave alone (grouped convs, depthwise with a
// multiplier, concatenations with several readers or summed terms, pools, sequentials).
// Tensors stay tiny (≤ 7×7, few channels) so sanitizer builds run hundreds of them.
#pragma once

#include "ir/graph.h"
#include "ir/validate.h"
#include "ir_builders.h"

#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ios::testing {

class RandomConcatGraph {
public:
    explicit RandomConcatGraph(std::mt19937& rng) : rng_(rng) {}

    ir::Graph build(int blocks) {
        ir::Graph g;
        g.name = "random_concat";
        const int64_t hw = pick(4, 7);
        g.input = placeholder("in", {pick(2, 6), hw, hw});
        ir::Node enter = g.input;
        for (int b = 0; b < blocks; ++b) {
            prefix_ = "b" + std::to_string(b) + "_";
            counter_ = 0;
            values_ = {{enter.name, enter.outputShape.c, enter.outputShape.h}};
            inner_.clear();
            const int ops = pick(3, 7);
            for (int i = 0; i < ops; ++i)
                addOp();
            ir::Node exit = concatConv(false);
            g.blocks.push_back(block(enter, std::move(inner_), exit));
            ir::validateAndInferShapes(g);
            enter = g.blocks.back().exitNode;
        }
        return g;
    }

private:
    struct Value {
        std::string node;
        int64_t c = 0;
        int64_t hw = 0;
    };

    int64_t pick(int64_t lo, int64_t hi) {
        return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
    }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
    std::string fresh() { return prefix_ + "n" + std::to_string(counter_++); }
    ir::ActType anyAct() { return static_cast<ir::ActType>(pick(0, 3)); }

    // A value to read, sometimes a channel slice of it.
    ValueRef slice(const Value& v) {
        if (v.c > 1 && chance(0.25)) {
            const int64_t begin = pick(0, v.c - 1);
            return val(v.node, begin, pick(begin + 1, v.c));
        }
        return val(v.node, 0, v.c);
    }

    // k terms over values of one spatial size (the first picked decides it).
    std::vector<ValueRef> terms(int k) {
        const Value& first = values_[static_cast<size_t>(pick(0, values_.size() - 1))];
        std::vector<const Value*> same;
        for (const Value& v : values_)
            if (v.hw == first.hw)
                same.push_back(&v);
        std::vector<ValueRef> out;
        for (int i = 0; i < k; ++i)
            out.push_back(slice(*same[static_cast<size_t>(pick(0, same.size() - 1))]));
        return out;
    }

    void add(ir::Node n, int64_t c, int64_t hw) {
        values_.push_back({n.name, c, hw});
        inner_.push_back(std::move(n));
    }

    int64_t hwOf(const std::string& name) const {
        for (const Value& v : values_)
            if (v.node == name)
                return v.hw;
        return 0;
    }

    static int64_t width(const std::vector<Term>& input) {
        int64_t c = 0;
        for (const Term& t : input)
            c += t.front().channels();
        return c;
    }

    // A conv over a concatenation (its own terms, or an identity node's when `viaNode`), of
    // one of the kinds the patterns take or refuse.
    ir::Node concatConv(bool viaNode) {
        std::vector<Term> input = concat(terms(static_cast<int>(pick(2, 4))));
        const int64_t inHw = hwOf(input.front().front().node);
        if (viaNode) {
            const int64_t c = width(input);
            ir::Node cat = node(NodeKind::Identity, fresh(), input);
            const std::string name = cat.name;
            add(std::move(cat), c, inHw);
            if (chance(0.2)) // a second reader: the concatenation must stay
                add(pool(fresh(), concat({val(name, 0, c)}), ir::PoolType::Max, {1, 1}), c, inHw);
            input = concat({val(name, 0, chance(0.1) ? c - 1 : c)}); // a slice: no match
        } else if (chance(0.1)) { // a term that sums two values: no match
            input.front().push_back(input.front().front());
        }
        const int64_t c = width(input);
        int64_t out = pick(1, 6), groups = 1;
        const int kind = static_cast<int>(pick(0, 9));
        if (kind <= 2) { // depthwise
            out = groups = c;
        } else if (kind == 3 && c % 2 == 0) { // grouped, or depthwise with a multiplier
            groups = chance(0.5) ? 2 : c;
            out = groups == c ? 2 * c : 2 * pick(1, 3);
        }
        const int64_t k = chance(0.5) ? 3 : 1;
        const int64_t pad = k == 3 && (chance(0.7) || inHw < k) ? 1 : 0;
        const int64_t stride = inHw + 2 * pad > k && chance(0.25) ? 2 : 1;
        return conv(fresh(), input, out, {k, k}, {stride, stride}, {pad, pad}, groups, anyAct());
    }

    void addOp() {
        const int kind = static_cast<int>(pick(0, 9));
        if (kind <= 2) { // a producer: a "same" conv over one value
            const Value v = values_[static_cast<size_t>(pick(0, values_.size() - 1))];
            const int64_t k = chance(0.5) ? 3 : 1;
            const int64_t c = pick(1, 5);
            add(conv(fresh(), concat({slice(v)}), c, {k, k}, {1, 1}, {k / 2, k / 2}, 1, anyAct()),
                c, v.hw);
        } else if (kind <= 6) { // a conv over a concatenation
            ir::Node n = concatConv(kind >= 5);
            const ir::ConvAttrs& a = n.conv;
            const int64_t hw =
                (hwOf(n.inputs.front().front().node) + 2 * a.padding.h - a.kernel.h) / a.stride.h +
                1;
            const int64_t c = a.outChannels;
            add(std::move(n), c, hw);
        } else if (kind <= 8) { // a pool, or a sequential's conv, over a concatenation
            std::vector<Term> in = concat(terms(2));
            const int64_t hw = hwOf(in.front().front().node);
            const std::string name = fresh();
            if (kind == 7)
                add(pool(name, in, ir::PoolType::Avg, {3, 3}, {1, 1}, {1, 1}), width(in), hw);
            else
                add(sequential(name, {conv(name + "_c", in, 3, {1, 1}),
                                      node(NodeKind::Relu, name + "_r",
                                           concat({val(name + "_c", 0, 3)}))}),
                    3, hw);
        } else { // an element-wise sum of two one-channel slices
            const Value v = values_[static_cast<size_t>(pick(0, values_.size() - 1))];
            add(node(NodeKind::Identity, fresh(),
                     sum({val(v.node, 0, 1), val(v.node, v.c - 1, v.c)})),
                1, v.hw);
        }
    }

    std::mt19937& rng_;
    std::string prefix_;
    int counter_ = 0;
    std::vector<Value> values_;
    std::vector<ir::Node> inner_;
};

inline ir::Graph randomConcatGraph(std::mt19937& rng, int blocks) {
    return RandomConcatGraph(rng).build(blocks);
}

// With probability `p` per conv that reads one value (a concatenating identity node, or any
// producer) or its own concatenation, puts a chain of one to three element-wise operators
// between them: relu nodes, activation nodes of any act (act identity stands for a batch norm,
// a per-channel affine map) and identity nodes. Some chains carry what must stop a match: a
// link with a second reader (a pool), or a link whose term sums its value with itself. The
// rest of the graph is unchanged, so the concatenation-fed convs now read ReLU-led chains as
// NAS cells do (DARTS, NASNet, RandWire: ReLU → conv → BN over a concatenation).
inline void addElementWiseChains(ir::Graph& g, std::mt19937& rng, double p) {
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto chance = [&rng](double q) { return std::bernoulli_distribution(q)(rng); };
    for (ir::Block& b : g.blocks) {
        std::vector<ir::Node> inner;
        auto chainFor = [&](ir::Node& y) {
            if (y.kind != NodeKind::Conv || !chance(p))
                return;
            const bool ownConcat = y.inputs.size() >= 2;
            if (!ownConcat && (y.inputs.size() != 1 || y.inputs.front().size() != 1))
                return;
            int64_t c = 0;
            for (const Term& t : y.inputs)
                c += t.front().channels();
            std::vector<Term> below = y.inputs;
            const int links = pick(1, 3);
            for (int j = 0; j < links; ++j) {
                const std::string name = y.name + "_f" + std::to_string(j);
                const int kind = pick(0, 2);
                ir::Node f = kind == 0 ? node(NodeKind::Relu, name, below)
                             : kind == 1
                                 ? activation(name, below, static_cast<ir::ActType>(pick(0, 3)))
                                 : node(NodeKind::Identity, name, below);
                if (j > 0 && chance(0.06)) // relu(x + x): a summed term
                    f.inputs.front().push_back(f.inputs.front().front());
                inner.push_back(std::move(f));
                if (chance(0.06)) // a second reader: the link must stay
                    inner.push_back(
                        pool(name + "_r", concat({val(name, 0, c)}), ir::PoolType::Max, {1, 1}));
                below = concat({val(name, 0, c)});
            }
            y.inputs = std::move(below);
        };
        for (ir::Node& n : b.innerNodes) {
            chainFor(n);
            inner.push_back(std::move(n));
        }
        chainFor(b.exitNode);
        for (ir::Node& n : inner)
            n.outputShape = {};
        b.innerNodes = std::move(inner);
        b.exitNode.outputShape = {};
        b.stages.clear();
        b.parts.clear();
    }
    ir::validateAndInferShapes(g);
}

// Flags each term that may be written in place (ir::inPlaceObstacle) with probability `p`,
// as a native file's "in_place" would: concatenations, the identity nodes Serenity's rewrite
// removes included. The graph stays valid.
inline void markInPlace(ir::Graph& g, std::mt19937& rng, double p) {
    const std::unordered_map<std::string, int> refs = ir::valueReferences(g);
    std::unordered_map<std::string, const ir::Node*> byName{{g.input.name, &g.input}};
    for (const ir::Block& b : g.blocks) {
        byName.emplace(b.enterNode.name, &b.enterNode);
        for (const ir::Node* op : b.operators())
            byName.emplace(op->name, op);
    }
    std::vector<std::pair<ir::Node*, size_t>> flag;
    for (ir::Block& b : g.blocks) {
        std::vector<ir::Node*> ops;
        for (ir::Node& n : b.innerNodes)
            ops.push_back(&n);
        ops.push_back(&b.exitNode);
        for (ir::Node* n : ops)
            for (size_t t = 0; t < n->inputs.size(); ++t) {
                const std::string& name = n->inputs[t].front().node;
                const auto producer = byName.find(name);
                const auto r = refs.find(name);
                if (ir::inPlaceObstacle(*n, n->inputs[t],
                                        producer == byName.end() ? nullptr : producer->second,
                                        r == refs.end() ? 0 : r->second)
                        .empty() &&
                    std::bernoulli_distribution(p)(rng))
                    flag.emplace_back(n, t);
            }
    }
    for (const auto& [n, t] : flag)
        n->inputs[t].front().inPlace = true;
    ir::validateAndInferShapes(g);
}

} // namespace ios::testing
