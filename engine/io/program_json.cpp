// SPDX-License-Identifier: Apache-2.0
#include "io/program_json.h"

#include "schedule/program_verify.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_number.h"
#include "util/json_text.h"
#include "util/output_file.h"
#include "util/work_limit.h"

#include <cstdint>
#include <unordered_map>
#include <utility>

namespace ios::io {

using util::Json;

namespace {

using schedule::InstrKind;
using schedule::Instruction;

const char* opName(InstrKind kind) {
    switch (kind) {
    case InstrKind::Launch:
        return "launch";
    case InstrKind::Record:
        return "record";
    case InstrKind::Wait:
        return "wait";
    case InstrKind::Barrier:
        return "barrier";
    case InstrKind::Sync:
        return "sync";
    }
    return "?";
}

Json instructionJson(const ir::BlockDag& dag, const Instruction& in) {
    Json j;
    j["op"] = opName(in.kind);
    switch (in.kind) {
    case InstrKind::Launch:
        j["node"] = schedule::launchName(dag, in);
        j["stream"] = in.stream;
        if (in.ops.size() > 1) {
            Json nodes = Json::array();
            for (int op : in.ops)
                nodes.push_back(dag.ops[static_cast<size_t>(op)]->name);
            j["nodes"] = std::move(nodes);
        }
        if (in.ops.empty())
            j["synthetic"] = true;
        break;
    case InstrKind::Record:
    case InstrKind::Wait:
        j["event"] = in.event;
        j["stream"] = in.stream;
        break;
    case InstrKind::Barrier:
    case InstrKind::Sync:
        break;
    }
    return j;
}

// Where every operator name of the model lives: (block, index into that block's ops).
using NameIndex = std::unordered_map<std::string, std::pair<size_t, int>>;

NameIndex indexNames(const std::vector<ir::BlockDag>& dags) {
    NameIndex names;
    for (size_t b = 0; b < dags.size(); ++b)
        for (size_t i = 0; i < dags[b].ops.size(); ++i)
            names.emplace(dags[b].ops[i]->name, std::pair{b, static_cast<int>(i)});
    return names;
}

// Reads one block's instructions; every error names the file, the block, the instruction and,
// for a launch, its node.
class BlockReader {
public:
    BlockReader(const NameIndex& names, size_t block, const std::string& file)
        : names_(names), block_(block), file_(file) {}

    Instruction read(const Json& j, size_t index) {
        where_ = "block " + std::to_string(block_) + ", instruction " + std::to_string(index);
        node_.clear();
        if (!j.is_object())
            fail("must be an object with \"op\"");
        const auto op = j.find("op");
        if (op == j.end() || !op->is_string())
            fail("needs \"op\": one of launch, record, wait, barrier, sync");
        const std::string kind = op->get<std::string>();
        if (kind == "launch")
            return launch(j);
        if (kind == "record" || kind == "wait") {
            refuse(j, {"op", "event", "stream"});
            const int event = integer(j, "event", schedule::kMaxProgramEvent);
            const int stream = integer(j, "stream", schedule::kMaxProgramStreams - 1);
            return kind == "record" ? Instruction::record(event, stream)
                                    : Instruction::wait(event, stream);
        }
        if (kind == "barrier" || kind == "sync") {
            refuse(j, {"op"});
            return kind == "barrier" ? Instruction::barrier() : Instruction::sync();
        }
        fail("unknown op '" + printableKey(kind) +
             "' (known: launch, record, wait, barrier, sync)");
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw UserError(where_ + ": " + what, file_, node_);
    }

    static std::string printableKey(const std::string& s) {
        return s.size() > 80 ? s.substr(0, 80) + "..." : s;
    }

    void refuse(const Json& j, std::initializer_list<std::string_view> known) const {
        try {
            util::refuseUnknownFields(j, known, "the instruction", file_);
        } catch (const UserError& e) {
            fail(e.message());
        }
    }

    int integer(const Json& j, const char* field, int max) const {
        const auto it = j.find(field);
        if (it == j.end())
            fail(std::string("missing \"") + field + "\"");
        try {
            return static_cast<int>(
                util::jsonInteger(*it, 0, max, std::string("\"") + field + "\"", file_));
        } catch (const UserError& e) {
            fail(e.message());
        }
    }

    // The op index of `name` in this block, or a failure saying where the name is instead.
    int operatorIndex(const std::string& name) {
        const auto it = names_.find(name);
        if (it == names_.end())
            fail("the model has no operator of this name");
        if (it->second.first != block_)
            fail("the operator is in block " + std::to_string(it->second.first) +
                 ", not in block " + std::to_string(block_));
        return it->second.second;
    }

    Instruction launch(const Json& j) {
        const auto node = j.find("node");
        if (node == j.end() || !node->is_string() || node->get<std::string>().empty())
            fail("a launch needs \"node\": the name of what it launches");
        node_ = node->get<std::string>();
        refuse(j, {"op", "node", "stream", "nodes", "synthetic"});
        Instruction in =
            Instruction::launchAll({}, integer(j, "stream", schedule::kMaxProgramStreams - 1));
        const auto synthetic = j.find("synthetic");
        const auto members = j.find("nodes");
        if (synthetic != j.end()) {
            if (*synthetic != true)
                fail("\"synthetic\" must be true (leave it out for a launch of model operators)");
            if (members != j.end())
                fail("a synthetic launch has no \"nodes\"");
            if (names_.count(node_) != 0)
                fail("a synthetic launch must not be named like a model operator");
            in.synthetic = node_;
            return in;
        }
        if (members == j.end()) {
            if (node_.find('+') != std::string::npos && names_.count(node_) == 0)
                fail("the model has no operator of this name (a merged launch lists its "
                     "operators in \"nodes\")");
            in.ops.push_back(operatorIndex(node_));
            return in;
        }
        if (!members->is_array() || members->size() < 2)
            fail("\"nodes\" must list the two or more operators of a merged launch");
        std::string joined;
        for (const Json& m : *members) {
            if (!m.is_string())
                fail("\"nodes\" must hold operator names");
            joined += (joined.empty() ? "" : "+") + m.get<std::string>();
        }
        if (joined != node_)
            fail("\"node\" of a merged launch must be its \"nodes\" joined by '+' ('" +
                 printableKey(joined) + "')");
        const std::string launchNode = node_;
        for (const Json& m : *members) {
            node_ = m.get<std::string>();
            in.ops.push_back(operatorIndex(node_));
        }
        node_ = launchNode;
        return in;
    }

    const NameIndex& names_;
    size_t block_;
    const std::string& file_;
    std::string where_;
    std::string node_;
};

void checkCount(const Json& block, const char* field, int actual, const std::string& where,
                const std::string& file) {
    const auto it = block.find(field);
    if (it == block.end())
        return;
    const int64_t given = util::jsonInteger(*it, 0, INT32_MAX, where + " \"" + field + "\"", file);
    if (given != actual)
        throw UserError(where + ": \"" + field + "\" is " + std::to_string(given) +
                            " but its program uses " + std::to_string(actual),
                        file);
}

} // namespace

nlohmann::ordered_json programJson(const std::string& model, const std::string& policy,
                                   double latencyMs, const std::vector<ir::BlockDag>& dags,
                                   const schedule::Program& program, const Provenance* provenance) {
    if (program.size() != dags.size())
        throw UserError("stream program has " + std::to_string(program.size()) +
                        " blocks, the model " + std::to_string(dags.size()));
    Json doc;
    doc["model"] = model;
    doc["policy"] = policy;
    doc["latency_ms"] = latencyMs;
    if (provenance != nullptr)
        doc[kProvenanceKey] = provenanceJson(*provenance);
    Json blocks = Json::array();
    for (size_t b = 0; b < dags.size(); ++b) {
        if (const std::string problem = schedule::programLimitProblem(program[b]); !problem.empty())
            throw UserError("block " + std::to_string(b) + " stream program: " + problem +
                            ", which a program file cannot hold");
        const schedule::ProgramCounts c = schedule::counts(program[b]);
        Json block;
        block["block"] = b;
        block["streams"] = c.streams;
        block["events"] = c.events;
        Json instructions = Json::array();
        for (const Instruction& in : program[b].instructions)
            instructions.push_back(instructionJson(dags[b], in));
        block["program"] = std::move(instructions);
        blocks.push_back(std::move(block));
    }
    doc["blocks"] = std::move(blocks);
    return doc;
}

schedule::Program programFromJson(const nlohmann::ordered_json& doc,
                                  const std::vector<ir::BlockDag>& dags, const std::string& file,
                                  const std::string& model) {
    if (!doc.is_object())
        throw UserError("a stream program file is a JSON object with \"model\" and \"blocks\"",
                        file);
    util::refuseUnknownFields(doc, {"model", "policy", "latency_ms", kProvenanceKey, "blocks"},
                              "the stream program", file);
    const auto name = doc.find("model");
    if (name == doc.end() || !name->is_string())
        throw UserError("the stream program needs \"model\": the model's name", file);
    if (!model.empty() && name->get<std::string>() != model)
        throw UserError("the stream program is for model '" + name->get<std::string>() +
                            "', not '" + model + "'",
                        file);
    if (const auto policy = doc.find("policy"); policy != doc.end() && !policy->is_string())
        throw UserError("\"policy\" must be a string", file);
    if (const auto latency = doc.find("latency_ms"); latency != doc.end())
        util::jsonNumber(*latency, 0, 1e12, "\"latency_ms\"", file);
    const auto blocks = doc.find("blocks");
    if (blocks == doc.end() || !blocks->is_array())
        throw UserError("the stream program needs \"blocks\": one entry per block", file);
    if (blocks->size() != dags.size())
        throw UserError("the stream program has " + std::to_string(blocks->size()) +
                            " blocks, the model " + std::to_string(dags.size()),
                        file);
    const NameIndex names = indexNames(dags);
    schedule::Program program(dags.size());
    for (size_t b = 0; b < dags.size(); ++b) {
        const Json& block = (*blocks)[b];
        const std::string where = "block " + std::to_string(b);
        if (!block.is_object())
            throw UserError(where + " must be an object with \"program\"", file);
        util::refuseUnknownFields(block, {"block", "streams", "events", "program"}, where, file);
        if (const auto index = block.find("block"); index != block.end())
            if (util::jsonInteger(*index, 0, INT32_MAX, where + " \"block\"", file) !=
                static_cast<int64_t>(b))
                throw UserError("blocks[" + std::to_string(b) + "] has \"block\" " + index->dump() +
                                    ": blocks are listed in order from 0",
                                file);
        const auto instructions = block.find("program");
        if (instructions == block.end() || !instructions->is_array())
            throw UserError(where + " needs \"program\": its list of instructions", file);
        BlockReader reader(names, b, file);
        for (size_t i = 0; i < instructions->size(); ++i)
            program[b].instructions.push_back(reader.read((*instructions)[i], i));
        const schedule::ProgramCounts c = schedule::counts(program[b]);
        checkCount(block, "streams", c.streams, where, file);
        checkCount(block, "events", c.events, where, file);
    }
    try {
        schedule::verifyProgram(dags, program);
    } catch (const WorkLimitReached& e) {
        throw WorkLimitReached(e.message(), e.knob(), file);
    } catch (const UserError& e) {
        throw e.inFile(file);
    }
    return program;
}

schedule::Program programFromJson(const nlohmann::json& doc, const std::vector<ir::BlockDag>& dags,
                                  const std::string& file, const std::string& model) {
    return programFromJson(nlohmann::ordered_json(doc), dags, file, model);
}

std::string programFileText(const std::string& model, const std::string& policy, double latencyMs,
                            const std::vector<ir::BlockDag>& dags, const schedule::Program& program,
                            const Provenance* provenance) {
    std::string text =
        util::dumpJson(programJson(model, policy, latencyMs, dags, program, provenance), 2) + "\n";
    const size_t cap = util::maxInputBytes(util::InputKind::Schedule);
    if (text.size() > cap)
        throw UserError("the stream program file would be " + std::to_string(text.size()) +
                        " bytes, more than the " + std::to_string(cap) +
                        " bytes a program file may have (the reader's limit)");
    return text;
}

schedule::Program parseProgramFile(std::string_view text, const std::string& source,
                                   const std::vector<ir::BlockDag>& dags, const std::string& model,
                                   const ir::Graph* graph) {
    const util::JsonDocument doc = util::parseJsonDocument(text, source);
    if (graph != nullptr)
        checkProvenanceModel(doc.root(), *graph, source);
    return programFromJson(doc.root(), dags, source, model);
}

schedule::Program readProgramFile(const std::filesystem::path& path,
                                  const std::vector<ir::BlockDag>& dags, const std::string& model,
                                  const ir::Graph* graph) {
    return parseProgramFile(util::readInputFile(path, util::InputKind::Schedule), path.string(),
                            dags, model, graph);
}

void writeProgramFile(const std::filesystem::path& path, const std::string& model,
                      const std::string& policy, double latencyMs,
                      const std::vector<ir::BlockDag>& dags, const schedule::Program& program,
                      const Provenance* provenance) {
    util::writeFileAtomically(path,
                              programFileText(model, policy, latencyMs, dags, program, provenance));
}

} // namespace ios::io
