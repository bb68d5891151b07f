// SPDX-License-Identifier: Apache-2.0
// Memory of the IOS DP's states for the budgeted search (docs/memory.md "IOS under a memory
// budget"): the live bytes after a down-set P of a part (the block's earlier parts all done)
// depend on P alone, so a stage E ending S = P ∪ E peaks at μ(P) + the bytes E allocates,
// and dropping every transition over the budget leaves exactly the schedules that fit.
#pragma once

#include "ir/memory.h"
#include "schedulers/bits.h"

#include <cstdint>
#include <vector>

namespace ios::schedulers::detail {

class PartMemory {
public:
    // `partOps`: the part's block operators in local (bit) order; `earlierOps`: the block
    // operators of the block's earlier parts.
    PartMemory(const ir::MemoryProblem& problem, const std::vector<int>& partOps,
               const std::vector<int>& earlierOps);

    // μ(P): live bytes once the operators of P (local bits) have run.
    int64_t liveAfter(Bits p);
    // The sample of stage `e` run after P: μ(P) + everything e allocates at its start.
    int64_t stagePeak(Bits p, Bits e) {
        int64_t bytes = liveAfter(p);
        forEachBit(e, [&](int i) { bytes += allocates_[static_cast<size_t>(i)]; });
        return bytes;
    }

private:
    struct Freeable {
        Bits consumers = 0; // local consumers; all in P → freed
        int64_t bytes = 0;
    };
    int64_t base_ = 0;
    std::vector<int64_t> allocates_; // per local op: its outputs (and assembly) + transients
    std::vector<int64_t> keeps_;     // per local op: output bytes that stay after its step
    std::vector<Freeable> freeable_;
    BitsMap<int64_t> memo_;
};

} // namespace ios::schedulers::detail
