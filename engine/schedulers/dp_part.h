// One part of the IOS DP (docs/algorithms.md §2): states, candidate stages, memoised cost(S),
// counts. Internal to the scheduler; ios_dp.cpp drives it part by part.
#pragma once

#include "cost/cost_model.h"
#include "cost/stage_memo.h"
#include "ir/block_dag.h"
#include "schedulers/bits.h"
#include "schedulers/ios_dp.h"
#include "schedulers/part_memory.h"

#include <chrono>
#include <cstdint>
#include <vector>

namespace ios::schedulers::detail {

// The part's operators in topological order (local index i ↔ ops[i]) with bitset relations.
struct PartGraph {
    std::vector<int> ops;        // block operator indices, topological (file order among ties)
    std::vector<Bits> desc;      // desc[i]: i and every operator of the part reachable from i
    std::vector<Bits> succ;      // direct successors in the part
    std::vector<Bits> adj;       // direct predecessors and successors in the part
    std::vector<int> mergeClass; // operators with the same class >= 0 can merge; -1: alone
    int classCount = 0;
    Bits all = 0;
};

// Throws UserError when the part has more than 128 operators.
PartGraph buildPartGraph(const ir::BlockDag& dag, const std::vector<int>& partOps);

// What a user can do about a part that is too large for the DP: lower --max-part-size, or,
// where the block's parts are explicit (that option does not apply), split or remove them.
std::string smallerPartsAdvice(const ir::BlockDag& dag);

// Down-sets of the part (= DP states + 1 for the empty set, docs/algorithms.md §3), counted
// by the recursion f(P) = f(P \ desc(x)) + f(P \ {x}) for the first operator x of P; `tick` is
// called often. The count stops early once it passes `limit` (the result is then > limit): a part
// of many independent operators has up to 2^128 down-sets, which no one can enumerate.
template <class Tick>
uint64_t countDownSets(const PartGraph& g, Bits p, Tick& tick, uint64_t limit = UINT64_MAX) {
    if (p == 0)
        return 1;
    tick();
    const int x = lowestBit(p);
    const uint64_t without = countDownSets(g, p & ~g.desc[x], tick, limit);
    if (without > limit)
        return without;
    return without + countDownSets(g, p & ~bit(x), tick, limit - without);
}

// Shared by the parts of one optimize() call: counters for progress and cancellation.
struct SearchClock {
    SearchControl* control = nullptr;
    uint64_t done = 0;  // states finished, all parts so far
    uint64_t total = 0; // states of all parts
    uint32_t sinceCheck = 0;
    std::chrono::steady_clock::time_point lastReport = std::chrono::steady_clock::now();

    // Cheap; looks at the clock and the cancel flag every 256 calls (well under 100 ms).
    void tick() {
        if (++sinceCheck < 256)
            return;
        sinceCheck = 0;
        check();
    }
    void check();
};

// A stage of the part from local operators: the groups of a parallel stage are the weakly
// connected components of e, ordered by their first operator, each in topological order; a
// merge stage is one group. Operators are block operator indices (g.ops).
void makeStage(const PartGraph& g, Bits e, bool merge, schedule::Stage& stage);
schedule::Stage makeStage(const PartGraph& g, Bits e, bool merge);

class PartSearch {
public:
    // `classes`: cost::operatorClasses(cost, dag), taken once per block by the caller.
    // `memory` (optional, must outlive the search): the part's memory under options.memoryBudget.
    PartSearch(const ir::BlockDag& dag, const PartGraph& g, const Options& options,
               const cost::CostModel& cost, const cost::OperatorClasses& classes,
               SearchClock& clock, StateSpace* record, int block, int part,
               PartMemory* memory = nullptr);

    // Runs the DP from the whole part; returns the chosen stages in order as (local
    // operators, merge): makeStage turns them into stages of this part, or of an equal one.
    // Under a memory budget that no schedule of the part meets, costMs is infinite and
    // nothing is returned.
    std::vector<std::pair<Bits, bool>> run();

    PartStatistics stats;
    double costMs = 0;

private:
    // cost(S) and the schedule count: what every transition into S reads (32 bytes, so a
    // memo slot is 48: the hot loop's one cache miss loads less).
    struct Value {
        UInt128 count = 0;
        double cost = 0;
        uint32_t choice = UINT32_MAX; // index into choices_ (UINT32_MAX: the empty state)
        bool saturated = false;
    };
    // The best last stage of S (read when the schedule is reconstructed) and S's recorded
    // state index.
    struct Choice {
        Bits stage = 0;
        bool merge = false;
        uint32_t transition = UINT32_MAX;
        uint32_t stateIndex = UINT32_MAX;
    };
    struct Candidate {
        Bits ops;
        bool merge;
        double latencyMs; // known from the additive fast path, else < 0: ask latency()
    };

    Value solve(Bits s, int depth);
    void enumerate(Bits s, std::vector<Candidate>& out);
    void parallelReference(size_t from, Bits cur, int groups, double slowest,
                           std::vector<Candidate>& out);
    void parallelAll(size_t from, Bits cur, int heads, int depth, int comps,
                     std::vector<Candidate>& out);
    void mergeCandidates(Bits s, std::vector<Candidate>& out);
    double latency(Bits e, bool merge);
    double groupMs(Bits group) const; // additive fast path: Σ opMs_ in topological order
    double parallelMs(double slowest) const { return additive_ ? slowest + overheadMs_ : -1; }
    uint32_t recordState(Bits s);

    const ir::BlockDag& dag_;
    PartMemory* memory_; // the budgeted search's state memory, else nullptr
    const PartGraph& g_;
    const Options& opt_;
    const cost::CostModel& cost_;
    SearchClock& clock_;
    StateSpace* record_;
    int block_;
    int part_;
    uint32_t emptyState_ = UINT32_MAX;

    BitsMap<Value> memo_;
    std::vector<Choice> choices_;
    BitsMap<double> parallelLatency_;
    BitsMap<double> mergeLatency_;
    std::vector<std::vector<Candidate>> candidates_; // per recursion depth
    std::vector<Bits> headClosure_;                  // tc_S(u) of the eligible heads of S
    std::vector<double> headMs_;                     // additive: groupMs(headClosure_[i])
    std::vector<Bits> classSinks_;    // mergeCandidates: sinks per merge class (kept zero)
    std::vector<int> touchedClasses_; // mergeCandidates: classes with a sink, this state
    std::vector<int> mergeMembers_;
    std::vector<Bits> compStack_;     // endings=all: components per DFS level
    std::vector<double> compMsStack_; // additive: groupMs of compStack_
    // CostModel::additiveParallelStages: per local operator latency and the stage overhead.
    bool additive_ = false;
    std::vector<double> opMs_;
    double overheadMs_ = 0;
    schedule::Stage scratchStage_; // reused for cost-model calls: no allocation per stage
    cost::StagePricer pricer_;     // the cost model's canonical stage memo, when it has one
};

} // namespace ios::schedulers::detail
