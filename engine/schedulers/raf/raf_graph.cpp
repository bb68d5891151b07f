// SPDX-License-Identifier: Apache-2.0
#include "schedulers/raf/raf_graph.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <unordered_map>

namespace ios::schedulers::raf {

namespace {

void addUnique(std::vector<int>& v, int x) {
    if (std::find(v.begin(), v.end(), x) == v.end())
        v.push_back(x);
}

// Drops every edge u → v that another path u ⇝ v implies. Nodes are in topological order.
void transitivelyReduce(RafGraph& g) {
    const NodeSets reach = ancestors(g);
    for (RafNode& node : g.nodes) {
        std::vector<int>& in = node.inputs;
        std::vector<int> kept;
        for (int u : in) {
            // Redundant when u reaches another input w of v.
            bool implied = false;
            for (int w : in)
                implied = implied ||
                          (w != u && reach.has(static_cast<size_t>(w), static_cast<size_t>(u)));
            if (!implied)
                kept.push_back(u);
        }
        in = std::move(kept);
    }
}

} // namespace

void NodeSets::unite(size_t v, size_t from) {
    for (size_t w = 0; w < words_; ++w)
        bits_[v * words_ + w] |= bits_[from * words_ + w];
}

size_t NodeSets::count(size_t v) const {
    size_t c = 0;
    for (size_t w = 0; w < words_; ++w)
        c += static_cast<size_t>(std::popcount(bits_[v * words_ + w]));
    return c;
}

NodeSets ancestors(const RafGraph& g) {
    NodeSets sets(g.nodes.size());
    for (size_t v = 0; v < g.nodes.size(); ++v)
        for (int u : g.nodes[v].inputs) {
            sets.insert(v, static_cast<size_t>(u));
            sets.unite(v, static_cast<size_t>(u));
        }
    return sets;
}

NodeSets descendants(const RafGraph& g) {
    NodeSets sets(g.nodes.size());
    for (size_t v = g.nodes.size(); v-- > 0;)
        for (int c : g.nodes[v].consumers) {
            sets.insert(v, static_cast<size_t>(c));
            sets.unite(v, static_cast<size_t>(c));
        }
    return sets;
}

RafGraph buildRafGraph(const ir::BlockDag& dag, bool tuples) {
    RafGraph g;
    std::unordered_map<std::string, int> nodeOf;
    for (size_t i = 0; i < dag.ops.size(); ++i) {
        const ir::Node& op = *dag.ops[i];
        const auto& terms = op.externalInputs();
        std::vector<int> inputs;
        for (const ir::Term& t : terms)
            for (const ir::ValueRef& v : t)
                if (auto it = nodeOf.find(v.node); it != nodeOf.end())
                    addUnique(inputs, it->second);
        if (tuples && terms.size() >= 2) {
            RafNode tuple;
            tuple.name = "tuple:" + op.name;
            tuple.inputs = std::move(inputs);
            g.nodes.push_back(std::move(tuple));
            inputs = {static_cast<int>(g.nodes.size()) - 1};
        }
        RafNode node;
        node.op = static_cast<int>(i);
        node.name = op.name;
        node.inputs = std::move(inputs);
        nodeOf.emplace(op.name, static_cast<int>(g.nodes.size()));
        g.nodes.push_back(std::move(node));
    }
    transitivelyReduce(g);
    for (size_t v = 0; v < g.nodes.size(); ++v)
        for (int u : g.nodes[v].inputs)
            g.nodes[static_cast<size_t>(u)].consumers.push_back(static_cast<int>(v));
    return g;
}

schedule::Instruction launchOf(const RafNode& node, int stream) {
    return node.op < 0 ? schedule::Instruction::launchSynthetic(node.name, stream)
                       : schedule::Instruction::launch(node.op, stream);
}

schedule::BlockSchedule issueOrder(const schedule::StreamProgram& program) {
    schedule::BlockSchedule bs;
    for (const schedule::Instruction& in : program.instructions)
        if (in.kind == schedule::InstrKind::Launch)
            for (int op : in.ops)
                bs.stages.push_back({schedule::StageKind::Parallel, {{op}}});
    return bs;
}

schedule::BlockSchedule toStages(const RafGraph& g,
                                 const std::vector<std::vector<std::vector<int>>>& stages) {
    schedule::BlockSchedule bs;
    for (const auto& stage : stages) {
        schedule::Stage st;
        for (const auto& group : stage) {
            schedule::Group ops;
            for (int v : group)
                if (g.nodes[static_cast<size_t>(v)].op >= 0)
                    ops.push_back(g.nodes[static_cast<size_t>(v)].op);
            if (!ops.empty())
                st.groups.push_back(std::move(ops));
        }
        if (!st.groups.empty())
            bs.stages.push_back(std::move(st));
    }
    return bs;
}

schedule::StreamProgram barrierProgram(const RafGraph& g,
                                       const std::vector<std::vector<std::vector<int>>>& stages) {
    schedule::StreamProgram p;
    for (size_t i = 0; i < stages.size(); ++i) {
        if (i > 0)
            p.instructions.push_back(schedule::Instruction::barrier());
        for (size_t j = 0; j < stages[i].size(); ++j)
            for (int v : stages[i][j])
                p.instructions.push_back(
                    launchOf(g.nodes[static_cast<size_t>(v)], schedule::laneStream(j)));
    }
    return p;
}

} // namespace ios::schedulers::raf
