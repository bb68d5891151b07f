// SPDX-License-Identifier: Apache-2.0
// The transition function shared by the memory DP and its oracles: a segment's ops as local
// indices 0..n-1 with word bitsets, and, for a down-set S and a ready op u, the sample
// μ(S) + alloc(u) and μ(S ∪ {u}) (docs/memory.md "The memory DP"). Internal to Serenity.
#pragma once

#include "ir/memory.h"
#include "schedulers/serenity/memory_dp.h"

#include <cstdint>
#include <vector>

namespace ios::schedulers::serenity::detail {

class SegmentModel {
public:
    // `breakSymmetry`: interchangeable ops wait for the one before them in their class
    // (symmetry.h), a precedence without data.
    SegmentModel(const ir::MemoryProblem& problem, const Segment& segment,
                 bool breakSymmetry = false);

    int size() const { return n_; }
    int words() const { return words_; }
    int op(int local) const { return ops_[static_cast<size_t>(local)]; } // problem op
    int64_t startBytes() const { return start_; }                        // μ(∅)

    static bool has(const uint64_t* s, int i) { return (s[i >> 6] >> (i & 63)) & 1u; }
    static void set(uint64_t* s, int i) { s[i >> 6] |= uint64_t{1} << (i & 63); }

    // The ops ready in the empty set.
    void initialFrontier(uint64_t* front) const;
    // Bytes the step of u adds to μ(S) at its sample (output or accumulation temporary, plus
    // transients); S must not contain u.
    int64_t stepBytes(const uint64_t* s, int u) const {
        const Local& l = local_[static_cast<size_t>(u)];
        if (l.coProducers.empty() || l.again == l.fresh)
            return l.fresh;
        return (l.outInBefore || anyOf(s, l.coProducers) ? l.again : l.fresh);
    }
    // μ(S') for S' = S ∪ {u} (sNext holds S'), given μ(S) and the step's first allocation.
    int64_t muAfter(const uint64_t* sNext, int u, int64_t mu, const uint64_t* sPrev) const;
    // front' = front(S) \ {u} ∪ the successors of u whose local preds are all in S'.
    void nextFrontier(const uint64_t* frontPrev, const uint64_t* sNext, int u,
                      uint64_t* frontNext) const;

private:
    struct Free {
        int64_t bytes = 0;
        std::vector<uint64_t> consumers; // local consumer mask (words_)
    };
    struct Local {
        int64_t fresh = 0;            // output bytes + transient (first producer)
        int64_t again = 0;            // accumulate + transient (output already allocated)
        int64_t outputBytes = 0;      // what the first producer allocates
        bool outInBefore = false;     // a producer of the output ran before the segment
        std::vector<int> coProducers; // other local producers of the output
        std::vector<Free> frees;      // inputs freed once their consumers are all done
        std::vector<int> succs;       // local successors
        std::vector<uint64_t> preds;  // local predecessor mask (words_)
    };
    bool anyOf(const uint64_t* s, const std::vector<int>& locals) const {
        for (int i : locals)
            if (has(s, i))
                return true;
        return false;
    }

    int n_ = 0;
    int words_ = 1;
    int64_t start_ = 0;
    std::vector<int> ops_;
    std::vector<Local> local_;
};

// memoryDp (memory_dp.h) on a model built once: the soft budget's runs share it (its
// construction walks every consumer of every input, n² steps on a wide antichain).
DpResult memoryDp(const SegmentModel& model, int64_t budget, const DpLimits& limits,
                  SearchControl* control);

// The peak of an order of the model's ops (problem op indices), as segmentPeak.
int64_t orderPeak(const SegmentModel& model, const ir::MemoryProblem& problem,
                  const std::vector<int>& order);

} // namespace ios::schedulers::serenity::detail
