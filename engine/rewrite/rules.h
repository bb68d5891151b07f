// SPDX-License-Identifier: Apache-2.0
// The graph substitutions of MetaFlow that this IR can express (docs/metaflow.md "Rules"):
// each a source pattern, a target built from the matched operators, and a weight transform so
// the reference executor runs the rewritten graph with weights derived from the original.
//   R1 fuse conv + relu        R3 merge convs sharing an input (schedule::mergeable)
//   R4 enlarge conv to 3×3     R5 exclusive (in-place) concatenation
//   R6 fold residual x + conv(x)     R7 fuse conv and add
// R2 (batch norm) and R8 (matmul) have no operators here. S1 is Serenity's identity rewrite
// (rewrite/identity_rule.h): applied and proved like the others, but not one of MetaFlow's
// rules (not in kAllRules, no RuleSet switch), so the search never tries it.
#pragma once

#include "ir/graph.h"
#include "ref/reference_executor.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::rewrite {

enum class RuleId : uint8_t { R1, R3, R4, R5, R6, R7, S1 };
inline constexpr std::array<RuleId, 6> kAllRules = {RuleId::R1, RuleId::R3, RuleId::R4,
                                                    RuleId::R5, RuleId::R6, RuleId::R7};

std::string_view ruleName(RuleId rule);                    // "R1"
std::string_view ruleDescription(RuleId rule);             // "fuse conv + relu"
std::optional<RuleId> ruleFromName(std::string_view name); // "R3" or "r3"

// One switch per rule; the defaults are MetaFlow's (R4 off: R3 already enlarges kernels).
struct RuleSet {
    std::array<bool, kAllRules.size()> enabled{true, true, false, true, true, true};

    // A rule outside MetaFlow's table (S1) is never on; setting it throws std::out_of_range.
    bool on(RuleId rule) const {
        const auto i = static_cast<size_t>(rule);
        return i < enabled.size() && enabled[i];
    }
    void set(RuleId rule, bool value) { enabled.at(static_cast<size_t>(rule)) = value; }
    static RuleSet only(std::vector<RuleId> rules);
};

// One occurrence of a rule's source pattern: the matched operators' names in pattern order
// (R1: conv, relu; R3: a, b with a first in file order; R4: conv; R5: the concatenation;
// R6/R7: conv, add; S1: conv, then the concatenation it reads when that is a node, then the
// element-wise chain between them).
struct Match {
    RuleId rule = RuleId::R1;
    int block = 0;
    std::vector<std::string> nodes;
    friend bool operator==(const Match&, const Match&) = default;
};

// What an applied substitution did: the rule, the operators it replaced, the operators it
// created (they take the names of replaced operators whose outputs stay visible) and the
// operators whose inputs it re-ranged.
struct Provenance {
    Match match;
    std::vector<std::string> sources;
    std::vector<std::string> created;
    std::vector<std::string> rewired;
    friend bool operator==(const Provenance&, const Provenance&) = default;
};

// The matches of `rule` in block `block` of a validated graph, in matching order; only
// operators with allowed[i] (i: index in the block's operators()) take part (null: all).
std::vector<Match> findMatches(const ir::Graph& graph, int block, RuleId rule,
                               const std::vector<bool>* allowed = nullptr);
// The matches findMatches would return, as indices into the block's operators() in pattern
// order, without building them; until `visit` returns false.
void visitMatches(const ir::Graph& graph, int block, RuleId rule, const std::vector<bool>* allowed,
                  const std::function<bool(const std::vector<int>&)>& visit);
// How many matches findMatches would return, counted without building them; the count stops
// at `limit` (then `limit` is returned).
uint64_t countMatches(const ir::Graph& graph, int block, RuleId rule,
                      const std::vector<bool>* allowed, uint64_t limit);
// Operators one match of `rule` takes (R4, R5: 1; the others 2; S1: 1 or more, 2 returned).
int matchSize(RuleId rule);
// All matches of the enabled rules, rules in table order, then blocks, then matching order.
std::vector<Match> findMatches(const ir::Graph& graph, const RuleSet& rules);

// The terms (indices into op.externalInputs()) rule R5 flags in operator `op` of block `block`:
// those not flagged yet whose producer, an operator of the same block, may write them in place
// (ir::inPlaceObstacle). R5 matches an operator when this is not empty and flags all of them
// at once: flags are independent of each other, so one step per concatenation reaches every
// graph that flagging term by term would, without 2^k intermediate graphs in the search.
std::vector<size_t> inPlaceTerms(const ir::Graph& graph, int block, const ir::Node& op);

struct Rewritten {
    ir::Graph graph;
    Provenance provenance;
};

// Applies `match` to a copy of `graph`: replaces the matched operators by the target, rewires
// consumers, re-sorts the block topologically (ties by original position), re-infers shapes,
// validates and resets the block's schedule. Throws ios::UserError when the match does not
// hold in `graph` (a stale match) or the result does not validate.
Rewritten applyMatch(const ir::Graph& graph, const Match& match);

// Conv weights by node name, as the reference executor takes them.
using WeightMap = std::map<std::string, ref::ConvWeights>;

// The weights the executor would give every conv of the graph's blocks (not those nested in
// sequentials, which no rule touches and which keep their name-derived weights).
WeightMap initialWeights(const ir::Graph& graph, uint64_t seed);
// Rewrites `weights` (those of `before`) into those of applyMatch(before, match).graph.
void transformWeights(const ir::Graph& before, const Match& match, WeightMap& weights);

} // namespace ios::rewrite
