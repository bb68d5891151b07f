// SPDX-License-Identifier: Apache-2.0
#include "rewrite/rewrite_cost.h"

#include "cost/stage_memo.h"
#include "ir/block_dag.h"
#include "ir/metrics.h"
#include "rewrite/pattern.h"

#include <algorithm>

namespace ios::rewrite {

double OperatorCosts::total() const {
    double sum = 0;
    for (const std::vector<double>& block : ms)
        for (double v : block)
            sum += v;
    return sum;
}

double RewriteCost::operatorMs(const ir::Graph& graph, size_t block, size_t op,
                               std::unique_ptr<cost::CostModel>& model,
                               std::optional<ir::NodeIndex>& index) {
    ++lookups_;
    const ir::Block& b = graph.blocks[block];
    const ir::Node& node = *b.operators()[op];
    if (!index) // once per pricing of a graph, not per operator
        index.emplace(graph);
    std::string key;
    cost::appendOperatorSignature(
        node,
        [&index](const std::string& name) -> const ir::TensorShape* {
            const ir::Node* n = index->find(name);
            return n != nullptr ? &n->outputShape : nullptr;
        },
        key);
    auto it = memo_.find(key);
    if (it != memo_.end())
        return it->second;
    if (!model)
        model = factory_(graph);
    ++calls_;
    const ir::BlockDag dag = ir::buildBlockDag(b);
    schedule::Stage stage;
    stage.groups = {{static_cast<int>(op)}};
    const double ms = cost::checkedStageLatencyMs(*model, dag, stage);
    memo_.emplace(std::move(key), ms);
    return ms;
}

OperatorCosts RewriteCost::price(const ir::Graph& graph) {
    std::unique_ptr<cost::CostModel> model;
    std::optional<ir::NodeIndex> index;
    OperatorCosts c;
    for (size_t b = 0; b < graph.blocks.size(); ++b) {
        const size_t n = graph.blocks[b].operators().size();
        c.ms.emplace_back();
        for (size_t i = 0; i < n; ++i)
            c.ms.back().push_back(operatorMs(graph, b, i, model, index));
    }
    return c;
}

OperatorCosts RewriteCost::reprice(const ir::Graph& before, const OperatorCosts& beforeCosts,
                                   const ir::Graph& after, const Provenance& p) {
    std::unique_ptr<cost::CostModel> model;
    std::optional<ir::NodeIndex> index;
    OperatorCosts c = beforeCosts;
    const size_t b = static_cast<size_t>(p.match.block);
    const std::vector<const ir::Node*> oldOps = before.blocks[b].operators();
    const std::vector<const ir::Node*> newOps = after.blocks[b].operators();
    // Created and re-wired operators, and readers of a created one (whose input shape, part
    // of their signature, may have grown: R3's merged conv).
    auto touched = [&p](const ir::Node& n) {
        if (std::find(p.created.begin(), p.created.end(), n.name) != p.created.end() ||
            std::find(p.rewired.begin(), p.rewired.end(), n.name) != p.rewired.end())
            return true;
        return std::any_of(p.created.begin(), p.created.end(),
                           [&n](const std::string& name) { return readsFrom(n, name); });
    };
    std::vector<double>& ms = c.ms[b];
    ms.assign(newOps.size(), 0.0);
    for (size_t i = 0; i < newOps.size(); ++i) {
        if (touched(*newOps[i])) {
            ms[i] = operatorMs(after, b, i, model, index);
            continue;
        }
        for (size_t j = 0; j < oldOps.size(); ++j)
            if (oldOps[j]->name == newOps[i]->name) {
                ms[i] = beforeCosts.ms[b][j];
                break;
            }
    }
    return c;
}

namespace {

int64_t kernelsOf(const ir::Node& n) {
    if (n.kind == ir::NodeKind::Sequential) {
        int64_t k = 0;
        for (const ir::Node& inner : n.nodes)
            k += kernelsOf(inner);
        return k;
    }
    int64_t k = 0;
    if (n.kind == ir::NodeKind::Conv || n.kind == ir::NodeKind::Pool ||
        n.kind == ir::NodeKind::Relu || n.kind == ir::NodeKind::Activation)
        k += 1;
    if (n.inputs.size() >= 2)
        k += 1; // in-place terms or not: MetaFlow's concat counts one launch whatever it copies
    for (const ir::Term& t : n.inputs)
        if (t.size() >= 2)
            k += 1;
    return k;
}

} // namespace

int64_t mfKernels(const ir::Graph& graph) {
    int64_t k = 0;
    for (const ir::Block& b : graph.blocks)
        for (const ir::Node* n : b.operators())
            k += kernelsOf(*n);
    return k;
}

} // namespace ios::rewrite
