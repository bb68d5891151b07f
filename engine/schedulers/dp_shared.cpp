// SPDX-License-Identifier: Apache-2.0
// PartSearch's states in SharedStates (dp_part.h): claimed, solved and published by whichever
// thread needs them first, the part's search or a helper (docs/performance.md "A part on two
// threads"). A state's cost, count and choice depend on its sub-states alone, so the result
// and the statistics but the priced stages are those of one thread.
#include "schedulers/dp_part.h"

#include <algorithm>
#include <stdexcept>
#include <thread>

namespace ios::schedulers::detail {

template <class Set>
typename PartSearch<Set>::Value PartSearch<Set>::subValue(Set s, Set sinks, Set e, int depth) {
    using Found = typename SharedStates<Value, Set>::Found;
    const Set rest = s & ~e;
    if (rest == 0)
        return emptyValue();
    auto ref = shared_.states.claim(rest);
    while (ref.found != Found::Done) {
        const Set restSinks = merges_ ? sinksAfter(s, sinks, e) : 0;
        if (ref.found == Found::Claimed) {
            claimed_.push_back(ref.slot);
            return solveNew(rest, restSinks, depth + 1, *ref.slot);
        }
        // Another thread solves it: solve what nobody holds below it meanwhile. A state held
        // is always a strict subset of every state its holder waits for, so no two threads
        // wait for each other.
        const size_t mark = explored_.size(); // an explore further up may be going on
        const bool solvedAny = explore(rest, restSinks, depth + 1);
        explored_.resize(mark);
        if (!solvedAny)
            std::this_thread::yield();
        clock_.tick();
        if (helper_ && shared_.stop.load(std::memory_order_relaxed))
            throw Cancelled();
        ref = shared_.states.recheck(*ref.slot);
    }
    return ref.slot->value;
}

template <class Set> bool PartSearch<Set>::explore(Set s, Set sinks, int depth) {
    using Found = typename SharedStates<Value, Set>::Found;
    Candidates& cands = candidates_[static_cast<size_t>(depth)];
    cands.clear();
    enumerate(s, sinks, cands);
    bool solvedAny = false;
    // By index: the states solved below use deeper candidate lists, not this one.
    for (size_t k = cands.size(); k-- > 0;) {
        const Set e = cands.begin()[k].ops;
        const Set rest = s & ~e;
        if (rest == 0)
            continue;
        const auto ref = shared_.states.claim(rest);
        if (ref.found == Found::Done ||
            (ref.found == Found::Busy &&
             std::find(explored_.begin(), explored_.end(), rest) != explored_.end()))
            continue;
        const Set restSinks = merges_ ? sinksAfter(s, sinks, e) : 0;
        if (ref.found == Found::Claimed) {
            claimed_.push_back(ref.slot);
            solveNew(rest, restSinks, depth + 1, *ref.slot);
            solvedAny = true;
        } else {
            explored_.push_back(rest);
            solvedAny = explore(rest, restSinks, depth + 1) || solvedAny;
        }
    }
    return solvedAny;
}

template <class Set> bool PartSearch<Set>::help() {
    using Found = typename SharedStates<Value, Set>::Found;
    helper_ = true;
    bool clean = true;
    try {
        // Bottom up, by size, while the search goes top down: every down-set of the part is a
        // state (a sink alone is always a candidate), and those of k + 1 operators are those
        // of k with one more operator whose predecessors they hold. States held or solved by
        // the search are passed through, not solved again.
        std::vector<Set> level{Set{0}};
        std::vector<Set> next;
        while (!level.empty() && !shared_.stop.load(std::memory_order_relaxed)) {
            // Each down-set once: from itself less its highest sink (the operators added are
            // sinks of the new set; those of d stay sinks unless they feed u).
            next.clear();
            for (const Set d : level) {
                const Set sinks = sinksOf(d);
                forEachBit(all_ & ~d, [&](int u) {
                    const Set pred = pred_[static_cast<size_t>(u)];
                    if ((pred & ~d) == 0 && ((sinks & ~pred) >> u >> 1) == 0)
                        next.push_back(d | one(u));
                });
            }
            for (const Set d : next) {
                if (shared_.stop.load(std::memory_order_relaxed))
                    break;
                const auto ref = shared_.states.claim(d);
                if (ref.found != Found::Claimed)
                    continue;
                claimed_.push_back(ref.slot);
                solveNew(d, merges_ ? sinksOf(d) : 0, 0, *ref.slot);
            }
            level.swap(next);
        }
    } catch (...) {
        // Cancelled, the search ended, or an error the search will meet itself where it
        // matters: the states held go back to whoever needs them next.
        for (Slot* slot : claimed_)
            SharedStates<Value, Set>::abandon(*slot);
        claimed_.clear();
        clean = shared_.stop.load(std::memory_order_relaxed);
    }
    shared_.transitions.fetch_add(stats.transitions, std::memory_order_relaxed);
    shared_.stages.fetch_add(pricer_.calls(), std::memory_order_relaxed);
    shared_.stagesPriced.fetch_add(pricer_.priced(), std::memory_order_relaxed);
    int width = shared_.width.load(std::memory_order_relaxed);
    while (stats.width > width && !shared_.width.compare_exchange_weak(width, stats.width)) {
    }
    return clean;
}

template <class Set>
typename PartSearch<Set>::Value PartSearch<Set>::finishState(Value& best, Choice& choice,
                                                             Slot& slot) {
    if (record_ != nullptr && choice.stateIndex != UINT32_MAX)
        record_->states[choice.stateIndex].costMs = best.cost;
    best.choice = shared_.nextChoice.fetch_add(1, std::memory_order_relaxed);
    clock_.done = best.choice + 1; // states solved so far, by every thread
    shared_.choices[best.choice] = choice;
    SharedStates<Value, Set>::publish(slot, best); // the choice becomes visible with it
    claimed_.pop_back();
    return best;
}

template <class Set> const typename PartSearch<Set>::Value& PartSearch<Set>::solvedValue(Set s) {
    using Found = typename SharedStates<Value, Set>::Found;
    const auto ref = shared_.states.claim(s);
    if (ref.found != Found::Done)
        throw std::logic_error("DP reconstruction met a state that was not solved");
    return ref.slot->value;
}

template PartSearch<uint64_t>::Value PartSearch<uint64_t>::subValue(uint64_t, uint64_t, uint64_t,
                                                                    int);
template PartSearch<Bits>::Value PartSearch<Bits>::subValue(Bits, Bits, Bits, int);
template bool PartSearch<uint64_t>::explore(uint64_t, uint64_t, int);
template bool PartSearch<Bits>::explore(Bits, Bits, int);
template bool PartSearch<uint64_t>::help();
template bool PartSearch<Bits>::help();
template PartSearch<uint64_t>::Value PartSearch<uint64_t>::finishState(Value&, Choice&, Slot&);
template PartSearch<Bits>::Value PartSearch<Bits>::finishState(Value&, Choice&, Slot&);
template const PartSearch<uint64_t>::Value& PartSearch<uint64_t>::solvedValue(uint64_t);
template const PartSearch<Bits>::Value& PartSearch<Bits>::solvedValue(Bits);

PartOutcome searchPart(const ir::BlockDag& dag, const PartGraph& g, const Options& options,
                       const cost::CostModel& cost, const cost::OperatorClasses& classes,
                       SearchClock& clock, StateSpace* record, int block, int part,
                       PartMemory* memory, PartHelpers* helpers) {
    if (record != nullptr || memory != nullptr)
        helpers = nullptr; // one thread: the recorded indices and the budget's peaks are its own
    auto search = [&](auto set) {
        using Search = PartSearch<decltype(set)>;
        typename Search::Shared shared(clock.total);
        Search s(dag, g, options, cost, classes, clock, record, block, part, shared, memory);
        // Helpers leave before `shared` goes, whether the search ends or throws.
        struct Leave {
            PartHelpers* helpers;
            typename Search::Shared& shared;
            void now() {
                if (helpers == nullptr)
                    return;
                shared.stop = true;
                helpers->close();
                helpers = nullptr;
            }
            ~Leave() { now(); }
        } leave{helpers, shared};
        const auto helper = [&](SearchControl& control) {
            SearchClock helperClock;
            helperClock.control = &control;
            helperClock.total = clock.total;
            Search h(dag, g, options, cost, classes, helperClock, nullptr, block, part, shared);
            h.help(); // its outcome is in `shared`; whether it failed matters to no one here
        };
        PartOutcome out;
        out.chosen = s.run([&] {
            if (helpers != nullptr)
                helpers->open(clock.control, helper);
        });
        leave.now();
        out.costMs = s.costMs;
        out.stats = s.stats;
        out.stats.transitions += shared.transitions.load();
        out.stats.stages += shared.stages.load();
        out.stats.stagesPriced += shared.stagesPriced.load();
        out.stats.width = std::max(out.stats.width, shared.width.load());
        return out;
    };
    // Every part of the bundled models has at most 64 operators: one machine word per set
    // halves the work of each set operation, hash and key comparison in the hot loop.
    if (g.ops.size() <= 64)
        return search(uint64_t{0});
    return search(Bits{0});
}

} // namespace ios::schedulers::detail
