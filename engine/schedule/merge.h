// Operator merge (ALGORITHMS.md §2 "Merge stage", FORMATS.md): which convolutions can run as
// one, and the merged convolution's attributes.
#pragma once

#include "ir/graph.h"

#include <optional>
#include <string>
#include <vector>

namespace ios::schedule {

// True for one node of any kind; for two or more: every member is a conv with groups = 1,
// one input term holding one value, all members read the same value (producer and channel
// range, hence the same input H×W), have the same output H×W, stride and activation.
bool mergeable(const std::vector<const ir::Node*>& members);

// Why `members` cannot merge (empty optional when they can); names the offending node.
std::optional<std::string> mergeProblem(const std::vector<const ir::Node*>& members);

// The merged conv (FORMATS.md): named like the first member, out_channels summed, kernel and
// padding the largest of the members, output shape C = sum, H×W shared. Members must be
// mergeable and at least two.
ir::Node mergedConv(const std::vector<const ir::Node*>& members);

} // namespace ios::schedule
