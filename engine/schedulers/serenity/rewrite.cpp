// SPDX-License-Identifier: Apache-2.0
#include "schedulers/serenity/rewrite.h"

#include "ir/metrics.h"
#include "ir/validate.h"
#include "rewrite/rules.h"
#include "util/error.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace ios::schedulers::serenity {

namespace {

// Removes the marked ops and tensors and renumbers the rest (order kept).
void compact(ir::MemoryProblem& p, const std::vector<char>& dropOp,
             const std::vector<char>& dropTensor) {
    std::vector<int> opIndex(p.ops.size(), -1), tensorIndex(p.tensors.size(), -1);
    std::vector<ir::MemoryProblem::Op> ops;
    std::vector<ir::MemoryProblem::Tensor> tensors;
    for (size_t t = 0; t < p.tensors.size(); ++t)
        if (dropTensor[t] == 0) {
            tensorIndex[t] = static_cast<int>(tensors.size());
            tensors.push_back(std::move(p.tensors[t]));
        }
    for (size_t i = 0; i < p.ops.size(); ++i)
        if (dropOp[i] == 0) {
            opIndex[i] = static_cast<int>(ops.size());
            ops.push_back(std::move(p.ops[i]));
        }
    auto remap = [](std::vector<int>& indices, const std::vector<int>& to) {
        for (int& i : indices)
            if (i >= 0)
                i = to[static_cast<size_t>(i)];
    };
    for (ir::MemoryProblem::Op& op : ops) {
        op.output = tensorIndex[static_cast<size_t>(op.output)];
        remap(op.inputs, tensorIndex);
        if (op.output < 0 || std::find(op.inputs.begin(), op.inputs.end(), -1) != op.inputs.end())
            throw std::logic_error("rewritten memory problem: op '" + op.name +
                                   "' uses a removed tensor");
    }
    for (ir::MemoryProblem::Tensor& t : tensors)
        remap(t.producers, opIndex);
    remap(p.opOfBlockOp, opIndex);
    remap(p.assemblyOf, opIndex);
    p.ops = std::move(ops);
    p.tensors = std::move(tensors);
}

} // namespace

int64_t RewriteMatch::inChannels() const {
    int64_t c = 0;
    for (const ir::ValueRef& v : terms)
        c += v.channels();
    return c;
}

rewrite::Match RewriteMatch::ruleMatch() const {
    rewrite::Match m{rewrite::RuleId::S1, block, {conv.name}};
    if (!concat.empty())
        m.nodes.push_back(concat);
    m.nodes.insert(m.nodes.end(), through.begin(), through.end());
    return m;
}

std::vector<RewriteMatch> findRewrites(const ir::Graph& graph) {
    std::unordered_set<std::string> taken = rewrite::nodeNames(graph);
    std::vector<RewriteMatch> out;
    for (size_t b = 0; b < graph.blocks.size(); ++b) {
        const int block = static_cast<int>(b);
        const rewrite::PartialConvMatcher matcher(graph, block);
        const ir::NodeIndex index(graph);
        for (const rewrite::Match& match :
             rewrite::findMatches(graph, block, rewrite::RuleId::S1)) {
            const rewrite::PartialConvSplit split = *matcher.at(*index.find(match.nodes.front()));
            RewriteMatch m;
            m.kind = split.form;
            m.block = block;
            m.conv = *split.conv;
            m.concat = split.concat == nullptr ? std::string() : split.concat->name;
            for (const ir::Node* n : split.through)
                m.through.push_back(n->name);
            m.terms = split.terms;
            m.members = rewrite::partialConvNames(split, taken);
            m.copies = rewrite::copyNames(split, taken);
            out.push_back(std::move(m));
        }
    }
    return out;
}

GraphRewrite rewriteGraph(const ir::Graph& graph, const std::vector<RewriteMatch>& matches) {
    GraphRewrite out;
    out.graph = graph;
    out.applied = matches;
    const ir::NodeIndex index(graph);
    std::set<std::pair<int, std::string>> convs;
    for (const RewriteMatch& m : matches) {
        const ir::Node* y = index.find(m.conv.name);
        if (m.block < 0 || static_cast<size_t>(m.block) >= graph.blocks.size() ||
            !convs.emplace(m.block, m.conv.name).second || y == nullptr || !(*y == m.conv))
            throw std::logic_error("rewriteGraph: match of '" + m.conv.name +
                                   "' is not one of this graph's, or repeated");
    }
    for (RewriteMatch& m : out.applied) {
        rewrite::Rewritten r = rewrite::applyMatch(out.graph, m.ruleMatch());
        // The names the engine gave (findRewrites' unless an earlier match freed one).
        const auto k = static_cast<std::ptrdiff_t>(m.terms.size());
        m.members.assign(r.provenance.created.begin(), r.provenance.created.begin() + k);
        m.copies.assign(r.provenance.created.begin() + k, r.provenance.created.end() - 1);
        out.graph = std::move(r.graph);
        out.provenance.push_back(std::move(r.provenance));
    }
    if (matches.empty()) { // applyMatch validates what it rewrites; the copy is validated alike
        try {
            ir::validateAndInferShapes(out.graph);
        } catch (const UserError& e) {
            throw std::logic_error(
                std::string("Serenity's rewrite broke the graph's invariants: ") + e.what());
        }
    }
    return out;
}

std::vector<ref::ConvWeights> memberWeights(const RewriteMatch& m, const ref::ConvWeights& w) {
    return rewrite::partialConvWeights(m.conv, m.kind, m.terms, w);
}

void setMemberWeights(const std::vector<RewriteMatch>& applied, ref::ReferenceExecutor& executor) {
    for (const RewriteMatch& m : applied) {
        std::vector<ref::ConvWeights> w =
            memberWeights(m, executor.weightsOf(m.conv, m.inChannels()));
        for (size_t i = 0; i < w.size(); ++i)
            executor.setWeights(m.members[i], std::move(w[i]));
    }
}

ir::MemoryProblem rewrittenBlockProblem(const GraphRewrite& rewrite, const ir::BlockDag& dag,
                                        int block, const ir::MemoryOptions& options) {
    ir::MemoryProblem p = ir::blockMemoryProblem(rewrite.graph, dag, block, options);
    std::unordered_map<std::string, int> blockOpOf;
    for (size_t i = 0; i < dag.ops.size(); ++i)
        blockOpOf.emplace(dag.ops[i]->name, static_cast<int>(i));
    std::vector<char> dropOp(p.ops.size(), 0), dropTensor(p.tensors.size(), 0);
    auto drop = [&](int op) {
        dropOp[static_cast<size_t>(op)] = 1;
        dropTensor[static_cast<size_t>(p.ops[static_cast<size_t>(op)].output)] = 1;
    };
    for (const RewriteMatch& m : rewrite.applied) {
        if (m.block != block)
            continue;
        const auto combineOp = static_cast<size_t>(blockOpOf.at(m.conv.name));
        const int combine = p.opOfBlockOp[combineOp];
        if (p.assemblyOf[combineOp] >= 0)
            drop(p.assemblyOf[combineOp]);
        const int y = p.ops[static_cast<size_t>(combine)].output;
        dropOp[static_cast<size_t>(combine)] = 1;
        p.opOfBlockOp[combineOp] = -1;
        ir::MemoryProblem::Tensor& out = p.tensors[static_cast<size_t>(y)];
        out.producers.clear();
        for (const std::string& member : m.members) {
            const int op = p.opOfBlockOp[static_cast<size_t>(blockOpOf.at(member))];
            dropTensor[static_cast<size_t>(p.ops[static_cast<size_t>(op)].output)] = 1;
            ir::MemoryProblem::Op& o = p.ops[static_cast<size_t>(op)];
            o.output = y;
            o.accumulateBytes = m.kind == RewriteKind::ChannelWise ? out.bytes : 0;
            out.producers.push_back(op);
        }
        if (options.countWeights && m.kind == RewriteKind::ChannelWise)
            p.constantBytes -= static_cast<int64_t>(m.members.size() - 1) *
                               m.conv.conv.outChannels * options.bytesPerElement;
    }
    compact(p, dropOp, dropTensor);
    ir::finishMemoryProblem(p);
    return p;
}

std::vector<ir::MemoryProblem> rewrittenMemoryProblems(const GraphRewrite& rewrite,
                                                       const std::vector<ir::BlockDag>& dags,
                                                       const ir::MemoryOptions& options) {
    std::vector<ir::MemoryProblem> out;
    out.reserve(dags.size());
    for (size_t b = 0; b < dags.size(); ++b)
        out.push_back(rewrittenBlockProblem(rewrite, dags[b], static_cast<int>(b), options));
    return out;
}

} // namespace ios::schedulers::serenity
