// SPDX-License-Identifier: Apache-2.0
// Reading measurement caches entry by entry (MeasurementCache::load / parse): nlohmann's SAX
// parser feeds the events of one entry at a time into a small object, which is checked and
// added, then dropped; the document is never held whole, so a cache of any size loads in
// memory proportional to its entries, and nesting of any depth is skipped without recursion.
#include "cost/cost_model.h"
#include "cost/measurement_cache.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_number.h"

namespace ios::cost {

namespace {

std::string entryShape(const std::string& where) {
    return where + " must be an object with strings \"device\", \"model\", \"stage\" and "
                   "numbers \"batch\", \"latency_ms\"";
}

// The cache document's SAX events: the header's scalar fields kept, every entry built,
// checked and added to the cache as soon as it closes, anything else skipped.
class CacheEvents {
public:
    CacheEvents(MeasurementCache& cache, const std::string& file) : cache_(cache), file_(file) {}

    bool null() { return scalar(util::Json(nullptr)); }
    bool boolean(bool v) { return scalar(util::Json(v)); }
    bool number_integer(util::Json::number_integer_t v) { return scalar(util::Json(v)); }
    bool number_unsigned(util::Json::number_unsigned_t v) { return scalar(util::Json(v)); }
    bool number_float(util::Json::number_float_t v, const util::Json::string_t&) {
        return scalar(util::Json(v));
    }
    bool string(util::Json::string_t& v) { return scalar(util::Json(std::move(v))); }
    bool binary(util::Json::binary_t&) { throw UserError("binary values are not JSON", file_); }

    bool start_object(size_t) { return open(true); }
    bool start_array(size_t) { return open(false); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(util::Json::string_t& k) {
        util::Json& object = depth_ == 1 ? header_ : depth_ == 3 && inEntries() ? entry_ : skip_;
        if (&object != &skip_ && object.contains(k))
            throw UserError("duplicate key '" + k + "' in " +
                                (depth_ == 1 ? std::string("the cache") : where()) +
                                "; each key may appear once, remove the other",
                            file_);
        key_ = std::move(k);
        if (depth_ == 1)
            rootKey_ = key_;
        return true;
    }
    bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& e) {
        throw UserError("not valid JSON: " + util::jsonErrorText(e), file_);
    }

    // After the last event: the header must name the format and version, and hold entries.
    void finish() {
        if (!header_.is_object() || !header_.contains("format") || header_["format"] != kFormat())
            throw UserError(std::string("not a measurement cache (expected \"format\": \"") +
                                kFormat() + "\")",
                            file_);
        util::requireFormatVersion(header_, kMeasurementCacheVersion, "measurement cache", file_);
        if (!sawEntries_)
            throw UserError("\"entries\" must be an array", file_);
    }

private:
    static const char* kFormat() { return kMeasurementCacheFormat; }
    bool inEntries() const { return rootKey_ == "entries"; }
    std::string where() const { return "entries[" + std::to_string(index_) + "]"; }

    bool open(bool object) {
        ++depth_;
        if (depth_ == 1 && !object)
            throw UserError(std::string("not a measurement cache (expected \"format\": \"") +
                                kFormat() + "\")",
                            file_);
        if (depth_ == 1)
            header_ = util::Json::object();
        if (depth_ == 2 && inEntries()) {
            if (object)
                throw UserError("\"entries\" must be an array", file_);
            sawEntries_ = true;
        }
        if (depth_ == 3 && inEntries()) {
            if (!object)
                throw UserError(entryShape(where()) + " (it is an array)", file_);
            entry_ = util::Json::object();
        }
        if (depth_ == 4 && inEntries())
            throw UserError(entryShape(where()) + " (\"" + key_ + "\" holds an array or object)",
                            file_);
        return true;
    }

    bool close() {
        if (depth_ == 3 && inEntries()) {
            cache_.add(measurementFromJson(entry_, where(), file_));
            entry_ = nullptr;
            ++index_;
        }
        --depth_;
        return true;
    }

    bool scalar(util::Json&& v) {
        if (depth_ == 0)
            throw UserError(std::string("not a measurement cache (expected \"format\": \"") +
                                kFormat() + "\")",
                            file_);
        if (depth_ == 1) {
            if (rootKey_ == "entries")
                throw UserError("\"entries\" must be an array", file_);
            header_[key_] = std::move(v);
        } else if (depth_ == 2 && inEntries()) {
            throw UserError(entryShape(where()) + " (it is " + std::string(v.type_name()) + ")",
                            file_);
        } else if (depth_ == 3 && inEntries()) {
            entry_[key_] = std::move(v);
        }
        return true;
    }

    MeasurementCache& cache_;
    const std::string& file_;
    int depth_ = 0;       // open containers
    std::string key_;     // the last key read
    std::string rootKey_; // the last key of the top object
    util::Json header_;   // the top object's scalar fields
    util::Json entry_;    // the entry being read
    util::Json skip_;     // stands for containers whose keys are not kept
    bool sawEntries_ = false;
    size_t index_ = 0; // of the entry being read
};

} // namespace

StageMeasurement measurementFromJson(const util::Json& e, const std::string& where,
                                     const std::string& file) {
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
        if (e.contains("model_hash"))
            m.modelHash = e["model_hash"].get<std::string>();
        if (m.stage.empty())
            throw UserError(where + ".stage must not be empty", file);
        return m;
    } catch (const util::Json::exception& ex) {
        throw UserError(entryShape(where) + " (" + util::jsonErrorText(ex) + ")", file);
    }
}

MeasurementCache MeasurementCache::parse(std::string_view jsonText, const std::string& file) {
    if (jsonText.find_first_not_of(" \t\r\n") == std::string_view::npos)
        throw UserError("the file is empty", file);
    MeasurementCache cache;
    CacheEvents events(cache, file);
    util::Json::sax_parse(jsonText.begin(), jsonText.end(), &events,
                          util::Json::input_format_t::json,
                          /*strict=*/true, /*ignore_comments=*/false);
    events.finish();
    return cache;
}

MeasurementCache MeasurementCache::load(const std::filesystem::path& path) {
    const std::string file = path.string();
    // Checked as every input is (a regular file; no FIFO hangs us), but with no size cap.
    const std::unique_ptr<std::istream> in =
        util::openInputStream(path, util::InputKind::MeasurementCache);
    if (in->peek() == std::char_traits<char>::eof())
        throw UserError("the file is empty", file);
    MeasurementCache cache;
    CacheEvents events(cache, file);
    util::Json::sax_parse(*in, &events, util::Json::input_format_t::json, /*strict=*/true,
                          /*ignore_comments=*/false);
    events.finish();
    return cache;
}

} // namespace ios::cost
