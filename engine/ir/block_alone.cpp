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
    checkBlockIndex(graph, block);
    const Block& b = graph.blocks[static_cast<size_t>(block)];
    Graph sub;
    sub.name = graph.name;
    sub.input.kind = NodeKind::Placeholder;
    sub.input.name = b.enterName;
    sub.input.outputShape = b.enterNode.outputShape;
    Block copy = b;
    copy.enterNode = sub.input;
    sub.blocks.push_back(std::move(copy));
    validateAndInferShapes(sub);
    return sub;
}

} // namespace ios::ir
