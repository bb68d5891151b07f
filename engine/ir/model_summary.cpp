// SPDX-License-Identifier: Apache-2.0
#include "ir/model_summary.h"

#include "ir/dag_width.h"

#include <algorithm>
#include <array>

namespace ios::ir {

namespace {

constexpr size_t kKindCount = ir::kNodeKindCount;
using KindTally = std::array<int, kKindCount>;

void countPrimitives(const Node& node, KindTally& tally) {
    if (node.kind != NodeKind::Sequential) {
        ++tally[static_cast<size_t>(node.kind)];
        return;
    }
    for (const Node& inner : node.nodes)
        countPrimitives(inner, tally);
}

KindCounts toCounts(const KindTally& tally) {
    KindCounts out;
    for (size_t k = 0; k < kKindCount; ++k)
        if (tally[k] != 0)
            out.emplace_back(static_cast<NodeKind>(k), tally[k]);
    return out;
}

BlockSummary summarizeBlock(const Block& block, const BlockDag& dag, const NodeIndex& index) {
    BlockSummary s;
    s.enterName = block.enterName;
    s.exitName = block.exitNode.name;
    s.operators = static_cast<int>(dag.ops.size());
    s.parts = static_cast<int>(dag.parts.size());
    for (const auto& part : dag.parts)
        s.widestPart = std::max(s.widestPart, static_cast<int>(part.size()));
    if (dag.ops.size() <= kMaxAntichainVertices)
        s.dagWidth = dagWidth(dag);
    for (const Node* op : dag.ops)
        s.metrics.add(computeMetrics(*op, index), op->name);
    return s;
}

} // namespace

ModelSummary summarize(const Graph& graph, int maxPartSize) {
    ModelSummary m;
    m.name = graph.name;
    m.inputShape = graph.input.outputShape;
    m.maxPartSize = maxPartSize;
    if (!graph.blocks.empty())
        m.outputShape = graph.blocks.back().exitNode.outputShape;

    const NodeIndex index(graph);
    KindTally operators{};
    KindTally primitives{};
    bool widthKnown = true;
    int width = 0;
    for (const Block& block : graph.blocks) {
        const BlockDag dag = buildBlockDag(block, maxPartSize);
        BlockSummary b = summarizeBlock(block, dag, index);
        for (const Node* op : dag.ops) {
            ++operators[static_cast<size_t>(op->kind)];
            countPrimitives(*op, primitives);
        }
        m.operators += b.operators;
        m.parts += b.parts;
        m.widestPart = std::max(m.widestPart, b.widestPart);
        widthKnown = widthKnown && b.dagWidth.has_value();
        width = std::max(width, b.dagWidth.value_or(0));
        m.totals.add(b.metrics, b.exitName);
        m.blocks.push_back(std::move(b));
    }
    if (widthKnown)
        m.dagWidth = width;
    m.operatorsByKind = toCounts(operators);
    m.primitivesByKind = toCounts(primitives);
    return m;
}

} // namespace ios::ir
