// SPDX-License-Identifier: Apache-2.0
// Operator merge (docs/algorithms.md §2.3 "Merge stages", docs/formats.md): which
// convolutions can run as one, and the merged convolution's attributes.
#pragma once

#include "ir/graph.h"

#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace ios::schedule {

// True for one node of any kind; for two or more: every member is a conv with groups = 1,
// one input term holding one value, all members read the same value (producer and channel
// range, hence the same input H×W), have the same output H×W, stride and activation, and the
// same kernel − 2·padding along H and along W (so that each kernel, centred in the merged one,
// reads exactly its own window).
bool mergeable(const std::vector<const ir::Node*>& members);

// What two convolutions must share to merge (docs/algorithms.md §2.3), as one comparable value:
// input producer, channel begin and end, output H and W, stride H and W, activation, and
// kernel − 2·padding along H and W. Convolutions merge together exactly when each has a key
// and the keys are equal; nullopt for a node that merges with nothing but itself. The DP groups
// its merge candidates by this key, so it and mergeable() cannot disagree.
using MergeClassKey = std::tuple<std::string, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                                 int, int64_t, int64_t>;
std::optional<MergeClassKey> mergeClassKey(const ir::Node& node);

// Why `members` cannot merge (empty optional when they can); names the offending node.
std::optional<std::string> mergeProblem(const std::vector<const ir::Node*>& members);

// The merged conv (docs/formats.md): named like the first member, hint name the members' hint
// names joined by spaces, out_channels summed, kernel and padding the largest of the members,
// output shape C = sum, H×W shared. Members must be mergeable and at least two.
ir::Node mergedConv(const std::vector<const ir::Node*>& members);

} // namespace ios::schedule
