// SPDX-License-Identifier: Apache-2.0
// Where a merged convolution's weights come from (IOS paper §3 and §4.1, operator merge;
// docs/algorithms.md §2.3): ONE placement, used by the reference executor
// (ref::mergedConvWeights) and by the GPU executor (profiling::Executor), so the reference
// executor's proof covers the weights the GPU runs.
#pragma once

#include "ir/graph.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ios::schedule {

// One member's block of the merged kernel: its output channels start at outOffset, its kernel
// sits at row dy, column dx of the merged kernel (zero elsewhere).
struct MemberPlacement {
    std::string name; // the member conv's
    int64_t outOffset = 0;
    int64_t outChannels = 0;
    ir::Hw kernel;
    int64_t dy = 0, dx = 0;
};

struct MergedConvLayout {
    ir::Node merged;        // schedule::mergedConv(members)
    int64_t inChannels = 0; // of the shared input
    std::vector<MemberPlacement> members;

    size_t weightCount() const {
        return static_cast<size_t>(merged.conv.outChannels * inChannels * merged.conv.kernel.h *
                                   merged.conv.kernel.w);
    }
};

// The layout of schedule::mergedConv(members) reading `inChannels` channels: member i's kernel
// centred at offset (K − k) / 2, which must equal P − p (merged and member padding) so that it
// reads exactly its own window — the one validity check, a ios::UserError naming the member
// (only for sets mergeable() refuses). Throws what mergedConv throws.
MergedConvLayout mergedConvLayout(const std::vector<const ir::Node*>& members, int64_t inChannels);

// The merged weights ([out][in][kh][kw]) and biases: member i's, `parametersOf(i)` giving the
// pair (weights, bias) of members[i], placed by `layout`; out-channel blocks and biases in
// member order. Throws std::invalid_argument naming a member whose weights have the wrong size.
template <class T, class ParametersOf>
std::pair<std::vector<T>, std::vector<T>> placeMergedWeights(const MergedConvLayout& layout,
                                                             ParametersOf&& parametersOf) {
    const int64_t inC = layout.inChannels;
    const int64_t kh = layout.merged.conv.kernel.h, kw = layout.merged.conv.kernel.w;
    std::pair<std::vector<T>, std::vector<T>> out;
    out.first.assign(layout.weightCount(), T{});
    for (size_t i = 0; i < layout.members.size(); ++i) {
        const MemberPlacement& m = layout.members[i];
        const std::pair<std::vector<T>, std::vector<T>> p = parametersOf(i);
        const std::vector<T>& w = p.first;
        const int64_t mh = m.kernel.h, mw = m.kernel.w;
        if (w.size() != static_cast<size_t>(m.outChannels * inC * mh * mw) ||
            p.second.size() != static_cast<size_t>(m.outChannels))
            throw std::invalid_argument("merged convolution: weights of '" + m.name +
                                        "' have the wrong size");
        for (int64_t o = 0; o < m.outChannels; ++o)
            for (int64_t c = 0; c < inC; ++c)
                for (int64_t y = 0; y < mh; ++y)
                    for (int64_t x = 0; x < mw; ++x)
                        out.first[static_cast<size_t>(
                            (((m.outOffset + o) * inC + c) * kh + y + m.dy) * kw + x + m.dx)] =
                            w[static_cast<size_t>(((o * inC + c) * mh + y) * mw + x)];
        out.second.insert(out.second.end(), p.second.begin(), p.second.end());
    }
    return out;
}

} // namespace ios::schedule
