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
#include "schedulers/ios_dp.h"
#include "schedulers/search_control.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::schedulers {

// A setting a scheduler reads. Batch and device shape the cost model every scheduler is priced
// under; the others are search parameters. A new knob: add it here, to knobKey/knobDescription
// and to Params, then to the front ends' settings (docs/architecture.md).
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

// The search parameters of one run (the max part size is in the prepared model; batch and
// device are in the cost model).
struct Params {
    int r = 3; // max operators per group of a parallel stage
    int s = 8; // max groups per parallel stage
    Endings endings = Endings::Reference;
    bool recordStateSpace = false;               // fill Outcome::stateSpace where supported
    uint64_t maxRecordedTransitions = 2'000'000; // memory bound of the recording
    // RAF's stream policies: a synthetic tuple node before every concatenation (docs/raf.md).
    bool rafTuples = true;
    // Threads a scheduler may use (parallel_jobs.h); its outcome must not depend on it.
    int threads = 1;
    // Peak activation memory (docs/memory.md): the bytes per element of every tensor, and
    // the cap of the budgeted IOS search (0: none).
    int64_t bytesPerElement = 4;
    int64_t memoryBudget = 0;
};

// The memory model a run is measured with: the cost model's batch, the params' precision.
ir::MemoryOptions memoryOptions(const Params& params, const cost::CostModel& cost);

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
// graph cost.forGraph(it) (held in `owned`). Throws UserError when `cost` cannot price a
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
