// SPDX-License-Identifier: Apache-2.0
#include "schedulers/serenity/downset_count.h"

#include "schedulers/serenity/symmetry.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ios::schedulers::serenity {

namespace {

// Down-sets merged into one frontier state: how many, and Σ of the ready ops they excluded.
struct Tally {
    double count = 0;
    double ready = 0;
};

// The segment's ops as local indices: their in-segment predecessors and the last local index
// that reads each (itself when nothing in the segment does).
struct LocalDag {
    std::vector<std::vector<int>> preds;
    std::vector<int> lastReader;
};

LocalDag localDag(const ir::MemoryProblem& p, const Segment& segment, bool breakSymmetry) {
    std::vector<int> local(p.ops.size(), -1);
    for (size_t i = 0; i < segment.ops.size(); ++i)
        local[static_cast<size_t>(segment.ops[i])] = static_cast<int>(i);
    LocalDag dag;
    dag.preds.resize(segment.ops.size());
    dag.lastReader.resize(segment.ops.size());
    for (size_t i = 0; i < segment.ops.size(); ++i) {
        dag.lastReader[i] = static_cast<int>(i);
        for (int q : p.preds[static_cast<size_t>(segment.ops[i])])
            if (const int l = local[static_cast<size_t>(q)]; l >= 0)
                dag.preds[i].push_back(l);
    }
    if (breakSymmetry) {
        const std::vector<int> twin = twinBefore(p, segment); // positions: local indices
        for (size_t i = 0; i < twin.size(); ++i)
            if (twin[i] >= 0)
                dag.preds[i].push_back(twin[i]);
    }
    for (size_t i = 0; i < dag.preds.size(); ++i)
        for (int q : dag.preds[i])
            dag.lastReader[static_cast<size_t>(q)] =
                std::max(dag.lastReader[static_cast<size_t>(q)], static_cast<int>(i));
    return dag;
}

} // namespace

DownSetCount countDownSets(const ir::MemoryProblem& problem, const Segment& segment,
                           size_t maxStates, bool breakSymmetry) {
    const LocalDag dag = localDag(problem, segment, breakSymmetry);
    std::vector<int> slotOf(dag.preds.size(), -1); // frontier slot of a decided op
    uint64_t freeSlots = ~uint64_t{0};
    std::unordered_map<uint64_t, Tally> states{{0, {1, 0}}}, next;
    for (size_t v = 0; v < dag.preds.size(); ++v) {
        uint64_t predMask = 0, release = 0;
        for (int q : dag.preds[v]) {
            predMask |= uint64_t{1} << slotOf[static_cast<size_t>(q)];
            if (dag.lastReader[static_cast<size_t>(q)] == static_cast<int>(v))
                release |= uint64_t{1} << slotOf[static_cast<size_t>(q)];
        }
        uint64_t own = 0;
        if (dag.lastReader[v] > static_cast<int>(v)) {
            if (freeSlots == 0)
                return {}; // a frontier of more than 64 ops
            slotOf[v] = std::countr_zero(freeSlots);
            own = uint64_t{1} << slotOf[v];
            freeSlots &= ~own;
        }
        next.clear();
        for (const auto& [mask, tally] : states) {
            const bool ready = (mask & predMask) == predMask;
            Tally& out = next[mask & ~release];
            out.count += tally.count;
            out.ready += tally.ready + (ready ? tally.count : 0);
            if (ready) {
                Tally& in = next[(mask | own) & ~release];
                in.count += tally.count;
                in.ready += tally.ready;
            }
        }
        freeSlots |= release;
        std::swap(states, next);
        if (states.size() > maxStates)
            return {};
    }
    DownSetCount result;
    result.complete = true;
    for (const auto& entry : states) {
        result.downSets += entry.second.count;
        result.expansions += entry.second.ready;
    }
    return result;
}

} // namespace ios::schedulers::serenity
