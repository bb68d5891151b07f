// SPDX-License-Identifier: Apache-2.0
#include "io/schedule_file.h"

#include "schedule/ios_stages.h"
#include "schedule/verify.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_number.h"
#include "util/json_text.h"

namespace ios::io {

using util::dumpPythonStyle;
using util::Json;
using util::parseJsonDocument;

namespace {

constexpr std::string_view kFormat = "ios-explorer-schedule";
constexpr int kVersion = 1;

std::vector<ir::NameStage> readStages(const Json& stages, const std::string& where,
                                      const std::string& source) {
    const auto bad = [&](const std::string& what) {
        throw UserError(where + ": 'stages' " + what, source);
    };
    if (!stages.is_array())
        bad("must be a list of stages");
    std::vector<ir::NameStage> out;
    for (const Json& st : stages) {
        if (!st.is_array())
            bad("must hold stages that are lists of groups");
        ir::NameStage& ns = out.emplace_back();
        for (const Json& g : st) {
            if (!g.is_array())
                bad("must hold groups that are lists of operator names");
            ir::NameGroup& ng = ns.emplace_back();
            for (const Json& name : g) {
                if (!name.is_string())
                    bad("must name operators by strings");
                ng.push_back(name.get<std::string>());
            }
        }
    }
    return out;
}

} // namespace

util::Json scheduleFileJson(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                            const schedule::Schedule& schedule, const std::string& note,
                            const Provenance* provenance) {
    const ir::Graph named = schedule::withStages(graph, dags, schedule);
    Json doc;
    doc["format"] = kFormat;
    doc["version"] = kVersion;
    doc["model"] = graph.name;
    if (!note.empty())
        doc["note"] = note;
    if (provenance != nullptr)
        doc[kProvenanceKey] = provenanceJson(*provenance);
    Json blocks = Json::array();
    for (size_t b = 0; b < named.blocks.size(); ++b) {
        Json block;
        block["stages"] = named.blocks[b].stages;
        Json merges = Json::array();
        const auto& stages = schedule.blocks[b].stages;
        for (size_t i = 0; i < stages.size(); ++i)
            if (stages[i].kind == schedule::StageKind::Merge)
                merges.push_back(i);
        if (!merges.empty())
            block["merge_stages"] = std::move(merges);
        blocks.push_back(std::move(block));
    }
    doc["blocks"] = std::move(blocks);
    return doc;
}

std::string writeScheduleFile(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                              const schedule::Schedule& schedule, const std::string& note,
                              const Provenance* provenance) {
    return dumpPythonStyle(scheduleFileJson(graph, dags, schedule, note, provenance)) + "\n";
}

schedule::Schedule parseScheduleFile(std::string_view jsonText, const std::string& source,
                                     const ir::Graph& graph,
                                     const std::vector<ir::BlockDag>& dags) {
    const util::JsonDocument parsed = parseJsonDocument(jsonText, source);
    const Json& doc = parsed.root();
    if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormat)
        throw UserError("not a schedule file: \"format\" must be \"" + std::string(kFormat) + "\"",
                        source);
    util::requireFormatVersion(doc, kVersion, "schedule file", source);
    util::refuseUnknownFields(doc, {"format", "version", "model", "note", kProvenanceKey, "blocks"},
                              "the schedule file", source);
    checkProvenanceModel(doc, graph, source);
    if (!doc.contains("model") || !doc["model"].is_string())
        throw UserError("schedule file field 'model' must be a string", source);
    if (doc["model"].get<std::string>() != graph.name)
        throw UserError("the schedule is for model '" + doc["model"].get<std::string>() +
                            "', not '" + graph.name + "'",
                        source);
    if (!doc.contains("blocks") || !doc["blocks"].is_array())
        throw UserError("schedule file field 'blocks' must be a list", source);
    const Json& blocks = doc["blocks"];
    if (blocks.size() != graph.blocks.size())
        throw UserError("the schedule has " + std::to_string(blocks.size()) +
                            " blocks, the model " + std::to_string(graph.blocks.size()),
                        source);
    ir::Graph named = graph;
    for (size_t b = 0; b < blocks.size(); ++b) {
        const std::string where = "block " + std::to_string(b + 1);
        if (!blocks[b].is_object() || !blocks[b].contains("stages"))
            throw UserError(where + " must be an object with 'stages'", source);
        util::refuseUnknownFields(blocks[b], {"stages", "merge_stages"}, where, source);
        named.blocks[b].stages = readStages(blocks[b]["stages"], where, source);
    }
    schedule::Schedule s;
    try {
        s = schedule::scheduleFromStages(named, dags);
        for (size_t b = 0; b < blocks.size(); ++b) {
            if (!blocks[b].contains("merge_stages"))
                continue;
            const Json& merges = blocks[b]["merge_stages"];
            if (!merges.is_array())
                throw UserError("block " + std::to_string(b + 1) +
                                ": 'merge_stages' must be a list of stage indices");
            for (const Json& i : merges) {
                auto& stages = s.blocks[b].stages;
                if (!i.is_number_unsigned() || i.get<size_t>() >= stages.size())
                    throw UserError("block " + std::to_string(b + 1) +
                                    ": 'merge_stages' holds an index that is not a stage");
                stages[i.get<size_t>()].kind = schedule::StageKind::Merge;
            }
        }
        schedule::verify(dags, s);
    } catch (const UserError& e) {
        throw e.inFile(source);
    }
    return s;
}

schedule::Schedule loadScheduleFile(const std::filesystem::path& path, const ir::Graph& graph,
                                    const std::vector<ir::BlockDag>& dags) {
    return parseScheduleFile(util::readInputFile(path, util::InputKind::Schedule), path.string(),
                             graph, dags);
}

} // namespace ios::io
