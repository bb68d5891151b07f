// SPDX-License-Identifier: Apache-2.0
// The search's cost (docs/metaflow.md "Cost model"; MetaFlow §4.1): the sum over operators of
// each operator's one-operator stage latency under the active cost model — the latency of the
// sequential schedule, MetaFlow's sum of isolated per-op times. Latencies are memoised per
// operator signature (kind, attributes, shapes, input ranges: cost/stage_memo.h), as
// MetaFlow's per-parameter cache, so a graph met during a search prices only operators whose
// signature is new, and a rewritten graph re-prices only the operators the rewrite touched.
#pragma once

#include "cost/cost_model.h"
#include "ir/graph.h"
#include "ir/metrics.h"
#include "rewrite/rules.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ios::rewrite {

// Builds the active cost model for a graph (cost/cost_model_factory.h makeCostModel with the
// user's spec); the graph outlives the model.
using CostModelFactory = std::function<std::unique_ptr<cost::CostModel>(const ir::Graph&)>;

// Per block, per operator (block.operators() order): its one-operator stage latency.
struct OperatorCosts {
    std::vector<std::vector<double>> ms;

    // Σ in block and file order (a fixed order: equal graphs get bit-equal totals).
    double total() const;
};

class RewriteCost {
public:
    explicit RewriteCost(CostModelFactory factory) : factory_(std::move(factory)) {}

    // Every operator of a validated graph.
    OperatorCosts price(const ir::Graph& graph);
    // `after` = applyMatch(before, …) with provenance `p`: the operators `p` created or
    // re-wired are priced, the others keep their latencies from `beforeCosts`. Equal to
    // price(after), bit for bit.
    OperatorCosts reprice(const ir::Graph& before, const OperatorCosts& beforeCosts,
                          const ir::Graph& after, const Provenance& p);

    uint64_t costModelCalls() const { return calls_; } // signatures priced by the model
    uint64_t lookups() const { return lookups_; }      // operators priced (memo or model)

private:
    // `model` and `index` (graph's) are built on first use and kept by the caller.
    double operatorMs(const ir::Graph& graph, size_t block, size_t op,
                      std::unique_ptr<cost::CostModel>& model, std::optional<ir::NodeIndex>& index);

    CostModelFactory factory_;
    std::unordered_map<std::string, double> memo_;
    uint64_t calls_ = 0;
    uint64_t lookups_ = 0;
};

// MetaFlow's kernel count (docs/metaflow.md, [MF] Fig. 11), per operator: 1 for a conv, pool,
// relu or activation, 1 for a concatenation (≥ 2 terms), 1 per term adding ≥ 2 values; a
// sequential counts its inner nodes. Bundled SqueezeNet: 50.
int64_t mfKernels(const ir::Graph& graph);

} // namespace ios::rewrite
