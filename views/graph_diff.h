// SPDX-License-Identifier: Apache-2.0
// What a chain of graph substitutions did, in the operators of the graph before (G0) and the
// graph after (G*): which of G0's operators were replaced, which of G*'s are new, which were
// re-wired (inputs re-ranged), and for one step the G0 operators it rewrote and the G*
// operators that came of it. A step's sources may be an earlier step's creations and its
// creations a later step's sources; they are followed back to G0 and forward to G* (a created
// operator may take the name of one it replaced, so a name is resolved by step order).
#pragma once

#include "loaded_model.h"
#include "rewrite/rules.h"

#include <vector>

namespace ios::views {

struct GraphDiff {
    std::vector<int> replaced;      // flat indices in G0: rewritten away
    std::vector<int> rewiredBefore; // in G0: consumers whose inputs were re-ranged
    std::vector<int> created;       // in G*: operators no G0 operator is
    std::vector<int> rewiredAfter;  // in G*: re-wired, not created
};

// The flat index of every operator named in `names` that `model` has, sorted, unique.
std::vector<int> flatIndicesOf(const LoadedModel& model, const std::vector<std::string>& names);

GraphDiff graphDiff(const LoadedModel& before, const LoadedModel& after,
                    const std::vector<rewrite::Provenance>& steps);

// Step `step`'s sources followed back to G0 and its creations forward to G*, as flat indices
// of `before` and `after`.
struct StepOperators {
    std::vector<int> before;
    std::vector<int> after;
};
StepOperators stepOperators(const LoadedModel& before, const LoadedModel& after,
                            const std::vector<rewrite::Provenance>& steps, size_t step);

} // namespace ios::views
