// SPDX-License-Identifier: Apache-2.0
#include "cost/stage_signature.h"

#include "cost/stage_memo.h"
#include "ir/metrics.h"

#include <cstdio>

namespace ios::cost {

namespace {

void appendLength(std::string& out, size_t n) {
    const auto v = static_cast<uint32_t>(n);
    for (int shift = 0; shift < 32; shift += 8)
        out += static_cast<char>((v >> shift) & 0xffU);
}

bool readLength(std::string_view& bytes, size_t& n) {
    if (bytes.size() < 4)
        return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
        v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[static_cast<size_t>(i)]))
             << (8 * i);
    bytes.remove_prefix(4);
    n = v;
    return true;
}

} // namespace

StageSignature stageSignature(const ir::BlockDag& dag, const schedule::Stage& stage,
                              const ir::ShapeLookup& shapeOf) {
    StageSignature s;
    s.kind = stage.kind;
    s.groups.reserve(stage.groups.size());
    for (const schedule::Group& group : stage.groups) {
        std::vector<std::string>& ops = s.groups.emplace_back();
        ops.reserve(group.size());
        for (int op : group)
            appendOperatorSignature(*dag.ops[static_cast<size_t>(op)], shapeOf, ops.emplace_back());
    }
    return s;
}

std::string signatureBytes(const StageSignature& signature) {
    std::string out;
    out += static_cast<char>(signature.kind);
    appendLength(out, signature.groups.size());
    for (const std::vector<std::string>& group : signature.groups) {
        appendLength(out, group.size());
        for (const std::string& op : group) {
            appendLength(out, op.size());
            out += op;
        }
    }
    return out;
}

std::optional<StageSignature> parseSignatureBytes(std::string_view bytes) {
    if (bytes.empty())
        return std::nullopt;
    StageSignature s;
    const auto kind = static_cast<unsigned char>(bytes.front());
    if (kind != static_cast<unsigned char>(schedule::StageKind::Parallel) &&
        kind != static_cast<unsigned char>(schedule::StageKind::Merge))
        return std::nullopt;
    s.kind = static_cast<schedule::StageKind>(kind);
    bytes.remove_prefix(1);
    size_t groups = 0;
    // Every group takes at least 4 bytes: a count beyond that is malformed, not a huge vector.
    if (!readLength(bytes, groups) || groups == 0 || groups > bytes.size() / 4)
        return std::nullopt;
    s.groups.resize(groups);
    for (std::vector<std::string>& group : s.groups) {
        size_t ops = 0;
        if (!readLength(bytes, ops) || ops == 0 || ops > bytes.size() / 4)
            return std::nullopt;
        group.resize(ops);
        for (std::string& op : group) {
            size_t length = 0;
            if (!readLength(bytes, length) || length == 0 || length > bytes.size())
                return std::nullopt;
            op.assign(bytes.substr(0, length));
            bytes.remove_prefix(length);
        }
    }
    if (!bytes.empty())
        return std::nullopt;
    return s;
}

uint64_t stableHash64(std::string_view bytes) {
    uint64_t h = 14695981039346656037ULL;
    for (char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    return h;
}

std::string stableHashHex(std::string_view bytes) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx",
                  static_cast<unsigned long long>(stableHash64(bytes)));
    return text;
}

namespace {

void appendNumber(std::string& out, int64_t v) {
    for (int shift = 0; shift < 64; shift += 8)
        out += static_cast<char>((static_cast<uint64_t>(v) >> shift) & 0xffU);
}

void appendText(std::string& out, std::string_view text) {
    appendLength(out, text.size());
    out += text;
}

// A node's name, operator signature and inputs, then its nested nodes' names and inputs.
void appendNode(std::string& out, const ir::Node& node, const ir::ShapeLookup& shapeOf) {
    appendText(out, node.name);
    std::string signature;
    appendOperatorSignature(node, shapeOf, signature);
    appendText(out, signature);
    appendLength(out, node.inputs.size());
    for (const ir::Term& term : node.inputs) {
        appendLength(out, term.size());
        for (const ir::ValueRef& v : term) {
            appendText(out, v.node);
            appendNumber(out, v.begin);
            appendNumber(out, v.end);
            out += v.inPlace ? '\1' : '\0';
        }
    }
    appendLength(out, node.nodes.size());
    for (const ir::Node& inner : node.nodes)
        appendNode(out, inner, shapeOf);
}

} // namespace

std::string modelContentHash(const ir::Graph& graph) {
    const ir::NodeIndex index(graph);
    const ir::ShapeLookup shapeOf = [&index](const std::string& name) -> const ir::TensorShape* {
        const ir::Node* n = index.find(name);
        return n ? &n->outputShape : nullptr;
    };
    std::string text = "ios-model-content-1";
    appendText(text, graph.input.name);
    appendNumber(text, graph.input.outputShape.c);
    appendNumber(text, graph.input.outputShape.h);
    appendNumber(text, graph.input.outputShape.w);
    appendLength(text, graph.blocks.size());
    for (const ir::Block& block : graph.blocks) {
        appendText(text, block.enterName);
        appendLength(text, block.innerNodes.size());
        for (const ir::Node& node : block.innerNodes)
            appendNode(text, node, shapeOf);
        appendNode(text, block.exitNode, shapeOf);
    }
    return stableHashHex(text);
}

} // namespace ios::cost
