// SPDX-License-Identifier: Apache-2.0
#include "cost/block_model.h"

#include "ir/block_alone.h"

#include <stdexcept>

namespace ios::cost {

namespace {

// A stage of the block's graph priced as the same stage of the whole graph's block: the two
// blocks' DAGs list the same operators in the same order, so operator indices carry over.
class WholeBlockPricing final : public CostModel {
public:
    WholeBlockPricing(const CostModel& whole, ir::BlockDag wholeDag)
        : whole_(whole), wholeDag_(std::move(wholeDag)) {}

    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override {
        if (dag.ops.size() != wholeDag_.ops.size())
            throw std::logic_error("block cost model: a stage of another block");
        return whole_.stageLatencyMs(wholeDag_, stage);
    }
    std::string describe() const override { return whole_.describe(); }
    int batch() const override { return whole_.batch(); }

private:
    const CostModel& whole_;
    ir::BlockDag wholeDag_;
};

} // namespace

BlockModel::BlockModel(const ir::Graph& whole, int block, int maxPartSize)
    : whole_(whole), block_(block), graph_(ir::blockAlone(whole, block)),
      prepared_(graph_, maxPartSize) {}

std::unique_ptr<CostModel> BlockModel::cost(const CostModel& whole) const {
    if (std::unique_ptr<CostModel> retargeted = forGraph(whole, graph_))
        return retargeted;
    return std::make_unique<WholeBlockPricing>(
        whole,
        ir::buildBlockDag(whole_.blocks[static_cast<size_t>(block_)], prepared_.maxPartSize()));
}

} // namespace ios::cost
