// SPDX-License-Identifier: Apache-2.0
#include "schedule/merge.h"

#include "util/error.h"

#include <algorithm>
#include <iterator>

namespace ios::schedule {

namespace {

// The conditions a conv must meet on its own to merge with others (docs/algorithms.md §2.3).
std::optional<std::string> mergeableAlone(const ir::Node& n) {
    if (n.kind != ir::NodeKind::Conv)
        return "only convolutions can merge, not a " + std::string(ir::toString(n.kind));
    if (n.conv.groups != 1)
        return "a grouped convolution cannot merge";
    if (n.inputs.size() != 1 || n.inputs.front().size() != 1)
        return "a convolution with more than one input value cannot merge";
    return std::nullopt;
}

// Index of the first field where two keys differ (they must differ).
template <size_t I = 0> size_t firstDifference(const MergeClassKey& a, const MergeClassKey& b) {
    if constexpr (I + 1 < std::tuple_size_v<MergeClassKey>)
        if (std::get<I>(a) == std::get<I>(b))
            return firstDifference<I + 1>(a, b);
    return I;
}

} // namespace

std::optional<MergeClassKey> mergeClassKey(const ir::Node& n) {
    if (mergeableAlone(n))
        return std::nullopt;
    const ir::ValueRef& in = n.inputs.front().front();
    // The merged kernel holds each member's kernel zero-padded and centred (IOS paper §3), at
    // offset (K − k) / 2; the member's window starts at offset P − p. Both agree, and the
    // merged output has the members' size, exactly when kernel − 2·padding agrees.
    return MergeClassKey{in.node,
                         in.begin,
                         in.end,
                         n.outputShape.h,
                         n.outputShape.w,
                         n.conv.stride.h,
                         n.conv.stride.w,
                         static_cast<int>(n.conv.act),
                         n.conv.kernel.h - 2 * n.conv.padding.h,
                         n.conv.kernel.w - 2 * n.conv.padding.w};
}

std::optional<std::string> mergeProblem(const std::vector<const ir::Node*>& members) {
    if (members.empty())
        return "an empty merge";
    if (members.size() == 1)
        return std::nullopt;
    const ir::Node& first = *members.front();
    // One message per field of MergeClassKey, in its order.
    static const char* const kDiffers[] = {"reads another input than",
                                           "reads another input than",
                                           "reads another input than",
                                           "has another output size than",
                                           "has another output size than",
                                           "has another stride than",
                                           "has another stride than",
                                           "has another activation than",
                                           "has another kernel - 2*padding along H than",
                                           "has another kernel - 2*padding along W than"};
    static_assert(std::size(kDiffers) == std::tuple_size_v<MergeClassKey>);
    for (const ir::Node* m : members)
        if (auto why = mergeableAlone(*m))
            return "'" + m->name + "': " + *why;
    const MergeClassKey firstKey = *mergeClassKey(first);
    for (const ir::Node* m : members) {
        const MergeClassKey key = *mergeClassKey(*m);
        if (key == firstKey)
            continue;
        const size_t field = firstDifference(key, firstKey);
        std::string why = "'" + m->name + "' " + kDiffers[field] + " '" + first.name + "'";
        if (field >= 8)
            why += " (its centred kernel would read other pixels)";
        return why;
    }
    return std::nullopt;
}

bool mergeable(const std::vector<const ir::Node*>& members) {
    return !mergeProblem(members);
}

ir::Node mergedConv(const std::vector<const ir::Node*>& members) {
    if (members.size() < 2)
        throw std::logic_error("mergedConv needs at least two members");
    if (auto why = mergeProblem(members))
        throw UserError("cannot merge: " + *why, {}, members.front()->name);
    ir::Node merged = *members.front();
    merged.conv.outChannels = 0;
    for (const ir::Node* m : members) {
        if (m != members.front()) // every member's hint name, as the IOS authors' optimizer
            merged.hintName += " " + m->hintName;
        merged.conv.outChannels += m->conv.outChannels;
        merged.conv.kernel.h = std::max(merged.conv.kernel.h, m->conv.kernel.h);
        merged.conv.kernel.w = std::max(merged.conv.kernel.w, m->conv.kernel.w);
        merged.conv.padding.h = std::max(merged.conv.padding.h, m->conv.padding.h);
        merged.conv.padding.w = std::max(merged.conv.padding.w, m->conv.padding.w);
    }
    merged.outputShape.c = merged.conv.outChannels;
    return merged;
}

} // namespace ios::schedule
