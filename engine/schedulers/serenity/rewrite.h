// Serenity's identity graph rewriting (Serenity, MLSys 2020, §3.3, Eq. 3–8, Fig. 9;
// docs/memory.md "Identity graph rewriting"): a convolution over a concatenation [x_1, …, x_k]
// becomes k partial convolutions, one per x_i, that write the same output y, so no x_i has to
// stay live until the last one is computed.
// - Channel-wise (Eq. 3–6, groups = 1): y = Σ_i W[:, c_i] ∗ x_i. The partial convs form an
//   accumulation group: the first one run allocates y, each later one needs a y-sized temporary;
//   bias and activation belong to the last one.
// - Kernel-wise (Eq. 7–8, depthwise: groups = in = out channels): y = [w_1 ∗ x_1, …, w_k ∗ x_k].
//   The partial convs form a slice group: the first allocates y, the others write their slices.
// A match yields two things that must agree: the rewritten graph (which the CPU reference
// executor runs to prove the identity) and the rewritten memory problem (which the DP orders).
#pragma once

#include "ir/block_dag.h"
#include "ir/graph.h"
#include "ir/memory.h"
#include "ref/reference_executor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::schedulers::serenity {

enum class RewriteKind : uint8_t { ChannelWise, KernelWise };
std::string_view toString(RewriteKind kind); // "channel-wise", "kernel-wise"

// One occurrence of a pattern: conv y over k ≥ 2 terms of one value each — its own input
// terms, or those of an identity node (the concatenation) whose only reader is y.
struct RewriteMatch {
    RewriteKind kind = RewriteKind::ChannelWise;
    int block = -1;                   // block index
    ir::Node conv;                    // y as in the original graph (its name stays y's)
    std::string concat;               // the identity node the rewrite removes; empty: none
    std::vector<ir::ValueRef> terms;  // x_1, …, x_k
    std::vector<std::string> members; // the partial convs' names, one per term

    int64_t inChannels() const; // Σ channels of the terms
};

// Every match of a validated graph, block by block, convs in file order. Non-recursive: the
// partial convs of a rewrite never match again. Member names are "<y>.part<i>" (i from 1),
// with '_' appended until no node of the graph bears the name.
std::vector<RewriteMatch> findRewrites(const ir::Graph& graph);

struct GraphRewrite {
    ir::Graph graph;                   // validated, shapes inferred
    std::vector<RewriteMatch> applied; // the matches applied, in findRewrites' order
};

// Applies `matches` (any subset of findRewrites(graph)). Per match: the concat node (if any) is
// removed; y's place holds the partial convs followed by a node named y that combines them —
// for channel-wise, one term summing the partial outputs with y's activation applied (an
// activation node, or an identity node for an identity activation), the partial convs having
// identity activations; for kernel-wise, an identity node concatenating the slices, the partial
// convs keeping y's activation. Every reader of y reads the combining node, so each original
// node's output keeps its name and value. A rewritten block drops its stored stages and parts
// (they name the removed nodes). Throws std::logic_error for a match not of this graph.
GraphRewrite rewriteGraph(const ir::Graph& graph, const std::vector<RewriteMatch>& matches);

// The members' weights from y's: channel-wise, member i gets W[:, c_i] (input channels of term
// i) and member 1 the bias (the others zero); kernel-wise, member i gets the filters and biases
// of its channels. Throws std::invalid_argument for weights of the wrong size.
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
