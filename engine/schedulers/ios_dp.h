// The IOS dynamic-programming scheduler (IOS paper §4, Algorithm 1; docs/algorithms.md §2-§3).
#pragma once

#include "cost/cost_model.h"
#include "ir/memory.h"
#include "ir/prepared_model.h"
#include "schedule/schedule.h"
#include "schedulers/search_control.h"
#include "util/big_uint.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::schedulers {

enum class Strategy : uint8_t { Parallel, Merge, Both };
// Reference: parallel endings whose components have one source each (the IOS authors'
// enumeration, default). All: every ending (docs/algorithms.md §2.2 "Parallel stages").
enum class Endings : uint8_t { Reference, All };

std::string_view toString(Strategy s);
std::string_view toString(Endings e);
std::optional<Strategy> strategyFromString(std::string_view s);
std::optional<Endings> endingsFromString(std::string_view s);

struct Options {
    Strategy strategy = Strategy::Both;
    int r = 3; // max_group_size: operators per group of a parallel stage
    int s = 8; // max_num_groups: groups per parallel stage
    Endings endings = Endings::Reference;
    bool recordStateSpace = false;               // fill Result::stateSpace (for the GUI)
    uint64_t maxRecordedTransitions = 2'000'000; // memory bound of the recording
    // Parts searched at once (parallel_jobs.h); the result is the same for every count.
    // Recording the state space runs on one thread.
    int threads = 1;
    // Peak activation memory cap (docs/memory.md "IOS under a memory budget"): transitions
    // whose stage would exceed it are dropped; 0 = none. Tensors are sized by `memory`.
    int64_t memoryBudget = 0;
    ir::MemoryOptions memory;
    // Skip pricing candidate stages that cannot beat a state's best one, when the cost model
    // gives lower bounds (CostModel::stageLowerBoundMs): the same schedules and costs, bit
    // for bit, fewer simulations. Off: every candidate is priced (the tests compare both).
    bool boundStages = true;
};

// No stage schedule fits the memory budget; smallestPeak() is the least peak any schedule of
// the model reaches (its operators in Serenity's order, part by part).
class MemoryBudgetTooSmall : public UserError {
public:
    MemoryBudgetTooSmall(int64_t budget, int64_t smallestPeak);
    int64_t budget() const { return budget_; }
    int64_t smallestPeak() const { return smallestPeak_; }

private:
    int64_t budget_;
    int64_t smallestPeak_;
};

// docs/algorithms.md §3. `schedules` is exact; schedulesSaturated is set when a part's count
// passed 2^128 - 1 (the stored value is then that bound, a lower bound of the truth).
struct PartStatistics {
    int block = 0;
    int part = 0;
    int n = 0;     // operators in the part
    int width = 0; // d: most groups of any parallel candidate (0 if none)
    uint64_t states = 0;
    uint64_t transitions = 0;
    BigUint schedules;
    bool schedulesSaturated = false;
    double seconds = 0;
    // Distinct stages the part priced through the cost model's stage latency (those the
    // additive fast path prices are not counted), and how many of them the canonical stage
    // memo did not already hold. Timing-dependent when parts run in parallel (whichever
    // thread prices a shared stage first): for benchmarks, not for outputs.
    uint64_t stages = 0;
    uint64_t stagesPriced = 0;
};

struct Statistics {
    uint64_t states = 0;      // summed over parts
    uint64_t transitions = 0; // summed over parts
    BigUint schedules;        // product over parts
    bool schedulesSaturated = false;
    double seconds = 0;
    uint64_t stages = 0;               // summed over parts (PartStatistics::stages)
    uint64_t stagesPriced = 0;         // summed over parts (PartStatistics::stagesPriced)
    uint64_t partsSearched = 0;        // parts the DP ran on; the others equal an earlier one
    std::vector<PartStatistics> parts; // block by block, part by part

    // The part with the most transitions (the "Table 1" row); nullptr when there are no parts.
    const PartStatistics* largestPart() const;
};

// The explored state space (off by default). A state is the set of a part's operators not yet
// scheduled, as bits over the part's operators in topological order: bit i of a state of
// (block, part) is block operator partOps[block][part][i] (an index into ir::BlockDag::ops).
struct StateSpace {
    struct State {
        int block = 0;
        int part = 0;
        std::array<uint64_t, 2> remaining{}; // bit i set = part operator i not yet scheduled
        double costMs = 0;                   // cost(S): best latency of the remaining operators
    };
    struct Transition {
        uint32_t from = 0; // index into states
        uint32_t to = 0;   // index into states (the empty state of each part is recorded too)
        schedule::StageKind kind = schedule::StageKind::Parallel;
        double latencyMs = 0; // latency of the stage (from.remaining \ to.remaining)
    };
    std::vector<State> states;
    std::vector<Transition> transitions;
    std::vector<std::vector<std::vector<int>>> partOps; // [block][part][bit] → operator
    std::vector<uint32_t> chosen; // transition indices along the optimal schedule, in order
    bool truncated = false;       // maxRecordedTransitions was reached; the rest is missing
};

struct Result {
    schedule::Schedule schedule;
    Statistics stats;
    double latencyMs = 0; // sum of the chosen stages' latencies (= cost of the whole graph)
    std::optional<StateSpace> stateSpace;
};

// Runs the DP on every part of every block of a prepared model (its DAGs and parts are used
// as they are). Deterministic: same model, options and cost model give the same schedule and
// counts. Throws ios::UserError for bad options (r, s < 1, a part over 128 operators, more
// than kMaxStates states) and ios::Cancelled when cancelled.
Result optimize(const ir::PreparedModel& model, const Options& options, const cost::CostModel& cost,
                SearchControl* control = nullptr);

// The most DP states optimize() takes on, all parts together (the bundled models need at
// most 42 966): beyond it, memory and time run out long before the search ends.
inline constexpr uint64_t kMaxStates = uint64_t{1} << 22;

// The least peak of any stage schedule of the model: per block, its parts in order, each
// ordered by Serenity's exact DP (a one-operator stage per step reaches it; a larger stage
// only allocates more at once).
int64_t smallestSchedulePeak(const ir::PreparedModel& model, const ir::MemoryOptions& memory,
                             SearchControl* control = nullptr);

// Number of non-empty down-sets of every part (the total of the progress reports). Throws
// UserError when it passes kMaxStates.
uint64_t countStates(const ir::PreparedModel& model);

} // namespace ios::schedulers
