// SPDX-License-Identifier: Apache-2.0
// Application of a match (docs/metaflow.md "Matching and application"). The target takes the
// position of the replaced operator whose name it keeps: that operator follows every other
// matched one and every producer the target reads, so the block stays in dependency order
// (validateAndInferShapes re-sorts it anyway, ties by position).
#include "ir/validate.h"
#include "rewrite/identity_rule.h"
#include "rewrite/rules.h"
#include "schedule/merge.h"
#include "util/error.h"

#include <algorithm>

namespace ios::rewrite {

namespace {

ir::Node* findOperator(ir::Block& block, const std::string& name) {
    if (block.exitNode.name == name)
        return &block.exitNode;
    for (ir::Node& n : block.innerNodes)
        if (n.name == name)
            return &n;
    return nullptr;
}

// The node that replaces `old` under `old`'s name: `base`'s attributes and inputs, shapes
// left for re-inference.
ir::Node targetNamed(const ir::Node& base, const ir::Node& old) {
    ir::Node t = base;
    t.name = old.name;
    t.hintName = old.hintName;
    t.outputShape = {};
    return t;
}

// Every reference to `from` in the block's operators becomes one to `to`, channels shifted by
// `offset`; returns the names of the operators that changed.
std::vector<std::string> rewire(ir::Block& block, const std::string& from, const std::string& to,
                                int64_t offset) {
    std::vector<std::string> changed;
    auto visit = [&](ir::Node& n) {
        std::vector<ir::Term>& terms = n.kind == ir::NodeKind::Sequential && !n.nodes.empty()
                                           ? n.nodes.front().inputs
                                           : n.inputs;
        bool any = false;
        for (ir::Term& t : terms)
            for (ir::ValueRef& v : t)
                if (v.node == from) {
                    v = {to, v.begin + offset, v.end + offset};
                    any = true;
                }
        if (any)
            changed.push_back(n.name);
    };
    for (ir::Node& n : block.innerNodes)
        visit(n);
    visit(block.exitNode);
    return changed;
}

// Readers of `name` in the block copy its channels again: R3 makes them slices of a merged
// output, which no producer can write in place.
void clearInPlace(ir::Block& block, const std::string& name) {
    auto visit = [&](ir::Node& n) {
        for (ir::Term& t : n.kind == ir::NodeKind::Sequential && !n.nodes.empty()
                               ? n.nodes.front().inputs
                               : n.inputs)
            for (ir::ValueRef& v : t)
                if (v.node == name)
                    v.inPlace = false;
    };
    for (ir::Node& n : block.innerNodes)
        visit(n);
    visit(block.exitNode);
}

void removeOperator(ir::Block& block, const std::string& name) {
    std::erase_if(block.innerNodes, [&](const ir::Node& n) { return n.name == name; });
    for (std::vector<std::string>& part : block.parts)
        std::erase(part, name);
    std::erase_if(block.parts, [](const std::vector<std::string>& p) { return p.empty(); });
}

} // namespace

Rewritten applyMatch(const ir::Graph& graph, const Match& match) {
    if (match.block < 0 || static_cast<size_t>(match.block) >= graph.blocks.size())
        throw UserError("substitution " + std::string(ruleName(match.rule)) + ": no block " +
                        std::to_string(match.block));
    Rewritten out{graph, {match, match.nodes, {}, {}}};
    ir::Block& block = out.graph.blocks[static_cast<size_t>(match.block)];
    std::vector<ir::Node*> m;
    for (const std::string& name : match.nodes) {
        ir::Node* n = findOperator(block, name);
        if (n == nullptr)
            throw UserError("substitution " + std::string(ruleName(match.rule)) +
                                ": the block has no operator '" + name + "'",
                            {}, name);
        m.push_back(n);
    }
    const size_t expected = match.rule == RuleId::R4 || match.rule == RuleId::R5 ? 1 : 2;
    if (m.size() != expected && !(match.rule == RuleId::S1 && !m.empty()))
        throw UserError("substitution " + std::string(ruleName(match.rule)) + " needs " +
                        std::to_string(expected) + " operators");
    Provenance& prov = out.provenance;
    switch (match.rule) {
    case RuleId::R1: { // conv c → relu r  ⇒  conv(act relu) named r
        ir::Node t = targetNamed(*m[0], *m[1]);
        t.conv.act = ir::ActType::Relu;
        const std::string c = m[0]->name;
        *m[1] = std::move(t);
        removeOperator(block, c);
        prov.created = {match.nodes[1]};
        break;
    }
    case RuleId::R3: { // convs a, b ⇒ conv named a with both outputs, b's readers shifted
        ir::Node merged = schedule::mergedConv({m[0], m[1]});
        merged.outputShape = {};
        const int64_t ca = m[0]->conv.outChannels;
        const std::string a = m[0]->name;
        const std::string b = m[1]->name;
        clearInPlace(block, a);
        clearInPlace(block, b);
        *m[0] = std::move(merged);
        removeOperator(block, b);
        prov.created = {a};
        prov.rewired = rewire(block, b, a, ca);
        break;
    }
    case RuleId::R4: { // conv ⇒ the same conv with its kernel centred in a 3×3 one
        m[0]->conv.kernel = {3, 3};
        m[0]->conv.padding = {1, 1};
        prov.created = {match.nodes[0]};
        break;
    }
    case RuleId::R5: { // concatenation ⇒ the same, its qualifying terms written in place
        const std::vector<size_t> terms = inPlaceTerms(graph, match.block, *m[0]);
        if (terms.empty())
            throw UserError("substitution R5: no term of '" + match.nodes[0] +
                                "' can be written in place",
                            {}, match.nodes[0]);
        ir::Node& holder = m[0]->kind == ir::NodeKind::Sequential && !m[0]->nodes.empty()
                               ? m[0]->nodes.front()
                               : *m[0];
        for (size_t t : terms)
            holder.inputs[t].front().inPlace = true;
        prov.created = {match.nodes[0]};
        break;
    }
    case RuleId::R6:   // add a = x + conv(x) ⇒ conv named a on x with W + δ
    case RuleId::R7: { // add a = conv(X) + y ⇒ conv named a on X ++ [y] with [W | δ]
        ir::Node t = targetNamed(*m[0], *m[1]);
        if (m[1]->kind == ir::NodeKind::Relu) // relu(a + b): the target conv takes the relu
            t.conv.act = ir::ActType::Relu;
        if (match.rule == RuleId::R7) {
            const ir::Term& sum = m[1]->inputs.front();
            t.inputs.push_back({sum[0].node == m[0]->name ? sum[1] : sum[0]});
        }
        const std::string c = m[0]->name;
        *m[1] = std::move(t);
        removeOperator(block, c);
        prov.created = {match.nodes[1]};
        break;
    }
    case RuleId::S1: // conv y over a concatenation ⇒ partial convs and a node named y
        applyPartialConvs(graph, block, match, prov);
        break;
    }
    block.stages.clear(); // the old schedule names replaced operators
    ir::validateAndInferShapes(out.graph);
    return out;
}

} // namespace ios::rewrite
