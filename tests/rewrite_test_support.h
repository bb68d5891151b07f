// SPDX-License-Identifier: Apache-2.0
// Shared helpers of the rewrite suites: the reference check of a substitution (both graphs run
// in double with weights derived through the rule's transform), random small graphs on which
// every rule matches, a sub-graph of one block with random external inputs, the simulated
// V100 cost factory and the exhaustive-search oracle.
#pragma once

#include "cost/device_profile.h"
#include "cost/simulated_gpu_cost_model.h"
#include "ir/block_alone.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "ref/reference_executor.h"
#include "rewrite/graph_hash.h"
#include "rewrite/rewrite_cost.h"
#include "rewrite/rules.h"
#include "rewrite/verify_rewrite.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace ios::testing {

inline rewrite::CostModelFactory simulatedFactory(const std::string& device = "V100") {
    return [dev = cost::loadDevice(device)](const ir::Graph& g) {
        return std::make_unique<cost::SimulatedGpuCostModel>(g, dev, 1);
    };
}

// Every block exit of `g` run with `weights` (other convs: name-derived weights of `seed`).
inline std::vector<ref::Tensor> exitOutputs(const ir::Graph& g, const rewrite::WeightMap& weights,
                                            uint64_t seed) {
    return rewrite::blockExitOutputs(g, weights, seed);
}

// max |y − y'| / max(1, max |y|) over all block exits (shapes must agree; +inf otherwise).
inline double relativeError(const std::vector<ref::Tensor>& a, const std::vector<ref::Tensor>& b) {
    if (a.size() != b.size())
        return INFINITY;
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (!(a[i].shape == b[i].shape))
            return INFINITY;
        double scale = 1;
        double diff = 0;
        for (size_t k = 0; k < a[i].data.size(); ++k) {
            scale = std::max(scale, std::abs(a[i].data[k]));
            diff = std::max(diff, std::abs(a[i].data[k] - b[i].data[k]));
        }
        worst = std::max(worst, diff / scale);
    }
    return worst;
}

// Applies `m` to `g` and returns the relative error between the exits of `g` (`baseline`:
// exitOutputs(g, initialWeights(g, seed), seed), when already at hand) and the rewritten graph.
inline double substitutionError(const ir::Graph& g, const rewrite::Match& m, uint64_t seed,
                                const std::vector<ref::Tensor>* baseline = nullptr) {
    const rewrite::WeightMap w0 = rewrite::initialWeights(g, seed);
    const rewrite::Rewritten r = rewrite::applyMatch(g, m);
    rewrite::WeightMap w1 = w0;
    rewrite::transformWeights(g, m, w1);
    const std::vector<ref::Tensor> after = exitOutputs(r.graph, w1, seed);
    return relativeError(baseline != nullptr ? *baseline : exitOutputs(g, w0, seed), after);
}

// Block `b` of `g` alone (ir::blockAlone), named after it and its placeholder hint-named as
// the builders name nodes: the matched region with random external inputs.
inline ir::Graph blockAlone(const ir::Graph& g, size_t b) {
    ir::Graph sub = ir::blockAlone(g, static_cast<int>(b));
    sub.name += "_block" + std::to_string(b);
    sub.input.hintName = sub.input.name;
    sub.blocks.front().enterNode.hintName = sub.input.name;
    return sub;
}

// Random one-block graphs (≤ 12 operators, tiny tensors) built so that every rule finds
// matches and near misses: sibling convs (R3, with unequal geometry or activation at times),
// conv → relu (R1), x + conv(x) (R6), conv + y (R7), kernels 1×1…5×5 and 1×3/3×1, strides 1–2,
// pools, concatenations and channel slices.
class RandomRewriteGraph {
public:
    explicit RandomRewriteGraph(std::mt19937& rng) : rng_(rng) {}

    ir::Graph build() {
        ir::Graph g;
        g.name = "random_rewrite";
        hw_ = pick(5, 8);
        g.input = placeholder("in", {pick(2, 4), hw_, hw_});
        values_ = {{"in", g.input.outputShape.c, hw_}};
        nodes_.clear();
        const int ops = static_cast<int>(pick(3, 11));
        for (int i = 0; i < ops; ++i)
            addOp();
        // The exit concatenates every full-size value nobody reads (or the last value).
        std::vector<ir::ValueRef> outs;
        for (const Value& v : values_)
            if (v.hw == hw_ && v.name != "in" && !read(v.name))
                outs.push_back(val(v.name, 0, v.c));
        if (outs.empty())
            outs.push_back(val(values_.back().name, 0, values_.back().c));
        ir::Node exit = node(ir::NodeKind::Identity, fresh(), concat(outs));
        g.blocks.push_back(block(g.input, nodes_, exit));
        ir::validateAndInferShapes(g);
        return g;
    }

private:
    struct Value {
        std::string name;
        int64_t c;
        int64_t hw;
    };

    int64_t pick(int64_t lo, int64_t hi) {
        return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
    }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
    std::string fresh() { return "n" + std::to_string(counter_++); }
    const Value& any() {
        return values_[static_cast<size_t>(pick(0, static_cast<int64_t>(values_.size()) - 1))];
    }
    bool read(const std::string& name) const {
        for (const ir::Node& n : nodes_)
            for (const ir::Term& t : n.inputs)
                for (const ir::ValueRef& v : t)
                    if (v.node == name)
                        return true;
        return false;
    }
    void push(ir::Node n, int64_t c, int64_t hw) {
        values_.push_back({n.name, c, hw});
        nodes_.push_back(std::move(n));
    }
    ir::ValueRef readOf(const Value& v) {
        if (v.c > 1 && chance(0.2)) {
            const int64_t b = pick(0, v.c - 2);
            return val(v.name, b, pick(b + 1, v.c));
        }
        return val(v.name, 0, v.c);
    }
    // A conv geometry: mostly k − 2p = 1 (shape-preserving at stride 1), sometimes not.
    void geometry(ir::Hw& k, ir::Hw& p) {
        static const ir::Hw kernels[] = {{1, 1}, {3, 3}, {5, 5}, {1, 3}, {3, 1}, {2, 2}};
        k = kernels[pick(0, 5)];
        p = {k.h / 2, k.w / 2};
        if (chance(0.15))
            p = {0, 0};
    }
    ir::Node makeConv(const std::string& name, ir::ValueRef in, int64_t out) {
        ir::Hw k;
        ir::Hw p;
        geometry(k, p);
        const ir::Hw s = chance(0.15) ? ir::Hw{2, 2} : ir::Hw{1, 1};
        return conv(name, concat({std::move(in)}), out, k, s, p, 1,
                    chance(0.5) ? ir::ActType::Identity : ir::ActType::Relu);
    }
    // 0 when the kernel does not fit.
    static int64_t outHw(int64_t hw, int64_t k, int64_t s, int64_t p) {
        return hw + 2 * p < k ? 0 : (hw + 2 * p - k) / s + 1;
    }
    void addOp() {
        const int kind = static_cast<int>(pick(0, 9));
        const Value src = any();
        const std::string name = fresh();
        if (kind <= 2 || src.hw < 3) { // a conv, often a sibling of an existing conv
            ir::Node c = makeConv(name, readOf(src), pick(1, 4));
            if (kind == 0)
                for (const ir::Node& n : nodes_)
                    if (n.kind == ir::NodeKind::Conv && chance(0.7)) {
                        c.inputs = n.inputs;
                        c.conv.stride = n.conv.stride;
                        if (chance(0.7))
                            c.conv.act = n.conv.act;
                        break;
                    }
            const int64_t hw = outHw(lookup(c.inputs[0][0].node).hw, c.conv.kernel.h,
                                     c.conv.stride.h, c.conv.padding.h);
            const int64_t w = outHw(lookup(c.inputs[0][0].node).hw, c.conv.kernel.w,
                                    c.conv.stride.w, c.conv.padding.w);
            if (hw < 1 || w != hw)
                return;
            const int64_t out = c.conv.outChannels;
            push(std::move(c), out, hw);
        } else if (kind == 3) { // relu node on a whole value
            push(node(ir::NodeKind::Relu, name, concat({val(src.name, 0, src.c)})), src.c, src.hw);
        } else if (kind == 4 || kind == 5) { // x + conv(x), or conv + y
            const int64_t c = src.c;
            ir::Node cv = conv(name, concat({val(src.name, 0, c)}), c, {3, 3}, {1, 1}, {1, 1}, 1,
                               chance(0.8) ? ir::ActType::Identity : ir::ActType::Relu);
            if (chance(0.4)) {
                cv.conv.kernel = {1, 1};
                cv.conv.padding = {0, 0};
            }
            push(cv, c, src.hw);
            std::string y = src.name;
            if (kind == 5)
                for (const Value& v : values_)
                    if (v.c == c && v.hw == src.hw && v.name != name && chance(0.5))
                        y = v.name;
            ir::Node add = chance(0.5) ? node(ir::NodeKind::Identity, fresh(), {})
                                       : element(fresh(), {}, ir::ElementOp::Add);
            add.inputs = sum({val(name, 0, c), val(y, 0, c)});
            if (chance(0.5))
                std::swap(add.inputs[0][0], add.inputs[0][1]);
            push(std::move(add), c, src.hw);
        } else if (kind == 6) { // pool
            push(pool(name, concat({val(src.name, 0, src.c)}),
                      chance(0.5) ? ir::PoolType::Max : ir::PoolType::Avg, {3, 3}, {1, 1}, {1, 1}),
                 src.c, src.hw);
        } else if (kind == 7) { // concatenation of same-size values
            std::vector<ir::ValueRef> vs;
            for (const Value& v : values_)
                if (v.hw == src.hw && vs.size() < 3 && chance(0.6))
                    vs.push_back(readOf(v));
            if (vs.size() < 2)
                return;
            int64_t c = 0;
            for (const ir::ValueRef& v : vs)
                c += v.channels();
            push(node(ir::NodeKind::Identity, name, concat(vs)), c, src.hw);
        } else { // conv then relu node (R1)
            ir::Node cv = makeConv(name, val(src.name, 0, src.c), pick(1, 4));
            cv.conv.act = ir::ActType::Identity;
            const int64_t hw = outHw(src.hw, cv.conv.kernel.h, cv.conv.stride.h, cv.conv.padding.h);
            if (hw < 1 ||
                hw != outHw(src.hw, cv.conv.kernel.w, cv.conv.stride.w, cv.conv.padding.w))
                return;
            const int64_t out = cv.conv.outChannels;
            push(std::move(cv), out, hw);
            push(chance(0.5) ? node(ir::NodeKind::Relu, fresh(), concat({val(name, 0, out)}))
                             : activation(fresh(), concat({val(name, 0, out)}), ir::ActType::Relu),
                 out, hw);
        }
    }
    const Value& lookup(const std::string& name) const {
        for (const Value& v : values_)
            if (v.name == name)
                return v;
        return values_.front();
    }

    std::mt19937& rng_;
    int64_t hw_ = 0;
    int counter_ = 0;
    std::vector<Value> values_;
    std::vector<ir::Node> nodes_;
};

// The oracle of docs/metaflow.md §7 property 4: every graph reachable from g0 by the enabled
// rules (deduplicated by graphHash, at most `cap`), breadth first; the least cost among them.
struct Exhaustive {
    double bestMs = 0;
    size_t graphs = 0;
    bool complete = true;
};
inline Exhaustive exhaustiveSearch(const ir::Graph& g0, rewrite::RewriteCost& cost,
                                   const rewrite::RuleSet& rules, size_t cap = 1000000) {
    Exhaustive e;
    std::deque<ir::Graph> queue{g0};
    std::unordered_set<uint64_t> seen{rewrite::graphHash(g0)};
    e.bestMs = cost.price(g0).total();
    while (!queue.empty()) {
        const ir::Graph g = std::move(queue.front());
        queue.pop_front();
        ++e.graphs;
        for (const rewrite::Match& m : rewrite::findMatches(g, rules)) {
            ir::Graph next = rewrite::applyMatch(g, m).graph;
            if (!seen.insert(rewrite::graphHash(next)).second)
                continue;
            if (seen.size() > cap) {
                e.complete = false;
                return e;
            }
            e.bestMs = std::min(e.bestMs, cost.price(next).total());
            queue.push_back(std::move(next));
        }
    }
    return e;
}

} // namespace ios::testing
