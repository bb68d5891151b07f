// SPDX-License-Identifier: Apache-2.0
// Rule S1, Serenity's identity graph rewriting (Serenity, MLSys 2020, §3.3, Eq. 3–8, Fig. 9;
// docs/memory.md "Identity graph rewriting"): a convolution y over a concatenation
// [x_1, …, x_k] becomes k partial convolutions, one per x_i, that write the same output y, so no
// x_i has to stay live until the last one is computed.
// - Channel-wise (Eq. 3–6, groups = 1): y = Σ_i W[:, c_i] ∗ x_i; bias and activation belong to
//   the combining node (the partial convs have identity activations, member 1 the bias).
// - Kernel-wise (Eq. 7–8, depthwise: groups = in = out channels): y = [w_1 ∗ x_1, …, w_k ∗ x_k];
//   the partial convs keep y's activation.
// Between the concatenation and y may sit a chain of element-wise operators (relu nodes,
// activation nodes of any act — a per-channel affine map such as a standalone batch norm is an
// activation node of act identity here —, identity nodes), each reading the whole of the one
// below and read only by the one above: every such f acts per element, so
// f([x_1, …, x_k]) = [f(x_1), …, f(x_k)] exactly, and y = Σ_i W[:, c_i] ∗ f(x_i). The
// concatenating node itself may be such an operator (an activation over k terms). y's own
// activation comes after the sum and is never pushed into the partial convs (relu(a + b) ≠
// relu(a) + relu(b)); kernel-wise it is per channel, so there it is exact.
// A match (rewrite::Match with rule S1) names y, then, when y reads one, the node that
// concatenates (the concat's only reader is y or the chain), then the chain from the concat up
// to y. rewrite::applyMatch replaces them by per-term copies "<f>.part<i>" of the chain's
// relu and activation nodes, the partial convs "<y>.part<i>" and a node named y that combines
// them (an activation or identity node summing the partial outputs, channel-wise; an identity
// concatenating them, kernel-wise), so every reader of y keeps reading y; the block's stages and
// parts are dropped (they name the removed nodes). rewrite::transformWeights gives the partial
// convs their weights from y's. Not one of MetaFlow's rules: the search never tries it (kAllRules,
// RuleSet).
#pragma once

#include "ir/graph.h"
#include "ref/reference_executor.h"
#include "rewrite/rules.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ios::rewrite {

enum class PartialConvForm : uint8_t { ChannelWise, KernelWise };
std::string_view toString(PartialConvForm form); // "channel-wise", "kernel-wise"

// An S1 occurrence resolved on a graph: y, the node whose k terms are concatenated (null: y's
// own terms), the element-wise chain from the one reading the concat up to the one y reads
// (empty when y reads the concat) and the terms x_1, …, x_k (k ≥ 2, one value each).
struct PartialConvSplit {
    PartialConvForm form = PartialConvForm::ChannelWise;
    const ir::Node* conv = nullptr;
    const ir::Node* concat = nullptr;
    std::vector<const ir::Node*> through;
    std::vector<ir::ValueRef> terms;

    // The nodes copied per term: those of concat and through (in that order) that compute
    // something (relu and activation nodes; identity nodes only pass values on).
    std::vector<const ir::Node*> copied() const;
};

// Whether `node` acts on each element alone, so it splits over a channel concatenation of its
// input: relu, activation (any act) and identity nodes.
bool isElementWise(const ir::Node& node);

// S1's pattern on the operators of one block of a validated graph. Non-recursive in effect:
// a partial conv reads one value, so it never matches.
class PartialConvMatcher {
public:
    PartialConvMatcher(const ir::Graph& graph, int block);
    // The occurrence at operator `op` of the block, or nothing.
    std::optional<PartialConvSplit> at(const ir::Node& op) const;

private:
    std::unordered_map<std::string, const ir::Node*> inner_; // the block's inner nodes
    std::unordered_map<std::string, int> reads_;             // values naming each node
};

// Every node name of a graph (sequentials' inner nodes included).
std::unordered_set<std::string> nodeNames(const ir::Graph& graph);

// The partial convs' names of `split`: "<y>.part<i>" (i from 1), with '_' appended until
// `taken` lacks the name; each is added to `taken`.
std::vector<std::string> partialConvNames(const PartialConvSplit& split,
                                          std::unordered_set<std::string>& taken);
// The per-term copies' names of `split`: for each term i (from 1), for each node f of
// split.copied(), "<f>.part<i>" made unique the same way; term-major order.
std::vector<std::string> copyNames(const PartialConvSplit& split,
                                   std::unordered_set<std::string>& taken);

// The nodes of S1's match for `split`: y, then the concat when it is a node, then the chain.
std::vector<std::string> partialConvMatchNodes(const PartialConvSplit& split);

// S1's matches in block `block` (findMatches' contract): nodes {y} or {y, concat, through…},
// convs in file order.
std::vector<Match> findPartialConvMatches(const ir::Graph& graph, int block,
                                          const std::vector<bool>* allowed);

// applyMatch's S1 step on `block` (block `match.block` of a copy of `before`): checks the match
// holds in `before` (ios::UserError naming y otherwise), replaces y by the per-term copies,
// the partial convs and the combining node, removes the concat and the chain, drops the block's
// stages and parts. Provenance: sources the match's nodes, created the partial convs (names
// from partialConvNames, first), then the copies (copyNames), then y; nothing rewired.
void applyPartialConvs(const ir::Graph& before, ir::Block& block, const Match& match,
                       Provenance& provenance);

// The partial convs' weights from y's `w`: channel-wise, member i gets W[:, c_i] (input
// channels of term i) and member 1 the bias (the others zero); kernel-wise, member i gets the
// filters and biases of its channels. Throws std::invalid_argument for weights of the wrong
// size.
std::vector<ref::ConvWeights> partialConvWeights(const ir::Node& conv, PartialConvForm form,
                                                 const std::vector<ir::ValueRef>& terms,
                                                 const ref::ConvWeights& w);

} // namespace ios::rewrite
