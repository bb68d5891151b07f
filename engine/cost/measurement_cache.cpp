// SPDX-License-Identifier: Apache-2.0
#include "cost/measurement_cache.h"

#include "cost/cost_model_factory.h"
#include "cost/stage_signature.h"
#include "ir/metrics.h"
#include "schedule/merge.h"
#include "util/error.h"
#include "util/file_util.h"
#include "util/json_number.h"
#include "util/json_text.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>

namespace ios::cost {

namespace {

constexpr const char* kFormat = kMeasurementCacheFormat;
constexpr int kVersion = kMeasurementCacheVersion;

// An operator name in a stage key: a comma, a bar or a backslash is escaped by a backslash, so
// that a name holding a separator spells no other stage (other names read as they always have).
void appendKeyName(std::string& key, const std::string& name) {
    for (const char c : name) {
        if (c == ',' || c == '|' || c == '\\')
            key += '\\';
        key += c;
    }
}

} // namespace

std::string stageKey(const ir::BlockDag& dag, const schedule::Stage& stage) {
    std::string key = stage.kind == schedule::StageKind::Merge ? "merge:" : "parallel:";
    for (size_t g = 0; g < stage.groups.size(); ++g) {
        if (g)
            key += '|';
        for (size_t i = 0; i < stage.groups[g].size(); ++i) {
            if (i)
                key += ',';
            appendKeyName(key, dag.ops.at(static_cast<size_t>(stage.groups[g][i]))->name);
        }
    }
    return key;
}

OperatorPlaces operatorPlaces(const std::vector<ir::BlockDag>& dags) {
    OperatorPlaces ops;
    for (size_t b = 0; b < dags.size(); ++b)
        for (size_t i = 0; i < dags[b].ops.size(); ++i)
            ops.emplace(dags[b].ops[i]->name,
                        OperatorPlace{static_cast<int>(b), static_cast<int>(i)});
    return ops;
}

std::optional<KeyedStage> resolveStageKey(const std::string& key, const OperatorPlaces& ops,
                                          const std::vector<ir::BlockDag>& dags,
                                          const std::string& model, std::string& why) {
    KeyedStage out;
    schedule::Stage& stage = out.stage;
    std::string_view rest;
    if (key.rfind("parallel:", 0) == 0) {
        rest = std::string_view(key).substr(9);
    } else if (key.rfind("merge:", 0) == 0) {
        stage.kind = schedule::StageKind::Merge;
        rest = std::string_view(key).substr(6);
    } else {
        why = "is neither parallel:… nor merge:…";
        return std::nullopt;
    }
    int block = -1;
    std::vector<bool> seen;
    stage.groups.emplace_back();
    std::string name;
    for (size_t i = 0; i <= rest.size(); ++i) {
        const bool end = i == rest.size() || rest[i] == ',' || rest[i] == '|';
        if (!end) {
            if (rest[i] == '\\' && i + 1 < rest.size()) // an escaped character of the name
                ++i;
            name += rest[i];
            continue;
        }
        const auto it = ops.find(name);
        if (it == ops.end()) {
            why = "names operator '" + name + "', which model '" + model + "' does not have";
            return std::nullopt;
        }
        if (block < 0) {
            block = it->second.block;
            seen.assign(dags[static_cast<size_t>(block)].ops.size(), false);
        }
        if (it->second.block != block) {
            why = "spans two blocks";
            return std::nullopt;
        }
        if (seen[static_cast<size_t>(it->second.index)]) {
            why = "names operator '" + name + "' twice";
            return std::nullopt;
        }
        seen[static_cast<size_t>(it->second.index)] = true;
        stage.groups.back().push_back(it->second.index);
        name.clear();
        if (i < rest.size() && rest[i] == '|')
            stage.groups.emplace_back();
    }
    if (stage.kind == schedule::StageKind::Merge) {
        if (stage.groups.size() != 1) {
            why = "is a merge stage of several groups";
            return std::nullopt;
        }
        std::vector<const ir::Node*> members;
        for (int op : stage.groups.front())
            members.push_back(dags[static_cast<size_t>(block)].ops[static_cast<size_t>(op)]);
        if (members.size() > 1)
            if (auto problem = schedule::mergeProblem(members)) {
                why = "is a merge stage of operators that cannot merge (" + *problem + ")";
                return std::nullopt;
            }
    }
    out.block = block;
    return out;
}

StageClassIndex::StageClassIndex(const ir::Graph& graph)
    : graph_(graph), dags_(ir::buildDags(graph)), places_(operatorPlaces(dags_)),
      classes_(dags_.size()) {
    const ir::NodeIndex nodes(graph_);
    const ir::ShapeLookup shapeOf = [&nodes](const std::string& name) -> const ir::TensorShape* {
        const ir::Node* n = nodes.find(name);
        return n ? &n->outputShape : nullptr;
    };
    // One CanonicalStages for every block: a repeated cell's operators get the first cell's
    // classes.
    const CanonicalStages canonical;
    for (size_t b = 0; b < dags_.size(); ++b)
        canonical.classify(dags_[b], shapeOf, classes_[b]);
}

bool StageClassIndex::classKey(const std::string& stageKey, StageMemo::Key& key) const {
    std::string why;
    const std::optional<KeyedStage> resolved =
        resolveStageKey(stageKey, places_, dags_, graph_.name, why);
    if (!resolved)
        return false;
    canonicalStageKey(resolved->stage, classes_[static_cast<size_t>(resolved->block)], key);
    return true;
}

bool StageClassIndex::classKey(const ir::BlockDag& dag, const schedule::Stage& stage,
                               StageMemo::Key& key) const {
    // The stage in this index's dags: the caller's dags may be another build of the graph.
    schedule::Stage own;
    own.kind = stage.kind;
    int block = -1;
    for (const schedule::Group& group : stage.groups) {
        own.groups.emplace_back();
        for (int op : group) {
            const auto it = places_.find(dag.ops.at(static_cast<size_t>(op))->name);
            if (it == places_.end() || (block >= 0 && it->second.block != block))
                return false;
            block = it->second.block;
            own.groups.back().push_back(it->second.index);
        }
    }
    if (block < 0)
        return false;
    canonicalStageKey(own, classes_[static_cast<size_t>(block)], key);
    return true;
}

size_t StageKeyHash::operator()(const StageMemo::Key& key) const {
    uint64_t h = 0xcbf29ce484222325ull ^ key.size();
    for (uint32_t v : key) {
        h ^= v;
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    return static_cast<size_t>(h);
}

size_t MeasurementCache::EntryKeyHash::operator()(const EntryKeyView& k) const {
    // Each field hashed on its own and mixed in turn: no separator for a name to contain.
    size_t h = std::hash<int>()(k.batch);
    for (const std::string_view field : {k.device, k.model, k.stage})
        h = (h ^ std::hash<std::string_view>()(field)) * 0x100000001b3ull + (h >> 17);
    return h;
}

void MeasurementCache::add(const StageMeasurement& m) {
    if (auto it = index_.find(EntryKeyView{m.device, m.model, m.batch, m.stage});
        it != index_.end()) {
        entries_[it->second] = m;
        return;
    }
    index_.emplace(EntryKey{m.device, m.model, m.batch, m.stage}, entries_.size());
    entries_.push_back(m);
}

std::optional<double> MeasurementCache::find(const std::string& device, const std::string& model,
                                             int batch, const std::string& stage) const {
    auto it = index_.find(EntryKeyView{device, model, batch, stage});
    if (it == index_.end())
        return std::nullopt;
    return entries_[it->second].latencyMs;
}

size_t MeasurementCache::removeOtherContents(const std::string& model,
                                             const std::string& modelHash) {
    const auto other = [&](const StageMeasurement& m) {
        return m.model == model && !m.modelHash.empty() && m.modelHash != modelHash;
    };
    const size_t removed =
        static_cast<size_t>(std::count_if(entries_.begin(), entries_.end(), other));
    if (removed == 0)
        return 0;
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(), other), entries_.end());
    index_.clear();
    for (size_t i = 0; i < entries_.size(); ++i) {
        const StageMeasurement& m = entries_[i];
        index_.emplace(EntryKey{m.device, m.model, m.batch, m.stage}, i);
    }
    return removed;
}

std::vector<std::string> MeasurementCache::devices(const std::string& model, int batch) const {
    std::vector<std::string> out;
    for (const StageMeasurement& m : entries_)
        if (m.model == model && m.batch == batch &&
            std::find(out.begin(), out.end(), m.device) == out.end())
            out.push_back(m.device);
    return out;
}

util::Json measurementJson(const StageMeasurement& m) {
    util::Json j = {{"device", m.device}, {"model", m.model},          {"batch", m.batch},
                    {"stage", m.stage},   {"latency_ms", m.latencyMs}, {"samples", m.samples}};
    if (!m.modelHash.empty())
        j["model_hash"] = m.modelHash;
    return j;
}

// The document dumpJson(doc, 1) would write, built entry by entry: a cache of millions of
// entries never becomes one JSON tree in memory.
std::string MeasurementCache::text() const {
    util::Json head;
    head["format"] = kFormat;
    head["version"] = kVersion;
    if (!provenance_.is_null())
        head["provenance"] = provenance_;
    head["entries"] = util::Json::array();
    if (entries_.empty())
        return util::dumpJson(head, 1) + "\n";
    std::string out = util::dumpJson(head, 1);
    out.resize(out.rfind('[') + 1); // "...\n \"entries\": ["
    for (size_t i = 0; i < entries_.size(); ++i) {
        out += i == 0 ? "\n" : ",\n";
        const std::string entry = util::dumpJson(measurementJson(entries_[i]), 1);
        out += "  ";
        for (const char c : entry) {
            out += c;
            if (c == '\n')
                out += "  ";
        }
    }
    out += "\n ]\n}\n";
    return out;
}

void MeasurementCache::save(const std::filesystem::path& path) const {
    util::writeFileAtomically(path, text());
}

CachedCostModel::CachedCostModel(MeasurementCache cache, const ir::Graph& graph, int batch,
                                 std::string device, std::string source)
    : CachedCostModel(std::move(cache), graph.name, batch, std::move(device), std::move(source)) {
    graph_ = &graph;
    const std::string own = modelContentHash(graph);
    for (const StageMeasurement& m : cache_.entries())
        if (m.model == model_ && !m.modelHash.empty() && m.modelHash != own)
            throw UserError("the measurements of '" + model_ +
                                "' are of another model (content hash " + m.modelHash +
                                ", this model's " + own +
                                "): profile this model, or replay through a measurement store, "
                                "which keys by stage contents",
                            source_);
}

CachedCostModel::CachedCostModel(MeasurementCache cache, std::string model, int batch,
                                 std::string device, std::string source)
    : cache_(std::move(cache)), model_(std::move(model)), batch_(batch), device_(std::move(device)),
      source_(std::move(source)) {
    const std::vector<std::string> devices = cache_.devices(model_, batch_);
    std::string names;
    for (const std::string& d : devices)
        names += (names.empty() ? "" : ", ") + d;
    const std::string where = " for model '" + model_ + "' at batch " + std::to_string(batch_);
    if (devices.empty())
        throw UserError("the measurement cache holds no measurements" + where +
                            " (measure them with the measured cost model on a GPU)",
                        source_, {}, Hint::MeasureOnGpu);
    if (device_.empty() && devices.size() > 1)
        throw UserError("the measurement cache holds " + std::to_string(devices.size()) +
                            " devices" + where + " (" + names + "); choose one of them",
                        source_, {}, Hint::ChooseCacheDevice);
    if (device_.empty())
        device_ = devices.front();
    else if (std::find(devices.begin(), devices.end(), device_) == devices.end())
        throw UserError("the measurement cache has no device '" + device_ + "'" + where +
                            " (it has: " + names + ")",
                        source_);
}

double CachedCostModel::stageLatencyMs(const ir::BlockDag& dag,
                                       const schedule::Stage& stage) const {
    const std::string key = stageKey(dag, stage);
    if (auto ms = cache_.find(device_, model_, batch_, key))
        return *ms;
    if (graph_ != nullptr) {
        const ClassLatencies& classes = classLatencies();
        StageMemo::Key canonical;
        if (classes.index->classKey(dag, stage, canonical))
            if (auto it = classes.ms.find(canonical); it != classes.ms.end())
                return it->second;
    }
    throw UserError("stage " + key + " was not measured on " + device_ + " for model '" + model_ +
                        "' at batch " + std::to_string(batch_) +
                        " (measure it with the measured cost model on a GPU)",
                    source_, {}, Hint::MeasureOnGpu);
}

const CachedCostModel::ClassLatencies& CachedCostModel::classLatencies() const {
    // Built once, on the first stage the names miss (a full cache never needs it); call_once
    // makes the DP's threads wait for the one building it.
    std::call_once(classesBuilt_, [this] {
        ClassLatencies built;
        built.index = std::make_unique<StageClassIndex>(*graph_);
        StageMemo::Key key;
        for (const StageMeasurement& m : cache_.entries())
            if (m.device == device_ && m.model == model_ && m.batch == batch_ &&
                built.index->classKey(m.stage, key))
                built.ms.emplace(key, m.latencyMs); // the first of a class in file order wins
        classes_ = std::move(built);
    });
    return classes_;
}

std::string CachedCostModel::describe() const {
    return "measured on " + device_ + ", batch " + std::to_string(batch_) + " (cache " + source_ +
           ")";
}

CacheChoice parseCacheChoice(const std::string& argument) {
    if (argument.empty())
        throw UserError("the cost model cache:FILE needs a FILE (saved by the measured cost model)",
                        Hint::ChooseCostModel);
    CacheChoice choice{argument, {}};
    const size_t at = argument.rfind('@');
    std::error_code ec;
    if (at != std::string::npos && !std::filesystem::exists(argument, ec)) {
        choice.file = argument.substr(0, at);
        choice.device = argument.substr(at + 1);
        if (choice.file.empty() || choice.device.empty())
            throw UserError("the cost model cache:FILE@DEVICE needs both a FILE and a DEVICE",
                            Hint::ChooseCostModel);
    }
    return choice;
}

namespace {

std::unique_ptr<CostModel> buildCached(const CostModelSpec& spec, const ir::Graph& graph) {
    const CacheChoice choice = parseCacheChoice(spec.argument);
    return std::make_unique<CachedCostModel>(MeasurementCache::load(choice.file), graph, spec.batch,
                                             choice.device, choice.file);
}

} // namespace

IOS_REGISTER_COST_MODEL(
    cache,
    CostModelEntry{
        .key = "cache:",
        .label = "Measurement cache",
        .usage = "cache:FILE[@DEVICE]",
        .description = "replay saved measurements, no GPU needed; @DEVICE picks one "
                       "device of a cache that holds several",
        .rank = 50,
        .build = buildCached,
        .checkArgument = [](const std::string& argument) { parseCacheChoice(argument); },
        .inputFile = [](const std::string& argument) { return parseCacheChoice(argument).file; }});

} // namespace ios::cost
