// SPDX-License-Identifier: Apache-2.0
#include "schedulers/dp_part.h"

#include "schedule/merge.h"
#include "util/error.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

namespace ios::schedulers::detail {

std::string smallerPartsAdvice(const ir::BlockDag& dag) {
    if (!dag.explicitParts)
        return "lower the max part size";
    return "the block's parts are explicit (the max part size does not apply): split this part "
           "in the model's parts (the native file's \"parts\" or the *.parts.json beside the IOS "
           "JSON file), or remove them so that the max part size cuts the block";
}

Hint smallerPartsHint(const ir::BlockDag& dag) {
    return dag.explicitParts ? Hint::ExplicitParts : Hint::LowerPartSize;
}

PartGraph buildPartGraph(const ir::BlockDag& dag, const std::vector<int>& partOps) {
    const int n = static_cast<int>(partOps.size());
    if (n > kMaxPartOperators)
        throw UserError("a DP part has " + std::to_string(n) + " operators; at most " +
                            std::to_string(kMaxPartOperators) + " are supported; " +
                            smallerPartsAdvice(dag),
                        {}, dag.ops[partOps.front()]->name, smallerPartsHint(dag));
    // Topological order (Kahn, lowest file position first) so that a predecessor always has
    // a lower local index: the DP's head enumeration and down-set count rely on it.
    std::vector<int> local(dag.ops.size(), -1);
    for (int i = 0; i < n; ++i)
        local[partOps[i]] = i;
    std::vector<int> indegree(n, 0);
    for (int i = 0; i < n; ++i)
        for (int p : dag.preds[partOps[i]])
            indegree[i] += local[p] >= 0 ? 1 : 0;
    PartGraph g;
    std::vector<int> order; // file-position indices into partOps
    std::vector<bool> done(n, false);
    while (static_cast<int>(order.size()) < n) {
        int next = -1;
        for (int i = 0; i < n && next < 0; ++i)
            if (!done[i] && indegree[i] == 0)
                next = i;
        if (next < 0)
            throw UserError("the operators of a part form a cycle", {},
                            dag.ops[partOps.front()]->name);
        done[next] = true;
        order.push_back(next);
        for (int s : dag.succs[partOps[next]])
            if (local[s] >= 0)
                --indegree[local[s]];
    }
    for (int i = 0; i < n; ++i)
        local[partOps[order[i]]] = i;
    g.ops.resize(n);
    for (int i = 0; i < n; ++i)
        g.ops[i] = partOps[order[i]];
    g.succ.assign(n, 0);
    g.pred.assign(n, 0);
    g.adj.assign(n, 0);
    g.desc.assign(n, 0);
    for (int i = 0; i < n; ++i)
        for (int s : dag.succs[g.ops[i]])
            if (local[s] >= 0) {
                g.succ[i] |= bit(local[s]);
                g.pred[local[s]] |= bit(i);
                g.adj[i] |= bit(local[s]);
                g.adj[local[s]] |= bit(i);
            }
    for (int i = n - 1; i >= 0; --i) {
        g.desc[i] = bit(i);
        forEachBit(g.succ[i], [&](int s) { g.desc[i] |= g.desc[s]; });
        g.all |= bit(i);
    }
    // Merge classes (docs/algorithms.md §2.3 "Merge stages"): equal keys ⇔ mergeable together
    // (schedule::mergeClassKey, the definition mergeable() uses).
    std::map<schedule::MergeClassKey, int> classes;
    g.mergeClass.assign(n, -1);
    for (int i = 0; i < n; ++i) {
        const auto key = schedule::mergeClassKey(*dag.ops[g.ops[i]]);
        if (!key)
            continue;
        auto [it, inserted] = classes.emplace(*key, static_cast<int>(classes.size()));
        g.mergeClass[i] = it->second;
    }
    g.classCount = static_cast<int>(classes.size());
    return g;
}

void SearchClock::check() {
    if (control == nullptr)
        return;
    if (control->cancelled())
        throw Cancelled();
    control->checkDeadline(done, total);
    const auto now = std::chrono::steady_clock::now();
    if (control->progress && now - lastReport >= std::chrono::milliseconds(100)) {
        lastReport = now;
        control->progress(done, total);
    }
}

template <class Set>
PartSearch<Set>::PartSearch(const ir::BlockDag& dag, const PartGraph& g, const Options& options,
                            const cost::CostModel& cost, const cost::OperatorClasses& classes,
                            SearchClock& clock, StateSpace* record, int block, int part,
                            Shared& shared, PartMemory* memory)
    : dag_(dag), memory_(memory), g_(g), opt_(options), cost_(cost), clock_(clock), record_(record),
      block_(block), part_(part), shared_(shared), pricer_(cost, dag, classes) {
    const int n = static_cast<int>(g.ops.size());
    candidates_.resize(n + 2);
    compStack_.resize(static_cast<size_t>(n + 2) * (n + 2));
    std::vector<double> blockOpMs;
    additive_ = cost::checkedAdditiveParallelStages(cost, dag, blockOpMs, overheadMs_);
    if (additive_) {
        compMsStack_.resize(compStack_.size());
        for (int op : g.ops)
            opMs_.push_back(blockOpMs.at(static_cast<size_t>(op)));
    }
    classSinks_.assign(static_cast<size_t>(g.classCount), 0);
    merges_ = options.strategy != Strategy::Parallel;
    // Branch and bound where every candidate is priced for the state's best alone (no
    // recording of each transition, no budget) and the model bounds its stages (an empty
    // stage's bound is 0, or negative for none).
    bounded_ = options.boundStages && !additive_ && memory == nullptr && record == nullptr &&
               pricer_.lowerBoundMs(schedule::Stage{}) >= 0;
    if (bounded_)
        totals_.resize(static_cast<size_t>(n) + 2);
    all_ = static_cast<Set>(g.all);
    for (int u = 0; u < n; ++u) {
        desc_.push_back(static_cast<Set>(g.desc[static_cast<size_t>(u)]));
        succ_.push_back(static_cast<Set>(g.succ[static_cast<size_t>(u)]));
        pred_.push_back(static_cast<Set>(g.pred[static_cast<size_t>(u)]));
        smallDesc_.push_back(popcount(g.desc[static_cast<size_t>(u)]) <= options.r);
        Set mates = 0;
        for (int v = 0; v < n; ++v)
            if (v != u && g.mergeClass[static_cast<size_t>(u)] >= 0 &&
                g.mergeClass[static_cast<size_t>(v)] == g.mergeClass[static_cast<size_t>(u)])
                mates |= one(v);
        classMates_.push_back(mates);
    }
    // Priced parallel endings: 5–15 per state in the bundled models' parts (RandWire's parts
    // of 4.3–5.4 k states meet 54–82 k). Room for 16 per state, up to 2^18, spares the table
    // its eight rehashes into fresh pages as it fills.
    if (!additive_)
        parallelLatency_.reserve(std::min<uint64_t>(16 * clock.total, uint64_t{1} << 18));
    stats.block = block;
    stats.part = part;
    stats.n = n;
}

template <class Set>
std::vector<std::pair<Bits, bool>> PartSearch<Set>::run(const std::function<void()>& started) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::pair<Bits, bool>> chosen;
    if (all_ != 0) {
        Slot& slot = *shared_.states.claim(all_).slot; // nobody else has started
        claimed_.push_back(&slot);
        if (started)
            started();
        const Value root = solveNew(all_, merges_ ? sinksOf(all_) : 0, 0, slot);
        costMs = root.cost;
        if (root.choice >= shared_.choices.size() || shared_.choices[root.choice].stage == 0) {
            stats.states = shared_.states.size(); // no schedule fits the memory budget
            return chosen;
        }
        stats.schedules = BigUint::fromU128(root.count);
        stats.schedulesSaturated = root.saturated;
        // Follow the choices from the whole part; the stage found for S is the LAST stage of
        // S's schedule, so the walk yields the stages in reverse. Latencies are finite (checked
        // where they enter), so every solved state has a non-empty best stage within it; the
        // check keeps a broken invariant from spinning here forever.
        for (Set s = all_; s != 0;) {
            const Value& value = solvedValue(s);
            const Choice* v =
                value.choice < shared_.choices.size() ? &shared_.choices[value.choice] : nullptr;
            if (v == nullptr || v->stage == 0 || (v->stage & ~s) != 0)
                throw std::logic_error("DP reconstruction made no progress (block " +
                                       std::to_string(block_) + ", part " + std::to_string(part_) +
                                       ")");
            chosen.emplace_back(v->stage, v->merge);
            if (record_ != nullptr && v->transition != UINT32_MAX)
                record_->chosen.push_back(v->transition);
            s &= ~v->stage;
        }
        std::reverse(chosen.begin(), chosen.end());
    } else {
        stats.schedules = BigUint(1);
    }
    stats.states = shared_.states.size();
    stats.stages = pricer_.calls();
    stats.stagesPriced = pricer_.priced();
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return chosen;
}

template <class Set> uint32_t PartSearch<Set>::recordState(Set s) {
    if (record_->truncated)
        return UINT32_MAX;
    StateSpace::State st;
    st.block = block_;
    st.part = part_;
    const Bits b = s;
    st.remaining = {static_cast<uint64_t>(b), static_cast<uint64_t>(b >> 64)};
    record_->states.push_back(st);
    return static_cast<uint32_t>(record_->states.size() - 1);
}

template <class Set> typename PartSearch<Set>::Value PartSearch<Set>::emptyValue() {
    Value empty;
    empty.count = 1;
    if (record_ != nullptr && emptyState_ == UINT32_MAX)
        emptyState_ = recordState(0);
    return empty;
}

template <class Set>
typename PartSearch<Set>::Value PartSearch<Set>::solveNew(Set s, Set sinks, int depth, Slot& slot) {
    Value best;
    Choice choice;
    best.cost = std::numeric_limits<double>::infinity();
    if (record_ != nullptr)
        choice.stateIndex = recordState(s);
    Candidates& cands = candidates_[depth];
    cands.clear();
    enumerate(s, sinks, cands);
    if (bounded_) {
        chooseBounded(s, sinks, depth, best, choice);
        return finishState(best, choice, slot);
    }
    // A stage's extensions by one group follow it in the enumeration: priced in that order,
    // before the sub-states' searches price others, most resume the stage's simulation
    // (PrefixStageSimulator, stage_simulator.h). Additive models price parallel stages
    // without a stage; a memory budget prices only the stages that fit.
    if (memory_ == nullptr && !additive_)
        for (Candidate& c : cands)
            if (c.latencyMs < 0) {
                clock_.tick(); // a state's candidates may be thousands of simulations
                c.latencyMs = latency(c.ops, c.merge);
            }
    constexpr UInt128 kMax = ~UInt128{0};
    // Once per state for its transitions (a few ns each without pricing), so checks stay
    // well within 100 ms; a stage priced in the loop ticks on its own.
    clock_.tick(cands.size());
    for (const Candidate& c : cands) { // no insert into candidates_[depth] below this point
        if (memory_ != nullptr && memory_->stagePeak(s & ~c.ops, c.ops) > opt_.memoryBudget)
            continue; // the stage would not fit: the transition does not exist
        ++stats.transitions;
        const Value sub = subValue(s, sinks, c.ops, depth);
        double lat = c.latencyMs;
        if (lat < 0) { // priced here (additive merges, memory budget): may be a simulation
            clock_.tick();
            lat = latency(c.ops, c.merge);
        }
        const double total = sub.cost + lat;
        if (__builtin_add_overflow(best.count, sub.count, &best.count)) {
            best.count = kMax;
            best.saturated = true;
        }
        best.saturated |= sub.saturated;
        uint32_t transition = UINT32_MAX;
        if (record_ != nullptr)
            transition = recordTransition(choice.stateIndex, sub, c.merge, lat);
        if (total < best.cost) { // strict: the first best candidate wins (deterministic)
            best.cost = total;
            choice.stage = c.ops;
            choice.merge = c.merge;
            choice.transition = transition;
        }
    }
    return finishState(best, choice, slot);
}

template <class Set>
uint32_t PartSearch<Set>::recordTransition(uint32_t from, const Value& sub, bool merge, double ms) {
    const uint32_t to =
        sub.choice == UINT32_MAX ? emptyState_ : shared_.choices[sub.choice].stateIndex;
    if (record_->truncated || from == UINT32_MAX || to == UINT32_MAX)
        return UINT32_MAX;
    if (record_->transitions.size() >= opt_.maxRecordedTransitions) {
        record_->truncated = true;
        return UINT32_MAX;
    }
    record_->transitions.push_back(
        {from, to, merge ? schedule::StageKind::Merge : schedule::StageKind::Parallel, ms});
    return static_cast<uint32_t>(record_->transitions.size() - 1);
}

template <class Set> Set PartSearch<Set>::sinksOf(Set s) const {
    Set sinks = 0;
    forEachBit(s, [&](int u) {
        if ((succ_[static_cast<size_t>(u)] & s) == 0)
            sinks |= one(u);
    });
    return sinks;
}

// e is an up-set of s (a stage's operators are taken from the end), so s \ e keeps the sinks
// of s outside e and gains only predecessors of e whose successors left with e.
template <class Set> Set PartSearch<Set>::sinksAfter(Set s, Set sinks, Set e) const {
    const Set rest = s & ~e;
    Set exposed = 0;
    forEachBit(e, [&](int u) { exposed |= pred_[static_cast<size_t>(u)]; });
    Set out = sinks & ~e;
    forEachBit(exposed & rest, [&](int u) {
        if ((succ_[static_cast<size_t>(u)] & rest) == 0)
            out |= one(u);
    });
    return out;
}

template <class Set> void PartSearch<Set>::enumerate(Set s, Set sinks, Candidates& out) {
    if (opt_.strategy != Strategy::Merge) {
        // Eligible heads: u ∈ S with |tc_S(u)| ≤ r (a larger closure can never be a group,
        // nor part of one in endings=all, whose components contain whole closures).
        headClosure_.clear();
        headMs_.clear();
        forEachBit(s, [&](int u) {
            const Set tc = desc_[u] & s;
            if (smallDesc_[static_cast<size_t>(u)] || popcount(tc) <= opt_.r) {
                headClosure_.push_back(tc);
                if (additive_)
                    headMs_.push_back(groupMs(tc));
            }
        });
        if (opt_.endings == Endings::Reference) {
            // Heads pairwise: most heads after a chosen one overlap it, and a mask of the
            // compatible ones skips them instead of testing each at every level of the DFS.
            const size_t heads = headClosure_.size();
            const Set everyHead =
                heads == sizeof(Set) * 8 ? ~Set{0} : one(static_cast<int>(heads)) - 1;
            Set seen = 0;
            bool overlap = false;
            for (const Set tc : headClosure_) {
                overlap = overlap || (seen & tc) != 0;
                seen |= tc;
            }
            headCompat_.resize(heads);
            for (size_t i = 0; i < heads; ++i) {
                Set compatible =
                    everyHead & ~(one(static_cast<int>(i)) | (one(static_cast<int>(i)) - 1));
                if (overlap) // else (r = 1, or no two closures meet): every later head
                    for (size_t j = i + 1; j < heads; ++j)
                        if ((headClosure_[i] & headClosure_[j]) != 0)
                            compatible &= ~one(static_cast<int>(j));
                headCompat_[i] = compatible;
            }
            parallelReference(everyHead, 0, 0, 0, out);
        } else
            parallelAll(0, 0, 0, 0, 0, out);
    }
    if (opt_.strategy != Strategy::Parallel)
        mergeCandidates(sinks, out);
}

// Heads chosen in increasing order with pairwise-disjoint closures, at most s of them
// (docs/algorithms.md §2.2 "Parallel stages"); every chosen set is one candidate. S is a down-set,
// so each closure is weakly connected and no edge joins two disjoint closures (it would put
// its head in the other's closure): the closures are the stage's groups, and with an
// additive cost model `slowest` (the largest group latency so far) prices the stage.
template <class Set>
void PartSearch<Set>::parallelReference(Set allowed, Set cur, int groups, double slowest,
                                        Candidates& out) {
    const size_t before = out.size();
    // Held in locals: out.push_back may allocate, so the compiler would reload the members.
    const Set* heads = headClosure_.data();
    const Set* compat = headCompat_.data();
    for (Set rest = allowed; rest != 0; rest &= rest - 1) {
        const int i = lowestBit(rest);
        const Set tc = heads[i];
        const double ms = additive_ ? std::max(slowest, headMs_[static_cast<size_t>(i)]) : 0;
        out.push_back({cur | tc, false, parallelMs(ms)});
        if (groups + 1 < opt_.s)
            parallelReference(rest & compat[i], cur | tc, groups + 1, ms, out);
    }
    if (out.size() != before) // every candidate of this level has groups + 1 groups
        stats.width = std::max(stats.width, groups + 1);
}

// endings=all: every antichain of heads (sources of E), at most s of them; E's weakly
// connected components (closures that overlap join) must each hold at most r operators.
// The components of level `depth` live in compStack_[depth * stride ...].
template <class Set>
void PartSearch<Set>::parallelAll(size_t from, Set cur, int heads, int depth, int comps,
                                  Candidates& out) {
    const size_t stride = g_.ops.size() + 2;
    const Set* mine = &compStack_[depth * stride];
    Set* next = &compStack_[(depth + 1) * stride];
    const double* mineMs = additive_ ? &compMsStack_[depth * stride] : nullptr;
    double* nextMs = additive_ ? &compMsStack_[(depth + 1) * stride] : nullptr;
    const Set* closures = headClosure_.data();
    const size_t count = headClosure_.size();
    for (size_t i = from; i < count; ++i) {
        const Set tc = closures[i];
        // The head is the lowest operator of its closure; it must not be reachable from a
        // chosen head (cur), and no chosen head is reachable from it (they come earlier in
        // topological order).
        if ((one(lowestBit(tc)) & cur) != 0)
            continue;
        Set joined = tc;
        int kept = 0;
        double slowest = 0;
        for (int c = 0; c < comps; ++c) {
            if ((mine[c] & tc) != 0) {
                joined |= mine[c];
            } else {
                if (additive_) {
                    nextMs[kept] = mineMs[c];
                    slowest = std::max(slowest, mineMs[c]);
                }
                next[kept++] = mine[c];
            }
        }
        if (popcount(joined) > opt_.r)
            continue;
        if (additive_) {
            nextMs[kept] = groupMs(joined);
            slowest = std::max(slowest, nextMs[kept]);
        }
        next[kept++] = joined;
        out.push_back({cur | tc, false, parallelMs(slowest)});
        stats.width = std::max(stats.width, kept);
        if (heads + 1 < opt_.s)
            parallelAll(i + 1, cur | tc, heads + 1, depth + 1, kept, out);
    }
}

// Non-empty mergeable subsets of sinks(S): every sink alone, and every subset of two or more
// sinks of one merge class (docs/algorithms.md §2.3 "Merge stages").
template <class Set> void PartSearch<Set>::mergeCandidates(Set sinks, Candidates& out) {
    // One operator: no merge, priced as a parallel stage. Written in place: a state has few
    // candidates, and a checked push each costs as much as the rest of the loop.
    Candidate* single = out.extend(static_cast<size_t>(popcount(sinks)));
    if (additive_)
        forEachBit(sinks, [&](int u) {
            *single++ = {one(u), true, parallelMs(opMs_[static_cast<size_t>(u)])};
        });
    else
        forEachBit(sinks, [&](int u) { *single++ = {one(u), true, -1}; });
    if (g_.classCount == 0)
        return;
    Set paired = 0; // sinks with another sink of their merge class
    forEachBit(sinks, [&](int u) {
        if ((classMates_[static_cast<size_t>(u)] & sinks) != 0)
            paired |= one(u);
    });
    if (paired == 0) // no merge of several operators from this state
        return;
    // Sinks by merge class in one pass; classes in increasing id, members in increasing
    // local index (the enumeration order, which decides ties).
    touchedClasses_.clear();
    forEachBit(paired, [&](int u) {
        const int c = g_.mergeClass[static_cast<size_t>(u)];
        if (c < 0)
            return;
        if (classSinks_[static_cast<size_t>(c)] == 0)
            touchedClasses_.push_back(c);
        classSinks_[static_cast<size_t>(c)] |= one(u);
    });
    std::sort(touchedClasses_.begin(), touchedClasses_.end());
    std::vector<int>& members = mergeMembers_;
    for (int c : touchedClasses_) {
        const Set inClass = classSinks_[static_cast<size_t>(c)];
        classSinks_[static_cast<size_t>(c)] = 0;
        if (popcount(inClass) < 2)
            continue;
        members.clear();
        forEachBit(inClass, [&](int u) { members.push_back(u); });
        if (members.size() > 30)
            throw UserError("more than 30 mergeable convolutions share one input; the merge "
                            "enumeration would not finish",
                            {}, dag_.ops[g_.ops[members.front()]]->name);
        const uint32_t subsets = uint32_t{1} << members.size();
        for (uint32_t m = 1; m < subsets; ++m) {
            if ((m & (m - 1)) == 0)
                continue; // singletons are already candidates
            Set e = 0;
            for (size_t j = 0; j < members.size(); ++j)
                if ((m >> j) & 1u)
                    e |= one(members[j]);
            out.push_back({e, true, -1});
        }
    }
}

template <class Set> double PartSearch<Set>::latency(Set e, bool merge) {
    BitsMap<double, Set>& memo = merge ? mergeLatency_ : parallelLatency_;
    double* v = memo.find(e);
    if (v != nullptr && *v >= 0)
        return *v;
    makeStage(g_, e, merge, scratchStage_);
    const double ms = pricer_.ms(scratchStage_);
    if (v != nullptr) // a bound so far (chooseBounded)
        *v = ms;
    else
        memo.insert(e, ms);
    return ms;
}

template <class Set> double PartSearch<Set>::groupMs(Set group) const {
    double ms = 0;
    forEachBit(group, [&](int i) { ms += opMs_[static_cast<size_t>(i)]; });
    return ms;
}

template class PartSearch<uint64_t>;
template class PartSearch<Bits>;

// Groups of a parallel stage = weakly connected components of E, ordered by their first
// operator, each in topological order; a merge stage is one group.
schedule::Stage makeStage(const PartGraph& g, Bits e, bool merge) {
    schedule::Stage stage;
    makeStage(g, e, merge, stage);
    return stage;
}

void makeStage(const PartGraph& g, Bits e, bool merge, schedule::Stage& stage) {
    stage.kind = merge ? schedule::StageKind::Merge : schedule::StageKind::Parallel;
    size_t groups = 0;
    auto addGroup = [&](Bits set) { // reuses the vectors' capacity
        if (stage.groups.size() <= groups)
            stage.groups.emplace_back();
        schedule::Group& group = stage.groups[groups++];
        group.clear();
        forEachBit(set, [&](int i) { group.push_back(g.ops[i]); });
    };
    if (merge) {
        addGroup(e);
    } else {
        for (Bits rest = e; rest != 0;) {
            Bits comp = bit(lowestBit(rest));
            for (Bits frontier = comp; frontier != 0;) {
                Bits grown = comp;
                forEachBit(frontier, [&](int i) { grown |= g.adj[i] & e; });
                frontier = grown & ~comp;
                comp = grown;
            }
            addGroup(comp);
            rest &= ~comp;
        }
    }
    stage.groups.resize(groups);
}

} // namespace ios::schedulers::detail
