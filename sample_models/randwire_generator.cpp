// SPDX-License-Identifier: Apache-2.0
#include "randwire_generator.h"

#include "ir/validate.h"
#include "util/error.h"

#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ios::samples {

namespace {

constexpr int kNeighbours = 4;              // k: each node joined to k/2 neighbours on each side
constexpr double kRewireProbability = 0.75; // p

// Watts–Strogatz: a ring lattice whose edge (i, i + j) is moved, with probability p, to
// (i, w) for a random w that is neither i nor already a neighbour of i (as networkx does).
std::set<std::pair<int, int>> wattsStrogatz(int n, std::mt19937& rng) {
    auto uniform = [&rng] { return static_cast<double>(rng()) / 4294967296.0; };
    std::set<std::pair<int, int>> edges; // (low, high)
    auto key = [](int a, int b) { return std::pair{std::min(a, b), std::max(a, b)}; };
    for (int i = 0; i < n; ++i)
        for (int j = 1; j <= kNeighbours / 2; ++j)
            edges.insert(key(i, (i + j) % n));
    for (int j = 1; j <= kNeighbours / 2; ++j)
        for (int i = 0; i < n; ++i) {
            if (uniform() >= kRewireProbability)
                continue;
            const auto old = key(i, (i + j) % n);
            if (edges.count(old) == 0)
                continue;
            std::vector<int> free;
            for (int w = 0; w < n; ++w)
                if (w != i && edges.count(key(i, w)) == 0)
                    free.push_back(w);
            if (free.empty())
                continue;
            const int w = free[rng() % free.size()];
            edges.erase(old);
            edges.insert(key(i, w));
        }
    return edges;
}

} // namespace

ir::Graph randwireStyleGraph(int nodes, uint32_t seed) {
    if (nodes < 5 || nodes > 1000)
        throw UserError("a RandWire-style graph needs 5 to 1000 nodes, not " +
                        std::to_string(nodes));
    std::mt19937 rng(seed);
    std::vector<WiredNode> wiring(static_cast<size_t>(nodes));
    for (const auto& [a, b] : wattsStrogatz(nodes, rng))
        wiring[static_cast<size_t>(b)].preds.push_back(a);
    return wiredConvGraph("randwire_style_" + std::to_string(nodes), wiring);
}

ir::Graph wiredConvGraph(std::string name, const std::vector<WiredNode>& nodes) {
    const size_t count = nodes.size();
    std::vector<bool> hasSucc(count, false);
    for (const WiredNode& n : nodes)
        for (int p : n.preds)
            hasSucc[static_cast<size_t>(p)] = true;
    constexpr int64_t kChannels = 64;
    const ir::TensorShape shape{kChannels, 28, 28};
    ir::Graph g;
    g.name = std::move(name);
    g.input.kind = ir::NodeKind::Placeholder;
    g.input.name = g.input.hintName = "input";
    g.input.outputShape = shape;
    ir::Block block;
    block.enterName = "input";
    block.enterNode = g.input;
    auto nodeName = [](size_t i) { return "node" + std::to_string(i); };
    for (size_t i = 0; i < count; ++i) {
        ir::Node n;
        n.kind = ir::NodeKind::Conv;
        n.name = n.hintName = nodeName(i);
        ir::Term sum;
        for (int p : nodes[i].preds)
            sum.push_back({nodeName(static_cast<size_t>(p)), 0, kChannels});
        if (sum.empty())
            sum.push_back({"input", 0, kChannels});
        n.inputs = {sum};
        n.conv.outChannels = kChannels;
        n.conv.kernel = {nodes[i].kernel, nodes[i].kernel};
        n.conv.padding = {nodes[i].kernel / 2, nodes[i].kernel / 2};
        n.conv.act = ir::ActType::Relu;
        n.outputShape = shape;
        block.innerNodes.push_back(n);
    }
    ir::Node out;
    out.kind = ir::NodeKind::Identity;
    out.name = out.hintName = "output";
    ir::Term sinks;
    for (size_t i = 0; i < count; ++i)
        if (!hasSucc[i])
            sinks.push_back({nodeName(i), 0, kChannels});
    out.inputs = {sinks};
    out.outputShape = shape;
    block.exitNode = out;
    g.blocks.push_back(std::move(block));
    ir::validateAndInferShapes(g);
    return g;
}

} // namespace ios::samples
