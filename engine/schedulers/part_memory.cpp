// SPDX-License-Identifier: Apache-2.0
#include "schedulers/part_memory.h"

#include "schedulers/serenity/memory_dp.h"

namespace ios::schedulers::detail {

PartMemory::PartMemory(const ir::MemoryProblem& p, const std::vector<int>& partOps,
                       const std::vector<int>& earlierOps) {
    std::vector<int> localOf(p.ops.size(), -1); // memory op → local op
    std::vector<char> earlier(p.ops.size(), 0);
    std::vector<int> earlierMemoryOps;
    auto memoryOpsOf = [&](int blockOp, auto&& f) {
        const auto b = static_cast<size_t>(blockOp);
        if (p.assemblyOf[b] >= 0)
            f(p.assemblyOf[b]);
        f(p.opOfBlockOp[b]);
    };
    for (int b : earlierOps)
        memoryOpsOf(b, [&](int m) {
            earlier[static_cast<size_t>(m)] = 1;
            earlierMemoryOps.push_back(m);
        });
    allocates_.assign(partOps.size(), 0);
    keeps_.assign(partOps.size(), 0);
    for (size_t i = 0; i < partOps.size(); ++i)
        memoryOpsOf(partOps[i], [&](int m) {
            localOf[static_cast<size_t>(m)] = static_cast<int>(i);
            const ir::MemoryProblem::Op& op = p.ops[static_cast<size_t>(m)];
            const int64_t out = p.tensors[static_cast<size_t>(op.output)].bytes;
            allocates_[i] += out + op.transientBytes;
            keeps_[i] += out;
        });
    base_ = serenity::liveBytesAfter(p, earlierMemoryOps);
    for (const ir::MemoryProblem::Tensor& t : p.tensors) {
        if (t.sink || t.consumers.empty())
            continue;
        Freeable f;
        f.bytes = t.bytes;
        bool inPart = false;
        bool later = false;
        for (int c : t.consumers) {
            if (localOf[static_cast<size_t>(c)] >= 0) {
                f.consumers |= bit(localOf[static_cast<size_t>(c)]);
                inPart = true;
            } else if (earlier[static_cast<size_t>(c)] == 0) {
                later = true; // read by a later part: live through this one
            }
        }
        if (inPart && !later)
            freeable_.push_back(f);
    }
}

int64_t PartMemory::liveAfter(Bits p) {
    if (p == 0)
        return base_;
    if (const int64_t* known = memo_.find(p))
        return *known;
    int64_t live = base_;
    forEachBit(p, [&](int i) { live += keeps_[static_cast<size_t>(i)]; });
    for (const Freeable& f : freeable_)
        if ((f.consumers & ~p) == 0)
            live -= f.bytes;
    memo_.insert(p, live);
    return live;
}

} // namespace ios::schedulers::detail
