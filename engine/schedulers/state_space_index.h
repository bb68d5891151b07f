// SPDX-License-Identifier: Apache-2.0
// The recorded DP state space (ios_dp.h StateSpace) regrouped per part and laid out in layers,
// ready to draw: the GUI builds this on its worker thread so that showing a result with
// millions of recorded transitions costs the UI thread nothing but a pointer swap.
#pragma once

#include "schedulers/ios_dp.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ios::schedulers {

// Layer of a state: number of the part's operators already scheduled (IOS paper §4: the DP
// moves from the full down-set to the empty one, one stage at a time).
int stateLayer(const StateSpace::State& state, int partSize);

struct PartStateSpace {
    int block = 0;
    int part = 0;
    int partSize = 0;             // operators in the part
    std::vector<uint32_t> states; // indices into StateSpace::states
    std::vector<int> layer;       // per entry of `states`: 0 … partSize
    std::vector<int> rank;        // per entry of `states`: position in its layer by cost
    std::vector<int> layerSize;   // states per layer (partSize + 1 entries)
    std::vector<uint32_t>
        transitions;            // indices into StateSpace::transitions leaving this part's states
    std::vector<int32_t> from;  // per entry of `transitions`: entry of `states`
    std::vector<int32_t> to;    // per entry of `transitions`: entry of `states`, or -1
    std::vector<uint32_t> path; // entries of `transitions` on the optimal schedule
    double maxCostMs = 0;       // largest cost(S) among `states`

    // Transitions aggregated between two layers (a stage of toLayer - fromLayer operators).
    struct Band {
        int fromLayer = 0;
        int toLayer = 0;
        uint64_t count = 0;
    };
    std::vector<Band> bands; // sorted by (fromLayer, toLayer)
};

struct StateSpaceIndex {
    std::shared_ptr<const StateSpace> space;
    std::vector<PartStateSpace> parts; // every recorded part, in (block, part) order
    size_t busiest = 0;                // entry of `parts` with the most transitions

    // Entry of `parts` for (block, part), or -1.
    int find(int block, int part) const;
};

// Linear in states + transitions (plus a sort of each layer by cost). Throws nothing for a
// consistent StateSpace; out-of-range indices (a truncated recording) are skipped.
std::shared_ptr<const StateSpaceIndex> indexStateSpace(std::shared_ptr<const StateSpace> space);

} // namespace ios::schedulers
