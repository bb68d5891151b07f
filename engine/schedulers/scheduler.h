// SPDX-License-Identifier: Apache-2.0
// The seam every scheduler plugs into (docs/architecture.md "Adding a scheduler"): a Scheduler
// has a stable key, a label, a description and the knobs it reads, and turns a prepared model
// into a schedule under a cost model. Schedulers register themselves with
// IOS_REGISTER_SCHEDULER; the CLI, the GUI and the analyses list and dispatch them through
// the registry only.
#pragma once

#include "cost/cost_model.h"
#include "eval/timeline.h"
#include "ir/memory.h"
#include "ir/prepared_model.h"
#include "schedule/schedule.h"
#include "schedule/stream_program.h"
#include "schedulers/search_control.h"
#include "schedulers/search_params.h"
#include "schedulers/search_statistics.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::schedulers {

// A setting a scheduler reads. Batch and device shape the cost model every scheduler is priced
// under; the others are search parameters. A new knob: add it here, to knobKey/knobDescription
// and to SearchParams (search_params.h), then to the front ends' settings
// (docs/architecture.md).
enum class Knob : uint8_t {
    MaxGroupSize, // r
    MaxNumGroups, // s
    Endings,
    MaxPartSize,
    Batch,
    Device,
    MemoryBudget, // the IOS DP under a cap on peak activation memory (docs/memory.md)
};
inline constexpr Knob kAllKnobs[] = {Knob::MaxGroupSize, Knob::MaxNumGroups, Knob::Endings,
                                     Knob::MaxPartSize,  Knob::Batch,        Knob::Device,
                                     Knob::MemoryBudget};

// Stable machine name: "r", "s", "endings", "max_part_size", "batch", "device",
// "memory_budget".
std::string_view knobKey(Knob knob);
std::string_view knobDescription(Knob knob);

struct RewrittenModel; // schedulers/rewritten_model.h

struct Outcome {
    schedule::Schedule schedule;
    // Per block, when the scheduler's result is a stream program (RAF's policies: streams,
    // events, barriers); then `schedule` is its stage form where it has one, else its
    // operators in issue order, one per stage. Empty: the result is `schedule` (lowered).
    schedule::Program programs;
    double latencyMs = 0; // the result's latency under the cost model it was searched with
    std::optional<Statistics> stats; // searches that count states/transitions (the IOS DP)
    std::optional<StateSpace> stateSpace;
    double searchSeconds = 0;
    // Peak activation memory of `schedule` (docs/memory.md "Stage schedules"), filled by
    // Scheduler::run for every scheduler.
    int64_t peakBytes = 0;
    // Set by schedulers that rewrite the graph (MetaFlow): the model `schedule` and
    // `programs` refer to (graph, prepared model, cost model, how it was found). Every
    // consumer goes through scheduledModel / outcomeLatencyMs / outcomeTimeline, which use it.
    std::shared_ptr<const RewrittenModel> rewritten;
};

class Scheduler {
public:
    virtual ~Scheduler() = default;

    virtual std::string_view key() const = 0;         // stable: files, settings, --strategy
    virtual std::string_view label() const = 0;       // for people: "IOS-Both"
    virtual std::string_view description() const = 0; // one line
    virtual std::vector<Knob> knobs() const = 0;
    // Old names accepted for this scheduler (CLI options, saved GUI settings).
    virtual std::vector<std::string_view> aliases() const { return {}; }
    // Where it sorts in lists and comparisons (baselines first); ties sort by key.
    virtual int rank() const { return 1000; }

    bool reads(Knob knob) const;

    // Whether estimate() tells what a search will cost (the GUI runs its estimate job, and a
    // search on a settings edit only when the estimate says it is quick).
    virtual bool hasEstimate() const { return false; }
    // What a search with these arguments will cost, before it runs (search_estimate.h), for
    // schedulers that can tell (the IOS DP); nullopt (the default) for the others. Counts for
    // at most `countLimitSeconds` (then SearchEstimate::complete is false). Throws UserError
    // where run() would for bad params, Cancelled when control->cancel is set.
    virtual std::optional<SearchEstimate> estimate(const ir::PreparedModel& /*model*/,
                                                   const Params& /*params*/,
                                                   const cost::CostModel& /*cost*/,
                                                   double /*countLimitSeconds*/,
                                                   const SearchControl* /*control*/) const {
        return std::nullopt;
    }

    // Deterministic: same model, params and cost model give the same outcome (seconds aside).
    // Throws ios::UserError for bad params and ios::Cancelled when control->cancel is set.
    // Runs search() and measures the result's peak memory.
    Outcome run(const ir::PreparedModel& model, const Params& params, const cost::CostModel& cost,
                SearchControl* control) const;

protected:
    // The scheduler's own search (peakBytes is left to run()).
    virtual Outcome search(const ir::PreparedModel& model, const Params& params,
                           const cost::CostModel& cost, SearchControl* control) const = 0;
};

// The prepared model the outcome's schedule refers to: the rewritten one when the scheduler
// rewrote the graph, else `model` (the one it was run on).
const ir::PreparedModel& scheduledModel(const ir::PreparedModel& model, const Outcome& outcome);

// `cost` for the graph the outcome's schedule refers to: `cost` itself, or for a rewritten
// graph cost::forGraph(cost, it) (held in `owned`). Throws UserError when `cost` cannot price a
// rewritten graph (replayed or measured figures are keyed by operator names).
const cost::CostModel& scheduledCost(const Outcome& outcome, const cost::CostModel& cost,
                                     std::unique_ptr<cost::CostModel>& owned);

// The outcome as a stream program per block: its own, else its schedule lowered.
schedule::Program programOf(const Outcome& outcome);

// The outcome's latency under `cost`: its program's when it has one, else its schedule's. A
// rewritten outcome is priced on its own DAGs (`dags` are ignored) under scheduledCost.
double outcomeLatencyMs(const std::vector<ir::BlockDag>& dags, const Outcome& outcome,
                        const cost::CostModel& cost);

// The outcome laid out in time under `cost`: its program's timeline (eval/program_eval.h) when
// it has one, else its stages' (a UserError when the model describes no kernels). A rewritten
// outcome as for outcomeLatencyMs.
eval::Timeline outcomeTimeline(const std::vector<ir::BlockDag>& dags, const Outcome& outcome,
                               const cost::CostModel& cost);

// Every registered scheduler, by rank then key. Valid for the life of the process.
std::vector<const Scheduler*> registeredSchedulers();

// The scheduler with this key or alias, or nullptr.
const Scheduler* findScheduler(std::string_view keyOrAlias);

// As findScheduler; throws UserError naming every valid key for an unknown name.
const Scheduler& schedulerByName(std::string_view keyOrAlias);

// "sequential, greedy, ..." (every key, registry order): for help and error texts.
std::string schedulerKeyList();

// Adds a scheduler. Throws std::logic_error when its key or an alias is taken. Returns it.
const Scheduler& registerScheduler(std::unique_ptr<Scheduler> scheduler);

// Removes the scheduler with this key (tests that register a throw-away one); true if found.
bool unregisterScheduler(std::string_view key);

struct SchedulerRegistrar {
    explicit SchedulerRegistrar(std::unique_ptr<Scheduler> scheduler) {
        registerScheduler(std::move(scheduler));
    }
};

} // namespace ios::schedulers

// One line at namespace scope in the scheduler's own file registers it at start-up.
#define IOS_REGISTER_SCHEDULER(Type)                                                               \
    static const ::ios::schedulers::SchedulerRegistrar Type##_registrar {                          \
        std::make_unique<Type>()                                                                   \
    }
