// SPDX-License-Identifier: Apache-2.0
// RAF-IOS's chunks and the counting pass over them (docs/raf.md "RAF-IOS's work"): before the
// chunk DP runs, its states (the non-empty down-sets of each chunk) and candidates (the
// (state, ending) pairs it enumerates) are counted exactly, without enumerating the endings, so
// that a search past the caps or the time limit is refused up front and progress is reported in
// candidates.
#pragma once

#include "schedulers/raf/raf_graph.h"
#include "schedulers/search_control.h"

#include <bit>
#include <cstdint>
#include <map>
#include <vector>

namespace ios::schedulers::raf {

inline constexpr size_t kBlockMaxSize = 20; // RAF block_max_size: nodes per chunk
inline constexpr int kMaxStageOps = 10;     // RAF max_stage_ops: nodes per ending

// What the whole RAF-IOS search of a model may count before it is refused: states (its memo
// entries, at most 2^20 per chunk) and candidates (endings enumerated; about 10^7 a second).
inline constexpr uint64_t kMaxRafIosStates = uint64_t{1} << 22;
inline constexpr uint64_t kMaxRafIosCandidates = uint64_t{1} << 34;
// A lower bound of the time the chunk DP spends per candidate (enumeration alone, measured on
// the development machine at about 15 ns with the stage pricing; the bound leaves a factor 3):
// the up-front estimate, so that it never refuses work that could end in time.
inline constexpr double kSecondsPerCandidate = 5e-9;

// Chunks of node indices, in node order: cut after every node all paths to the sink pass
// through, then into pieces of at most kBlockMaxSize.
std::vector<std::vector<int>> rafIosChunks(const RafGraph& g);

// A chunk's nodes and its order: succ[i] holds the local indices of node i's consumers in the
// chunk (all higher than i), adj[i] those of its consumers and producers.
struct ChunkOrder {
    std::vector<int> nodes;
    std::vector<uint32_t> succ;
    std::vector<uint32_t> adj;
};
ChunkOrder chunkOrder(const RafGraph& g, std::vector<int> nodes);

// The connected component of the nodes in `seed` within the node set `within` (a chunk's local
// bit masks), where neighbours[i] holds node i's neighbours.
inline uint32_t componentWithin(uint32_t seed, uint32_t within,
                                const std::vector<uint32_t>& neighbours) {
    uint32_t comp = seed;
    for (uint32_t grow = seed; grow != 0;) {
        uint32_t next = 0;
        for (uint32_t r = grow; r != 0; r &= r - 1)
            next |= neighbours[static_cast<size_t>(std::countr_zero(r))];
        next &= within & ~comp;
        comp |= next;
        grow = next;
    }
    return comp;
}

struct ChunkWork {
    uint64_t states = 0;     // non-empty down-sets: the chunk DP's memo entries
    uint64_t candidates = 0; // (state, ending) pairs, endings of 1 to kMaxStageOps nodes
};

// Counts chunks, equal orders once (a cache keyed by the order), and the running totals of a
// model's search; throws WorkLimitReached (WorkKnob::RafIos, prefixed by control->task when
// given) once the totals pass the caps.
class RafIosCounter {
public:
    ChunkWork count(const ChunkOrder& order, const SearchControl* control);
    uint64_t states() const { return states_; }
    uint64_t candidates() const { return candidates_; }
    uint64_t largestChunk() const { return largest_; } // candidates of the largest chunk

private:
    std::map<std::vector<uint32_t>, ChunkWork> known_;
    uint64_t states_ = 0;
    uint64_t candidates_ = 0;
    uint64_t largest_ = 0;
};

// One chunk counted without a cap (for the tests and the search's own weights); `stateCap`
// stops the count of down-sets past it (the result then has states > stateCap).
ChunkWork countChunk(const std::vector<uint32_t>& succ, uint64_t stateCap = ~uint64_t{0});

} // namespace ios::schedulers::raf
