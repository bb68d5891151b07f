// SPDX-License-Identifier: Apache-2.0
// The model a graph-rewriting scheduler's outcome refers to (scheduler.h Outcome::rewritten):
// the rewritten graph G*, its DAGs, the cost model it was searched with and how it was found.
// Shared, immutable, with addresses that never move (the DAGs and the cost model point into
// the graph), so outcomes holding it copy cheaply to other threads.
#pragma once

#include "cost/cost_model.h"
#include "ir/graph.h"
#include "ir/prepared_model.h"
#include "rewrite/backtracking.h"

#include <memory>

namespace ios::schedulers {

struct RewrittenModel {
    // `search.graph` is G*; `cost` the model it is priced with (cost::forGraph(original, G*)).
    RewrittenModel(rewrite::SearchResult searchResult, int maxPartSize,
                   const cost::CostModel& original);
    RewrittenModel(const RewrittenModel&) = delete;
    RewrittenModel& operator=(const RewrittenModel&) = delete;

    const ir::Graph& graph() const { return search.graph; }

    rewrite::SearchResult search; // G*, its substitution history, the search's figures
    ir::PreparedModel prepared;   // of search.graph
    std::unique_ptr<cost::CostModel> cost;
};

// cost::forGraph(original, graph), or a UserError naming the cost model and which ones can price a
// rewritten graph.
std::unique_ptr<cost::CostModel> costForRewrittenGraph(const cost::CostModel& original,
                                                       const ir::Graph& graph);

} // namespace ios::schedulers
