// SPDX-License-Identifier: Apache-2.0
#include "store/store_json.h"

#include "cost/cost_model.h"
#include "cost/measurement_cache.h"
#include "cost/stage_signature.h"
#include "ir/metrics.h"
#include "store/json_elements.h"
#include "util/error.h"
#include "util/json_number.h"
#include "util/version.h"

#include <map>
#include <memory>
#include <set>

namespace ios::store {

namespace {

constexpr const char* kLegacyFormat = "ios-explorer-measurements";
constexpr size_t kImportBatch = 10000;

std::string toHex(std::string_view bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char c : bytes) {
        const auto b = static_cast<unsigned char>(c);
        out += digits[b >> 4];
        out += digits[b & 0xfU];
    }
    return out;
}

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1; // upper case is refused: the form is canonical, one spelling per signature
}

std::string fromHex(const util::Json& v, const std::string& where, const std::string& file) {
    if (!v.is_string())
        throw UserError(where + " must be a string of hex digits", file);
    const std::string& text = v.get_ref<const std::string&>();
    if (text.empty() || text.size() % 2 != 0)
        throw UserError(where + " must be a non-empty even number of hex digits", file);
    std::string out;
    out.reserve(text.size() / 2);
    for (size_t i = 0; i < text.size(); i += 2) {
        const int hi = hexValue(text[i]), lo = hexValue(text[i + 1]);
        if (hi < 0 || lo < 0)
            throw UserError(where + " must be lowercase hex digits only", file);
        out += static_cast<char>(hi * 16 + lo);
    }
    return out;
}

std::string stringField(const util::Json& e, const char* key, const std::string& where,
                        const std::string& file, bool allowEmpty) {
    const auto it = e.find(key);
    if (it == e.end() || !it->is_string())
        throw UserError(where + "." + key + " must be a string", file);
    if (!allowEmpty && it->get_ref<const std::string&>().empty())
        throw UserError(where + "." + key + " must not be empty", file);
    return it->get<std::string>();
}

const util::Json& field(const util::Json& e, const char* key, const std::string& where,
                        const std::string& file) {
    const auto it = e.find(key);
    if (it == e.end())
        throw UserError(where + " has no \"" + key + "\"", file);
    return *it;
}

double latencyField(const util::Json& e, const char* key, bool positive, const std::string& where,
                    const std::string& file) {
    const double v = util::jsonNumber(field(e, key, where, file), 0, cost::kMaxStageLatencyMs,
                                      where + "." + key, file);
    if (positive && !(v > 0))
        throw UserError(where + "." + key + " must be greater than 0 (got 0)", file);
    return v;
}

// A legacy cache's model, resolved once: its dags and where each operator sits.
struct LegacyModel {
    const ir::Graph* graph = nullptr;
    std::vector<ir::BlockDag> dags;
    cost::OperatorPlaces places;
    std::unique_ptr<ir::NodeIndex> nodes;
};

class Importer {
public:
    Importer(std::filesystem::path file, MeasurementStore* store, const ModelResolver& resolve)
        : file_(std::move(file)), name_(file_.string()), store_(store), resolve_(resolve) {}

    JsonCounts run() {
        JsonElementHandlers h;
        h.streamed = {"operators", "devices", "samples", "entries"};
        h.arrayStart = [this](const std::string& key, const util::Json& header) {
            arrayStart(key, header);
        };
        h.element = [this](const std::string& key, size_t i, const util::Json& e) {
            element(key, i, e);
        };
        const util::Json header = readJsonElements(file_, h);
        checkHeader(header);
        flush();
        return counts_;
    }

private:
    void checkHeader(const util::Json& header) {
        if (!header.contains("format"))
            throw UserError(std::string("not a measurement store export or cache (expected "
                                        "\"format\": \"") +
                                kStoreJsonFormat + "\" or \"" + kLegacyFormat + "\")",
                            name_);
        checkFormat(header);
        const std::set<std::string> needed =
            legacy_ ? std::set<std::string>{"entries"}
                    : std::set<std::string>{"operators", "devices", "samples"};
        for (const std::string& key : needed)
            if (!header.contains(key))
                throw UserError("has no \"" + key + "\" array", name_);
    }

    void checkFormat(const util::Json& header) {
        const util::Json& format = header.at("format");
        if (format == kStoreJsonFormat) {
            util::requireFormatVersion(header, kStoreJsonVersion, "measurement store export",
                                       name_);
        } else if (format == kLegacyFormat) {
            util::requireFormatVersion(header, 1, "measurement cache", name_);
            legacy_ = true;
        } else {
            throw UserError(std::string("unknown format ") + format.dump() + " (expected \"" +
                                kStoreJsonFormat + "\" or \"" + kLegacyFormat + "\")",
                            name_);
        }
    }

    void arrayStart(const std::string& key, const util::Json& header) {
        if (!header.contains("format") || !header.contains("version"))
            throw UserError("\"format\" and \"version\" must come before \"" + key + "\"", name_);
        checkFormat(header);
        if (legacy_ != (key == "entries"))
            throw UserError("\"" + key + "\" is not part of this format", name_);
        if (key == "samples" && (!header.contains("operators") || !header.contains("devices")))
            throw UserError("\"operators\" and \"devices\" must come before \"samples\"", name_);
    }

    void element(const std::string& key, size_t i, const util::Json& e) {
        const std::string where = key + "[" + std::to_string(i) + "]";
        if (key == "operators") {
            operators_.push_back(fromHex(e, where, name_));
            if (!operatorSet_.insert(operators_.back()).second)
                throw UserError(where + " repeats an earlier operator signature", name_);
        } else if (key == "devices") {
            devices_.push_back(cost::identityFromJson(e, name_ + ": " + where));
        } else if (key == "samples") {
            collect(sample(e, where));
        } else {
            collect(legacyEntry(e, where));
        }
    }

    Measurement sample(const util::Json& e, const std::string& where) {
        if (!e.is_object())
            throw UserError(where + " must be an object", name_);
        util::refuseUnknownFields(e,
                                  {"device", "batch", "dtype", "kind", "groups", "median_ms",
                                   "spread_ms", "count", "tool_version", "measured_at"},
                                  where, name_);
        if (devices_.empty() || operators_.empty())
            throw UserError(where + " refers to devices and operators, but there are none", name_);
        Measurement m;
        m.key.device = devices_[static_cast<size_t>(util::jsonInteger(
            field(e, "device", where, name_), 0, static_cast<int64_t>(devices_.size()) - 1,
            where + ".device", name_))];
        m.key.batch = static_cast<int>(util::jsonInteger(field(e, "batch", where, name_), 1,
                                                         cost::kMaxBatch, where + ".batch", name_));
        m.key.dtype = stringField(e, "dtype", where, name_, false);
        m.key.signature = signature(e, where);
        m.sample.medianMs = latencyField(e, "median_ms", true, where, name_);
        m.sample.spreadMs = latencyField(e, "spread_ms", false, where, name_);
        m.sample.count = static_cast<int>(util::jsonInteger(field(e, "count", where, name_), 1,
                                                            INT32_MAX, where + ".count", name_));
        m.sample.toolVersion = stringField(e, "tool_version", where, name_, true);
        m.sample.measuredAt = util::jsonInteger(field(e, "measured_at", where, name_), 0, INT64_MAX,
                                                where + ".measured_at", name_);
        return m;
    }

    std::string signature(const util::Json& e, const std::string& where) {
        cost::StageSignature s;
        const std::string kind = stringField(e, "kind", where, name_, false);
        if (kind != "parallel" && kind != "merge")
            throw UserError(where + ".kind must be \"parallel\" or \"merge\"", name_);
        s.kind = kind == "merge" ? schedule::StageKind::Merge : schedule::StageKind::Parallel;
        const util::Json& groups = field(e, "groups", where, name_);
        if (!groups.is_array() || groups.empty())
            throw UserError(where + ".groups must be a non-empty array of groups", name_);
        for (size_t g = 0; g < groups.size(); ++g) {
            const std::string at = where + ".groups[" + std::to_string(g) + "]";
            if (!groups[g].is_array() || groups[g].empty())
                throw UserError(at + " must be a non-empty array of operator indices", name_);
            std::vector<std::string>& ops = s.groups.emplace_back();
            for (const util::Json& op : groups[g])
                ops.push_back(operators_[static_cast<size_t>(util::jsonInteger(
                    op, 0, static_cast<int64_t>(operators_.size()) - 1, at, name_))]);
        }
        return cost::signatureBytes(s);
    }

    Measurement legacyEntry(const util::Json& e, const std::string& where) {
        if (!e.is_object())
            throw UserError(where + " must be an object", name_);
        Measurement m;
        m.key.device.name = stringField(e, "device", where, name_, false);
        m.key.device.mathMode.clear(); // unknown: legacy caches recorded the device name only
        const std::string model = stringField(e, "model", where, name_, false);
        m.key.batch = static_cast<int>(util::jsonInteger(field(e, "batch", where, name_), 1,
                                                         cost::kMaxBatch, where + ".batch", name_));
        const std::string stage = stringField(e, "stage", where, name_, false);
        m.sample.medianMs = latencyField(e, "latency_ms", true, where, name_);
        m.sample.count = e.contains("samples")
                             ? static_cast<int>(util::jsonInteger(e["samples"], 0, INT32_MAX,
                                                                  where + ".samples", name_))
                             : 0;
        m.sample.count = std::max(m.sample.count, 1);
        m.sample.toolVersion = "legacy-cache";
        const LegacyModel& lm = legacyModel(model, where);
        std::string why;
        const std::optional<cost::KeyedStage> keyed =
            cost::resolveStageKey(stage, lm.places, lm.dags, model, why);
        if (!keyed)
            throw UserError(where + ": stage " + stage + " " + why, name_);
        const ir::NodeIndex& nodes = *lm.nodes;
        const ir::ShapeLookup shapeOf = [&nodes](const std::string& n) -> const ir::TensorShape* {
            const ir::Node* node = nodes.find(n);
            return node ? &node->outputShape : nullptr;
        };
        m.key.signature = cost::signatureBytes(cost::stageSignature(
            lm.dags[static_cast<size_t>(keyed->block)], keyed->stage, shapeOf));
        return m;
    }

    const LegacyModel& legacyModel(const std::string& name, const std::string& where) {
        auto it = models_.find(name);
        if (it != models_.end())
            return *it->second;
        const ir::Graph* graph = resolve_ ? resolve_(name) : nullptr;
        if (!graph)
            throw ModelNotFound(name, where, name_);
        auto lm = std::make_unique<LegacyModel>();
        lm->graph = graph;
        lm->dags = ir::buildDags(*graph);
        lm->places = cost::operatorPlaces(lm->dags);
        lm->nodes = std::make_unique<ir::NodeIndex>(*graph);
        return *models_.emplace(name, std::move(lm)).first->second;
    }

    void collect(Measurement m) {
        ++counts_.samples;
        if (!store_)
            return; // the validating pass
        batch_.push_back(std::move(m));
        if (batch_.size() >= kImportBatch)
            flush();
    }

    void flush() {
        if (store_ && !batch_.empty())
            counts_.added += store_->add(batch_);
        batch_.clear();
    }

    std::filesystem::path file_;
    std::string name_;
    MeasurementStore* store_;
    const ModelResolver& resolve_;
    bool legacy_ = false;
    std::vector<std::string> operators_;
    std::set<std::string> operatorSet_;
    std::vector<cost::DeviceIdentity> devices_;
    std::map<std::string, std::unique_ptr<LegacyModel>> models_;
    std::vector<Measurement> batch_;
    JsonCounts counts_;
};

} // namespace

JsonCounts exportStoreJson(MeasurementStore& store, std::ostream& out) {
    // Pass 1: the operators and devices the samples use, in canonical order.
    std::map<std::string, size_t> operators;
    std::map<std::string, std::pair<cost::DeviceIdentity, size_t>> devices;
    store.forEach([&](const Measurement& m) {
        const std::optional<cost::StageSignature> s = cost::parseSignatureBytes(m.key.signature);
        if (!s)
            throw UserError("measurement store holds a malformed stage signature");
        for (const std::vector<std::string>& group : s->groups)
            for (const std::string& op : group)
                operators.emplace(op, 0);
        devices.emplace(cost::canonicalText(m.key.device), std::make_pair(m.key.device, 0));
    });
    JsonCounts counts;
    out << "{\n\"format\": \"" << kStoreJsonFormat << "\",\n\"version\": " << kStoreJsonVersion
        << ",\n\"exported_by\": \"" << util::toolNameAndVersion() << "\",\n\"operators\": [";
    for (auto& [op, index] : operators) {
        index = static_cast<size_t>(counts.operators++);
        out << (index ? ",\n\"" : "\n\"") << toHex(op) << '"';
    }
    out << "\n],\n\"devices\": [";
    for (auto& [text, device] : devices) {
        device.second = static_cast<size_t>(counts.devices++);
        out << (device.second ? ",\n" : "\n") << util::dumpJson(cost::toJson(device.first), -1);
    }
    out << "\n],\n\"samples\": [";
    // Pass 2: the samples, one per line, in the store's canonical order.
    store.forEach([&](const Measurement& m) {
        const cost::StageSignature s = *cost::parseSignatureBytes(m.key.signature);
        util::Json groups = util::Json::array();
        for (const std::vector<std::string>& group : s.groups) {
            util::Json ids = util::Json::array();
            for (const std::string& op : group)
                ids.push_back(operators.at(op));
            groups.push_back(std::move(ids));
        }
        const util::Json line = {
            {"device", devices.at(cost::canonicalText(m.key.device)).second},
            {"batch", m.key.batch},
            {"dtype", m.key.dtype},
            {"kind", s.kind == schedule::StageKind::Merge ? "merge" : "parallel"},
            {"groups", std::move(groups)},
            {"median_ms", m.sample.medianMs},
            {"spread_ms", m.sample.spreadMs},
            {"count", m.sample.count},
            {"tool_version", m.sample.toolVersion},
            {"measured_at", m.sample.measuredAt}};
        out << (counts.samples++ ? ",\n" : "\n") << util::dumpJson(line, -1);
    });
    out << "\n]\n}\n";
    return counts;
}

JsonCounts checkStoreJson(const std::filesystem::path& file, const ModelResolver& resolve) {
    return Importer(file, nullptr, resolve).run();
}

JsonCounts importStoreJson(const std::filesystem::path& file, MeasurementStore& store,
                           const ModelResolver& resolve, bool checked) {
    if (!checked)
        checkStoreJson(file, resolve); // validate everything: a bad file adds nothing
    return Importer(file, &store, resolve).run();
}

JsonCounts importStoreJson(const std::filesystem::path& file, MeasurementStore& store,
                           const ModelResolver& resolve) {
    return importStoreJson(file, store, resolve, false);
}

} // namespace ios::store
