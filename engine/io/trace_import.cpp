// SPDX-License-Identifier: Apache-2.0
#include "io/trace_import.h"

#include "cost/cost_model.h"
#include "io/foreign_trace.h"
#include "io/trace_format.h"
#include "schedule/stream_program.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_number.h"
#include "util/json_text.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace ios::io {

using util::Json;
using util::parseJsonDocument;

namespace {

// See trace_import.h: the exported percentage has 0.1 % steps.
constexpr int kPerMille = 1000;
// The streams a trace may use: those of a stream program, which is what every timeline this
// tool writes runs on (stage groups past it share streams); guards the vector sizes against
// hostile tids.
constexpr int kMaxStreams = schedule::kMaxProgramStreams;
// Event times (µs) beyond this are no run's: it is otherData.latency_ms's bound (1e12 ms), so
// every trace that loads exports to one that loads again (tests/fuzz/fuzz_chrome_trace.cpp).
constexpr double kMaxTraceUs = 1e15;

class Reader {
public:
    explicit Reader(const std::string& source) : source_(source) {}

    [[noreturn]] void fail(const std::string& what) const {
        throw UserError("invalid Chrome trace: " + what, source_);
    }

    double number(const Json& object, const char* key, size_t event) const {
        const auto it = object.find(key);
        if (it == object.end() || !it->is_number())
            fail("event " + std::to_string(event) + ": \"" + key + "\" must be a number");
        const double v = it->get<double>();
        if (!std::isfinite(v))
            fail("event " + std::to_string(event) + ": \"" + key + "\" is not finite");
        return v;
    }
    double optionalNumber(const Json& object, const char* key, size_t event) const {
        return object.contains(key) ? number(object, key, event) : 0.0;
    }
    int integer(const Json& object, const char* key, size_t event) const {
        const double v = number(object, key, event);
        if (v != std::floor(v) || v < 0 || v > 1e9)
            fail("event " + std::to_string(event) + ": \"" + key +
                 "\" must be a non-negative integer");
        return static_cast<int>(v);
    }
    std::string string(const Json& object, const char* key, size_t event) const {
        const auto it = object.find(key);
        if (it == object.end() || !it->is_string())
            fail("event " + std::to_string(event) + ": \"" + key + "\" must be a string");
        return it->get<std::string>();
    }
    const Json& args(const Json& e, size_t event) const {
        const auto it = e.find("args");
        if (it == e.end() || !it->is_object())
            fail("event " + std::to_string(event) + ": \"args\" must be an object");
        return *it;
    }

private:
    const std::string& source_;
};

void readComplete(const Reader& r, const Json& e, size_t i, eval::Timeline& tl) {
    const std::string cat = r.string(e, "cat", i);
    const double start = r.number(e, "ts", i);
    const double dur = r.number(e, "dur", i);
    if (dur < 0)
        r.fail("event " + std::to_string(i) + ": negative \"dur\"");
    if (std::abs(start) > kMaxTraceUs || start + dur > kMaxTraceUs)
        r.fail("event " + std::to_string(i) +
               ": \"ts\" + \"dur\" is beyond 1e15 µs; give times in µs from the start of the run");
    const int tid = r.integer(e, "tid", i);
    const Json& a = r.args(e, i);
    if (cat == trace::kStageCategory) {
        eval::TimelineStage s;
        s.block = r.integer(a, "block", i);
        s.stage = r.integer(a, "stage", i);
        s.groups = r.integer(a, "groups", i);
        const std::string name = r.string(e, "name", i);
        const std::string_view merge = trace::kMergeSuffix;
        s.kind = name.size() >= merge.size() &&
                         name.compare(name.size() - merge.size(), merge.size(), merge) == 0
                     ? schedule::StageKind::Merge
                     : schedule::StageKind::Parallel;
        s.startUs = start;
        s.endUs = start + dur;
        s.meanActiveSmFraction = r.optionalNumber(a, trace::kActiveSmPct, i) / 100.0;
        s.meanWarpOccupancy = r.optionalNumber(a, trace::kWarpOccupancyPct, i) / 100.0;
        s.meanFlopUtilisation = r.optionalNumber(a, trace::kFlopUtilisationPct, i) / 100.0;
        tl.stages.push_back(s);
    } else if (cat == trace::kKernelCategory) {
        if (tid < trace::streamTid(0) || tid > trace::streamTid(kMaxStreams - 1))
            r.fail("event " + std::to_string(i) + ": kernel on tid " + std::to_string(tid) +
                   " (streams are tids 1.." + std::to_string(kMaxStreams) + ")");
        eval::TimelineKernel k;
        k.stream = tid - trace::streamTid(0);
        k.block = r.integer(a, "block", i);
        k.stage = r.integer(a, "stage", i);
        k.op = -1;
        k.opName = r.string(a, "op", i);
        k.kernel = r.string(a, "kernel", i);
        k.ctas = static_cast<int64_t>(r.integer(a, "ctas", i));
        k.startUs = start;
        k.endUs = start + dur;
        tl.kernels.push_back(std::move(k));
        tl.streams = std::max(tl.streams, k.stream + 1);
    } // other categories are not ours: a trace may be annotated by other tools
}

void readCounter(const Reader& r, const Json& e, size_t i, eval::Timeline& tl) {
    const Json& a = r.args(e, i);
    eval::TimelineSample u;
    u.timeUs = r.number(e, "ts", i);
    if (std::abs(u.timeUs) > kMaxTraceUs)
        r.fail("event " + std::to_string(i) +
               ": \"ts\" is beyond 1e15 µs; give times in µs from the start of the run");
    // Every counter is a percentage of the device's peak.
    const auto percent = [&](const char* key, bool optional) {
        const double v = optional ? r.optionalNumber(a, key, i) : r.number(a, key, i);
        if (v < 0 || v > 100)
            r.fail("event " + std::to_string(i) + ": \"" + key + "\" must be a percentage in " +
                   "[0, 100]");
        return v;
    };
    if (a.contains(trace::kActiveWarpsPct)) { // measured: PM sampling of active warps only
        u.warpOccupancy = percent(trace::kActiveWarpsPct, false) / 100.0;
    } else {
        u.activeSms =
            static_cast<int>(std::lround(percent(trace::kActiveSmPct, false) / 100.0 * tl.smCount));
        u.warpOccupancy = percent(trace::kWarpOccupancyPct, true) / 100.0;
        u.flopUtilisation = percent(trace::kFlopUtilisationPct, true) / 100.0;
    }
    tl.samples.push_back(u);
}

// The device-wide counter; per-stream counters and other tools' counters are not samples. A
// counter without a name is read (and checked) as one.
bool isUtilisationCounter(const Json& e) {
    const auto name = e.find("name");
    return name == e.end() || !name->is_string() || *name == trace::kSimulatedCounter ||
           *name == trace::kMeasuredCounter;
}

} // namespace

eval::Timeline parseChromeTrace(std::string_view text, const std::string& source, TraceInfo* info) {
    const util::JsonDocument parsed = parseJsonDocument(text, source);
    const Json& doc = parsed.root();
    const Reader r(source);
    // The Trace Event Format's "JSON Array Format" (older torch.profiler exports): another
    // tool's, since this tool writes objects; read like a Kineto trace (GPU kernels only).
    if (doc.is_array()) {
        eval::Timeline tl = kinetoTimeline(Json{{"traceEvents", doc}}, source);
        if (info)
            *info = TraceInfo{{}, "Chrome trace (array format)", trace::kMeasuredSource};
        return tl;
    }
    if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
        r.fail("expected an object with a \"traceEvents\" array");
    if (isKinetoTrace(doc)) { // a PyTorch profiler trace (io/foreign_trace.h)
        eval::Timeline tl = kinetoTimeline(doc, source);
        if (info)
            *info = TraceInfo{{}, "PyTorch profiler (Kineto)", trace::kMeasuredSource};
        return tl;
    }

    eval::Timeline tl;
    tl.smCount = kPerMille;
    TraceInfo meta;
    if (const auto other = doc.find("otherData"); other != doc.end() && other->is_object()) {
        auto str = [&](const char* key) {
            const auto it = other->find(key);
            return it != other->end() && it->is_string() ? it->get<std::string>() : std::string();
        };
        meta.model = str("model");
        meta.strategy = str("strategy");
        if (const std::string s = str("source"); !s.empty())
            meta.source = s;
        meta.mode = str("mode");
        meta.warpMetric = str("warp_metric");
        tl.device = str("device");
        if (const auto b = other->find("batch"); b != other->end())
            tl.batch = static_cast<int>(
                util::jsonInteger(*b, 1, cost::kMaxBatch, "otherData.batch", source));
        if (const auto l = other->find("latency_ms"); l != other->end()) // any sum of stages
            tl.latencyUs = util::jsonNumber(*l, 0, 1e12, "otherData.latency_ms", source) * 1000.0;
        if (const auto n = other->find(trace::kSmCount); n != other->end())
            tl.smCount = static_cast<int>(util::jsonInteger(
                *n, 1, trace::kMaxSmCount, std::string("otherData.") + trace::kSmCount, source));
    }

    const Json& events = doc["traceEvents"];
    for (size_t i = 0; i < events.size(); ++i) {
        const Json& e = events[i];
        if (!e.is_object())
            r.fail("event " + std::to_string(i) + " is not an object");
        const std::string ph = r.string(e, "ph", i);
        if (ph == "X")
            readComplete(r, e, i, tl);
        else if (ph == "C" && isUtilisationCounter(e))
            readCounter(r, e, i, tl);
        // "M" metadata only names the tracks; stages and kernels are told apart by category,
        // streams by tid (io/trace_format.h), whatever the pid (0 in older traces).
    }

    // Kernels: stage by stage in issue order (the Timeline's order), i.e. by start time.
    std::stable_sort(tl.kernels.begin(), tl.kernels.end(), [](const auto& a, const auto& b) {
        return std::tie(a.startUs, a.stream) < std::tie(b.startUs, b.stream);
    });
    std::stable_sort(tl.stages.begin(), tl.stages.end(),
                     [](const auto& a, const auto& b) { return a.startUs < b.startUs; });
    std::stable_sort(tl.samples.begin(), tl.samples.end(),
                     [](const auto& a, const auto& b) { return a.timeUs < b.timeUs; });
    for (const eval::TimelineStage& s : tl.stages)
        tl.streams = std::max(tl.streams, std::min(s.groups, kMaxStreams));
    if (tl.latencyUs <= 0) {
        for (const auto& s : tl.stages)
            tl.latencyUs = std::max(tl.latencyUs, s.endUs);
        for (const auto& k : tl.kernels)
            tl.latencyUs = std::max(tl.latencyUs, k.endUs);
    }
    if (tl.kernels.empty() && tl.stages.empty())
        r.fail("no kernel or stage events");
    if (info)
        *info = meta;
    return tl;
}

eval::Timeline readChromeTrace(const std::filesystem::path& path, TraceInfo* info) {
    if (path.extension() == ".nsys-rep" || path.extension() == ".qdrep")
        throw UserError("an Nsight Systems report cannot be read directly: export it to SQLite "
                        "with `nsys export` and open the .sqlite file",
                        path.string());
    if (isSqliteFile(path)) { // an Nsight Systems export (io/foreign_trace.h)
        eval::Timeline tl = readNsysSqlite(path);
        if (info)
            *info = TraceInfo{{}, "Nsight Systems", trace::kMeasuredSource};
        return tl;
    }
    return parseChromeTrace(util::readInputFile(path, util::InputKind::Trace), path.string(), info);
}

} // namespace ios::io
