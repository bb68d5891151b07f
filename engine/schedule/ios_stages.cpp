// SPDX-License-Identifier: Apache-2.0
#include "schedule/ios_stages.h"

#include "ir/validate.h"
#include "schedule/merge.h"
#include "util/error.h"

#include <algorithm>
#include <unordered_map>

namespace ios::schedule {

namespace {

std::string blockLabel(size_t b) {
    return "block " + std::to_string(b + 1);
}

void checkBlocks(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags, const Schedule* s) {
    if (dags.size() != graph.blocks.size() || (s != nullptr && s->blocks.size() != dags.size()))
        throw UserError("the schedule and the model have different numbers of blocks");
}

std::vector<std::string> groupNames(const ir::BlockDag& dag, const Group& g) {
    std::vector<std::string> names;
    for (int op : g)
        names.push_back(dag.ops.at(static_cast<size_t>(op))->name);
    return names;
}

// Applies `rename` to every value of every input term below `node` (sequentials included).
template <class F> void forEachValue(ir::Node& node, F&& rename) {
    for (ir::Term& t : node.inputs)
        for (ir::ValueRef& v : t)
            rename(v);
    for (ir::Node& inner : node.nodes)
        forEachValue(inner, rename);
}

} // namespace

Schedule scheduleFromStages(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags) {
    checkBlocks(graph, dags, nullptr);
    Schedule s;
    for (size_t b = 0; b < dags.size(); ++b) {
        std::unordered_map<std::string, int> index;
        for (int i = 0; i < static_cast<int>(dags[b].ops.size()); ++i)
            index.emplace(dags[b].ops[i]->name, i);
        BlockSchedule& bs = s.blocks.emplace_back();
        for (const ir::NameStage& ns : graph.blocks[b].stages) {
            Stage& st = bs.stages.emplace_back();
            for (const ir::NameGroup& ng : ns) {
                Group& g = st.groups.emplace_back();
                for (const std::string& name : ng) {
                    auto it = index.find(name);
                    if (it == index.end())
                        throw UserError(blockLabel(b) +
                                            ": stages name an operator that is not in the block",
                                        {}, name);
                    g.push_back(it->second);
                }
            }
        }
    }
    return s;
}

ir::Graph withStages(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                     const Schedule& schedule) {
    checkBlocks(graph, dags, &schedule);
    ir::Graph out = graph;
    for (size_t b = 0; b < dags.size(); ++b) {
        std::vector<ir::NameStage>& stages = out.blocks[b].stages;
        stages.clear();
        for (const Stage& st : schedule.blocks[b].stages) {
            ir::NameStage& ns = stages.emplace_back();
            for (const Group& g : st.groups)
                ns.push_back(groupNames(dags[b], g));
        }
    }
    return out;
}

ir::Graph optimizedGraph(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                         const Schedule& schedule) {
    ir::Graph out = withStages(graph, dags, schedule);
    // name of a merged member → (merged node name, channel offset)
    std::unordered_map<std::string, std::pair<std::string, int64_t>> moved;
    for (size_t b = 0; b < dags.size(); ++b) {
        ir::Block& block = out.blocks[b];
        std::vector<std::string> removed;
        for (size_t si = 0; si < schedule.blocks[b].stages.size(); ++si) {
            const Stage& st = schedule.blocks[b].stages[si];
            if (st.kind != StageKind::Merge || st.operatorCount() < 2)
                continue;
            Group members = st.groups.front();
            std::sort(members.begin(), members.end()); // file order: the first member leads
            std::vector<const ir::Node*> nodes;
            for (int op : members)
                nodes.push_back(dags[b].ops.at(static_cast<size_t>(op)));
            if (nodes.back() == &graph.blocks[b].exitNode)
                throw UserError(blockLabel(b) +
                                    ": the exit node cannot be merged with other operators",
                                {}, nodes.back()->name);
            const ir::Node merged = mergedConv(nodes);
            int64_t offset = 0;
            for (const ir::Node* n : nodes) {
                moved[n->name] = {merged.name, offset};
                offset += n->conv.outChannels;
                if (n != nodes.front())
                    removed.push_back(n->name);
            }
            for (ir::Node& n : block.innerNodes)
                if (n.name == merged.name)
                    n = merged;
            block.stages[si] = {{merged.name}};
        }
        auto isRemoved = [&](const std::string& name) {
            return std::find(removed.begin(), removed.end(), name) != removed.end();
        };
        std::erase_if(block.innerNodes, [&](const ir::Node& n) { return isRemoved(n.name); });
        for (auto& part : block.parts)
            std::erase_if(part, isRemoved);
    }
    auto rename = [&](ir::ValueRef& v) {
        auto it = moved.find(v.node);
        if (it == moved.end())
            return;
        v.node = it->second.first;
        v.begin += it->second.second;
        v.end += it->second.second;
        v.inPlace = false; // a slice of the merged output: no producer writes it in place
    };
    for (ir::Block& block : out.blocks) {
        for (ir::Node& n : block.innerNodes)
            forEachValue(n, rename);
        forEachValue(block.exitNode, rename);
    }
    ir::validateAndInferShapes(out);
    return out;
}

} // namespace ios::schedule
