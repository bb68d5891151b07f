#include "cost/measurement_cache.h"

#include "util/error.h"
#include "util/file_util.h"
#include "util/json_text.h"

#include <algorithm>

namespace ios::cost {

namespace {

constexpr const char* kFormat = "ios-explorer-measurements";
constexpr int kVersion = 1;

std::string indexKey(const std::string& device, const std::string& model, int batch,
                     const std::string& stage) {
    return device + '\x1f' + model + '\x1f' + std::to_string(batch) + '\x1f' + stage;
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
            key += dag.ops.at(static_cast<size_t>(stage.groups[g][i]))->name;
        }
    }
    return key;
}

void MeasurementCache::add(const StageMeasurement& m) {
    const std::string key = indexKey(m.device, m.model, m.batch, m.stage);
    if (auto it = index_.find(key); it != index_.end()) {
        entries_[it->second] = m;
        return;
    }
    index_.emplace(key, entries_.size());
    entries_.push_back(m);
}

std::optional<double> MeasurementCache::find(const std::string& device, const std::string& model,
                                             int batch, const std::string& stage) const {
    auto it = index_.find(indexKey(device, model, batch, stage));
    if (it == index_.end())
        return std::nullopt;
    return entries_[it->second].latencyMs;
}

std::vector<std::string> MeasurementCache::devices(const std::string& model, int batch) const {
    std::vector<std::string> out;
    for (const StageMeasurement& m : entries_)
        if (m.model == model && m.batch == batch &&
            std::find(out.begin(), out.end(), m.device) == out.end())
            out.push_back(m.device);
    return out;
}

MeasurementCache MeasurementCache::load(const std::filesystem::path& path) {
    const std::string file = path.string();
    const util::Json doc = util::parseJsonText(util::readTextFile(path), file);
    if (!doc.is_object() || doc.value("format", std::string()) != kFormat)
        throw UserError(std::string("not a measurement cache (expected \"format\": \"") + kFormat +
                            "\")",
                        file);
    if (doc.value("version", 0) != kVersion)
        throw UserError("unsupported measurement cache version (expected " +
                            std::to_string(kVersion) + ")",
                        file);
    const auto entries = doc.find("entries");
    if (entries == doc.end() || !entries->is_array())
        throw UserError("\"entries\" must be an array", file);
    MeasurementCache cache;
    size_t i = 0;
    for (const util::Json& e : *entries) {
        const std::string where = "entries[" + std::to_string(i++) + "]";
        try {
            StageMeasurement m;
            m.device = e.at("device").get<std::string>();
            m.model = e.at("model").get<std::string>();
            m.batch = e.at("batch").get<int>();
            m.stage = e.at("stage").get<std::string>();
            m.latencyMs = e.at("latency_ms").get<double>();
            m.samples = e.value("samples", 0);
            if (m.batch < 1 || !(m.latencyMs >= 0) || m.stage.empty())
                throw UserError(where + ": batch must be >= 1, latency_ms >= 0, stage non-empty",
                                file);
            cache.add(m);
        } catch (const util::Json::exception& ex) {
            throw UserError(where + ": " + ex.what(), file);
        }
    }
    return cache;
}

void MeasurementCache::save(const std::filesystem::path& path) const {
    util::Json doc;
    doc["format"] = kFormat;
    doc["version"] = kVersion;
    util::Json entries = util::Json::array();
    for (const StageMeasurement& m : entries_)
        entries.push_back({{"device", m.device},
                           {"model", m.model},
                           {"batch", m.batch},
                           {"stage", m.stage},
                           {"latency_ms", m.latencyMs},
                           {"samples", m.samples}});
    doc["entries"] = std::move(entries);
    util::writeFileAtomically(path, doc.dump(1) + "\n");
}

CachedCostModel::CachedCostModel(MeasurementCache cache, std::string model, int batch,
                                 std::string device, std::string source)
    : cache_(std::move(cache)), model_(std::move(model)), batch_(batch), device_(std::move(device)),
      source_(std::move(source)) {
    if (device_.empty()) {
        const std::vector<std::string> devices = cache_.devices(model_, batch_);
        if (devices.size() != 1)
            throw UserError("the measurement cache holds " + std::to_string(devices.size()) +
                                " devices for model '" + model_ + "' at batch " +
                                std::to_string(batch_) + (devices.empty() ? "" : "; choose one"),
                            source_);
        device_ = devices.front();
    }
}

double CachedCostModel::stageLatencyMs(const ir::BlockDag& dag,
                                       const schedule::Stage& stage) const {
    const std::string key = stageKey(dag, stage);
    if (auto ms = cache_.find(device_, model_, batch_, key))
        return *ms;
    throw UserError("stage " + key + " was not measured on " + device_ + " for model '" + model_ +
                        "' at batch " + std::to_string(batch_) +
                        " (measure it with --cost measured on a GPU)",
                    source_);
}

std::string CachedCostModel::describe() const {
    return "measured on " + device_ + ", batch " + std::to_string(batch_) + " (cache " + source_ +
           ")";
}

} // namespace ios::cost
