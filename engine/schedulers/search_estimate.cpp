// SPDX-License-Identifier: Apache-2.0
// The up-front estimate (search_estimate.h): the DP itself, run with a cost model that prices
// every stage as a constant, counts what the real search will meet; the real model prices a
// sample of those stages to give a time per stage.
#include "schedulers/search_estimate.h"

#include "cost/cost_model_with.h"
#include "cost/stage_memo.h"
#include "cost/stage_shortcuts.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

namespace ios::schedulers {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The real model's operator classes (so equal parts are searched once and the canonical memo
// keys stages as in the real search) with a memo of its own (so what it counts as priced is
// what a fresh search prices), and a constant latency: counts do not depend on latencies.
// Samples the stages it prices, to be timed with the real model.
class CountingCostModel final : public cost::CostModelWith<cost::StageShortcuts> {
public:
    explicit CountingCostModel(const cost::CostModel& real) : real_(real) {}

    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override {
        sampler_.offer(dag, stage);
        return 1.0;
    }
    cost::StageMemo* canonicalStageMemo(const ir::BlockDag& dag,
                                        std::vector<uint32_t>& classes) const override {
        const cost::StageShortcuts* real = real_.stageShortcuts();
        return real != nullptr && real->canonicalStageMemo(dag, classes) != nullptr ? &memo_
                                                                                    : nullptr;
    }
    int batch() const override { return real_.batch(); }
    std::string describe() const override { return "counting (" + real_.describe() + ")"; }

    std::vector<SampleStage> samples() const { return sampler_.samples(); }

private:
    const cost::CostModel& real_;
    mutable cost::StageMemo memo_;
    mutable StageSampler sampler_;
};

} // namespace

void StageSampler::offer(const ir::BlockDag& dag, const schedule::Stage& stage, bool keep) {
    const std::lock_guard lock(mutex_);
    if (seen_++ % stride_ == 0 && keep)
        samples_.push_back({&dag, stage});
    if (samples_.size() == 2 * static_cast<size_t>(SearchEstimate::kSampleStages)) {
        for (size_t i = 1; i < samples_.size() / 2; ++i) // 0 stays where it is
            samples_[i] = std::move(samples_[2 * i]);
        samples_.resize(samples_.size() / 2);
        stride_ *= 2;
    }
}

std::vector<SampleStage> StageSampler::samples() const {
    const std::lock_guard lock(mutex_);
    return samples_;
}

uint64_t StageSampler::offered() const {
    const std::lock_guard lock(mutex_);
    return seen_;
}

double SamplingCostModel::stageLatencyMs(const ir::BlockDag& dag,
                                         const schedule::Stage& stage) const {
    const bool ours =
        std::any_of(dags_.begin(), dags_.end(), [&](const ir::BlockDag& d) { return &d == &dag; });
    sampler_.offer(dag, stage, ours);
    return real_.stageLatencyMs(dag, stage);
}

double secondsPerStage(const cost::CostModel& cost, const std::vector<SampleStage>& samples,
                       const SearchControl* control) {
    if (samples.empty())
        return 0;
    auto pass = [&] {
        const auto t1 = Clock::now();
        for (const SampleStage& sample : samples) {
            if (control != nullptr && control->cancelled())
                throw Cancelled();
            static_cast<void>(cost::checkedStageLatencyMs(cost, *sample.dag, sample.stage));
        }
        return secondsSince(t1);
    };
    pass(); // pays what the model builds once per operator
    // The fastest of timed passes, repeated until they add up to 5 ms (at most 64): one pass of
    // fast stages takes microseconds, which a preemption alone would multiply.
    double fastest = pass();
    double spent = fastest;
    for (int passes = 1; spent < 5e-3 && passes < 64; ++passes) {
        const double seconds = pass();
        fastest = std::min(fastest, seconds);
        spent += seconds;
    }
    return fastest / static_cast<double>(samples.size());
}

double secondsPerStageWithin(const cost::CostModel& cost, const std::vector<SampleStage>& samples,
                             double budgetSeconds, const SearchControl* control) {
    // Spread order: 0, n/2, n/4, 3n/4, ... so that a prefix covers the whole search.
    const size_t n = samples.size();
    std::vector<bool> taken(n, false);
    std::vector<size_t> order;
    for (size_t step = std::bit_ceil(std::max<size_t>(n, 1)); step >= 1; step /= 2)
        for (size_t i = 0; i < n; i += step)
            if (!taken[i]) {
                taken[i] = true;
                order.push_back(i);
            }
    double spent = 0;
    size_t timed = 0;
    for (size_t i : order) {
        if (control != nullptr && control->cancelled())
            throw Cancelled();
        const auto t1 = Clock::now();
        static_cast<void>(cost::checkedStageLatencyMs(cost, *samples[i].dag, samples[i].stage));
        spent += secondsSince(t1);
        ++timed;
        if (spent >= budgetSeconds)
            break;
    }
    return timed == 0 ? 0 : spent / static_cast<double>(timed);
}

size_t operatorCount(const ir::PreparedModel& model) {
    size_t ops = 0;
    for (const ir::BlockDag& dag : model.dags())
        ops += dag.ops.size();
    return ops;
}

std::vector<SampleStage> operatorStages(const ir::PreparedModel& model) {
    const size_t stride = std::max<size_t>(1, operatorCount(model) / SearchEstimate::kSampleStages);
    std::vector<SampleStage> out;
    size_t seen = 0;
    for (const ir::BlockDag& dag : model.dags())
        for (size_t op = 0; op < dag.ops.size(); ++op)
            if (seen++ % stride == 0) {
                SampleStage sample{&dag, {}};
                sample.stage.groups.push_back({static_cast<int>(op)});
                out.push_back(std::move(sample));
            }
    return out;
}

std::vector<SampleStage> concurrentStages(const ir::PreparedModel& model) {
    std::vector<SampleStage> all;
    for (const ir::BlockDag& dag : model.dags()) {
        // Ops by depth (longest path from the block's start): ops of one depth are independent.
        std::vector<int> depth(dag.ops.size(), 0);
        std::vector<std::vector<int>> level;
        for (size_t op = 0; op < dag.ops.size(); ++op) {
            for (int q : dag.preds[op])
                depth[op] = std::max(depth[op], depth[static_cast<size_t>(q)] + 1);
            if (level.size() <= static_cast<size_t>(depth[op]))
                level.resize(static_cast<size_t>(depth[op]) + 1);
            level[static_cast<size_t>(depth[op])].push_back(static_cast<int>(op));
        }
        for (const std::vector<int>& ops : level)
            if (ops.size() >= 2) {
                SampleStage sample{&dag, {}};
                for (size_t i = 0; i < std::min<size_t>(ops.size(), kConcurrentOps); ++i)
                    sample.stage.groups.push_back({ops[i]});
                all.push_back(std::move(sample));
            }
    }
    if (all.empty())
        return operatorStages(model);
    const size_t stride = std::max<size_t>(1, all.size() / SearchEstimate::kSampleStages);
    std::vector<SampleStage> out;
    for (size_t i = 0; i < all.size(); i += stride)
        out.push_back(std::move(all[i]));
    return out;
}

SearchEstimate estimateSearch(const ir::PreparedModel& model, const Options& options,
                              const cost::CostModel& cost, double countLimitSeconds,
                              const SearchControl* control) {
    SearchEstimate out;
    out.states = countStates(model); // cheap, exact, and throws like optimize() would

    Options counting = options;
    counting.threads = 1; // Statistics::stages is exact on one thread only
    counting.recordStateSpace = false;
    CountingCostModel counter(cost);
    SearchControl limit;
    limit.parent = control;
    const auto t0 = Clock::now();
    limit.deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(countLimitSeconds));
    try {
        const Result result = optimize(model, counting, counter, &limit);
        out.states = result.stats.states; // under a memory budget: the reachable ones
        out.transitions = result.stats.transitions;
        out.stages = result.stats.stages;
        out.stagesPriced = result.stats.stagesPriced;
        out.partsSearched = result.stats.partsSearched;
    } catch (const TimeLimitReached&) {
        out.complete = false;
    }
    out.countSeconds = secondsSince(t0);
    if (!out.complete) {
        out.seconds = out.low = countLimitSeconds;
        return out;
    }
    out.secondsPerStage = secondsPerStage(cost, counter.samples(), control);
    out.seconds = out.countSeconds + static_cast<double>(out.stagesPriced) * out.secondsPerStage;
    out.low = 0.6 * out.seconds;
    out.high = 1.2 * out.seconds;
    return out;
}

} // namespace ios::schedulers
