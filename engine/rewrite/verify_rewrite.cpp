// SPDX-License-Identifier: Apache-2.0
#include "rewrite/verify_rewrite.h"

#include "ref/reference_executor.h"
#include "rewrite/graph_hash.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>

namespace ios::rewrite {

std::vector<ref::Tensor> blockExitOutputs(const ir::Graph& g, const WeightMap& weights,
                                          uint64_t seed) {
    ref::ReferenceExecutor ex(seed);
    for (const auto& [name, w] : weights)
        ex.setWeights(name, w);
    ex.run(g);
    std::vector<ref::Tensor> out;
    for (const ir::Block& b : g.blocks)
        out.push_back(ex.output(b.exitNode.name));
    return out;
}

RewriteCheck checkRewrite(const ir::Graph& g0, const ir::Graph& rewritten,
                          const std::vector<Substitution>& history, uint64_t seed) {
    const WeightMap w0 = initialWeights(g0, seed);
    ir::Graph g = g0;
    WeightMap w = w0;
    for (const Substitution& s : history) {
        transformWeights(g, s.provenance.match, w);
        g = applyMatch(g, s.provenance.match).graph;
    }
    if (graphHash(g) != graphHash(rewritten))
        throw UserError("the substitution log does not turn " + g0.name +
                        " into the rewritten graph");
    const std::vector<ref::Tensor> a = blockExitOutputs(g0, w0, seed);
    const std::vector<ref::Tensor> b = blockExitOutputs(g, w, seed);
    RewriteCheck check;
    for (size_t i = 0; i < a.size(); ++i) {
        if (!(a[i].shape == b[i].shape))
            throw UserError("the rewritten graph's block " + std::to_string(i) +
                            " exit has another shape than the original's");
        double scale = 1;
        double diff = 0;
        for (size_t k = 0; k < a[i].data.size(); ++k) {
            scale = std::max(scale, std::abs(a[i].data[k]));
            diff = std::max(diff, std::abs(a[i].data[k] - b[i].data[k]));
        }
        check.maxAbsError = std::max(check.maxAbsError, diff);
        check.maxRelError = std::max(check.maxRelError, diff / scale);
    }
    return check;
}

} // namespace ios::rewrite
