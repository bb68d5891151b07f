// SPDX-License-Identifier: Apache-2.0
// Stage latencies measured on the device (IOS paper §5: the DP's cost of a stage is its
// measured latency): median of repeated timed runs after warm-up. Every measurement also goes
// into a MeasurementCache so `--cost cache:FILE` replays it without a GPU.
#pragma once

#include "cost/cost_model.h"
#include "cost/measurement_cache.h"
#include "executor.h"

#include <mutex>
#include <string>
#include <unordered_map>

namespace ios::profiling {

class MeasuredCostModel final : public cost::CostModel {
public:
    // The IOS profiling settings: warm-up 2, then 6 samples of 6 runs (docs/performance.md),
    // each run a CUDA-graph replay of the stage: with cuDNN 9's legacy API the host needs
    // tens of µs per call, more than most batch-1 kernels take on an H100, so eager timings
    // would price the CPU, not the stage (docs/performance.md).
    static TimingOptions defaultTiming() { return TimingOptions{2, 6, 6, true}; }

    // `executor` and `cache` (optional) must outlive the model. Stages already in the cache
    // for this device, model and batch are not measured again; entries of the model's name
    // but of other contents (cost::modelContentHash) are removed from it first.
    MeasuredCostModel(Executor& executor, std::string model, TimingOptions timing = defaultTiming(),
                      cost::MeasurementCache* cache = nullptr);

    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override;
    std::string describe() const override;
    int batch() const override { return executor_.batch(); }

    int stagesMeasured() const { return measured_; }
    int stagesFromCache() const { return fromCache_; }

private:
    Executor& executor_;
    std::string model_;
    std::string modelHash_;
    std::string device_;
    TimingOptions timing_;
    cost::MeasurementCache* cache_;
    mutable std::mutex mutex_; // the executor drives one device: one measurement at a time
    mutable std::unordered_map<std::string, double> memo_;
    mutable int measured_ = 0;
    mutable int fromCache_ = 0;
};

} // namespace ios::profiling
