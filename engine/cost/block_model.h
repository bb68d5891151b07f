// SPDX-License-Identifier: Apache-2.0
// One block of a model searched and priced alone (`specialize --block`, `compare --block`: the
// IOS paper's Figures 10 and 16). Every scheduler schedules a model block by block and a
// schedule's latency is the sum of its blocks', so the block alone (ir::blockAlone) is searched
// as the whole model's search treats that block, and priced as the whole model prices it.
#pragma once

#include "cost/cost_model.h"
#include "ir/graph.h"
#include "ir/prepared_model.h"

#include <memory>

namespace ios::cost {

class BlockModel {
public:
    // Block `block` of `whole` (validated; it must outlive this object), its parts cut by
    // `maxPartSize` as the whole model's are. Throws ios::UserError naming the model and the
    // valid range when `block` is not one of its blocks (ir::checkBlockIndex).
    BlockModel(const ir::Graph& whole, int block, int maxPartSize);
    BlockModel(const BlockModel&) = delete;
    BlockModel& operator=(const BlockModel&) = delete;

    int block() const { return block_; }
    const ir::Graph& graph() const { return graph_; }
    const ir::PreparedModel& prepared() const { return prepared_; }

    // `whole` (a cost model of the whole graph) for the block alone: retargeted to the block's
    // graph where it can be (it prices operators by attributes and shapes, which the block
    // keeps); else a model that prices each stage as `whole` prices the same stage of the
    // whole graph's block (measurements are keyed by the whole model's operators; such models
    // offer no further capability). Either way a stage costs what it costs in the whole model.
    // This object and `whole` must outlive the result.
    std::unique_ptr<CostModel> cost(const CostModel& whole) const;

private:
    const ir::Graph& whole_;
    int block_;
    ir::Graph graph_;
    ir::PreparedModel prepared_;
};

} // namespace ios::cost
