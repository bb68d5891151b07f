// SPDX-License-Identifier: Apache-2.0
// The IOS dynamic program (IOS paper §4, Algorithm 1; docs/algorithms.md §2) registered in its
// three variants: merge stages only, parallel stages only, and both.
#include "schedulers/ios_dp.h"
#include "schedulers/scheduler.h"
#include "schedulers/search_estimate.h"

namespace ios::schedulers {

namespace {

class IosScheduler : public Scheduler {
public:
    IosScheduler(Strategy strategy, std::string_view key, std::string_view alias,
                 std::string_view label, std::string_view description, int rank)
        : strategy_(strategy), key_(key), alias_(alias), label_(label), description_(description),
          rank_(rank) {}

    std::string_view key() const override { return key_; }
    std::string_view label() const override { return label_; }
    std::string_view description() const override { return description_; }
    std::vector<std::string_view> aliases() const override { return {alias_}; }
    int rank() const override { return rank_; }
    std::vector<Knob> knobs() const override {
        std::vector<Knob> k;
        if (strategy_ != Strategy::Merge) // r and s bound parallel stages only
            k = {Knob::MaxGroupSize, Knob::MaxNumGroups, Knob::Endings};
        for (Knob common : {Knob::MaxPartSize, Knob::Batch, Knob::Device, Knob::MemoryBudget})
            k.push_back(common);
        return k;
    }

    bool hasEstimate() const override { return true; }
    std::optional<SearchEstimate> estimate(const ir::PreparedModel& model, const Params& params,
                                           const cost::CostModel& cost, double countLimitSeconds,
                                           const SearchControl* control) const override {
        return estimateSearch(model, dpOptions(params, strategy_, cost), cost, countLimitSeconds,
                              control);
    }

protected:
    Outcome search(const ir::PreparedModel& model, const Params& params,
                   const cost::CostModel& cost, SearchControl* control) const override {
        Result result = optimize(model, dpOptions(params, strategy_, cost), cost, control);
        Outcome out;
        out.schedule = std::move(result.schedule);
        out.latencyMs = result.latencyMs;
        out.searchSeconds = result.stats.seconds;
        out.stats = std::move(result.stats);
        out.stateSpace = std::move(result.stateSpace);
        return out;
    }

private:
    Strategy strategy_;
    std::string_view key_, alias_, label_, description_;
    int rank_;
};

class IosMergeScheduler final : public IosScheduler {
public:
    IosMergeScheduler()
        : IosScheduler(Strategy::Merge, "ios-merge", "merge", "IOS-Merge",
                       "IOS DP with merge stages only: same-input convolutions run as one", 20) {}
};

class IosParallelScheduler final : public IosScheduler {
public:
    IosParallelScheduler()
        : IosScheduler(Strategy::Parallel, "ios-parallel", "parallel", "IOS-Parallel",
                       "IOS DP with parallel stages only: groups run concurrently on streams", 30) {
    }
};

class IosBothScheduler final : public IosScheduler {
public:
    IosBothScheduler()
        : IosScheduler(Strategy::Both, "ios-both", "both", "IOS-Both",
                       "IOS DP choosing between merge and parallel stages (the paper's IOS)", 40) {}
};

} // namespace

IOS_REGISTER_SCHEDULER(IosMergeScheduler);
IOS_REGISTER_SCHEDULER(IosParallelScheduler);
IOS_REGISTER_SCHEDULER(IosBothScheduler);

} // namespace ios::schedulers
