// SPDX-License-Identifier: Apache-2.0
// A schedule: per block, stages → groups → operators (IOS paper §3, docs/algorithms.md §2).
#pragma once

#include <cstdint>
#include <vector>

namespace ios::schedule {

enum class StageKind : uint8_t {
    Parallel, // groups run concurrently on separate streams, operators of a group in order
    Merge,    // one group whose operators (same-input convs) run as ONE merged convolution
};

// Operators are indices into the block's ir::BlockDag::ops.
using Group = std::vector<int>;

struct Stage {
    StageKind kind = StageKind::Parallel;
    std::vector<Group> groups;

    int operatorCount() const {
        int n = 0;
        for (const Group& g : groups)
            n += static_cast<int>(g.size());
        return n;
    }
    friend bool operator==(const Stage&, const Stage&) = default;
};

struct BlockSchedule {
    std::vector<Stage> stages;
    friend bool operator==(const BlockSchedule&, const BlockSchedule&) = default;
};

struct Schedule {
    std::vector<BlockSchedule> blocks; // one per graph block, same order
    friend bool operator==(const Schedule&, const Schedule&) = default;
};

} // namespace ios::schedule
