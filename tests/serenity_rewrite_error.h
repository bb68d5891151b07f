// SPDX-License-Identifier: Apache-2.0
// The reference check of Serenity's identity rewrite (docs/memory.md "Identity graph
// rewriting"), shared by the rewrite suites: both graphs run in double precision, the partial
// convs weighted from the original convs.
#pragma once

#include "ref/reference_executor.h"
#include "ref_tensor_error.h"
#include "schedulers/serenity/rewrite.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace ios::testing {

// Runs the original and the rewritten graph (members weighted from the original convs) and
// returns the largest relative error over every original node's output; the nodes a match
// removed (its concatenation and element-wise chain: the only outputs the rewritten graph
// lacks) are skipped, any other missing output fails.
inline double rewriteError(const ir::Graph& original, const schedulers::serenity::GraphRewrite& rw,
                           uint64_t seed) {
    ref::ReferenceExecutor before(seed), after(seed);
    before.run(original);
    schedulers::serenity::setMemberWeights(rw.applied, after);
    after.run(rw.graph);
    auto removed = [&](const std::string& name) {
        return std::any_of(rw.applied.begin(), rw.applied.end(), [&](const auto& m) {
            return m.concat == name ||
                   std::find(m.through.begin(), m.through.end(), name) != m.through.end();
        });
    };
    double worst = 0;
    for (const auto& [name, tensor] : before.outputs()) {
        if (!after.hasOutput(name)) {
            if (!removed(name))
                return std::numeric_limits<double>::infinity();
            continue;
        }
        worst = std::max(worst, tensorRelativeError(after.output(name), tensor));
    }
    return worst;
}

} // namespace ios::testing
