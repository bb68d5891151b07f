// SPDX-License-Identifier: Apache-2.0
// --block B: a command searches and prices one block of MODEL alone (cost/block_model.h), the
// blocks numbered as `ios-sched info` lists them (0 to blocks − 1). compare and specialize
// declare it (the IOS paper's Figures 16 and 10).
#pragma once

#include "args.h"
#include "cost/block_model.h"
#include "cost/cost_model.h"
#include "ir/prepared_model.h"

#include <memory>
#include <optional>
#include <string>

namespace ios::cli {

void addBlockOption(ArgParser& parser);

// What a command schedules: the whole model, or with --block its block B alone.
class ModelScope {
public:
    // `graph` must outlive the scope. Throws ios::UserError for a --block that is not a number
    // or not one of the model's blocks (naming the model and the valid range).
    ModelScope(const ArgParser& parser, const ir::Graph& graph, int maxPartSize);

    const ir::PreparedModel& prepared() const { return block_ ? block_->prepared() : *whole_; }
    std::optional<int> block() const;
    // "inception_v3" or "inception_v3 block 12".
    std::string title() const;
    // `whole` (a cost model of the whole graph) for the scope: itself, or the block's
    // (BlockModel::cost, kept in `owned`).
    const cost::CostModel& cost(const cost::CostModel& whole,
                                std::unique_ptr<cost::CostModel>& owned) const;

private:
    const ir::Graph& graph_;
    std::optional<ir::PreparedModel> whole_;
    std::optional<cost::BlockModel> block_;
};

} // namespace ios::cli
