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
    const auto edges = wattsStrogatz(nodes, rng);
    std::vector<std::vector<int>> preds(static_cast<size_t>(nodes));
    std::vector<bool> hasSucc(static_cast<size_t>(nodes), false);
    for (const auto& [a, b] : edges) {
        preds[static_cast<size_t>(b)].push_back(a);
        hasSucc[static_cast<size_t>(a)] = true;
    }
    constexpr int64_t kChannels = 64;
    const ir::TensorShape shape{kChannels, 28, 28};
    ir::Graph g;
    g.name = "randwire_style_" + std::to_string(nodes);
    g.input.kind = ir::NodeKind::Placeholder;
    g.input.name = g.input.hintName = "input";
    g.input.outputShape = shape;
    ir::Block block;
    block.enterName = "input";
    block.enterNode = g.input;
    auto name = [](int i) { return "node" + std::to_string(i); };
    for (int i = 0; i < nodes; ++i) {
        ir::Node n;
        n.kind = ir::NodeKind::Conv;
        n.name = n.hintName = name(i);
        ir::Term sum;
        for (int p : preds[static_cast<size_t>(i)])
            sum.push_back({name(p), 0, kChannels});
        if (sum.empty())
            sum.push_back({"input", 0, kChannels});
        n.inputs = {sum};
        n.conv.outChannels = kChannels;
        n.conv.kernel = {3, 3};
        n.conv.padding = {1, 1};
        n.conv.act = ir::ActType::Relu;
        n.outputShape = shape;
        block.innerNodes.push_back(n);
    }
    ir::Node out;
    out.kind = ir::NodeKind::Identity;
    out.name = out.hintName = "output";
    ir::Term sinks;
    for (int i = 0; i < nodes; ++i)
        if (!hasSucc[static_cast<size_t>(i)])
            sinks.push_back({name(i), 0, kChannels});
    out.inputs = {sinks};
    out.outputShape = shape;
    block.exitNode = out;
    g.blocks.push_back(std::move(block));
    ir::validateAndInferShapes(g);
    return g;
}

} // namespace ios::samples
