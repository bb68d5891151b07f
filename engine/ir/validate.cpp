// SPDX-License-Identifier: Apache-2.0
#include "ir/validate.h"

#include "util/error.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace ios::ir {

namespace {

using detail::shapeText;

void checkDeclaredShape(Node& node, const TensorShape& inferred) {
    if (node.outputShape == TensorShape{}) {
        node.outputShape = inferred;
        return;
    }
    if (node.outputShape != inferred)
        throw UserError("declared output_shape " + shapeText(node.outputShape) +
                            " does not match the inferred " + shapeText(inferred),
                        {}, node.name);
}

// Fills/checks shapes of a sequential's inner nodes (the outer node is checked by the caller).
void inferInnerShapes(Node& seq, const ShapeLookup& shapeOf) {
    TensorShape prev{};
    std::string prevName;
    for (size_t i = 0; i < seq.nodes.size(); ++i) {
        Node& inner = seq.nodes[i];
        TensorShape s;
        if (i == 0) {
            s = inferShape(inner, shapeOf);
        } else {
            if (inner.inputs.size() != 1 || inner.inputs[0].size() != 1 ||
                inner.inputs[0][0].node != prevName)
                throw UserError("inner node of sequential '" + seq.name +
                                    "' must read exactly the previous inner node '" + prevName +
                                    "'",
                                {}, inner.name);
            const TensorShape before = prev;
            s = inferShape(inner, [&](const std::string& n) -> const TensorShape* {
                return n == prevName ? &before : nullptr;
            });
        }
        checkDeclaredShape(inner, s);
        prev = s;
        prevName = inner.name;
    }
}

void collectNames(const Node& node, std::unordered_set<std::string>& seen) {
    if (node.name.empty())
        throw UserError("a node has an empty name");
    if (!seen.insert(node.name).second)
        throw UserError("duplicate node name", {}, node.name);
    for (const Node& inner : node.nodes)
        collectNames(inner, seen);
}

// Kahn's algorithm over the block's operators, lowest file position first: returns the
// operator indices in a dependency order that is the file order whenever the file is
// topologically sorted (so errors name the same node either way). A leftover node lies on (or
// behind) a cycle.
std::vector<size_t> dependencyOrder(const Block& block,
                                    const std::unordered_map<std::string, size_t>& opIndex) {
    const auto ops = block.operators();
    std::vector<std::vector<size_t>> succ(ops.size());
    std::vector<size_t> indeg(ops.size(), 0);
    for (size_t i = 0; i < ops.size(); ++i)
        for (const Term& t : ops[i]->externalInputs())
            for (const ValueRef& v : t)
                if (auto it = opIndex.find(v.node); it != opIndex.end()) {
                    succ[it->second].push_back(i);
                    ++indeg[i];
                }
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
    for (size_t i = 0; i < ops.size(); ++i)
        if (indeg[i] == 0)
            ready.push(i);
    std::vector<size_t> order;
    order.reserve(ops.size());
    while (!ready.empty()) {
        const size_t u = ready.top();
        ready.pop();
        order.push_back(u);
        for (size_t v : succ[u])
            if (--indeg[v] == 0)
                ready.push(v);
    }
    if (order.size() != ops.size())
        for (size_t i = 0; i < ops.size(); ++i)
            if (indeg[i] != 0)
                throw UserError("is part of a dependency cycle", {}, ops[i]->name);
    return order;
}

void forEachNode(const Node& node, const std::function<void(const Node&)>& visit) {
    visit(node);
    for (const Node& inner : node.nodes)
        forEachNode(inner, visit);
}

// Every in-place flag on a value its producer may write in place (after shape inference).
void checkInPlaceTerms(const Graph& graph) {
    std::unordered_map<std::string, const Node*> byName{{graph.input.name, &graph.input}};
    bool any = false;
    for (const Block& b : graph.blocks)
        for (const Node* op : b.operators())
            forEachNode(*op, [&](const Node& n) {
                byName.emplace(n.name, &n);
                for (const Term& t : n.inputs)
                    for (const ValueRef& v : t)
                        any = any || v.inPlace;
            });
    if (!any)
        return; // the common case: no file written before rule R5 has a flag
    const std::unordered_map<std::string, int> refs = valueReferences(graph);
    for (const Block& b : graph.blocks)
        for (const Node* op : b.operators())
            forEachNode(*op, [&](const Node& n) {
                for (const Term& t : n.inputs)
                    for (const ValueRef& v : t) {
                        if (!v.inPlace)
                            continue;
                        const auto p = byName.find(v.node);
                        const auto r = refs.find(v.node);
                        const std::string why =
                            inPlaceObstacle(n, t, p == byName.end() ? nullptr : p->second,
                                            r == refs.end() ? 0 : r->second);
                        if (!why.empty())
                            throw UserError("input '" + v.node + "' cannot be in place: " + why, {},
                                            n.name);
                    }
            });
}

} // namespace

std::unordered_map<std::string, int> valueReferences(const Graph& graph) {
    std::unordered_map<std::string, int> refs;
    for (const Block& b : graph.blocks)
        for (const Node* op : b.operators())
            for (const Term& t : op->externalInputs())
                for (const ValueRef& v : t)
                    ++refs[v.node];
    if (!graph.blocks.empty())
        ++refs[graph.blocks.back().exitNode.name];
    return refs;
}

std::string inPlaceObstacle(const Node& node, const Term& term, const Node* producer,
                            int references) {
    if (term.size() != 1)
        return "the term sums several values";
    if (node.inputs.size() < 2)
        return "the node has fewer than two terms (no concatenation)";
    const ValueRef& v = term.front();
    if (producer == nullptr)
        return "unknown producer";
    if (producer->kind == NodeKind::Placeholder)
        return "the producer is the model input";
    if (v.begin != 0 || v.end != producer->outputShape.c)
        return "the term is a channel slice, not the producer's whole output";
    if (references != 1)
        return "the producer has other readers";
    return {};
}

void validateAndInferShapes(Graph& graph) {
    if (graph.input.kind != NodeKind::Placeholder)
        throw UserError("the model input must be a placeholder", {}, graph.input.name);
    if (graph.blocks.empty())
        throw UserError("the model has no blocks");
    checkDeclaredShape(graph.input, inferShape(graph.input, [](const std::string&) {
                           return static_cast<const TensorShape*>(nullptr);
                       }));

    std::unordered_set<std::string> allNames;
    collectNames(graph.input, allNames);
    for (const Block& b : graph.blocks) {
        for (const Node& n : b.innerNodes)
            collectNames(n, allNames);
        collectNames(b.exitNode, allNames);
    }

    const Node* enter = &graph.input;
    for (size_t bi = 0; bi < graph.blocks.size(); ++bi) {
        Block& block = graph.blocks[bi];
        if (block.enterName != enter->name || block.enterNode.name != enter->name)
            throw UserError("block " + std::to_string(bi) + " must enter from '" + enter->name +
                                "' (the previous block's exit), not '" + block.enterName + "'",
                            {}, block.enterNode.name);
        block.enterNode.outputShape = enter->outputShape;

        std::unordered_map<std::string, size_t> opIndex;
        const auto ops = block.operators();
        for (size_t i = 0; i < ops.size(); ++i) {
            if (ops[i]->kind == NodeKind::Placeholder)
                throw UserError("a placeholder may only be the model input", {}, ops[i]->name);
            opIndex.emplace(ops[i]->name, i);
        }
        for (const Node* op : ops)
            for (const Term& t : op->externalInputs())
                for (const ValueRef& v : t)
                    if (v.node != block.enterName && !opIndex.contains(v.node))
                        throw UserError(allNames.contains(v.node)
                                            ? "input '" + v.node + "' lies outside block " +
                                                  std::to_string(bi)
                                            : "unknown input '" + v.node + "'",
                                        {}, op->name);
        const std::vector<size_t> order = dependencyOrder(block, opIndex);
        // The exit node is the block's output: nothing inside the block may consume it.
        if (order.back() != block.innerNodes.size())
            for (const Node& n : block.innerNodes)
                for (const Term& t : n.externalInputs())
                    for (const ValueRef& v : t)
                        if (v.node == block.exitNode.name)
                            throw UserError("reads '" + v.node + "', the exit node of block " +
                                                std::to_string(bi) +
                                                "; the exit node must be the block's last "
                                                "operator",
                                            {}, n.name);
        // Inner nodes in dependency order (a no-op for topologically sorted files, as IOS
        // files are), so that file order is an execution order for everything downstream.
        if (!std::is_sorted(order.begin(), order.end())) {
            std::vector<Node> sorted;
            sorted.reserve(block.innerNodes.size());
            for (size_t i : order)
                if (i < block.innerNodes.size())
                    sorted.push_back(std::move(block.innerNodes[i]));
            block.innerNodes = std::move(sorted);
        }

        std::unordered_map<std::string, TensorShape> shapes{{block.enterName, enter->outputShape}};
        auto lookup = [&](const std::string& n) -> const TensorShape* {
            auto it = shapes.find(n);
            return it == shapes.end() ? nullptr : &it->second;
        };
        auto infer = [&](Node& n) {
            if (n.kind == NodeKind::Sequential)
                inferInnerShapes(n, lookup);
            const TensorShape s = inferShape(n, lookup);
            checkDeclaredShape(n, s);
            shapes.emplace(n.name, s);
        };
        for (Node& n : block.innerNodes)
            infer(n);
        infer(block.exitNode);
        enter = &block.exitNode;
    }
    checkInPlaceTerms(graph);
}

} // namespace ios::ir
