// SPDX-License-Identifier: Apache-2.0
// Serenity's exact dynamic program over down-sets (Serenity, MLSys 2020, §3.1, Algorithm 1;
// docs/memory.md "The memory DP"), its budget τ, and the oracles that check it: brute force
// over every topological order and the counting DP of orders under a budget.
#pragma once

#include "ir/memory.h"
#include "schedulers/search_control.h"
#include "util/big_uint.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string_view>
#include <vector>

namespace ios::schedulers::serenity {

enum class DpStatus : uint8_t { Solution, NoSolution, Timeout };
std::string_view toString(DpStatus status); // "solution", "no solution", "timeout"

inline constexpr int64_t kNoBudget = std::numeric_limits<int64_t>::max();

// The memory bound of one DP run: the bytes its two layers, hash table and back-pointers hold
// (capacities, a growth counted before it is made). NasNet-A's 374-operator block, solved
// exactly, runs in 178 MiB of RSS.
inline constexpr uint64_t kDpMaxBytes = uint64_t{512} << 20;

struct DpLimits {
    uint64_t maxExpansions = uint64_t{1} << 24; // per DP run; 0: no limit
    double timeLimitSeconds = 0;                // per DP run; 0: none (not deterministic)
    uint64_t maxBytes = kDpMaxBytes;            // per DP run (deterministic)
    // Interchangeable ops run in index order (symmetry.h): the same optimal peak over fewer
    // down-sets. False: every down-set of the segment, the paper's state space.
    bool breakSymmetry = true;
};

// A segment of a memory problem: `ops` (ascending) run after every op of `before` (all of them
// done, their tensors live or freed as the walk would have them). Every producer of an input
// of an op in `ops` is in `ops` or in `before`.
struct Segment {
    std::vector<int> ops;
    std::vector<int> before;
};

struct DpResult {
    DpStatus status = DpStatus::NoSolution;
    int64_t peak = 0;        // of `order` (Solution), with the live bytes of `before`
    std::vector<int> order;  // the segment's ops (Solution)
    uint64_t entries = 0;    // memo entries: down-sets reached, the empty and the full one included
    uint64_t expansions = 0; // (down-set, ready op) pairs examined
    // Timeout because the next growth would have passed limits.maxBytes (not the expansion
    // or time limit): a higher expansion limit would not help.
    bool memoryBound = false;
    uint64_t bytes = 0; // the most bytes held (capacities)
    // The largest peak of a transition the budget kept (the start's μ included): a run with
    // any budget from this up to τ keeps the same transitions, so after a Timeout it times
    // out the same way (the soft budget's bisection uses it as its upper end).
    int64_t maxKept = kNoBudget;
    // Every budget in [sameFrom, sameTo] keeps and breaks the same transitions of those this
    // run examined (the largest kept peak, the smallest broken one less one): it makes the
    // same run, with the same status, statistics and order (under no time limit).
    int64_t sameFrom = 0;
    int64_t sameTo = kNoBudget;
    double seconds = 0;
};

// Runs the DP on one segment under budget τ. Deterministic for an expansion limit; a time
// limit makes Timeout depend on the machine. Before each layer the expansions it would make
// (Σ |z(S)| over its down-sets, counted exactly) are checked against the expansion limit, and
// before each growth of its arrays the bytes against limits.maxBytes: either ends the run as
// a Timeout before the work or the allocation. control->knob is set to MemoryExpansions. Throws
// ios::Cancelled (control->cancel), and ios::UserError for a segment of more than 65 535 ops.
// control->progress gets the share of the run's bounds used (the largest of layers of n,
// expansions of the limit, bytes of the byte bound) per 2^20.
DpResult memoryDp(const ir::MemoryProblem& problem, const Segment& segment,
                  int64_t budget = kNoBudget, const DpLimits& limits = {},
                  SearchControl* control = nullptr);

// The whole problem as one segment.
Segment wholeSegment(const ir::MemoryProblem& problem);

// Live bytes after every op of `before` has run (μ at the segment's start).
int64_t liveBytesAfter(const ir::MemoryProblem& problem, const std::vector<int>& before);

// Oracles (small problems: n ≤ 12). Brute force: the minimum peak over every topological
// order of the segment and the first order (lexicographic) reaching it.
struct BruteForce {
    int64_t peak = 0;
    std::vector<int> order;
    uint64_t orders = 0;
};
BruteForce bruteForceOrder(const ir::MemoryProblem& problem, const Segment& segment);

// Number of topological orders of the segment whose every sample is ≤ budget (the counting
// DP: paths through down-sets along transitions with μ(S) + alloc(u) ≤ budget).
BigUint countOrders(const ir::MemoryProblem& problem, const Segment& segment,
                    int64_t budget = kNoBudget);

// The distribution of peaks over all orders (Serenity Fig. 3(b)): peak value → number of
// orders with exactly that peak, from the counting DP at every distinct sample value. Throws
// UserError for a segment with more than `maxOps` ops.
std::map<int64_t, BigUint> peakDistribution(const ir::MemoryProblem& problem,
                                            const Segment& segment, int maxOps = 24);

} // namespace ios::schedulers::serenity
