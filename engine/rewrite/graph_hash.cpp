// SPDX-License-Identifier: Apache-2.0
#include "rewrite/graph_hash.h"

#include <bit>
#include <string>
#include <unordered_map>

namespace ios::rewrite {

namespace {

uint64_t splitmix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

class Hasher {
public:
    // `sum` accumulates every node's hash; `byName` maps names to hashes for their readers.
    uint64_t sum = 0;
    std::unordered_map<std::string, uint64_t> byName;

    uint64_t node(const ir::Node& n) {
        uint64_t h = 0;
        auto add = [&h](int64_t v) { h = splitmix(h ^ static_cast<uint64_t>(v)); };
        auto hw = [&add](const ir::Hw& v) {
            add(v.h);
            add(v.w);
        };
        add(static_cast<int64_t>(n.kind) + 1);
        add(n.outputShape.c);
        add(n.outputShape.h);
        add(n.outputShape.w);
        switch (n.kind) {
        case ir::NodeKind::Conv:
            add(n.conv.outChannels);
            hw(n.conv.kernel);
            hw(n.conv.stride);
            hw(n.conv.padding);
            add(n.conv.groups);
            add(static_cast<int64_t>(n.conv.act));
            break;
        case ir::NodeKind::Pool:
            add(static_cast<int64_t>(n.pool.type));
            hw(n.pool.kernel);
            hw(n.pool.stride);
            hw(n.pool.padding);
            break;
        case ir::NodeKind::Activation:
            add(static_cast<int64_t>(n.activation));
            break;
        case ir::NodeKind::Element:
            add(static_cast<int64_t>(n.element));
            break;
        case ir::NodeKind::Norm:
            add(static_cast<int64_t>(n.norm.type));
            add(n.norm.groups);
            add(std::bit_cast<int64_t>(n.norm.epsilon));
            break;
        case ir::NodeKind::Matmul:
            add(n.matmul.heads);
            add(n.matmul.transposeB ? 1 : 0);
            add(std::bit_cast<int64_t>(n.matmul.alpha));
            add(n.matmul.windows);
            break;
        case ir::NodeKind::Tokens:
            add(n.tokens.outHw.h);
            add(n.tokens.outHw.w);
            add(n.tokens.embed ? 1 : 0);
            add(n.tokens.embedChannels);
            add(n.tokens.embedPositions);
            for (int64_t i : n.tokens.index)
                add(i);
            break;
        default:
            break;
        }
        // Term and value separators keep [[a],[b]] (concat) apart from [[a,b]] (sum).
        for (const ir::Term& t : n.inputs) {
            add(-1);
            for (const ir::ValueRef& v : t) {
                auto it = byName.find(v.node);
                add(static_cast<int64_t>(it == byName.end() ? 0 : it->second));
                add(v.begin);
                add(v.end);
                if (v.inPlace)
                    add(-3); // only when set: graphs without flags keep their hashes
            }
        }
        for (const ir::Node& inner : n.nodes) {
            add(-2);
            add(static_cast<int64_t>(visit(inner)));
        }
        return h;
    }

    uint64_t visit(const ir::Node& n) {
        const uint64_t h = node(n);
        byName[n.name] = h;
        sum += h;
        return h;
    }
};

} // namespace

uint64_t graphHash(const ir::Graph& graph) {
    Hasher h;
    h.visit(graph.input);
    for (const ir::Block& b : graph.blocks)
        for (const ir::Node* n : b.operators())
            h.visit(*n);
    return h.sum;
}

uint64_t blockHash(const ir::Graph& graph, size_t block) {
    const ir::Block& b = graph.blocks.at(block);
    Hasher h;
    ir::Node enter;
    enter.kind = ir::NodeKind::Placeholder;
    enter.outputShape = b.enterNode.outputShape;
    h.byName[b.enterName] = h.node(enter);
    for (const ir::Node* n : b.operators())
        h.visit(*n);
    return h.sum;
}

} // namespace ios::rewrite
