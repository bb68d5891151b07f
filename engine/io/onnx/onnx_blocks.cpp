// SPDX-License-Identifier: Apache-2.0
#include "io/onnx/onnx_blocks.h"

#include <algorithm>
#include <unordered_map>

namespace ios::io::onnx {

ir::Graph buildBlocks(Lowered lowered, const std::string& name) {
    std::vector<ir::Node>& nodes = lowered.nodes;
    const auto n = static_cast<int64_t>(nodes.size());
    // Position of each producer: the input is -1, node k is k.
    std::unordered_map<std::string, int64_t> pos{{lowered.input.name, -1}};
    for (int64_t k = 0; k < n; ++k)
        pos[nodes[static_cast<size_t>(k)].name] = k;
    // reach[p + 1] = the last consumer of producer p.
    std::vector<int64_t> reach(static_cast<size_t>(n + 1), -1);
    for (int64_t k = 0; k < n; ++k)
        for (const ir::Term& t : nodes[static_cast<size_t>(k)].inputs)
            for (const ir::ValueRef& v : t)
                if (auto it = pos.find(v.node); it != pos.end()) {
                    int64_t& r = reach[static_cast<size_t>(it->second + 1)];
                    r = std::max(r, k);
                }
    // Segments end at articulation points: k is one when every producer before it is last
    // consumed at or before k.
    std::vector<int64_t> segmentEnds;
    int64_t furthest = reach[0];
    for (int64_t k = 0; k < n; ++k) {
        if (furthest <= k)
            segmentEnds.push_back(k);
        furthest = std::max(furthest, reach[static_cast<size_t>(k + 1)]);
    }
    if (segmentEnds.empty() || segmentEnds.back() != n - 1)
        segmentEnds.push_back(n - 1); // unreachable after dead-node removal; kept for safety

    // Block boundaries: merge runs of one-operator segments.
    std::vector<int64_t> blockEnds;
    int64_t start = 0;
    for (size_t s = 0; s < segmentEnds.size(); ++s) {
        const int64_t end = segmentEnds[s];
        const bool single = end == start;
        const bool nextSingle = s + 1 < segmentEnds.size() && segmentEnds[s + 1] == end + 1;
        if (!(single && nextSingle))
            blockEnds.push_back(end);
        start = end + 1;
    }

    ir::Graph g;
    g.name = name;
    g.input = std::move(lowered.input);
    const ir::Node* enter = &g.input;
    int64_t first = 0;
    g.blocks.reserve(blockEnds.size());
    for (int64_t end : blockEnds) {
        ir::Block b;
        b.enterName = enter->name;
        b.enterNode = *enter;
        for (int64_t k = first; k < end; ++k)
            b.innerNodes.push_back(std::move(nodes[static_cast<size_t>(k)]));
        b.exitNode = std::move(nodes[static_cast<size_t>(end)]);
        for (const ir::Node* op : b.operators())
            b.stages.push_back({{op->name}});
        g.blocks.push_back(std::move(b));
        enter = &g.blocks.back().exitNode;
        first = end + 1;
    }
    return g;
}

} // namespace ios::io::onnx
