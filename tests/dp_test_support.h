// SPDX-License-Identifier: Apache-2.0
// Shared by the DP tests: random single-block DAGs built as ir::Graph, and a cost model
// whose stage latencies are random integers fixed per (operator set, kind).
#pragma once

#include "cost/cost_model.h"
#include "ir/graph.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace ios::testing {

// A random DAG of n operators "o0".."o{n-1}" (file order is topological) reading the input
// "in". preds[i] are the operators whose output operator i reads. Convs come in a few merge
// classes (input, stride, activation) so merge stages appear; some are grouped or read two
// values, which must never merge. An operator reads up to three of the `span` before it, at
// least `minPreds` (fewer independent operators: fewer states).
struct RandomDag {
    ir::Graph graph;
    std::vector<std::vector<int>> preds;
};

inline RandomDag randomDag(std::mt19937& rng, int n, int span = 5, int minPreds = 0) {
    RandomDag d;
    d.preds.resize(n);
    ir::Node in;
    in.kind = ir::NodeKind::Placeholder;
    in.name = in.hintName = "in";
    in.outputShape = {8, 8, 8};
    d.graph.name = "random";
    d.graph.input = in;
    ir::Block block;
    block.enterName = "in";
    block.enterNode = in;
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (int i = 0; i < n; ++i) {
        ir::Node node;
        node.name = node.hintName = "o" + std::to_string(i);
        node.outputShape = {8, 8, 8};
        const int most = std::min({i, 3, span});
        const int want = i == 0 ? 0 : pick(std::min(minPreds, most), most);
        std::vector<int> ps;
        while (static_cast<int>(ps.size()) < want) {
            const int p = pick(std::max(0, i - span), i - 1); // local edges: narrow-ish DAGs
            if (std::find(ps.begin(), ps.end(), p) == ps.end())
                ps.push_back(p);
        }
        std::sort(ps.begin(), ps.end());
        d.preds[i] = ps;
        ir::Term term;
        for (int p : ps)
            term.push_back({"o" + std::to_string(p), 0, 8});
        if (term.empty())
            term.push_back({"in", 0, 8});
        const int kind = pick(0, 5);
        if (kind <= 3) {
            node.kind = ir::NodeKind::Conv;
            node.conv.outChannels = 8;
            node.conv.kernel = {kind == 0 ? 3 : 1, kind == 0 ? 3 : 1};
            // "same" padding, as the declared 8×8 output says (and merge needs: equal
            // kernel − 2·padding, schedule/merge.h)
            node.conv.padding = {kind == 0 ? 1 : 0, kind == 0 ? 1 : 0};
            node.conv.stride = {1, 1};
            node.conv.act = kind == 1 ? ir::ActType::Identity : ir::ActType::Relu;
            node.conv.groups = kind == 2 && pick(0, 3) == 0 ? 2 : 1;
        } else {
            node.kind = ir::NodeKind::Identity;
        }
        node.inputs = {term};
        if (i + 1 < n)
            block.innerNodes.push_back(node);
        else
            block.exitNode = node;
    }
    d.graph.blocks.push_back(block);
    return d;
}

// Latency of a stage = 1 + a pseudo-random integer in [0, 999] fixed by the stage's operator
// set and kind: integral, so sums are exact and costs compare with ==.
class RandomStageCost final : public cost::CostModel {
public:
    explicit RandomStageCost(uint64_t seed) : seed_(seed) {}
    static uint64_t mask(const schedule::Stage& st) {
        uint64_t m = 0;
        for (const schedule::Group& g : st.groups)
            for (int op : g)
                // Operators past 63 (parts over 64 operators) fold into the key by a mix.
                m ^= op < 64 ? uint64_t{1} << op
                             : (0x9E3779B97F4A7C15ull >> (op % 64)) * static_cast<uint64_t>(op);
        return m;
    }
    double latency(uint64_t opMask, bool merge) const {
        uint64_t h = (opMask * 2 + (merge ? 1 : 0)) ^ seed_;
        h *= 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 32;
        return 1.0 + static_cast<double>(h % 1000);
    }
    double stageLatencyMs(const ir::BlockDag&, const schedule::Stage& st) const override {
        return latency(mask(st), st.kind == schedule::StageKind::Merge);
    }
    std::string describe() const override { return "random per stage"; }

private:
    uint64_t seed_;
};

} // namespace ios::testing
