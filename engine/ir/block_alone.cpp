// SPDX-License-Identifier: Apache-2.0
#include "ir/block_alone.h"

#include "ir/validate.h"
#include "util/error.h"

namespace ios::ir {

void checkBlockIndex(const Graph& graph, int64_t block) {
    const size_t n = graph.blocks.size();
    if (block >= 0 && static_cast<uint64_t>(block) < n)
        return;
    throw UserError("block " + std::to_string(block) + " is out of range: model '" + graph.name +
                    "' has " +
                    (n == 0 ? std::string("no blocks") : "blocks 0 to " + std::to_string(n - 1)));
}

Graph blockAlone(const Graph& graph, int block) {
    return blocksAlone(graph, block, block);
}

Graph blocksAlone(const Graph& graph, int first, int last) {
    checkBlockIndex(graph, first);
    checkBlockIndex(graph, last);
    if (last < first)
        throw UserError("blocks " + std::to_string(first) + " to " + std::to_string(last) +
                        " of model '" + graph.name + "': the last comes before the first");
    const Block& b = graph.blocks[static_cast<size_t>(first)];
    Graph sub;
    sub.name = graph.name;
    sub.input.kind = NodeKind::Placeholder;
    sub.input.name = b.enterName;
    sub.input.outputShape = b.enterNode.outputShape;
    sub.blocks.assign(graph.blocks.begin() + first, graph.blocks.begin() + last + 1);
    sub.blocks.front().enterNode = sub.input;
    validateAndInferShapes(sub);
    return sub;
}

} // namespace ios::ir
