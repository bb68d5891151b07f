// SPDX-License-Identifier: Apache-2.0
#include "measured_cost_model.h"

#include "cost/stage_signature.h"

namespace ios::profiling {

MeasuredCostModel::MeasuredCostModel(Executor& executor, std::string model, TimingOptions timing,
                                     cost::MeasurementCache* cache)
    : executor_(executor), model_(std::move(model)),
      modelHash_(cost::modelContentHash(executor.graph())),
      device_(executor.backend().deviceName()), timing_(timing), cache_(cache) {
    if (cache_)
        cache_->removeOtherContents(model_, modelHash_);
}

double MeasuredCostModel::stageLatencyMs(const ir::BlockDag& dag,
                                         const schedule::Stage& stage) const {
    const std::string key = cost::stageKey(dag, stage);
    std::lock_guard lock(mutex_);
    if (auto it = memo_.find(key); it != memo_.end())
        return it->second;
    double ms = 0;
    if (auto cached =
            cache_ ? cache_->find(device_, model_, executor_.batch(), key) : std::nullopt) {
        ms = *cached;
        ++fromCache_;
    } else {
        ms = median(executor_.timeStage(dag, stage, timing_));
        ++measured_;
        if (cache_)
            cache_->add({device_, model_, executor_.batch(), key, ms,
                         timing_.repeat * timing_.number, modelHash_});
    }
    memo_.emplace(key, ms);
    return ms;
}

std::string MeasuredCostModel::describe() const {
    return "measured on " + device_ + ", batch " + std::to_string(executor_.batch()) +
           " (median of " + std::to_string(timing_.repeat) + " samples of " +
           std::to_string(timing_.number) + (timing_.cudaGraph ? " CUDA-graph replays)" : " runs)");
}

} // namespace ios::profiling
