#include "schedule/merge.h"

#include "util/error.h"

#include <algorithm>

namespace ios::schedule {

namespace {

// The conditions a conv must meet on its own to merge with others (ALGORITHMS.md §2).
std::optional<std::string> mergeableAlone(const ir::Node& n) {
    if (n.kind != ir::NodeKind::Conv)
        return "only convolutions can merge, not a " + std::string(ir::toString(n.kind));
    if (n.conv.groups != 1)
        return "a grouped convolution cannot merge";
    if (n.inputs.size() != 1 || n.inputs.front().size() != 1)
        return "a convolution with more than one input value cannot merge";
    return std::nullopt;
}

} // namespace

std::optional<std::string> mergeProblem(const std::vector<const ir::Node*>& members) {
    if (members.empty())
        return "an empty merge";
    if (members.size() == 1)
        return std::nullopt;
    const ir::Node& first = *members.front();
    for (const ir::Node* m : members) {
        if (auto why = mergeableAlone(*m))
            return "'" + m->name + "': " + *why;
        if (m->inputs.front().front() != first.inputs.front().front())
            return "'" + m->name + "' reads another input than '" + first.name + "'";
        if (m->outputShape.h != first.outputShape.h || m->outputShape.w != first.outputShape.w)
            return "'" + m->name + "' has another output size than '" + first.name + "'";
        if (m->conv.stride != first.conv.stride)
            return "'" + m->name + "' has another stride than '" + first.name + "'";
        if (m->conv.act != first.conv.act)
            return "'" + m->name + "' has another activation than '" + first.name + "'";
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
