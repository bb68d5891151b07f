// SPDX-License-Identifier: Apache-2.0
// Memory planning with identity graph rewriting (Serenity, MLSys 2020, Fig. 4 and Eq. 2;
// docs/memory.md "Identity graph rewriting"): the graph is rewritten before partitioning and
// the DP — every match (`all`), or per partition only where the rewritten partition's optimum
// is lower than the original's (`best`).
//
// A partition (for `best`) is a run of consecutive segments of the unrewritten problem — the
// cut segments under Partition::Cuts, the block under Blocks, the whole model under None —
// joined wherever a match's removed operators (its concat node, its materialized input, the
// conv itself) lie in different segments; a match belongs to the partition holding its conv.
// Every order of the rewritten problem that runs the partitions one after another is valid,
// and the tensors live between two partitions are the same with or without any rewrite, so
// each partition is decided on its own: its matches are applied together iff the optimum of
// the rewritten partition (same τ search, same order kind) is strictly lower.
#pragma once

#include "ir/graph.h"
#include "ir/memory.h"
#include "schedulers/serenity/memory_plan.h"
#include "schedulers/serenity/rewrite.h"

#include <optional>
#include <string_view>
#include <vector>

namespace ios::schedulers::serenity {

enum class RewriteMode : uint8_t { None, All, Best };
std::string_view toString(RewriteMode mode);
std::optional<RewriteMode> rewriteModeFromString(std::string_view s);

struct RewrittenPlan {
    GraphRewrite rewrite;                    // the graph with the kept matches applied
    std::vector<ir::MemoryProblem> problems; // of rewrite.graph: per block, or the joined model
    MemoryPlan plan;                         // of `problems`; statistics of every search run
    std::vector<ir::MemoryProblem> original; // the unrewritten problems, same indexing
    std::vector<int64_t> originalPeaks;      // per problem: the peak planned without rewriting
    std::vector<int> matches;                // per problem: matches found
    std::vector<int> rewrites;               // per problem: matches applied
    int64_t originalPeak = 0;                // the largest of originalPeaks
};

// Plans `graph` (validated) under `mode`: None plans the graph as it is; All rewrites every
// match and plans the result (and the original, for originalPeaks); Best decides per partition
// as above. Problems without matches are planned once. Throws what planBlock throws.
RewrittenPlan planRewrittenMemory(const ir::Graph& graph, const ir::MemoryOptions& memory,
                                  const PlanOptions& options, RewriteMode mode,
                                  SearchControl* control = nullptr);

} // namespace ios::schedulers::serenity
