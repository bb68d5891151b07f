// SPDX-License-Identifier: Apache-2.0
#include "schedulers/serenity/segment_model.h"

#include "schedulers/serenity/symmetry.h"
#include "util/error.h"

#include <stdexcept>

namespace ios::schedulers::serenity {

Segment wholeSegment(const ir::MemoryProblem& problem) {
    Segment s;
    for (size_t i = 0; i < problem.ops.size(); ++i)
        s.ops.push_back(static_cast<int>(i));
    return s;
}

int64_t liveBytesAfter(const ir::MemoryProblem& p, const std::vector<int>& before) {
    std::vector<char> ran(p.ops.size(), 0);
    for (int op : before)
        ran[static_cast<size_t>(op)] = 1;
    int64_t live = p.constantBytes;
    for (const ir::MemoryProblem::Tensor& t : p.tensors) {
        bool allocated = t.producers.empty();
        for (int q : t.producers)
            allocated = allocated || ran[static_cast<size_t>(q)] != 0;
        bool freed = !t.sink;
        for (int c : t.consumers)
            freed = freed && ran[static_cast<size_t>(c)] != 0;
        if (allocated && !freed)
            live += t.bytes;
    }
    return live;
}

namespace detail {

SegmentModel::SegmentModel(const ir::MemoryProblem& p, const Segment& segment, bool breakSymmetry)
    : n_(static_cast<int>(segment.ops.size())), words_(std::max(1, (n_ + 63) / 64)),
      start_(liveBytesAfter(p, segment.before)), ops_(segment.ops) {
    if (n_ > 65535)
        throw UserError("a memory segment of " + std::to_string(n_) +
                            " operators is too large for the DP (at most 65 535)",
                        {}, p.name);
    std::vector<int> localOf(p.ops.size(), -1);
    std::vector<char> inBefore(p.ops.size(), 0);
    for (int i = 0; i < n_; ++i)
        localOf[static_cast<size_t>(ops_[static_cast<size_t>(i)])] = i;
    for (int op : segment.before)
        inBefore[static_cast<size_t>(op)] = 1;
    local_.resize(static_cast<size_t>(n_));
    for (int i = 0; i < n_; ++i) {
        const auto g = static_cast<size_t>(ops_[static_cast<size_t>(i)]);
        const ir::MemoryProblem::Op& op = p.ops[g];
        const ir::MemoryProblem::Tensor& out = p.tensors[static_cast<size_t>(op.output)];
        Local& l = local_[static_cast<size_t>(i)];
        l.outputBytes = out.bytes;
        l.fresh = out.bytes + op.transientBytes;
        l.again = op.accumulateBytes + op.transientBytes;
        for (int q : out.producers) {
            if (inBefore[static_cast<size_t>(q)] != 0)
                l.outInBefore = true;
            else if (localOf[static_cast<size_t>(q)] >= 0 && localOf[static_cast<size_t>(q)] != i)
                l.coProducers.push_back(localOf[static_cast<size_t>(q)]);
        }
        if (l.outInBefore) { // always "again": no need to look at co-producers
            l.fresh = l.again;
            l.coProducers.clear();
        }
        l.preds.assign(static_cast<size_t>(words_), 0);
        for (int q : p.preds[g]) {
            const int lq = localOf[static_cast<size_t>(q)];
            if (lq >= 0)
                set(l.preds.data(), lq);
            else if (inBefore[static_cast<size_t>(q)] == 0)
                throw std::logic_error("memory segment: '" + op.name + "' reads '" +
                                       p.ops[static_cast<size_t>(q)].name +
                                       "', which is neither before nor in the segment");
        }
        for (int s : p.succs[g])
            if (localOf[static_cast<size_t>(s)] >= 0)
                l.succs.push_back(localOf[static_cast<size_t>(s)]);
        for (int t : op.inputs) {
            const ir::MemoryProblem::Tensor& in = p.tensors[static_cast<size_t>(t)];
            if (in.sink)
                continue;
            Free f;
            f.bytes = in.bytes;
            f.consumers.assign(static_cast<size_t>(words_), 0);
            bool freeable = true;
            for (int c : in.consumers) {
                const int lc = localOf[static_cast<size_t>(c)];
                if (lc >= 0)
                    set(f.consumers.data(), lc);
                else if (inBefore[static_cast<size_t>(c)] == 0)
                    freeable = false; // read after the segment
            }
            if (freeable)
                l.frees.push_back(std::move(f));
        }
    }
    if (!breakSymmetry)
        return;
    const std::vector<int> twin = twinBefore(p, segment); // positions are local indices
    for (int i = 0; i < n_; ++i)
        if (const int t = twin[static_cast<size_t>(i)]; t >= 0) {
            set(local_[static_cast<size_t>(i)].preds.data(), t);
            local_[static_cast<size_t>(t)].succs.push_back(i);
        }
}

void SegmentModel::initialFrontier(uint64_t* front) const {
    for (int w = 0; w < words_; ++w)
        front[w] = 0;
    for (int i = 0; i < n_; ++i) {
        bool ready = true;
        for (uint64_t word : local_[static_cast<size_t>(i)].preds)
            ready = ready && word == 0;
        if (ready)
            set(front, i);
    }
}

int64_t SegmentModel::muAfter(const uint64_t* sNext, int u, int64_t mu,
                              const uint64_t* sPrev) const {
    const Local& l = local_[static_cast<size_t>(u)];
    if (!l.outInBefore && (l.coProducers.empty() || !anyOf(sPrev, l.coProducers)))
        mu += l.outputBytes;
    for (const Free& f : l.frees) {
        bool all = true;
        for (int w = 0; w < words_ && all; ++w)
            all = (f.consumers[static_cast<size_t>(w)] & ~sNext[w]) == 0;
        if (all)
            mu -= f.bytes;
    }
    return mu;
}

void SegmentModel::nextFrontier(const uint64_t* frontPrev, const uint64_t* sNext, int u,
                                uint64_t* frontNext) const {
    for (int w = 0; w < words_; ++w)
        frontNext[w] = frontPrev[w];
    frontNext[u >> 6] &= ~(uint64_t{1} << (u & 63));
    for (int v : local_[static_cast<size_t>(u)].succs) {
        const std::vector<uint64_t>& preds = local_[static_cast<size_t>(v)].preds;
        bool ready = true;
        for (int w = 0; w < words_ && ready; ++w)
            ready = (preds[static_cast<size_t>(w)] & ~sNext[w]) == 0;
        if (ready)
            set(frontNext, v);
    }
}

} // namespace detail

} // namespace ios::schedulers::serenity
