// SPDX-License-Identifier: Apache-2.0
#include "io/foreign_trace.h"

#include "store/sqlite_statement.h"
#include "util/error.h"
#include "util/input_file.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace ios::io {

using util::Json;

namespace {

// One kernel as both tools describe it, times in ns.
struct RawKernel {
    int64_t device = 0;
    int64_t stream = 0;
    double startNs = 0, endNs = 0;
    std::string name;
    int64_t ctas = 0;
};

// The kernels of the device with the most of them, as a timeline (foreign_trace.h).
eval::Timeline timelineOf(std::vector<RawKernel> raw, const std::map<int64_t, std::string>& names,
                          const std::map<int64_t, int>& smCounts, const std::string& source,
                          ForeignTraceInfo* info) {
    if (raw.empty())
        throw UserError("the trace holds no GPU kernel", source);
    std::map<int64_t, size_t> perDevice;
    for (const RawKernel& k : raw)
        ++perDevice[k.device];
    const int64_t device =
        std::max_element(perDevice.begin(), perDevice.end(), [](const auto& a, const auto& b) {
            return a.second < b.second;
        })->first;
    std::stable_sort(raw.begin(), raw.end(), [](const RawKernel& a, const RawKernel& b) {
        return std::tie(a.startNs, a.stream) < std::tie(b.startNs, b.stream);
    });
    eval::Timeline tl;
    const auto name = names.find(device);
    tl.device = name != names.end() ? name->second : "GPU " + std::to_string(device);
    // Without the GPU's SM count, SMs are per-mille units as in imported Chrome traces.
    const auto sms = smCounts.find(device);
    tl.smCount = sms != smCounts.end() && sms->second > 0 ? sms->second : 1000;
    std::map<int64_t, int> streams; // stream id -> index by first use
    double origin = -1;
    for (const RawKernel& k : raw) {
        if (k.device != device)
            continue;
        if (origin < 0)
            origin = k.startNs;
        const auto [it, added] = streams.emplace(k.stream, static_cast<int>(streams.size()));
        eval::TimelineKernel out;
        out.stream = it->second;
        out.op = -1;
        out.kernel = k.name;
        out.ctas = k.ctas;
        out.startUs = (k.startNs - origin) / 1000.0;
        out.endUs = (k.endNs - origin) / 1000.0;
        tl.latencyUs = std::max(tl.latencyUs, out.endUs);
        tl.kernels.push_back(std::move(out));
    }
    tl.streams = static_cast<int>(streams.size());
    if (info) {
        info->otherKernels = raw.size() - tl.kernels.size();
        if (info->otherKernels > 0)
            info->note = std::to_string(info->otherKernels) + " kernels on other devices left out";
    }
    return tl;
}

// --- Kineto -------------------------------------------------------------------------------

bool hasCorrelatedKernel(const Json& events) {
    for (const Json& e : events)
        if (e.is_object() && e.value("cat", Json()).is_string() && e["cat"] == "kernel" &&
            e.contains("args") && e["args"].is_object() && e["args"].contains("correlation"))
            return true;
    return false;
}

double finiteNumber(const Json& e, const char* key, size_t i, const std::string& source) {
    const auto it = e.find(key);
    if (it == e.end() || !it->is_number() || !std::isfinite(it->get<double>()))
        throw UserError("invalid Kineto trace: event " + std::to_string(i) + ": \"" + key +
                            "\" must be a finite number",
                        source);
    return it->get<double>();
}

int64_t argInteger(const Json& args, const char* key, int64_t fallback) {
    const auto it = args.find(key);
    return it != args.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

int64_t gridProduct(const Json& args) {
    const auto grid = args.find("grid");
    if (grid == args.end() || !grid->is_array())
        return 0;
    int64_t product = 1;
    for (const Json& d : *grid)
        product *= d.is_number_integer() ? std::clamp<int64_t>(d.get<int64_t>(), 0, 1 << 30) : 0;
    return product;
}

} // namespace

bool isKinetoTrace(const Json& doc) {
    if (!doc.is_object())
        return false;
    if (doc.contains("schemaVersion") || doc.contains("deviceProperties"))
        return true;
    const auto events = doc.find("traceEvents");
    return events != doc.end() && events->is_array() && hasCorrelatedKernel(*events);
}

eval::Timeline kinetoTimeline(const Json& doc, const std::string& source, ForeignTraceInfo* info) {
    const auto events = doc.find("traceEvents");
    if (events == doc.end() || !events->is_array())
        throw UserError("invalid Kineto trace: expected a \"traceEvents\" array", source);
    std::vector<RawKernel> raw;
    for (size_t i = 0; i < events->size(); ++i) {
        const Json& e = (*events)[i];
        if (!e.is_object() || e.value("ph", "") != "X" || e.value("cat", "") != "kernel")
            continue; // cpu_op, cuda_runtime, memcpy, ... are not kernels
        const double ts = finiteNumber(e, "ts", i, source), dur = finiteNumber(e, "dur", i, source);
        if (dur < 0)
            throw UserError("invalid Kineto trace: event " + std::to_string(i) +
                                ": \"dur\" is negative",
                            source);
        const Json args = e.contains("args") && e["args"].is_object() ? e["args"] : Json::object();
        RawKernel k;
        k.device =
            argInteger(args, "device",
                       e.value("pid", Json(0)).is_number_integer() ? e["pid"].get<int64_t>() : 0);
        k.stream =
            argInteger(args, "stream",
                       e.value("tid", Json(0)).is_number_integer() ? e["tid"].get<int64_t>() : 0);
        k.startNs = ts * 1000.0; // Kineto writes µs
        k.endNs = (ts + dur) * 1000.0;
        k.name = e.value("name", Json("")).is_string() ? e["name"].get<std::string>() : "";
        k.ctas = gridProduct(args);
        raw.push_back(std::move(k));
    }
    std::map<int64_t, std::string> names;
    std::map<int64_t, int> sms;
    if (const auto props = doc.find("deviceProperties"); props != doc.end() && props->is_array())
        for (const Json& p : *props) {
            if (!p.is_object() || !p.contains("id") || !p["id"].is_number_integer())
                continue;
            const int64_t id = p["id"].get<int64_t>();
            if (p.contains("name") && p["name"].is_string())
                names[id] = p["name"].get<std::string>();
            if (p.contains("numSms") && p["numSms"].is_number_integer())
                sms[id] =
                    static_cast<int>(std::clamp<int64_t>(p["numSms"].get<int64_t>(), 0, 1 << 16));
        }
    if (info)
        info->tool = "kineto";
    return timelineOf(std::move(raw), names, sms, source, info);
}

// --- Nsight Systems (SQLite) ---------------------------------------------------------------

bool isSqliteFile(const std::filesystem::path& path) {
    if (util::isStandardInput(path))
        return false;
    try {
        return util::readInputHead(path, 16) == std::string("SQLite format 3\0", 16);
    } catch (const UserError&) {
        return false;
    }
}

namespace {

eval::Timeline readNsysTables(const std::filesystem::path& path, ForeignTraceInfo* info) {
    const std::string source = path.string();
    store::SqliteDb db(source);
    db.open(source, /*readOnly=*/true, /*create=*/false);
    if (db.count("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = "
                 "'CUPTI_ACTIVITY_KIND_KERNEL'") == 0)
        throw UserError("not an Nsight Systems export with GPU kernels: no table "
                        "CUPTI_ACTIVITY_KIND_KERNEL (export the report of a run with CUDA "
                        "tracing to SQLite with Nsight Systems' `nsys export`)",
                        source);
    std::vector<RawKernel> raw;
    store::SqliteStatement& kernels = db.statement(
        "SELECT k.deviceId, k.streamId, k.start, k.end, coalesce(s.value, ''), "
        "k.gridX * k.gridY * k.gridZ FROM CUPTI_ACTIVITY_KIND_KERNEL k "
        "LEFT JOIN StringIds s ON s.id = coalesce(k.shortName, k.demangledName) ORDER BY k.start");
    while (kernels.step()) {
        RawKernel k;
        k.device = kernels.integer(0);
        k.stream = kernels.integer(1);
        k.startNs = static_cast<double>(kernels.integer(2));
        k.endNs = static_cast<double>(kernels.integer(3));
        if (k.endNs < k.startNs)
            throw UserError("CUPTI_ACTIVITY_KIND_KERNEL: a kernel ends before it starts", source);
        k.name = kernels.text(4);
        k.ctas = kernels.integer(5);
        raw.push_back(std::move(k));
    }
    std::map<int64_t, std::string> names;
    std::map<int64_t, int> sms;
    if (db.count("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = "
                 "'TARGET_INFO_GPU'") > 0) {
        try { // optional: the GPU's name and SM count (columns differ between nsys versions)
            store::SqliteStatement& gpus =
                db.statement("SELECT id, name, smCount FROM TARGET_INFO_GPU");
            while (gpus.step()) {
                names[gpus.integer(0)] = gpus.text(1);
                sms[gpus.integer(0)] =
                    static_cast<int>(std::clamp<int64_t>(gpus.integer(2), 0, 1 << 16));
            }
        } catch (const UserError&) {
            names.clear();
            sms.clear();
        }
    }
    if (info)
        info->tool = "nsys";
    return timelineOf(std::move(raw), names, sms, source, info);
}

} // namespace

eval::Timeline readNsysSqlite(const std::filesystem::path& path, ForeignTraceInfo* info) {
    const std::string source = path.string();
    try {
        return readNsysTables(path, info);
    } catch (const UserError& e) {
        // Errors of this reader name the file already; the SQLite layer's (store/
        // sqlite_statement.h) name no file and are worded for measurement stores.
        if (!e.file().empty())
            throw;
        throw UserError("not a readable Nsight Systems SQLite export (export the report again "
                        "to SQLite with `nsys export`)",
                        source);
    }
}

} // namespace ios::io
