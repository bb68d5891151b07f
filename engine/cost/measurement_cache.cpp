#include "cost/measurement_cache.h"

#include "util/error.h"
#include "util/file_util.h"
#include "util/input_file.h"
#include "util/json_number.h"
#include "util/json_text.h"

#include <algorithm>
#include <cstdint>

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
    return parse(util::readInputFile(path, util::InputKind::MeasurementCache), path.string());
}

MeasurementCache MeasurementCache::parse(std::string_view jsonText, const std::string& file) {
    const util::JsonDocument parsed = util::parseJsonDocument(jsonText, file);
    const util::Json& doc = parsed.root();
    if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormat)
        throw UserError(std::string("not a measurement cache (expected \"format\": \"") + kFormat +
                            "\")",
                        file);
    if (!doc.contains("version") ||
        util::jsonInteger(doc["version"], 0, INT32_MAX, "\"version\"", file) != kVersion)
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
            m.batch = static_cast<int>(
                util::jsonInteger(e.at("batch"), 1, kMaxBatch, where + ".batch", file));
            m.stage = e.at("stage").get<std::string>();
            // A measured stage takes some time, and never days: 1e308 would make sums infinite.
            m.latencyMs = util::jsonNumber(e.at("latency_ms"), 0, kMaxStageLatencyMs,
                                           where + ".latency_ms", file);
            if (!(m.latencyMs > 0))
                throw UserError(where + ".latency_ms must be greater than 0 (got 0)", file);
            m.samples = e.contains("samples")
                            ? static_cast<int>(util::jsonInteger(e["samples"], 0, INT32_MAX,
                                                                 where + ".samples", file))
                            : 0;
            if (m.stage.empty())
                throw UserError(where + ".stage must not be empty", file);
            cache.add(m);
        } catch (const util::Json::exception& ex) {
            throw UserError(where +
                                " must be an object with strings \"device\", \"model\", "
                                "\"stage\" and numbers \"batch\", \"latency_ms\" (" +
                                util::jsonErrorText(ex) + ")",
                            file);
        }
    }
    return cache;
}

std::string MeasurementCache::text() const {
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
    return util::dumpJson(doc, 1) + "\n";
}

void MeasurementCache::save(const std::filesystem::path& path) const {
    util::writeFileAtomically(path, text());
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
                            " (measure them with --cost-model measured on a GPU)",
                        source_);
    if (device_.empty() && devices.size() > 1)
        throw UserError("the measurement cache holds " + std::to_string(devices.size()) +
                            " devices" + where + " (" + names +
                            "); choose one with --cost-model cache:FILE@DEVICE",
                        source_);
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
