// SPDX-License-Identifier: Apache-2.0
// What searches report besides their schedule: the IOS DP's counts (Statistics), its explored
// state space (StateSpace) and what a search will cost before it runs (SearchEstimate). Plain
// data, shared by the Scheduler interface (scheduler.h) and the algorithms that fill them.
#pragma once

#include "schedule/schedule.h"
#include "util/big_uint.h"

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ios::schedulers {

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

// What a scheduler's search will cost, before it runs (search_estimate.h, docs/estimates.md;
// Scheduler::estimate).
struct SearchEstimate {
    // Exact (deterministic): what optimize() with the same model, options and a cost model
    // with the same operator classes reports on one thread, before it has priced anything.
    // Statistics::states: every down-set of every part (known before any counting), or under
    // a memory budget the ones the search reaches.
    uint64_t states = 0;
    uint64_t transitions = 0; // Statistics::transitions
    // Distinct stages the search meets when it prices every candidate (Statistics::stages for
    // a model without the additive fast path and without Options::boundStages' pruning), and
    // of those the ones a fresh canonical memo does not hold. A search that prunes by a stage
    // lower bound (the simulated GPU) prices at most these, so `seconds` is then an upper
    // bound of its pricing time.
    uint64_t stages = 0;
    uint64_t stagesPriced = 0;
    uint64_t partsSearched = 0;
    // Timings on this machine (not deterministic): the counting pass (the DP's enumeration
    // with stage pricing replaced by a constant) and one stage priced by the real cost model,
    // the mean over kSampleStages to 2 × kSampleStages distinct stages spread evenly over the
    // order the search meets them (the first ones are the small stages).
    double countSeconds = 0;
    double secondsPerStage = 0;
    // countSeconds + stagesPriced × secondsPerStage: the search on one thread.
    double seconds = 0;
    // False when the counting pass reached its time limit: the counts are then unknown (0)
    // beyond `states`, and `seconds` (the limit) is a lower bound, since the search enumerates
    // everything the counting pass does and prices stages on top.
    bool complete = true;
    // The range the search's seconds should fall in on this machine (docs/performance.md
    // "Estimates"): [low, high] around `seconds`; high 0 when unknown (incomplete: `seconds`
    // is a lower bound). The IOS DP: 0.6–1.2 × seconds, the spread measured against its
    // searches (its pricing is an upper bound, its enumeration exact).
    double low = 0;
    double high = 0;
    // What `states` and `transitions` count, for people: the IOS DP's "states" and
    // "transitions", Serenity's "down-sets" and "expansions".
    std::string_view statesUnit = "states";
    std::string_view transitionsUnit = "transitions";

    static constexpr int kSampleStages = 32;
};

} // namespace ios::schedulers
