// SPDX-License-Identifier: Apache-2.0
// Serenity's memory-optimal operator order as a registered scheduler (Serenity, MLSys 2020;
// docs/memory.md): per block, cut-point partitions, each ordered by the soft-budgeted exact
// DP; the order runs as a sequential schedule, so its latency compares with the others.
#include "eval/evaluate.h"
#include "schedulers/scheduler.h"
#include "schedulers/search_estimate.h"
#include "schedulers/serenity/memory_plan.h"
#include "schedulers/serenity/plan_estimate.h"

#include <chrono>
#include <cmath>

namespace ios::schedulers {

namespace {

class SerenityScheduler final : public Scheduler {
public:
    std::string_view key() const override { return "serenity"; }
    std::string_view label() const override { return "Serenity"; }
    std::string_view description() const override {
        return "one operator per stage in the order of least peak memory (Serenity, MLSys 2020)";
    }
    std::vector<Knob> knobs() const override { return {Knob::Batch, Knob::Device}; }
    int rank() const override { return 300; }

    // The DP's expansions counted exactly, at this process's DP rate, and every operator
    // priced once (serenity/plan_estimate.h).
    bool hasEstimate() const override { return true; }
    std::optional<SearchEstimate> estimate(const ir::PreparedModel& model, const Params& params,
                                           const cost::CostModel& cost, double /*countLimit*/,
                                           const SearchControl* control) const override {
        SearchEstimate e = serenity::estimatePlan(
            ir::modelMemoryProblems(model.graph(), model.dags(), memoryOptions(params, cost)),
            planOptions(params), control);
        const std::vector<SampleStage> samples = operatorStages(model);
        e.secondsPerStage = secondsPerStage(cost, samples, control);
        const size_t ops = operatorCount(model);
        e.stages = e.stagesPriced = ops;
        const double pricing = static_cast<double>(ops) * e.secondsPerStage;
        e.low += pricing;
        e.high += pricing;
        e.seconds = std::sqrt(e.low * e.high);
        return e;
    }

protected:
    Outcome search(const ir::PreparedModel& model, const Params& params,
                   const cost::CostModel& cost, SearchControl* control) const override {
        const auto start = std::chrono::steady_clock::now();
        const std::vector<ir::MemoryProblem> problems =
            ir::modelMemoryProblems(model.graph(), model.dags(), memoryOptions(params, cost));
        const serenity::MemoryPlan plan =
            serenity::planMemory(problems, planOptions(params), control);
        Outcome out;
        for (size_t b = 0; b < problems.size(); ++b) {
            schedule::BlockSchedule bs;
            for (int op : plan.blocks[b].order)
                if (const int blockOp = problems[b].ops[static_cast<size_t>(op)].blockOp;
                    blockOp >= 0)
                    bs.stages.push_back({schedule::StageKind::Parallel, {{blockOp}}});
            out.schedule.blocks.push_back(std::move(bs));
        }
        out.searchSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        out.latencyMs = eval::totalLatencyMs(model.dags(), out.schedule, cost);
        return out;
    }

private:
    static serenity::PlanOptions planOptions(const Params& params) {
        serenity::PlanOptions options;
        options.resolution = params.bytesPerElement;
        options.limits.maxExpansions = serenity::kSchedulerExpansions;
        options.escalations = serenity::kSchedulerEscalations;
        return options;
    }
};

} // namespace

IOS_REGISTER_SCHEDULER(SerenityScheduler);

} // namespace ios::schedulers
