// SPDX-License-Identifier: Apache-2.0
#include "ir/block_dag.h"

#include "util/error.h"

#include <algorithm>
#include <unordered_map>

namespace ios::ir {

BlockDag buildBlockDag(const Block& block, int maxPartSize) {
    if (maxPartSize < 1)
        throw UserError("max part size must be at least 1, not " + std::to_string(maxPartSize));
    BlockDag dag;
    dag.ops = block.operators();
    const int n = static_cast<int>(dag.ops.size());
    std::unordered_map<std::string, int> index;
    for (int i = 0; i < n; ++i)
        index.emplace(dag.ops[i]->name, i);

    dag.preds.assign(n, {});
    dag.succs.assign(n, {});
    for (int i = 0; i < n; ++i) {
        for (const Term& t : dag.ops[i]->externalInputs())
            for (const ValueRef& v : t)
                if (auto it = index.find(v.node); it != index.end())
                    dag.preds[i].push_back(it->second);
        std::sort(dag.preds[i].begin(), dag.preds[i].end());
        dag.preds[i].erase(std::unique(dag.preds[i].begin(), dag.preds[i].end()),
                           dag.preds[i].end());
        for (int p : dag.preds[i])
            dag.succs[p].push_back(i);
    }

    dag.partOf.assign(n, -1);
    if (block.parts.empty()) {
        for (int i = 0; i < n; ++i) {
            if (i % maxPartSize == 0)
                dag.parts.emplace_back();
            dag.parts.back().push_back(i);
            dag.partOf[i] = static_cast<int>(dag.parts.size()) - 1;
        }
        return dag;
    }
    dag.explicitParts = true;
    for (const auto& names : block.parts) {
        std::vector<int> part;
        for (const std::string& name : names) {
            auto it = index.find(name);
            if (it == index.end())
                throw UserError("part lists an operator that is not in the block", {}, name);
            if (dag.partOf[it->second] != -1)
                throw UserError("operator appears in two parts", {}, name);
            dag.partOf[it->second] = static_cast<int>(dag.parts.size());
            part.push_back(it->second);
        }
        std::sort(part.begin(), part.end());
        dag.parts.push_back(std::move(part));
    }
    for (int i = 0; i < n; ++i)
        if (dag.partOf[i] == -1)
            throw UserError("operator is in no part", {}, dag.ops[i]->name);
    // The DP schedules the parts one after another: no part may feed an earlier one.
    for (int i = 0; i < n; ++i)
        for (int p : dag.preds[i])
            if (dag.partOf[p] > dag.partOf[i])
                throw UserError("part " + std::to_string(dag.partOf[i]) + " reads '" +
                                    dag.ops[p]->name + "' of the later part " +
                                    std::to_string(dag.partOf[p]) +
                                    " (parts must follow the dependencies)",
                                {}, dag.ops[i]->name);
    return dag;
}

std::vector<BlockDag> buildDags(const Graph& graph, int maxPartSize) {
    std::vector<BlockDag> dags;
    dags.reserve(graph.blocks.size());
    for (const Block& b : graph.blocks)
        dags.push_back(buildBlockDag(b, maxPartSize));
    return dags;
}

} // namespace ios::ir
