#include "schedulers/raf/raf_graph.h"

#include <algorithm>
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
    const size_t n = g.nodes.size();
    const size_t words = (n + 63) / 64;
    // reach[v] = nodes from which v is reachable by a path of one or more edges.
    std::vector<uint64_t> reach(n * words, 0);
    auto set = [&](size_t v, size_t u) { reach[v * words + u / 64] |= uint64_t{1} << (u % 64); };
    auto has = [&](size_t v, size_t u) { return (reach[v * words + u / 64] >> (u % 64) & 1) != 0; };
    for (size_t v = 0; v < n; ++v)
        for (int u : g.nodes[v].inputs) {
            set(v, static_cast<size_t>(u));
            for (size_t w = 0; w < words; ++w)
                reach[v * words + w] |= reach[static_cast<size_t>(u) * words + w];
        }
    for (size_t v = 0; v < n; ++v) {
        std::vector<int>& in = g.nodes[v].inputs;
        std::vector<int> kept;
        for (int u : in) {
            // Redundant when u reaches another input w of v.
            bool implied = false;
            for (int w : in)
                implied =
                    implied || (w != u && has(static_cast<size_t>(w), static_cast<size_t>(u)));
            if (!implied)
                kept.push_back(u);
        }
        in = std::move(kept);
    }
}

} // namespace

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
    schedule::Instruction in = schedule::Instruction::launch(node.op, stream);
    if (node.op < 0) {
        in.ops.clear();
        in.synthetic = node.name;
    }
    return in;
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
                    launchOf(g.nodes[static_cast<size_t>(v)], static_cast<int>(j)));
    }
    return p;
}

} // namespace ios::schedulers::raf
