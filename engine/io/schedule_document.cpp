// SPDX-License-Identifier: Apache-2.0
#include "io/schedule_document.h"

#include "cost/stage_signature.h"
#include "eval/memory_eval.h"
#include "io/native_json.h"
#include "io/node_json.h"
#include "io/program_json.h"
#include "io/provenance.h"
#include "io/schedule_file.h"
#include "schedule/ios_stages.h"
#include "schedule/verify.h"
#include "schedulers/raf/raf_graph.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_text.h"

#include <sstream>
#include <unordered_map>

namespace ios::io {

using util::Json;

std::string_view toString(ScheduleDocumentKind kind) {
    switch (kind) {
    case ScheduleDocumentKind::IosJson:
        return "IOS JSON";
    case ScheduleDocumentKind::NativeJson:
        return "native JSON";
    case ScheduleDocumentKind::ScheduleFile:
        return "schedule file";
    case ScheduleDocumentKind::Program:
        return "stream program";
    }
    return "schedule";
}

namespace {

std::string blockLabel(size_t b) {
    return "block " + std::to_string(b + 1);
}

bool isProgramDocument(const Json& doc) {
    if (doc.contains("policy"))
        return true;
    const auto blocks = doc.find("blocks");
    return blocks != doc.end() && blocks->is_array() && !blocks->empty() &&
           (*blocks)[0].is_object() && (*blocks)[0].contains("program");
}

void checkModelName(const std::string& name, const ir::Graph& graph) {
    if (name != graph.name)
        throw UserError("the schedule is for model '" + name + "', not '" + graph.name + "'");
}

// Every block must carry a schedule: a model file without stages is a model, not a schedule.
void checkScheduled(const ir::Graph& file) {
    for (size_t b = 0; b < file.blocks.size(); ++b)
        if (file.blocks[b].stages.empty())
            throw UserError(blockLabel(b) + " has no stages: the file holds a model without a "
                                            "schedule (open it as a model)");
}

void checkBlockCount(const ir::Graph& file, const ir::Graph& graph) {
    if (file.blocks.size() != graph.blocks.size())
        throw UserError("the schedule has " + std::to_string(file.blocks.size()) +
                        " blocks, the model " + std::to_string(graph.blocks.size()));
}

// The origin a provenance block records (its strategy setting), if any.
std::string provenanceOrigin(const Json& doc) {
    const auto p = doc.find(kProvenanceKey);
    if (p == doc.end() || !p->is_object())
        return {};
    const auto settings = p->find("settings");
    if (settings == p->end() || !settings->is_object())
        return {};
    const auto strategy = settings->find("strategy");
    return strategy != settings->end() && strategy->is_string() ? strategy->get<std::string>()
                                                                : std::string();
}

// The members of a merged conv the IOS tools wrote as ONE node (schedule::optimizedGraph): the
// model's operator of the node's name leads; each further hint name is the first not yet taken
// operator of the block, in file order, with that hint name and the leader's inputs.
schedule::Group mergedMembers(const ir::Node& merged, const ir::BlockDag& dag, int leader,
                              std::vector<bool>& taken) {
    std::vector<std::string> hints;
    std::istringstream words(merged.hintName);
    for (std::string w; words >> w;)
        hints.push_back(w);
    schedule::Group members{leader};
    const ir::Node& lead = *dag.ops[static_cast<size_t>(leader)];
    for (size_t h = 1; h < hints.size(); ++h) {
        int found = -1;
        for (size_t i = 0; i < dag.ops.size() && found < 0; ++i) {
            const ir::Node& op = *dag.ops[i];
            if (!taken[i] && static_cast<int>(i) != leader && op.kind == ir::NodeKind::Conv &&
                op.hintName == hints[h] && op.inputs == lead.inputs)
                found = static_cast<int>(i);
        }
        if (found < 0)
            throw UserError("merged convolution: no operator of hint name '" + hints[h] +
                                "' with its inputs is left in the model's block",
                            {}, merged.name);
        taken[static_cast<size_t>(found)] = true;
        members.push_back(found);
    }
    std::sort(members.begin(), members.end());
    return members;
}

// A merged node of the file: a conv whose hint names more operators than the model's node of
// that name.
bool isMergedNode(const ir::Node& fileNode, const ir::Node& modelNode) {
    return fileNode.kind == ir::NodeKind::Conv && fileNode.hintName != modelNode.hintName &&
           fileNode.hintName.find(' ') != std::string::npos;
}

schedule::BlockSchedule iosBlockSchedule(const ir::Block& fileBlock, const ir::BlockDag& dag,
                                         size_t b) {
    std::unordered_map<std::string, int> index;
    for (int i = 0; i < static_cast<int>(dag.ops.size()); ++i)
        index.emplace(dag.ops[static_cast<size_t>(i)]->name, i);
    std::unordered_map<std::string, const ir::Node*> fileNodes;
    for (const ir::Node* n : fileBlock.operators())
        fileNodes.emplace(n->name, n);
    std::vector<bool> taken(dag.ops.size(), false);
    schedule::BlockSchedule bs;
    for (const ir::NameStage& ns : fileBlock.stages) {
        schedule::Stage& st = bs.stages.emplace_back();
        for (const ir::NameGroup& ng : ns) {
            schedule::Group& g = st.groups.emplace_back();
            for (const std::string& name : ng) {
                const auto it = index.find(name);
                if (it == index.end())
                    throw UserError(blockLabel(b) + ": the model has no operator of this name", {},
                                    name);
                const ir::Node& fileNode = *fileNodes.at(name);
                if (ns.size() == 1 && ng.size() == 1 &&
                    isMergedNode(fileNode, *dag.ops[static_cast<size_t>(it->second)])) {
                    st.kind = schedule::StageKind::Merge;
                    g = mergedMembers(fileNode, dag, it->second, taken);
                } else {
                    g.push_back(it->second);
                }
                taken[static_cast<size_t>(it->second)] = true;
            }
        }
    }
    return bs;
}

void clearInPlace(ir::Node& node) {
    for (ir::Term& t : node.inputs)
        for (ir::ValueRef& v : t)
            v.inPlace = false;
    for (ir::Node& inner : node.nodes)
        clearInPlace(inner);
}

// The file must be the model scheduled as the file says, node for node (IOS JSON has no
// content hash: a merged node of another kernel, another model of the same name, fail here).
void checkOptimizedNodes(const ir::Graph& file, const ir::Graph& expected) {
    for (size_t b = 0; b < expected.blocks.size(); ++b) {
        std::unordered_map<std::string, const ir::Node*> mine;
        for (const ir::Node* n : file.blocks[b].operators())
            mine.emplace(n->name, n);
        for (const ir::Node* n : expected.blocks[b].operators()) {
            ir::Node want = *n;
            clearInPlace(want);
            const auto it = mine.find(n->name);
            if (it == mine.end() || !(*it->second == want))
                throw UserError(blockLabel(b) + ": the file's node differs from the model's "
                                                "scheduled as the file says (another model, or "
                                                "another version of it)",
                                {}, n->name);
        }
        if (mine.size() != expected.blocks[b].operators().size())
            throw UserError(blockLabel(b) + ": the file has operators the model has not");
    }
}

// The schedule of an IOS JSON model (or a native one written the same way, `optimize -o
// x.json`): merges are merged nodes, and the file must be the model scheduled so.
schedule::Schedule optimizedGraphSchedule(const ir::Graph& file, const ir::PreparedModel& model) {
    schedule::Schedule s;
    for (size_t b = 0; b < file.blocks.size(); ++b)
        s.blocks.push_back(iosBlockSchedule(file.blocks[b], model.dags()[b], b));
    schedule::verify(model.dags(), s);
    checkOptimizedNodes(file, schedule::optimizedGraph(model.graph(), model.dags(), s));
    return s;
}

schedule::Schedule iosJsonSchedule(const Json& doc, const std::string& source,
                                   const ir::PreparedModel& model) {
    const ir::Graph file = detail::graphFromJson(doc, detail::Dialect::Ios, source);
    checkModelName(file.name, model.graph());
    checkBlockCount(file, model.graph());
    checkScheduled(file);
    return optimizedGraphSchedule(file, model);
}

// A native model with stages by operator name and `merge_stages` (writeNativeSchedule), or one
// with merged nodes (then as IOS JSON).
schedule::Schedule nativeSchedule(const Json& doc, const std::string& source,
                                  const ir::PreparedModel& model) {
    const ir::Graph file = nativeFromDocument(doc, source);
    checkModelName(file.name, model.graph());
    checkBlockCount(file, model.graph());
    checkScheduled(file);
    if (cost::modelContentHash(file) != cost::modelContentHash(model.graph()))
        return optimizedGraphSchedule(file, model);
    ir::Graph named = model.graph();
    for (size_t b = 0; b < named.blocks.size(); ++b)
        named.blocks[b].stages = file.blocks[b].stages;
    schedule::Schedule s = schedule::scheduleFromStages(named, model.dags());
    const Json& blocks = doc["model"]["blocks"];
    for (size_t b = 0; b < s.blocks.size(); ++b)
        if (blocks[b].contains("merge_stages")) // indices checked by the model reader
            for (const Json& i : blocks[b]["merge_stages"])
                s.blocks[b].stages[i.get<size_t>()].kind = schedule::StageKind::Merge;
    schedule::verify(model.dags(), s);
    return s;
}

} // namespace

std::string writeNativeSchedule(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                                const schedule::Schedule& schedule, const Provenance* provenance) {
    const util::JsonDocument parsed = util::parseJsonDocument(
        writeNativeJson(schedule::withStages(graph, dags, schedule), provenance), graph.name);
    Json doc = parsed.root();
    Json& blocks = doc["model"]["blocks"];
    for (size_t b = 0; b < schedule.blocks.size(); ++b) {
        Json merges = Json::array();
        const auto& stages = schedule.blocks[b].stages;
        for (size_t i = 0; i < stages.size(); ++i)
            if (stages[i].kind == schedule::StageKind::Merge)
                merges.push_back(i);
        if (!merges.empty()) // only when there are: a file without merges stays as before
            blocks[b]["merge_stages"] = std::move(merges);
    }
    return util::dumpPythonStyle(doc) + "\n";
}

ScheduleDocument parseScheduleDocument(std::string_view text, const std::string& source,
                                       const ir::PreparedModel& model) {
    const util::JsonDocument parsed = util::parseJsonDocument(text, source);
    const Json& doc = parsed.root();
    if (!doc.is_object())
        throw UserError("not a schedule: expected a JSON object", source);
    ScheduleDocument out;
    out.source = source;
    out.origin = provenanceOrigin(doc);
    try {
        checkProvenanceModel(doc, model.graph(), source);
        const auto format = doc.find("format");
        if (format != doc.end() && *format == Json("ios-explorer-schedule")) {
            out.kind = ScheduleDocumentKind::ScheduleFile;
            out.outcome.schedule = parseScheduleFile(text, source, model.graph(), model.dags());
            if (out.origin.empty() && doc.contains("note") && doc["note"].is_string())
                out.origin = doc["note"].get<std::string>();
        } else if (isNativeDocument(doc)) {
            out.kind = ScheduleDocumentKind::NativeJson;
            out.outcome.schedule = nativeSchedule(doc, source, model);
        } else if (isProgramDocument(doc)) {
            out.kind = ScheduleDocumentKind::Program;
            out.outcome.programs = programFromJson(doc, model.dags(), source, model.graph().name);
            for (const schedule::StreamProgram& p : out.outcome.programs)
                out.outcome.schedule.blocks.push_back(schedulers::raf::issueOrder(p));
            if (out.origin.empty() && doc["policy"].is_string())
                out.origin = doc["policy"].get<std::string>();
        } else if (doc.contains("blocks") && doc.contains("input")) {
            out.kind = ScheduleDocumentKind::IosJson;
            out.outcome.schedule = iosJsonSchedule(doc, source, model);
        } else {
            throw UserError("not a schedule: expected an IOS JSON or native model with stages, a "
                            "schedule file or a stream program (docs/formats.md)");
        }
    } catch (const UserError& e) {
        throw e.inFile(source);
    }
    return out;
}

ScheduleDocument readScheduleDocument(const std::filesystem::path& path,
                                      const ir::PreparedModel& model) {
    return parseScheduleDocument(util::readInputFile(path, util::InputKind::Schedule),
                                 path.string(), model);
}

schedulers::Outcome pricedScheduleDocument(const ScheduleDocument& document,
                                           const ir::PreparedModel& model,
                                           const cost::CostModel& cost,
                                           const schedulers::SearchParams& params) {
    schedulers::Outcome out = document.outcome;
    out.latencyMs = schedulers::outcomeLatencyMs(model.dags(), out, cost);
    out.peakBytes = eval::scheduleMemory(model.graph(), model.dags(), out.schedule,
                                         schedulers::memoryOptions(params, cost))
                        .peak;
    out.searchSeconds = 0;
    return out;
}

} // namespace ios::io
