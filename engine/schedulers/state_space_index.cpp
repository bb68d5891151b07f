// SPDX-License-Identifier: Apache-2.0
#include "schedulers/state_space_index.h"

#include <algorithm>
#include <bit>

namespace ios::schedulers {

int stateLayer(const StateSpace::State& state, int partSize) {
    return partSize - std::popcount(state.remaining[0]) - std::popcount(state.remaining[1]);
}

int StateSpaceIndex::find(int block, int part) const {
    for (size_t i = 0; i < parts.size(); ++i)
        if (parts[i].block == block && parts[i].part == part)
            return static_cast<int>(i);
    return -1;
}

namespace {

constexpr uint32_t kNone = UINT32_MAX;

void layOut(const StateSpace& space, PartStateSpace& p) {
    const auto n = static_cast<size_t>(p.partSize) + 1;
    p.layer.resize(p.states.size());
    p.rank.assign(p.states.size(), 0);
    p.layerSize.assign(n, 0);
    std::vector<std::vector<uint32_t>> byLayer(n);
    for (size_t i = 0; i < p.states.size(); ++i) {
        const StateSpace::State& st = space.states[p.states[i]];
        p.layer[i] = std::clamp(stateLayer(st, p.partSize), 0, p.partSize);
        byLayer[static_cast<size_t>(p.layer[i])].push_back(static_cast<uint32_t>(i));
        p.maxCostMs = std::max(p.maxCostMs, st.costMs);
    }
    for (size_t l = 0; l < n; ++l) {
        auto& members = byLayer[l];
        std::stable_sort(members.begin(), members.end(), [&](uint32_t a, uint32_t b) {
            return space.states[p.states[a]].costMs < space.states[p.states[b]].costMs;
        });
        for (size_t r = 0; r < members.size(); ++r)
            p.rank[members[r]] = static_cast<int>(r);
        p.layerSize[l] = static_cast<int>(members.size());
    }
    std::vector<uint64_t> counts(n * n, 0);
    for (size_t k = 0; k < p.transitions.size(); ++k)
        if (p.to[k] >= 0)
            ++counts[static_cast<size_t>(p.layer[static_cast<size_t>(p.from[k])]) * n +
                     static_cast<size_t>(p.layer[static_cast<size_t>(p.to[k])])];
    for (size_t a = 0; a < n; ++a)
        for (size_t b = 0; b < n; ++b)
            if (counts[a * n + b] > 0)
                p.bands.push_back({static_cast<int>(a), static_cast<int>(b), counts[a * n + b]});
}

} // namespace

std::shared_ptr<const StateSpaceIndex> indexStateSpace(std::shared_ptr<const StateSpace> space) {
    auto index = std::make_shared<StateSpaceIndex>();
    index->space = space;
    if (!space)
        return index;
    // One entry per recorded part; slot[block][part] → entry of index->parts.
    std::vector<std::vector<uint32_t>> slot(space->partOps.size());
    for (size_t b = 0; b < space->partOps.size(); ++b)
        for (size_t p = 0; p < space->partOps[b].size(); ++p) {
            slot[b].push_back(static_cast<uint32_t>(index->parts.size()));
            PartStateSpace& part = index->parts.emplace_back();
            part.block = static_cast<int>(b);
            part.part = static_cast<int>(p);
            part.partSize = static_cast<int>(space->partOps[b][p].size());
        }
    auto slotOf = [&](const StateSpace::State& st) {
        if (st.block < 0 || static_cast<size_t>(st.block) >= slot.size())
            return kNone;
        const auto& parts = slot[static_cast<size_t>(st.block)];
        return st.part >= 0 && static_cast<size_t>(st.part) < parts.size()
                   ? parts[static_cast<size_t>(st.part)]
                   : kNone;
    };
    std::vector<uint32_t> partOf(space->states.size(), kNone);
    std::vector<uint32_t> local(space->states.size(), kNone);
    for (uint32_t i = 0; i < space->states.size(); ++i) {
        const uint32_t s = slotOf(space->states[i]);
        if (s == kNone)
            continue;
        partOf[i] = s;
        local[i] = static_cast<uint32_t>(index->parts[s].states.size());
        index->parts[s].states.push_back(i);
    }
    std::vector<uint32_t> entry(space->transitions.size(), kNone);
    for (uint32_t t = 0; t < space->transitions.size(); ++t) {
        const StateSpace::Transition& tr = space->transitions[t];
        if (tr.from >= partOf.size() || partOf[tr.from] == kNone)
            continue;
        PartStateSpace& part = index->parts[partOf[tr.from]];
        entry[t] = static_cast<uint32_t>(part.transitions.size());
        part.transitions.push_back(t);
        part.from.push_back(static_cast<int32_t>(local[tr.from]));
        const bool inside = tr.to < partOf.size() && partOf[tr.to] == partOf[tr.from];
        part.to.push_back(inside ? static_cast<int32_t>(local[tr.to]) : -1);
    }
    for (uint32_t t : space->chosen)
        if (t < entry.size() && entry[t] != kNone)
            index->parts[partOf[space->transitions[t].from]].path.push_back(entry[t]);
    for (size_t i = 0; i < index->parts.size(); ++i) {
        layOut(*space, index->parts[i]);
        if (index->parts[i].transitions.size() > index->parts[index->busiest].transitions.size())
            index->busiest = i;
    }
    return index;
}

} // namespace ios::schedulers
