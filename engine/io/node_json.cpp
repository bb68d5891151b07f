// SPDX-License-Identifier: Apache-2.0
#include "io/node_json.h"

#include "io/json_object_reader.h"
#include "ir/block_dag.h"
#include "ir/validate.h"
#include "schedule/ios_stages.h"
#include "schedule/verify.h"
#include "util/error.h"

#include <array>
#include <initializer_list>
#include <optional>
#include <unordered_set>

namespace ios::io::detail {

using util::Json;

namespace {

using ir::Hw;
using ir::Node;
using ir::NodeKind;
using ir::TensorShape;

// ---------------------------------------------------------------------------------------
// Reading

Hw readHw(const ObjectReader& r, const char* key) {
    const auto v = r.integers<2>(key, ir::kMaxKernel);
    return {v[0], v[1]};
}

// pool_type as the IOS authors' runtimes read it: "max" in the text selects max pooling, else
// "avg" average pooling (their TensorRT runtime refuses text with neither); "global" in it
// pools the whole input. So their AlexNet's "max_pool" is max pooling.
std::optional<ir::PoolType> poolTypeFromIos(std::string_view s) {
    const bool max = s.find("max") != std::string_view::npos;
    if (!max && s.find("avg") == std::string_view::npos)
        return std::nullopt;
    if (s.find("global") != std::string_view::npos)
        return max ? ir::PoolType::GlobalMax : ir::PoolType::GlobalAvg;
    return max ? ir::PoolType::Max : ir::PoolType::Avg;
}

// The native format's marker on a value its producer writes in place (ir::ValueRef::inPlace):
// a fourth element, so files without flags read and write exactly as IOS JSON does.
constexpr const char* kInPlaceMarker = "in_place";

std::vector<ir::Term> readInputs(const ObjectReader& r, Dialect dialect) {
    const Json& terms = r.array("inputs");
    std::vector<ir::Term> out;
    out.reserve(terms.size());
    for (size_t t = 0; t < terms.size(); ++t) {
        if (!terms[t].is_array())
            r.failField("inputs", "term " + std::to_string(t) + " must be an array of values");
        ir::Term term;
        term.reserve(terms[t].size());
        for (const Json& v : terms[t]) {
            ir::ValueRef ref;
            const bool marked = dialect == Dialect::Native && v.is_array() && v.size() == 4 &&
                                v[3] == Json(kInPlaceMarker);
            const bool ok = v.is_array() && (v.size() == 3 || marked) && v[0].is_string() &&
                            toInt(v[1], ir::kMaxDim, ref.begin) &&
                            toInt(v[2], ir::kMaxDim, ref.end);
            if (!ok)
                r.failField("inputs", "term " + std::to_string(t) +
                                          " holds a value that is not [name, begin, end" +
                                          (dialect == Dialect::Native
                                               ? std::string("[, \"") + kInPlaceMarker + "\"]"
                                               : std::string()) +
                                          "] with begin and end in " + rangeText(ir::kMaxDim));
            ref.node = v[0].get<std::string>();
            ref.inPlace = marked;
            term.push_back(std::move(ref));
        }
        out.push_back(std::move(term));
    }
    return out;
}

Node readNode(const Json& j, const std::string& path, Dialect dialect) {
    ObjectReader r(j, path);
    Node n;
    n.name = r.string("name");
    r.setNode(n.name);
    const std::string type = r.string("type");
    const std::optional<NodeKind> kind = ir::nodeKindFromString(type);
    if (!kind)
        r.fail("unknown node type '" + type + "'");
    n.kind = *kind;
    n.hintName = r.string("hint_name");
    if (n.kind != NodeKind::Placeholder && n.kind != NodeKind::Sequential)
        n.inputs = readInputs(r, dialect);
    const auto shape = r.integers<3>("output_shape", ir::kMaxDim);
    n.outputShape = {shape[0], shape[1], shape[2]};

    switch (n.kind) {
    case NodeKind::Conv:
        r.allowOnly({"type", "name", "hint_name", "inputs", "out_channels", "kernel", "stride",
                     "padding", "groups", "act", "output_shape"});
        n.conv.outChannels = r.integer("out_channels", ir::kMaxDim);
        n.conv.kernel = readHw(r, "kernel");
        n.conv.stride = readHw(r, "stride");
        n.conv.padding = readHw(r, "padding");
        n.conv.groups = r.integer("groups", ir::kMaxDim);
        n.conv.act =
            r.enumeration("act", &ir::actTypeFromString, "identity, relu, tanh, sigmoid, gelu");
        break;
    case NodeKind::Pool:
        r.allowOnly({"type", "name", "hint_name", "inputs", "pool_type", "kernel", "stride",
                     "padding", "output_shape"});
        n.pool.type = r.enumeration("pool_type", &poolTypeFromIos,
                                    "max, avg, global_max, global_avg (or a spelling holding "
                                    "'max' or 'avg', and 'global' for global pooling)");
        n.pool.kernel = readHw(r, "kernel");
        n.pool.stride = readHw(r, "stride");
        n.pool.padding = readHw(r, "padding");
        break;
    case NodeKind::Activation:
        r.allowOnly({"type", "name", "hint_name", "inputs", "act_type", "inplace", "output_shape"});
        n.activation = r.enumeration("act_type", &ir::actTypeFromString,
                                     "identity, relu, tanh, sigmoid, gelu");
        // absent in files this tool wrote before it knew the field: false
        n.activationInPlace = r.boolean("inplace", false);
        break;
    case NodeKind::Element:
        r.allowOnly({"type", "name", "hint_name", "inputs", "op_type", "output_shape"});
        n.element = r.enumeration("op_type", &ir::elementOpFromString, "add, mul");
        break;
    case NodeKind::Norm:
        r.allowOnly({"type", "name", "hint_name", "inputs", "norm_type", "groups", "epsilon",
                     "output_shape"});
        n.norm.type = r.enumeration("norm_type", &ir::normTypeFromString, "layernorm, softmax");
        n.norm.groups = r.integer("groups", ir::kMaxDim);
        n.norm.epsilon = r.real("epsilon", 0, 1);
        break;
    case NodeKind::Matmul:
        r.allowOnly({"type", "name", "hint_name", "inputs", "heads", "transpose_b", "alpha",
                     "windows", "output_shape"});
        n.matmul.heads = r.integer("heads", ir::kMaxDim);
        n.matmul.transposeB = r.boolean("transpose_b", true);
        n.matmul.alpha = r.real("alpha", -1e12, 1e12);
        n.matmul.windows = r.integer("windows", ir::kMaxDim, 1);
        break;
    case NodeKind::Tokens: {
        r.allowOnly({"type", "name", "hint_name", "inputs", "index", "out_hw", "embed",
                     "embed_channels", "embed_positions", "output_shape"});
        const auto hw = r.integers<2>("out_hw", ir::kMaxDim);
        n.tokens.outHw = {hw[0], hw[1]};
        n.tokens.index =
            r.integerList("index", -ir::kMaxDim, ir::kMaxDim, static_cast<size_t>(ir::kMaxDim));
        n.tokens.embed = r.boolean("embed", false);
        n.tokens.embedChannels = r.integer("embed_channels", ir::kMaxDim, 0);
        n.tokens.embedPositions = r.integer("embed_positions", ir::kMaxDim, 0);
        break;
    }
    case NodeKind::Sequential: {
        r.allowOnly({"type", "name", "hint_name", "nodes", "output_shape"});
        const Json& nodes = r.array("nodes");
        n.nodes.reserve(nodes.size());
        for (size_t i = 0; i < nodes.size(); ++i)
            n.nodes.push_back(
                readNode(nodes[i], path + ".nodes[" + std::to_string(i) + "]", dialect));
        break;
    }
    case NodeKind::Placeholder:
        r.allowOnly({"type", "name", "hint_name", "output_shape"});
        break;
    case NodeKind::Identity:
    case NodeKind::Relu:
    case NodeKind::Opaque:
        r.allowOnly({"type", "name", "hint_name", "inputs", "output_shape"});
        break;
    }
    return n;
}

// An array of arrays of operator names: the parts of a block, or the groups of a stage.
std::vector<std::vector<std::string>> readNameLists(const Json& v, const ObjectReader& r,
                                                    const char* key) {
    std::vector<std::vector<std::string>> out;
    for (const Json& list : v) {
        if (!list.is_array())
            r.failField(key, "must hold arrays of operator names");
        std::vector<std::string> names;
        names.reserve(list.size());
        for (const Json& name : list) {
            if (!name.is_string())
                r.failField(key, "must hold arrays of operator names");
            names.push_back(name.get<std::string>());
        }
        out.push_back(std::move(names));
    }
    return out;
}

ir::Block readBlock(const Json& j, size_t index, Dialect dialect) {
    const std::string path = "blocks[" + std::to_string(index) + "]";
    ObjectReader r(j, path);
    if (dialect == Dialect::Native)
        r.allowOnly({"enter_name", "enter_node", "inner_nodes", "exit_node", "stages",
                     "merge_stages", "parts"});
    else
        r.allowOnly({"enter_name", "enter_node", "inner_nodes", "exit_node", "stages"});
    ir::Block b;
    b.enterName = r.string("enter_name");
    b.enterNode = readNode(r.field("enter_node"), path + ".enter_node", dialect);
    const Json& inner = r.array("inner_nodes");
    b.innerNodes.reserve(inner.size());
    for (size_t i = 0; i < inner.size(); ++i)
        b.innerNodes.push_back(
            readNode(inner[i], path + ".inner_nodes[" + std::to_string(i) + "]", dialect));
    b.exitNode = readNode(r.field("exit_node"), path + ".exit_node", dialect);

    // null: a block the IOS authors' export_config() wrote before any schedule was set.
    static const Json kUnscheduled = Json::array();
    const Json& stages = r.field("stages").is_null() ? kUnscheduled : r.array("stages");
    for (const Json& stage : stages) {
        if (!stage.is_array())
            r.failField("stages", "must hold stages, each an array of groups of operator names");
        b.stages.push_back(readNameLists(stage, r, "stages"));
    }
    // Which stages are merges: checked here, read by io/schedule_document.h (a model keeps
    // names only, so a model load reads a merge stage as one group run in order).
    if (dialect == Dialect::Native && j.contains("merge_stages"))
        for (const Json& i : r.array("merge_stages"))
            if (!i.is_number_unsigned() || i.get<uint64_t>() >= b.stages.size())
                r.failField("merge_stages", "must hold indices of stages");
    if (dialect == Dialect::Native)
        b.parts = readNameLists(r.array("parts"), r, "parts");

    return b;
}

// Full schedule verification belongs to the schedule module; here only names are checked, so
// that nothing downstream meets an operator that does not exist.
void checkStageNames(const ir::Block& b, size_t index) {
    std::unordered_set<std::string> ops;
    for (const Node* op : b.operators())
        ops.insert(op->name);
    for (size_t s = 0; s < b.stages.size(); ++s)
        for (const ir::NameGroup& group : b.stages[s])
            for (const std::string& name : group)
                if (!ops.contains(name))
                    throw UserError("block " + std::to_string(index) + ": stage " +
                                    std::to_string(s) + " names '" + name +
                                    "', which is not an operator of the block");
}

// The stages a block carries must be a valid schedule of it (every operator once, in
// dependency order), so that whatever reads them back (schedule files, convert) meets no
// impossible schedule. A block without stages is unscheduled, which is fine.
void checkStages(const ir::Graph& g) {
    bool any = false;
    for (const ir::Block& b : g.blocks)
        any = any || !b.stages.empty();
    if (!any)
        return;
    const std::vector<ir::BlockDag> dags = ir::buildDags(g);
    const schedule::Schedule s = schedule::scheduleFromStages(g, dags);
    for (size_t i = 0; i < g.blocks.size(); ++i) {
        if (g.blocks[i].stages.empty())
            continue;
        try {
            schedule::verify(dags[i], s.blocks[i]);
        } catch (const UserError& e) {
            throw UserError("block " + std::to_string(i) +
                                ": the stages are not a schedule of the block: " + e.message(),
                            {}, e.node());
        }
    }
}

// ---------------------------------------------------------------------------------------
// Writing

Json hwJson(const Hw& v) {
    return Json::array({v.h, v.w});
}

// IOS JSON has no place for ValueRef::inPlace: it drops the flag (the value still reads the
// same channels; writeIosJson reports what it dropped).
Json inputsJson(const std::vector<ir::Term>& terms, Dialect dialect) {
    Json out = Json::array();
    for (const ir::Term& term : terms) {
        Json t = Json::array();
        for (const ir::ValueRef& v : term) {
            Json value = Json::array({Json(v.node), Json(v.begin), Json(v.end)});
            if (v.inPlace && dialect == Dialect::Native)
                value.push_back(Json(kInPlaceMarker));
            t.push_back(std::move(value));
        }
        out.push_back(std::move(t));
    }
    return out;
}

Json nodeToJson(const Node& n, Dialect dialect) {
    Json j = Json::object();
    j["type"] = std::string(ir::toString(n.kind));
    j["name"] = n.name;
    j["hint_name"] = n.hintName;
    if (n.kind != NodeKind::Placeholder && n.kind != NodeKind::Sequential)
        j["inputs"] = inputsJson(n.inputs, dialect);
    switch (n.kind) {
    case NodeKind::Conv:
        j["out_channels"] = n.conv.outChannels;
        j["kernel"] = hwJson(n.conv.kernel);
        j["stride"] = hwJson(n.conv.stride);
        j["padding"] = hwJson(n.conv.padding);
        j["groups"] = n.conv.groups;
        j["act"] = std::string(ir::toString(n.conv.act));
        break;
    case NodeKind::Pool:
        j["pool_type"] = std::string(ir::toString(n.pool.type));
        j["kernel"] = hwJson(n.pool.kernel);
        j["stride"] = hwJson(n.pool.stride);
        j["padding"] = hwJson(n.pool.padding);
        break;
    case NodeKind::Activation:
        j["act_type"] = std::string(ir::toString(n.activation));
        j["inplace"] = n.activationInPlace; // required by the IOS authors' loader
        break;
    case NodeKind::Element:
        j["op_type"] = std::string(ir::toString(n.element));
        break;
    case NodeKind::Norm:
        j["norm_type"] = std::string(ir::toString(n.norm.type));
        j["groups"] = n.norm.groups;
        j["epsilon"] = n.norm.epsilon;
        break;
    case NodeKind::Matmul:
        j["heads"] = n.matmul.heads;
        j["transpose_b"] = n.matmul.transposeB;
        j["alpha"] = n.matmul.alpha;
        if (n.matmul.windows != 1)
            j["windows"] = n.matmul.windows;
        break;
    case NodeKind::Tokens:
        j["index"] = n.tokens.index;
        j["out_hw"] = hwJson(n.tokens.outHw);
        j["embed"] = n.tokens.embed;
        if (n.tokens.embedChannels > 0)
            j["embed_channels"] = n.tokens.embedChannels;
        if (n.tokens.embedPositions > 0)
            j["embed_positions"] = n.tokens.embedPositions;
        break;
    case NodeKind::Sequential: {
        Json nodes = Json::array();
        for (const Node& inner : n.nodes)
            nodes.push_back(nodeToJson(inner, dialect));
        j["nodes"] = std::move(nodes);
        break;
    }
    case NodeKind::Identity:
    case NodeKind::Relu:
    case NodeKind::Placeholder:
    case NodeKind::Opaque:
        break;
    }
    j["output_shape"] = Json::array({n.outputShape.c, n.outputShape.h, n.outputShape.w});
    return j;
}

template <typename Lists> Json nameListsJson(const Lists& lists) {
    Json out = Json::array();
    for (const auto& list : lists)
        out.push_back(Json(list));
    return out;
}

} // namespace

Json graphToJson(const ir::Graph& graph, Dialect dialect) {
    Json blocks = Json::array();
    for (const ir::Block& b : graph.blocks) {
        Json jb = Json::object();
        jb["enter_name"] = b.enterName;
        jb["enter_node"] = nodeToJson(b.enterNode, dialect);
        Json inner = Json::array();
        for (const Node& n : b.innerNodes)
            inner.push_back(nodeToJson(n, dialect));
        jb["inner_nodes"] = std::move(inner);
        jb["exit_node"] = nodeToJson(b.exitNode, dialect);
        jb["stages"] = nameListsJson(b.stages);
        if (dialect == Dialect::Native)
            jb["parts"] = nameListsJson(b.parts);
        blocks.push_back(std::move(jb));
    }
    Json j = Json::object();
    j["name"] = graph.name;
    j["input"] = nodeToJson(graph.input, dialect);
    j["blocks"] = std::move(blocks);
    return j;
}

namespace {

// The IOS authors' CUDA runtime (src/ios/ios_runtime.cu, ElementOP) runs an element-wise
// node over the shape of its first value and reads each other value's buffer from its start,
// so a wider value contributes its first channels (at batch 1; their PyTorch runtime refuses
// such a node). Their resnet50() writes such sums (a 64-channel conv plus a 256-channel
// skip). Read as their runtime computes it: the wider value narrowed to the first value's
// width. Appends each node narrowed to `narrowed`, as "'7' (64 of 256 channels from '3')".
void narrowWideElementValues(Node& node, std::vector<std::string>& narrowed) {
    for (Node& inner : node.nodes)
        narrowWideElementValues(inner, narrowed);
    if (node.kind != NodeKind::Element || node.inputs.size() != 1 || node.inputs[0].empty())
        return;
    ir::Term& term = node.inputs[0];
    const int64_t width = term.front().channels();
    for (ir::ValueRef& v : term) {
        if (width <= 0 || v.channels() <= width)
            continue;
        narrowed.push_back("'" + node.name + "' (" + std::to_string(width) + " of " +
                           std::to_string(v.channels()) + " channels from '" + v.node + "')");
        v.end = v.begin + width;
    }
}

void readAsAuthorsRuntime(ir::Graph& g, std::vector<std::string>* warnings) {
    std::vector<std::string> narrowed;
    for (ir::Block& b : g.blocks) {
        std::vector<std::string> ignored; // the previous block's exit node, said there
        narrowWideElementValues(b.enterNode, ignored);
        for (Node& n : b.innerNodes)
            narrowWideElementValues(n, narrowed);
        narrowWideElementValues(b.exitNode, narrowed);
    }
    if (narrowed.empty() || warnings == nullptr)
        return;
    std::string list;
    for (size_t i = 0; i < narrowed.size() && i < 3; ++i)
        list += (i == 0 ? "" : ", ") + narrowed[i];
    if (narrowed.size() > 3)
        list += " and " + std::to_string(narrowed.size() - 3) + " more";
    warnings->push_back(
        std::to_string(narrowed.size()) +
        (narrowed.size() == 1 ? " element-wise node combines" : " element-wise nodes combine") +
        std::string(" inputs of different widths: ") + list +
        "; read as the IOS authors' CUDA runtime computes them at batch 1, with "
        "the first channels of the wider input (their PyTorch runtime refuses "
        "such a file)");
}

} // namespace

ir::Graph graphFromJson(const Json& model, Dialect dialect, const std::string& source,
                        std::vector<std::string>* warnings) {
    try {
        ObjectReader r(model, "the model object");
        r.allowOnly({"name", "input", "blocks"});
        ir::Graph g;
        g.name = r.string("name");
        g.input = readNode(r.field("input"), "input", dialect);
        const Json& blocks = r.array("blocks");
        g.blocks.reserve(blocks.size());
        for (size_t i = 0; i < blocks.size(); ++i)
            g.blocks.push_back(readBlock(blocks[i], i, dialect));

        if (dialect == Dialect::Ios)
            readAsAuthorsRuntime(g, warnings);
        ir::validateAndInferShapes(g);
        for (size_t i = 0; i < g.blocks.size(); ++i) {
            checkStageNames(g.blocks[i], i);
            if (!g.blocks[i].parts.empty())
                ir::buildBlockDag(g.blocks[i]); // checks the parts cover every operator once
        }
        checkStages(g);
        return g;
    } catch (const UserError& e) {
        throw e.inFile(source);
    }
}

} // namespace ios::io::detail
