// SPDX-License-Identifier: Apache-2.0
// What an IOS DP search will cost, before it runs (docs/estimates.md "Up-front estimate of the IOS
// DP"): the GUI runs a search on a settings edit only when this says it is quick.
#pragma once

#include "cost/cost_model.h"
#include "cost/program_simulator.h"
#include "ir/prepared_model.h"
#include "schedulers/ios_dp.h"
#include "schedulers/search_control.h"
#include "schedulers/search_statistics.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ios::schedulers {

// A stage to be timed: a block's DAG and the stage.
struct SampleStage {
    const ir::BlockDag* dag;
    schedule::Stage stage;
};

// Copies of the stages offered, spread over all of them (every stride-th, the stride doubling
// whenever the sample of 2 x SearchEstimate::kSampleStages fills up: deterministic on one
// thread; the first stages alone are the small ones), and their count. Thread-safe.
class StageSampler {
public:
    // keep = false: counted only.
    void offer(const ir::BlockDag& dag, const schedule::Stage& stage, bool keep = true);
    std::vector<SampleStage> samples() const;
    uint64_t offered() const;

private:
    mutable std::mutex mutex_;
    std::vector<SampleStage> samples_;
    uint64_t seen_ = 0;
    uint64_t stride_ = 1;
};

// Prices as `real` does, bit for bit (every hook forwarded), and samples the stages of `dags`
// it prices (those the canonical memo does not hold): what a search under `real` spends its
// pricing on. Stages of other DAGs (a scheduler's temporary ones) are counted, not kept.
class SamplingCostModel final : public cost::CostModel, public cost::ProgramSimulation {
public:
    SamplingCostModel(const cost::CostModel& real, const std::vector<ir::BlockDag>& dags)
        : real_(real), dags_(dags) {}

    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override;
    const cost::StageShortcuts* stageShortcuts() const override { return real_.stageShortcuts(); }
    const cost::KernelTimelineModel* kernelTimeline() const override {
        return real_.kernelTimeline();
    }
    // Programs are simulated by `real` (its own simulation or the dataflow of its latencies).
    const cost::ProgramSimulation* programSimulation() const override { return this; }
    cost::ProgramRun simulateProgram(const ir::BlockDag& dag,
                                     const schedule::StreamProgram& program,
                                     bool timeline) const override {
        return cost::simulateProgram(real_, dag, program, timeline);
    }
    const cost::GraphRetargeting* retargeting() const override { return real_.retargeting(); }
    int batch() const override { return real_.batch(); }
    std::string describe() const override { return real_.describe(); }

    const StageSampler& sampler() const { return sampler_; }

private:
    const cost::CostModel& real_;
    const std::vector<ir::BlockDag>& dags_;
    mutable StageSampler sampler_;
};

// Seconds `cost` takes to price one of `samples` (their mean; 0 for none). A first pass pays
// what a model builds once per operator (the simulated GPU's kernels), which a search spreads
// over all its stages; then the fastest of passes repeated until they take 5 ms (at most 64).
// Throws Cancelled when `control` is cancelled.
double secondsPerStage(const cost::CostModel& cost, const std::vector<SampleStage>& samples,
                       const SearchControl* control = nullptr);

// The mean over `samples` priced once each, in an order spread over them, stopping once
// `budgetSeconds` are spent (at least one priced): for a model whose stages take a second each
// (a batch of 65536), where secondsPerStage would take minutes. Includes what the model builds
// once per operator: an estimate from it errs high.
double secondsPerStageWithin(const cost::CostModel& cost, const std::vector<SampleStage>& samples,
                             double budgetSeconds, const SearchControl* control = nullptr);

// The schedule operators of every block: what the estimates price once per operator.
size_t operatorCount(const ir::PreparedModel& model);

// Up to SearchEstimate::kSampleStages single-operator stages spread evenly over the model's
// operators: what compares the pricing cost of one model's settings (specialize.h).
std::vector<SampleStage> operatorStages(const ir::PreparedModel& model);

// Up to SearchEstimate::kSampleStages stages of kConcurrentOps independent operators (ops of
// one depth in a block, each its own group), spread over the model: what pricing a concurrent
// stage costs, for schedulers that cannot sample their own (RAF-IOS's endings). A model without
// two independent operators gives operatorStages.
inline constexpr size_t kConcurrentOps = 4;
std::vector<SampleStage> concurrentStages(const ir::PreparedModel& model);

// Counts the search `optimize(model, options, cost)` would run, on one thread, and times
// stage pricing under `cost`. Stops counting after `countLimitSeconds` (complete = false).
// Throws UserError where optimize() would (bad options, too many states) and Cancelled when
// `control` is cancelled.
SearchEstimate estimateSearch(const ir::PreparedModel& model, const Options& options,
                              const cost::CostModel& cost, double countLimitSeconds,
                              const SearchControl* control = nullptr);

} // namespace ios::schedulers
