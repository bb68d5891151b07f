// SPDX-License-Identifier: Apache-2.0
// Serenity's identity graph rewriting (Serenity, MLSys 2020, §3.3, Eq. 3–8, Fig. 9;
// docs/memory.md "Identity graph rewriting") for the memory scheduler: the graph side is rule S1
// of the rewrite engine (rewrite/identity_rule.h: matching, application, weights, provenance,
// the reference executor's proof and the graph hash); this adds the matches as the memory
// problem needs them and the rewritten memory problem. Channel-wise partial convs form an
// accumulation group (the first one run allocates y, each later one needs a y-sized temporary);
// kernel-wise ones a slice group (the first allocates y, the others write their slices).
// A match yields two things that must agree: the rewritten graph (which the CPU reference
// executor runs to prove the identity) and the rewritten memory problem (which the DP orders).
#pragma once

#include "ir/block_dag.h"
#include "ir/graph.h"
#include "ir/memory.h"
#include "ref/reference_executor.h"
#include "rewrite/identity_rule.h"
#include "rewrite/rules.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::schedulers::serenity {

using RewriteKind = rewrite::PartialConvForm;
using rewrite::toString; // "channel-wise", "kernel-wise"

// One occurrence of rule S1: conv y over k ≥ 2 terms of one value each — its own input terms,
// or those of a node (the concatenation) read only by y, directly or through a chain of
// element-wise nodes (identity_rule.h), whose relu/activation nodes are copied per term.
struct RewriteMatch {
    RewriteKind kind = RewriteKind::ChannelWise;
    int block = -1;                   // block index
    ir::Node conv;                    // y as in the original graph (its name stays y's)
    std::string concat;               // the concatenating node the rewrite removes; empty: none
    std::vector<std::string> through; // the element-wise chain it removes, concat to y
    std::vector<ir::ValueRef> terms;  // x_1, …, x_k
    std::vector<std::string> members; // the partial convs' names, one per term
    std::vector<std::string> copies;  // the chain's per-term copies (copyNames' order)

    int64_t inChannels() const;       // Σ channels of the terms
    rewrite::Match ruleMatch() const; // the rewrite engine's match (rule S1)
};

// Every match of a validated graph (rewrite::findMatches with rule S1), block by block, convs
// in file order. Member names are "<y>.part<i>" (i from 1), copies "<f>.part<i>", with '_'
// appended until no node of the graph bears the name.
std::vector<RewriteMatch> findRewrites(const ir::Graph& graph);

struct GraphRewrite {
    ir::Graph graph;                             // validated, shapes inferred
    std::vector<RewriteMatch> applied;           // the matches applied, in findRewrites' order
    std::vector<rewrite::Provenance> provenance; // rewrite::applyMatch's, one per applied match
};

// Applies `matches` (any subset of findRewrites(graph)) one by one with rewrite::applyMatch
// (rule S1, identity_rule.h): each original node's output keeps its name and value, a
// rewritten block drops its stored stages and parts. Throws std::logic_error for a match not
// of this graph.
GraphRewrite rewriteGraph(const ir::Graph& graph, const std::vector<RewriteMatch>& matches);

// The members' weights from y's (rewrite::partialConvWeights): channel-wise, member i gets
// W[:, c_i] (input channels of term i) and member 1 the bias (the others zero); kernel-wise,
// member i gets the filters and biases of its channels. Throws std::invalid_argument for
// weights of the wrong size.
std::vector<ref::ConvWeights> memberWeights(const RewriteMatch& match,
                                            const ref::ConvWeights& convWeights);

// Gives `executor` the members' weights derived from the weights it would run y with (explicit
// or random, ReferenceExecutor::weightsOf), so the rewritten graph computes the original values.
void setMemberWeights(const std::vector<RewriteMatch>& applied, ref::ReferenceExecutor& executor);

// The memory problem of block `block` of a rewritten graph (`dag` built from it): that of
// blockMemoryProblem with every group folded — the combining node's op (and its materialized
// input) removed, the members writing y's tensor (channel-wise members with accumulateBytes =
// y's bytes, kernel-wise with none), y's readers depending on every member. The combining node
// maps to no op (opOfBlockOp −1). With weights counted, the members' extra zero biases are not.
ir::MemoryProblem rewrittenBlockProblem(const GraphRewrite& rewrite, const ir::BlockDag& dag,
                                        int block, const ir::MemoryOptions& options);

// Every block's rewritten problem, in block order (`dags` of rewrite.graph).
std::vector<ir::MemoryProblem> rewrittenMemoryProblems(const GraphRewrite& rewrite,
                                                       const std::vector<ir::BlockDag>& dags,
                                                       const ir::MemoryOptions& options);

} // namespace ios::schedulers::serenity
