// SPDX-License-Identifier: Apache-2.0
// One part of the IOS DP (docs/algorithms.md §2): states, candidate stages, memoised cost(S),
// counts. Internal to the scheduler; ios_dp.cpp drives it part by part.
#pragma once

#include "cost/cost_model.h"
#include "cost/stage_memo.h"
#include "ir/block_dag.h"
#include "schedulers/bits.h"
#include "schedulers/ios_dp.h"
#include "schedulers/part_helpers.h"
#include "schedulers/part_memory.h"
#include "schedulers/shared_states.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace ios::schedulers::detail {

// The part's operators in topological order (local index i ↔ ops[i]) with bitset relations.
struct PartGraph {
    std::vector<int> ops;        // block operator indices, topological (file order among ties)
    std::vector<Bits> desc;      // desc[i]: i and every operator of the part reachable from i
    std::vector<Bits> succ;      // direct successors in the part
    std::vector<Bits> pred;      // direct predecessors in the part
    std::vector<Bits> adj;       // direct predecessors and successors in the part
    std::vector<int> mergeClass; // operators with the same class >= 0 can merge; -1: alone
    int classCount = 0;
    Bits all = 0;
};

// Throws UserError when the part has more than 128 operators.
PartGraph buildPartGraph(const ir::BlockDag& dag, const std::vector<int>& partOps);

// What a user can do about a part that is too large for the DP: lower the max part size
// (Hint::LowerPartSize), or, where the block's parts are explicit (the part size does not
// apply: Hint::ExplicitParts), split or remove them.
std::string smallerPartsAdvice(const ir::BlockDag& dag);
Hint smallerPartsHint(const ir::BlockDag& dag);

// Down-sets of the part (= DP states + 1 for the empty set, docs/algorithms.md §3), counted
// by the recursion f(P) = f(P \ desc(x)) + f(P \ {x}) for the first operator x of P; `tick` is
// called often. The count stops early once it passes `limit` (the result is then > limit): a part
// of many independent operators has up to 2^128 down-sets, which no one can enumerate.
template <class Set, class Tick>
uint64_t countDownSets(const std::vector<Set>& desc, Set p, Tick& tick, uint64_t limit) {
    if (p == 0)
        return 1;
    tick();
    const int x = lowestBit(p);
    const uint64_t without = countDownSets(desc, p & ~desc[static_cast<size_t>(x)], tick, limit);
    if (without > limit)
        return without;
    return without + countDownSets(desc, p & ~(Set{1} << x), tick, limit - without);
}
template <class Tick>
uint64_t countDownSets(const PartGraph& g, Bits p, Tick& tick, uint64_t limit = UINT64_MAX) {
    if (g.ops.size() > 64)
        return countDownSets(g.desc, p, tick, limit);
    std::vector<uint64_t> desc(g.desc.begin(), g.desc.end()); // one word per set: half the work
    return countDownSets(desc, static_cast<uint64_t>(p), tick, limit);
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
    void tick(size_t calls) { // as many tick() calls at once
        sinceCheck += static_cast<uint32_t>(std::min<size_t>(calls, 256));
        if (sinceCheck < 256)
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

// Set: the operator-set word, uint64_t for parts of at most 64 operators, else Bits.
template <class Set> class PartSearch {
public:
    // The part's states and their choices, filled by the search (run) and by the searches
    // that help it on other threads (help); they outlive every one of them.
    struct Shared;

    // `classes`: cost::operatorClasses(cost, dag), taken once per block by the caller.
    // `memory` (optional, must outlive the search): the part's memory under options.memoryBudget.
    // `shared`: the part's states (Shared(clock.total)); helpers pass the search's.
    PartSearch(const ir::BlockDag& dag, const PartGraph& g, const Options& options,
               const cost::CostModel& cost, const cost::OperatorClasses& classes,
               SearchClock& clock, StateSpace* record, int block, int part, Shared& shared,
               PartMemory* memory = nullptr);

    // Runs the DP from the whole part; returns the chosen stages in order as (local
    // operators, merge): makeStage turns them into stages of this part, or of an equal one.
    // Under a memory budget that no schedule of the part meets, costMs is infinite and
    // nothing is returned. `started` is called once the whole part is claimed (helpers may
    // join from then on).
    std::vector<std::pair<Bits, bool>> run(const std::function<void()>& started = {});
    // On another thread while run() runs: solves states the search has not reached yet, in
    // reverse candidate order (so that the two meet late), until the part is solved or
    // shared.stop. Never throws: a helper that fails gives back the states it held, and the
    // search solves them (and meets the error itself, if it is one); returns false then.
    bool help();

    PartStatistics stats;
    double costMs = 0;

private:
    // cost(S) and the schedule count: what every transition into S reads (32 bytes, so a
    // memo slot is 48: the hot loop's one cache miss loads less).
    struct Value {
        UInt128 count = 0;
        double cost = 0;
        uint32_t choice = UINT32_MAX; // index into Shared::choices (UINT32_MAX: the empty state)
        bool saturated = false;
    };
    // The best last stage of S (read when the schedule is reconstructed) and S's recorded
    // state index.
    struct Choice {
        Set stage = 0;
        bool merge = false;
        uint32_t transition = UINT32_MAX;
        uint32_t stateIndex = UINT32_MAX;
    };

public:
    struct Shared {
        explicit Shared(uint64_t count) : states(count), choices(count + 1) {}
        SharedStates<Value, Set> states;
        std::vector<Choice> choices;         // [i] written once, by the thread that took i
        std::atomic<uint32_t> nextChoice{0}; // also the states solved so far
        std::atomic<bool> stop{false};       // the part's search ended (or failed): helpers leave
        // What the helpers counted, added to the search's statistics at the end.
        std::atomic<uint64_t> transitions{0}, stages{0}, stagesPriced{0};
        std::atomic<int> width{0};
    };

private:
    using Slot = typename SharedStates<Value, Set>::Slot;
    struct Candidate {
        Set ops;
        bool merge;
        double latencyMs; // known from the additive fast path, else < 0: ask latency()
    };
    // One state's candidates. Its push is inline: std::vector's is an out-of-line call, made
    // once per transition.
    class Candidates {
    public:
        void clear() { size_ = 0; }
        void push_back(const Candidate& c) {
            if (size_ == items_.size()) [[unlikely]]
                grow();
            items_[size_++] = c;
        }
        // n more candidates, to be written through the pointer returned.
        Candidate* extend(size_t n) {
            while (size_ + n > items_.size())
                [[unlikely]] grow();
            Candidate* first = items_.data() + size_;
            size_ += n;
            return first;
        }
        size_t size() const { return size_; }
        Candidate* begin() { return items_.data(); }
        Candidate* end() { return items_.data() + size_; }

    private:
        [[gnu::noinline]] void grow() { items_.resize(std::max<size_t>(64, 2 * items_.size())); }
        std::vector<Candidate> items_;
        size_t size_ = 0;
    };

    // s: non-empty, claimed by this thread in `slot`; sinks: its operators without a
    // successor in s (merge candidates only, else 0), derived from the caller's instead of a
    // scan of s.
    Value solveNew(Set s, Set sinks, int depth, Slot& slot);
    // cost(s \ e) and its count, solved here when nobody has (dp_shared.cpp); while another
    // thread solves it, this one solves states below it.
    Value subValue(Set s, Set sinks, Set e, int depth);
    // While waiting for s, which another thread holds: claims and solves the unclaimed
    // sub-states of s's candidates, the last first, and goes on below those held elsewhere
    // too, each at most once per wait (explored_). Returns whether it solved any.
    bool explore(Set s, Set sinks, int depth);
    // solveNew's choice among candidates_[depth] by branch and bound (bounded_, dp_bound.cpp):
    // the sub-states first, then only the stages whose lower bound can beat the best total
    // found are priced. Same best cost and choice as pricing them all, bit for bit.
    void chooseBounded(Set s, Set sinks, int depth, Value& best, Choice& choice);
    Value finishState(Value& best, Choice& choice, Slot& slot); // published, returned
    const Value& solvedValue(Set s); // a state solved by now (the reconstruction)
    Set sinksOf(Set s) const;
    Set sinksAfter(Set s, Set sinks, Set e) const; // sinks of s \ e, given those of s
    Value emptyValue();                            // the empty state (recorded on first use)
    uint32_t recordTransition(uint32_t from, const Value& sub, bool merge, double ms);
    void enumerate(Set s, Set sinks, Candidates& out);
    // allowed: the heads (bits = indices into headClosure_) still disjoint from cur
    void parallelReference(Set allowed, Set cur, int groups, double slowest, Candidates& out);
    void parallelAll(size_t from, Set cur, int heads, int depth, int comps, Candidates& out);
    void mergeCandidates(Set sinks, Candidates& out);
    double latency(Set e, bool merge);
    // latency(e, merge) when the part's or the canonical memo holds it, else negative with
    // the cost model's lower bound in `bound`.
    double knownLatency(Set e, bool merge, double& bound);
    double groupMs(Set group) const; // additive fast path: Σ opMs_ in topological order
    double parallelMs(double slowest) const { return additive_ ? slowest + overheadMs_ : -1; }
    uint32_t recordState(Set s);

    static Set one(int i) { return Set{1} << i; }

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

    Shared& shared_;
    std::vector<Slot*> claimed_; // states this thread claimed and has not published (a stack)
    std::vector<Set> explored_;  // explore: the states held elsewhere it went through
    bool helper_ = false;
    // Stage latencies by operator set, or -1 - bound(E) for a stage not priced (bounded_).
    BitsMap<double, Set> parallelLatency_;
    BitsMap<double, Set> mergeLatency_;
    std::vector<Candidates> candidates_; // per recursion depth
    std::vector<Set> headClosure_;       // tc_S(u) of the eligible heads of S
    std::vector<Set> headCompat_;        // [i]: heads j > i whose closure misses head i's
    std::vector<double> headMs_;         // additive: groupMs(headClosure_[i])
    std::vector<Set> classMates_;        // [u]: the other operators of u's merge class
    std::vector<Set> classSinks_;        // mergeCandidates: sinks per merge class (kept zero)
    std::vector<int> touchedClasses_;    // mergeCandidates: classes with a sink, this state
    std::vector<int> mergeMembers_;
    std::vector<Set> compStack_;      // endings=all: components per DFS level
    std::vector<double> compMsStack_; // additive: groupMs of compStack_
    // StageShortcuts::additiveParallelStages: per local operator latency and the stage overhead.
    bool additive_ = false;
    bool merges_ = false;  // the strategy has merge stages: states carry their sinks
    bool bounded_ = false; // chooseBounded: the model bounds stage latencies
    // chooseBounded, per depth: cost(S \ E) and cost(S \ E) + bound(E) per candidate.
    std::vector<std::vector<double>> totals_;
    std::vector<bool> smallDesc_;         // |desc[u]| <= r: every closure of u is small enough
    std::vector<Set> desc_, succ_, pred_; // g_'s relations in Set words
    Set all_ = 0;
    std::vector<double> opMs_;
    double overheadMs_ = 0;
    schedule::Stage scratchStage_; // reused for cost-model calls: no allocation per stage
    cost::StagePricer pricer_;     // the cost model's canonical stage memo, when it has one
};

// One part's DP outcome (PartSearch<Set>::run and its statistics).
struct PartOutcome {
    std::vector<std::pair<Bits, bool>> chosen; // local operators, merge
    double costMs = 0;
    PartStatistics stats;
};

// Searches the part with the narrowest Set word that holds it (PartSearch's arguments).
// `helpers` (optional): idle threads may help through it (not while recording or under a
// memory budget); the outcome is the same.
PartOutcome searchPart(const ir::BlockDag& dag, const PartGraph& g, const Options& options,
                       const cost::CostModel& cost, const cost::OperatorClasses& classes,
                       SearchClock& clock, StateSpace* record, int block, int part,
                       PartMemory* memory = nullptr, PartHelpers* helpers = nullptr);

} // namespace ios::schedulers::detail
