// SPDX-License-Identifier: Apache-2.0
#include "rewrite/rules.h"

#include "ir/metrics.h"
#include "ir/validate.h"
#include "rewrite/identity_rule.h"
#include "rewrite/pattern.h"
#include "schedule/merge.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <unordered_map>
#include <unordered_set>

namespace ios::rewrite {

namespace {

struct RuleInfo {
    std::string_view name;
    std::string_view description;
};
constexpr std::array<RuleInfo, static_cast<size_t>(RuleId::S1) + 1> kRuleInfo = {{
    {"R1", "fuse conv + relu"},
    {"R3", "merge convs sharing an input"},
    {"R4", "enlarge conv to 3x3"},
    {"R5", "in-place concatenation"},
    {"R6", "fold residual x + conv(x)"},
    {"R7", "fuse conv and add"},
    {"S1", "split a conv over a concatenation into partial convs (Serenity)"},
}};

bool isConv(const ir::Node& n) {
    return n.kind == ir::NodeKind::Conv;
}
bool isRelu(const ir::Node& n) {
    return n.kind == ir::NodeKind::Relu ||
           (n.kind == ir::NodeKind::Activation && n.activation == ir::ActType::Relu);
}
// An add: identity, element/add or relu whose input is one term of two values. The relu is
// relu(a + b), the form the ONNX importer gives a residual Add followed by its Relu
// (io/onnx/onnx_lowering.cpp); R6 and R7 then fuse the relu into the target conv.
bool isAdd(const ir::Node& n) {
    const bool kind = n.kind == ir::NodeKind::Identity || n.kind == ir::NodeKind::Relu ||
                      (n.kind == ir::NodeKind::Element && n.element == ir::ElementOp::Add);
    return kind && n.inputs.size() == 1 && n.inputs.front().size() == 2;
}
// kernel − 2·padding = 1 on both axes: the output has the input's H×W at stride 1, and the
// centre tap of the kernel reads the output pixel's own input pixel.
bool centredOne(const ir::Node& c) {
    return c.conv.kernel.h - 2 * c.conv.padding.h == 1 &&
           c.conv.kernel.w - 2 * c.conv.padding.w == 1;
}
ir::ValueRef whole(const ir::Node& n) {
    return {n.name, 0, n.outputShape.c};
}
// A conv whose output may be folded into a following add (R6, R7).
bool foldableConv(const ir::Node& c) {
    return isConv(c) && c.conv.act == ir::ActType::Identity && c.conv.groups == 1 &&
           c.conv.stride == ir::Hw{1, 1} && centredOne(c);
}
// The other value of add `a` when one of its two values is all of `c`'s output.
const ir::ValueRef* otherAddend(const ir::Node& a, const ir::Node& c) {
    const ir::Term& t = a.inputs.front();
    if (t[0] == whole(c))
        return &t[1];
    if (t[1] == whole(c))
        return &t[0];
    return nullptr;
}

// inPlaceTerms with the graph's reference counts and the names of the block's operators at
// hand (findMatches asks for every operator of a block).
std::vector<size_t> inPlaceTerms(const ir::Node& op, const ir::NodeIndex& index,
                                 const std::unordered_map<std::string, int>& refs,
                                 const std::unordered_set<std::string>& blockOps) {
    const ir::Node& holder =
        op.kind == ir::NodeKind::Sequential && !op.nodes.empty() ? op.nodes.front() : op;
    std::vector<size_t> terms;
    if (holder.inputs.size() < 2)
        return terms;
    for (size_t t = 0; t < holder.inputs.size(); ++t) {
        const ir::Term& term = holder.inputs[t];
        if (term.size() != 1 || term.front().inPlace || !blockOps.contains(term.front().node))
            continue;
        const auto r = refs.find(term.front().node);
        if (ir::inPlaceObstacle(holder, term, index.find(term.front().node),
                                r == refs.end() ? 0 : r->second)
                .empty())
            terms.push_back(t);
    }
    return terms;
}

std::unordered_set<std::string> operatorNames(const ir::Block& block) {
    std::unordered_set<std::string> names;
    for (const ir::Node* op : block.operators())
        names.insert(op->name);
    return names;
}

Pattern patternOf(RuleId rule, const ir::Block& block, const ir::NodeIndex& index) {
    const std::string exit = block.exitNode.name;
    Pattern p;
    switch (rule) {
    case RuleId::R1:
        p.nodes = {
            {[](const ir::Node& n) { return isConv(n) && n.conv.act == ir::ActType::Identity; },
             {},
             false},
            {isRelu, {0}, true}};
        p.accepts = [](const std::vector<const ir::Node*>& m) {
            return m[1]->inputs == std::vector<ir::Term>{{whole(*m[0])}};
        };
        break;
    case RuleId::R3:
        p.nodes = {
            {[exit](const ir::Node& n) { return isConv(n) && n.name != exit; }, {}, true},
            {[exit](const ir::Node& n) { return isConv(n) && n.name != exit; }, {}, true, 0}};
        // schedule::mergeable is the one definition of which convs merge (IOS and MetaFlow
        // alike); the rule adds only that the inputs are the same terms.
        p.accepts = [](const std::vector<const ir::Node*>& m) {
            return m[0]->inputs == m[1]->inputs && schedule::mergeable({m[0], m[1]});
        };
        break;
    case RuleId::R4:
        p.nodes = {{[](const ir::Node& n) {
                        return isConv(n) && n.conv.kernel.h <= 3 && n.conv.kernel.w <= 3 &&
                               n.conv.kernel != ir::Hw{3, 3} && centredOne(n);
                    },
                    {},
                    true}};
        break;
    case RuleId::R5: // findMatches takes R5 and S1 apart: their conditions need the whole graph
    case RuleId::S1:
        break;
    case RuleId::R6:
        p.nodes = {{[](const ir::Node& n) {
                        return foldableConv(n) && n.inputs.size() == 1 &&
                               n.inputs.front().size() == 1 &&
                               n.inputs.front().front().channels() == n.conv.outChannels;
                    },
                    {},
                    false},
                   {isAdd, {0}, true}};
        p.accepts = [](const std::vector<const ir::Node*>& m) {
            const ir::ValueRef* x = otherAddend(*m[1], *m[0]);
            return x != nullptr && *x == m[0]->inputs.front().front();
        };
        break;
    case RuleId::R7:
        p.nodes = {{foldableConv, {}, false}, {isAdd, {0}, true}};
        p.accepts = [&index](const std::vector<const ir::Node*>& m) {
            const ir::ValueRef* y = otherAddend(*m[1], *m[0]);
            if (y == nullptr || y->node == m[0]->name || y->channels() != m[0]->outputShape.c)
                return false;
            // Not a broadcast 1×1 value: the conv must produce exactly the addend's shape.
            const ir::Node* producer = index.find(y->node);
            return producer != nullptr && producer->outputShape.h == m[0]->outputShape.h &&
                   producer->outputShape.w == m[0]->outputShape.w;
        };
        break;
    }
    return p;
}

} // namespace

std::string_view ruleName(RuleId rule) {
    return kRuleInfo[static_cast<size_t>(rule)].name;
}

std::string_view ruleDescription(RuleId rule) {
    return kRuleInfo[static_cast<size_t>(rule)].description;
}

std::optional<RuleId> ruleFromName(std::string_view name) {
    for (RuleId r : kAllRules) {
        const std::string_view n = ruleName(r);
        if (name.size() == n.size() &&
            std::equal(name.begin(), name.end(), n.begin(), [](char a, char b) {
                return std::toupper(static_cast<unsigned char>(a)) == b;
            }))
            return r;
    }
    return std::nullopt;
}

RuleSet RuleSet::only(std::vector<RuleId> rules) {
    RuleSet s;
    s.enabled.fill(false);
    for (RuleId r : rules)
        s.set(r, true);
    return s;
}

std::vector<size_t> inPlaceTerms(const ir::Graph& graph, int block, const ir::Node& op) {
    return inPlaceTerms(op, ir::NodeIndex(graph), ir::valueReferences(graph),
                        operatorNames(graph.blocks.at(static_cast<size_t>(block))));
}

void visitMatches(const ir::Graph& graph, int blockIndex, RuleId rule,
                  const std::vector<bool>* allowed,
                  const std::function<bool(const std::vector<int>&)>& visit) {
    const ir::Block& block = graph.blocks.at(static_cast<size_t>(blockIndex));
    const std::vector<const ir::Node*> ops = block.operators();
    if (rule == RuleId::S1) {
        std::unordered_map<std::string, int> indexOf;
        for (size_t i = 0; i < ops.size(); ++i)
            indexOf.emplace(ops[i]->name, static_cast<int>(i));
        for (const Match& m : findPartialConvMatches(graph, blockIndex, allowed)) {
            std::vector<int> indices;
            for (const std::string& name : m.nodes)
                indices.push_back(indexOf.at(name));
            if (!visit(indices))
                return;
        }
        return;
    }
    if (rule == RuleId::R5) {
        // The producer's other readers may sit anywhere its output is visible, so the counts
        // are the whole graph's (ir::valueReferences), as validation counts them.
        const ir::NodeIndex index(graph);
        const std::unordered_map<std::string, int> refs = ir::valueReferences(graph);
        const std::unordered_set<std::string> names = operatorNames(block);
        for (size_t i = 0; i < ops.size(); ++i)
            if ((allowed == nullptr || (*allowed)[i]) &&
                !inPlaceTerms(*ops[i], index, refs, names).empty() && !visit({static_cast<int>(i)}))
                return;
        return;
    }
    std::vector<int> consumers;
    for (const std::vector<int>& readers : readersOf(ops))
        consumers.push_back(static_cast<int>(readers.size()));
    if (!consumers.empty())
        consumers.back() += 1; // the exit: read by the next block or the model's output
    const ir::NodeIndex index(graph);
    forEachMatch(patternOf(rule, block, index), ops, consumers, allowed,
                 [rule, &visit](const std::vector<int>& m) {
                     // R3 is symmetric: each pair once, the earlier operator first.
                     return (rule == RuleId::R3 && m[0] > m[1]) || visit(m);
                 });
}

int matchSize(RuleId rule) {
    return rule == RuleId::R4 || rule == RuleId::R5 ? 1 : 2;
}

std::vector<Match> findMatches(const ir::Graph& graph, int blockIndex, RuleId rule,
                               const std::vector<bool>* allowed) {
    const std::vector<const ir::Node*> ops =
        graph.blocks.at(static_cast<size_t>(blockIndex)).operators();
    std::vector<Match> matches;
    visitMatches(graph, blockIndex, rule, allowed, [&](const std::vector<int>& m) {
        Match match{rule, blockIndex, {}};
        for (int i : m)
            match.nodes.push_back(ops[static_cast<size_t>(i)]->name);
        matches.push_back(std::move(match));
        return true;
    });
    return matches;
}

uint64_t countMatches(const ir::Graph& graph, int blockIndex, RuleId rule,
                      const std::vector<bool>* allowed, uint64_t limit) {
    uint64_t n = 0;
    if (limit == 0)
        return 0;
    visitMatches(graph, blockIndex, rule, allowed,
                 [&n, limit](const std::vector<int>&) { return ++n < limit; });
    return n;
}

std::vector<Match> findMatches(const ir::Graph& graph, const RuleSet& rules) {
    std::vector<Match> all;
    for (RuleId rule : kAllRules) {
        if (!rules.on(rule))
            continue;
        for (size_t b = 0; b < graph.blocks.size(); ++b) {
            std::vector<Match> m = findMatches(graph, static_cast<int>(b), rule);
            all.insert(all.end(), std::make_move_iterator(m.begin()),
                       std::make_move_iterator(m.end()));
        }
    }
    return all;
}

} // namespace ios::rewrite
