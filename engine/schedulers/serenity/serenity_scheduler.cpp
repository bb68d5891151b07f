// SPDX-License-Identifier: Apache-2.0
// Serenity's memory-optimal operator order as a registered scheduler (Serenity, MLSys 2020;
// docs/memory.md): per block, cut-point partitions, each ordered by the soft-budgeted exact
// DP; the order runs as a sequential schedule, so its latency compares with the others.
#include "eval/evaluate.h"
#include "schedulers/scheduler.h"
#include "schedulers/serenity/memory_plan.h"

#include <chrono>

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

protected:
    Outcome search(const ir::PreparedModel& model, const Params& params,
                   const cost::CostModel& cost, SearchControl* control) const override {
        const auto start = std::chrono::steady_clock::now();
        const std::vector<ir::MemoryProblem> problems =
            ir::modelMemoryProblems(model.graph(), model.dags(), memoryOptions(params, cost));
        serenity::PlanOptions options;
        options.resolution = params.bytesPerElement;
        options.limits.maxExpansions = serenity::kSchedulerExpansions;
        options.escalations = serenity::kSchedulerEscalations;
        const serenity::MemoryPlan plan = serenity::planMemory(problems, options, control);
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
};

} // namespace

IOS_REGISTER_SCHEDULER(SerenityScheduler);

} // namespace ios::schedulers
