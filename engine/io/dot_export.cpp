// SPDX-License-Identifier: Apache-2.0
#include "io/dot_export.h"

#include "io/model_format.h"
#include "io/provenance.h"

#include <algorithm>

namespace ios::io {

namespace {

using ir::Node;
using ir::NodeKind;

// Text inside a DOT double-quoted string. Backslash and quote are escaped so that a name
// shows literally (a lone backslash would start a label escape such as \n or \N); control
// characters become spaces.
std::string escaped(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char ch : s) {
        if (ch == '\\' || ch == '"') {
            out += '\\';
            out += ch;
        } else if (static_cast<unsigned char>(ch) < 0x20) {
            out += ' ';
        } else {
            out += ch;
        }
    }
    return out;
}

std::string dotQuoted(std::string_view s) {
    return "\"" + escaped(s) + "\"";
}

std::string hwText(const ir::Hw& v) {
    return std::to_string(v.h) + "x" + std::to_string(v.w);
}

std::string kindText(const Node& n) {
    switch (n.kind) {
    case NodeKind::Conv: {
        std::string s = "conv " + hwText(n.conv.kernel);
        if (n.conv.stride != ir::Hw{1, 1})
            s += " stride " + hwText(n.conv.stride);
        if (n.conv.groups != 1)
            s += " groups " + std::to_string(n.conv.groups);
        if (n.conv.act != ir::ActType::Identity)
            s += " " + std::string(ir::toString(n.conv.act));
        return s;
    }
    case NodeKind::Pool:
        if (n.pool.type == ir::PoolType::GlobalAvg || n.pool.type == ir::PoolType::GlobalMax)
            return std::string(ir::toString(n.pool.type)) + " pool";
        return std::string(ir::toString(n.pool.type)) + " pool " + hwText(n.pool.kernel) +
               (n.pool.stride != ir::Hw{1, 1} ? " stride " + hwText(n.pool.stride) : "");
    case NodeKind::Identity:
        if (n.inputs.size() > 1)
            return "concat";
        return !n.inputs.empty() && n.inputs.front().size() > 1 ? "sum" : "identity";
    case NodeKind::Activation:
        return "activation " + std::string(ir::toString(n.activation));
    case NodeKind::Element:
        return "element " + std::string(ir::toString(n.element));
    case NodeKind::Norm:
        return std::string(ir::toString(n.norm.type)) +
               (n.norm.groups > 1 ? " x" + std::to_string(n.norm.groups) + " groups" : "");
    case NodeKind::Matmul:
        return std::string(n.matmul.transposeB ? "matmul A*B^T" : "matmul A*B") +
               (n.matmul.heads > 1 ? " x" + std::to_string(n.matmul.heads) + " heads" : "") +
               (n.matmul.windows > 1 ? " x" + std::to_string(n.matmul.windows) + " windows" : "");
    case NodeKind::Tokens:
        return "tokens " + std::to_string(n.tokens.index.size()) +
               (n.tokens.learnedTokens() > 0
                    ? " (" + std::to_string(n.tokens.learnedTokens()) + " learned)"
                    : "") +
               (n.tokens.embed ? " +embedding" : "");
    case NodeKind::Sequential: {
        std::string s = "sequential:";
        for (const Node& inner : n.nodes)
            s += " " + std::string(ir::toString(inner.kind));
        return s;
    }
    case NodeKind::Placeholder:
        return "input";
    case NodeKind::Relu:
    case NodeKind::Opaque:
        break;
    }
    return std::string(ir::toString(n.kind));
}

// One DOT node statement; `stage` < 0 leaves it uncoloured.
std::string nodeStatement(const Node& n, int stage, const std::string& indent) {
    std::string label = escaped(n.name);
    if (n.hintName != n.name)
        label += " (" + escaped(n.hintName) + ")";
    label += "\\n" + escaped(kindText(n));
    label += "\\n" + std::to_string(n.outputShape.c) + "x" + std::to_string(n.outputShape.h) + "x" +
             std::to_string(n.outputShape.w);
    std::string attrs = "label=\"" + label;
    if (stage >= 0) {
        // set312 is a 12-colour qualitative Graphviz scheme; stages cycle through it.
        attrs +=
            "\\nstage " + std::to_string(stage) + "\", fillcolor=" + std::to_string(stage % 12 + 1);
    } else {
        attrs += "\"";
    }
    return indent + dotQuoted(n.name) + " [" + attrs + "];\n";
}

// Edges from each distinct producer named in `n`'s inputs, in order of first mention.
std::string edgeStatements(const Node& n) {
    std::vector<const std::string*> producers;
    for (const ir::Term& term : n.externalInputs())
        for (const ir::ValueRef& v : term)
            if (std::none_of(producers.begin(), producers.end(),
                             [&](const std::string* p) { return *p == v.node; }))
                producers.push_back(&v.node);
    std::string out;
    for (const std::string* p : producers)
        out += "  " + dotQuoted(*p) + " -> " + dotQuoted(n.name) + ";\n";
    return out;
}

} // namespace

std::string writeDot(const ir::Graph& graph, const DotOptions& options) {
    std::string out = "digraph " + dotQuoted(graph.name) + " {\n";
    out += "  node [shape=box, style=\"rounded,filled\", fillcolor=white, colorscheme=set312, "
           "fontname=\"Helvetica\"];\n";
    out += nodeStatement(graph.input, -1, "  ");
    std::string edges;
    for (size_t b = 0; b < graph.blocks.size(); ++b) {
        const ir::Block& block = graph.blocks[b];
        const std::vector<int>* stages =
            b < options.stageOfOperator.size() ? &options.stageOfOperator[b] : nullptr;
        out += "  subgraph " + dotQuoted("cluster_" + std::to_string(b)) + " {\n";
        out += "    label=\"block " + std::to_string(b) + "\";\n";
        const auto ops = block.operators();
        for (size_t i = 0; i < ops.size(); ++i) {
            const int stage = stages != nullptr && i < stages->size() ? (*stages)[i] : -1;
            out += nodeStatement(*ops[i], stage, "    ");
            edges += edgeStatements(*ops[i]);
        }
        out += "  }\n";
    }
    return out + edges + "}\n";
}

IOS_REGISTER_MODEL_FORMAT(dot, ModelFormatEntry{
                                   .key = "dot",
                                   .suffix = ".dot",
                                   .label = "Graphviz DOT",
                                   .rank = 40,
                                   .read = {},
                                   .write = [](const ir::Graph& graph, std::vector<std::string>*,
                                               const Provenance* provenance) {
                                       return (provenance != nullptr
                                                   ? provenanceComment(*provenance, "// ")
                                                   : std::string()) +
                                              writeDot(graph);
                                   }});

} // namespace ios::io
