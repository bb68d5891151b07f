// SPDX-License-Identifier: Apache-2.0
#include "io/ios_json.h"

#include "io/model_format.h"
#include "io/node_json.h"
#include "ir/block_dag.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_text.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace ios::io {

using util::dumpPythonStyle;
using util::Json;
using util::parseJsonDocument;

ir::Graph parseIosJson(std::string_view text, const std::string& source,
                       std::vector<std::string>* warnings) {
    return detail::graphFromJson(parseJsonDocument(text, source).root(), detail::Dialect::Ios,
                                 source, warnings);
}

namespace {

// The names of the nodes (sequentials' inner ones included) for which `pick` holds.
template <class Pick>
void collectNodes(const ir::Node& node, const Pick& pick, std::vector<std::string>& names) {
    if (pick(node))
        names.push_back(node.name);
    for (const ir::Node& inner : node.nodes)
        collectNodes(inner, pick, names);
}

template <class Pick> std::string quotedNodes(const ir::Graph& graph, const Pick& pick) {
    std::vector<std::string> nodes;
    for (const ir::Block& b : graph.blocks)
        for (const ir::Node* op : b.operators())
            collectNodes(*op, pick, nodes);
    // Five names, then a count: a transformer has dozens of each kind.
    std::string list;
    for (size_t k = 0; k < nodes.size() && k < 5; ++k)
        list += (list.empty() ? "'" : ", '") + nodes[k] + "'";
    if (nodes.size() > 5)
        list += " and " + std::to_string(nodes.size() - 5) + " more";
    return list;
}

bool hasInPlaceTerm(const ir::Node& node) { // once per node, however many terms are flagged
    return std::any_of(node.inputs.begin(), node.inputs.end(), [](const ir::Term& t) {
        return std::any_of(t.begin(), t.end(), [](const ir::ValueRef& v) { return v.inPlace; });
    });
}

// An activation of act_type "identity" (the ONNX importer's standalone BatchNormalization):
// the IOS authors' Python loader reads it, their runtimes refuse it.
bool isIdentityActivation(const ir::Node& node) {
    return node.kind == ir::NodeKind::Activation && node.activation == ir::ActType::Identity;
}

// A GELU, standalone or fused into a convolution: neither the IOS authors' loader nor their
// runtimes know it.
bool hasGelu(const ir::Node& node) {
    return (node.kind == ir::NodeKind::Activation && node.activation == ir::ActType::Gelu) ||
           (node.kind == ir::NodeKind::Conv && node.conv.act == ir::ActType::Gelu);
}

bool isNorm(const ir::Node& node) {
    return node.kind == ir::NodeKind::Norm;
}

bool isMatmul(const ir::Node& node) {
    return node.kind == ir::NodeKind::Matmul;
}

bool isTokens(const ir::Node& node) {
    return node.kind == ir::NodeKind::Tokens;
}

} // namespace

std::string writeIosJson(const ir::Graph& graph, std::vector<std::string>* warnings) {
    if (warnings != nullptr) {
        if (const std::string list = quotedNodes(graph, hasInPlaceTerm); !list.empty())
            warnings->push_back("IOS JSON cannot mark in-place concatenation terms: written as "
                                "ordinary copies (same values) at " +
                                list + "; the native format (.json) keeps them");
        if (const std::string list = quotedNodes(graph, isIdentityActivation); !list.empty())
            warnings->push_back("activation act_type 'identity' at " + list +
                                ": the IOS authors' loader reads it, but their runtimes run "
                                "only relu, tanh and sigmoid activations");
        // Kinds and act types of this tool's own (issue 31): the IOS tools do not know them.
        const struct {
            bool (*has)(const ir::Node&);
            const char* what;
            const char* writtenAs;
        } own[] = {
            {hasGelu, "GELU activations", "act_type 'gelu'"},
            {isNorm, "LayerNorm/softmax operators", "type 'norm'"},
            {isMatmul, "products of two activations (attention)", "type 'matmul'"},
            {isTokens, "token gathers (class tokens, positional embeddings)", "type 'tokens'"},
        };
        for (const auto& o : own)
            if (const std::string list = quotedNodes(graph, o.has); !list.empty())
                warnings->push_back(std::string(o.what) + " at " + list + ": written as " +
                                    o.writtenAs +
                                    ", which the IOS authors' loader and runtimes do not know; "
                                    "the native format (.json) is this tool's own");
        for (size_t b = 0; b < graph.blocks.size(); ++b)
            if (!graph.blocks[b].parts.empty())
                warnings->push_back(
                    "IOS JSON cannot hold explicit DP parts: block " + std::to_string(b + 1) +
                    "'s " + std::to_string(graph.blocks[b].parts.size()) +
                    " parts are left out (the file reopened as a model is cut by max part "
                    "size); the native format (.json) keeps them");
    }
    return dumpPythonStyle(detail::graphToJson(graph, detail::Dialect::Ios));
}

namespace {

// A decimal operator name as the split rule needs it; nullopt for anything else.
std::optional<int64_t> integerName(const std::string& name) {
    int64_t k = 0;
    const char* end = name.data() + name.size();
    const auto [ptr, ec] = std::from_chars(name.data(), end, k);
    if (name.empty() || ec != std::errc() || ptr != end || k < 0)
        return std::nullopt;
    return k;
}

std::vector<std::string> stringList(const Json& doc, const char* key) {
    const auto it = doc.find(key);
    if (it == doc.end())
        throw UserError(std::string("missing field '") + key + "'");
    std::vector<std::string> out;
    const bool ok = it->is_array() && [&] {
        for (const Json& v : *it) {
            if (!v.is_string())
                return false;
            out.push_back(v.get<std::string>());
        }
        return true;
    }();
    if (!ok)
        throw UserError(std::string("field '") + key + "' must be an array of strings");
    return out;
}

// docs/formats.md "Parts files": an operator with integer name k belongs to part i-1 when
// split[i-1] < k <= split[i]. The split list must be strictly increasing integers.
std::vector<std::vector<std::string>> partsBySplit(const ir::Block& block,
                                                   const std::vector<std::string>& split) {
    std::vector<int64_t> bounds;
    for (const std::string& s : split) {
        const std::optional<int64_t> k = integerName(s);
        if (!k || (!bounds.empty() && *k <= bounds.back()))
            throw UserError("field 'split_node_names' must hold strictly increasing integer "
                            "names, not '" +
                            s + "'");
        bounds.push_back(*k);
    }
    if (bounds.size() < 2)
        throw UserError("field 'split_node_names' must hold at least two names");
    std::vector<std::vector<std::string>> parts(bounds.size() - 1);
    for (const ir::Node* op : block.operators()) {
        const std::optional<int64_t> k = integerName(op->name);
        if (!k || *k <= bounds.front() || *k > bounds.back())
            throw UserError("the split rule places the operator in no part", {}, op->name);
        const size_t i = static_cast<size_t>(std::lower_bound(bounds.begin(), bounds.end(), *k) -
                                             bounds.begin());
        parts[i - 1].push_back(op->name);
    }
    for (size_t i = 0; i < parts.size(); ++i)
        if (parts[i].empty())
            throw UserError("part " + std::to_string(i) + " of the split rule is empty");
    return parts;
}

// The optional "part_sizes" and "parts" fields restate the rule's result; check they agree.
void checkRestatedParts(const Json& doc, const std::vector<std::vector<std::string>>& parts) {
    if (const auto it = doc.find("part_sizes"); it != doc.end()) {
        bool ok = it->is_array() && it->size() == parts.size();
        for (size_t i = 0; ok && i < parts.size(); ++i)
            ok = (*it)[i].is_number_integer() &&
                 (*it)[i].get<int64_t>() == static_cast<int64_t>(parts[i].size());
        if (!ok)
            throw UserError("field 'part_sizes' disagrees with the parts given by "
                            "'split_node_names'");
    }
    if (const auto it = doc.find("parts"); it != doc.end()) {
        bool ok = it->is_array() && it->size() == parts.size();
        for (size_t i = 0; ok && i < parts.size(); ++i) {
            const Json& list = (*it)[i];
            ok = list.is_array() && list.size() == parts[i].size();
            for (size_t j = 0; ok && j < parts[i].size(); ++j)
                ok = list[j].is_string() && list[j].get_ref<const std::string&>() == parts[i][j];
        }
        if (!ok)
            throw UserError("field 'parts' disagrees with the parts given by 'split_node_names'");
    }
}

} // namespace

void applyPartsJson(ir::Graph& graph, std::string_view text, const std::string& source) {
    const util::JsonDocument parsed = parseJsonDocument(text, source);
    const Json& doc = parsed.root();
    try {
        if (!doc.is_object())
            throw UserError("a parts file must be a JSON object");
        for (const auto& item : doc.items())
            if (item.key() != "model" && item.key() != "block_index" && item.key() != "note" &&
                item.key() != "split_node_names" && item.key() != "part_sizes" &&
                item.key() != "parts")
                throw UserError("unknown field '" + item.key() + "'");
        if (const auto it = doc.find("model"); it != doc.end() && *it != Json(graph.name))
            throw UserError("the parts are for model " + it->dump() + ", not '" + graph.name + "'");
        const auto index = doc.find("block_index");
        if (index == doc.end())
            throw UserError("missing field 'block_index'");
        if (!index->is_number_integer() || index->get<int64_t>() < 0 ||
            index->get<int64_t>() >= static_cast<int64_t>(graph.blocks.size()))
            throw UserError("field 'block_index' must be an integer in [0, " +
                            std::to_string(graph.blocks.size()) + ")");
        ir::Block& block = graph.blocks[static_cast<size_t>(index->get<int64_t>())];
        auto parts = partsBySplit(block, stringList(doc, "split_node_names"));
        checkRestatedParts(doc, parts);
        block.parts = std::move(parts);
        ir::buildBlockDag(block); // the parts must follow the dependencies
    } catch (const UserError& e) {
        throw e.inFile(source);
    }
}

namespace {

// "model.ios.json" -> "model.parts.json": the explicit DP parts that the IOS format cannot
// hold (reference_models/nasnet_large.parts.json sits beside its model this way).
std::filesystem::path partsFileBeside(const std::filesystem::path& path) {
    std::string name = path.filename().string();
    name.resize(name.size() - std::string_view(".ios.json").size());
    return path.parent_path() / (name + ".parts.json");
}

ir::Graph readIosJsonFile(const std::filesystem::path& path, std::vector<std::string>* warnings) {
    ir::Graph graph =
        parseIosJson(util::readInputFile(path, util::InputKind::Model), path.string(), warnings);
    // Optional; when something is there it is read through the same checks (a FIFO or a
    // device there is an error, not silently skipped).
    const std::filesystem::path parts = partsFileBeside(path);
    if (util::inputExists(parts))
        applyPartsJson(graph, util::readInputFile(parts, util::InputKind::Parts), parts.string());
    return graph;
}

} // namespace

IOS_REGISTER_MODEL_FORMAT(
    ios_json,
    ModelFormatEntry{.key = "ios-json",
                     .suffix = ".ios.json",
                     .label = "IOS JSON",
                     .rank = 10,
                     .read =
                         [](const std::filesystem::path& path, const ModelLoadOptions& options) {
                             return readIosJsonFile(path, options.warnings);
                         },
                     .write = [](const ir::Graph& graph, std::vector<std::string>* warnings,
                                 const Provenance*) { return writeIosJson(graph, warnings); }});

} // namespace ios::io
