#include "io/trace_export.h"

#include "io/trace_format.h"
#include "util/file_util.h"
#include "util/json_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ios::io {

using util::dumpPythonStyle;
using util::Json;
using util::writeFileAtomically;

namespace {

using trace::kPid;
using trace::kStageTid;

// Flow arrows: a stream program's events, from a record to a wait (the importer skips them).
constexpr const char* kFlowCategory = "event";

// Nanosecond resolution keeps the files small and identical across runs and platforms.
double roundUs(double us) {
    return std::round(us * 1000.0) / 1000.0;
}
double roundPct(double fraction) {
    return std::round(fraction * 1000.0) / 10.0;
}

std::string stageName(const eval::TimelineStage& s) {
    std::string name = "block " + std::to_string(s.block) + " stage " + std::to_string(s.stage);
    if (s.kind == schedule::StageKind::Merge)
        return name + trace::kMergeSuffix;
    return name + " (" + std::to_string(s.groups) + (s.groups == 1 ? " group)" : " groups)");
}

Json metadata(const char* what, int tid, const std::string& name) {
    Json e;
    e["name"] = what;
    e["ph"] = "M";
    e["pid"] = kPid;
    e["tid"] = tid;
    e["args"] = Json{{"name", name}};
    return e;
}

Json complete(const std::string& name, const char* category, double start, double end, int tid) {
    Json e;
    e["name"] = name;
    e["cat"] = category;
    e["ph"] = "X";
    e["ts"] = roundUs(start);
    e["dur"] = roundUs(end) - roundUs(start);
    e["pid"] = kPid;
    e["tid"] = tid;
    return e;
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

} // namespace

std::vector<TraceFlow> traceFlows(const std::vector<eval::ProgramFlow>& flows) {
    std::vector<TraceFlow> out;
    out.reserve(flows.size());
    for (const eval::ProgramFlow& f : flows)
        out.push_back({f.fromStream, f.fromUs, f.toStream, f.toUs, "e" + std::to_string(f.event)});
    return out;
}

std::string chromeTraceJson(const eval::Timeline& tl, const TraceInfo& info) {
    return chromeTraceJson(tl, info, {});
}

std::string chromeTraceJson(const eval::Timeline& tl, const TraceInfo& info,
                            const std::vector<TraceFlow>& flows) {
    Json events = Json::array();
    events.push_back(
        metadata("process_name", kStageTid,
                 tl.device + " (" + info.source + ", batch " + std::to_string(tl.batch) + ")"));
    events.push_back(metadata("thread_name", kStageTid, "stages"));
    int streams = tl.streams; // a stream that only records or waits still gets its track name
    for (const TraceFlow& f : flows)
        streams = std::max({streams, f.fromStream + 1, f.toStream + 1});
    for (int s = 0; s < streams; ++s)
        events.push_back(metadata("thread_name", s + 1, "stream " + std::to_string(s)));

    for (const eval::TimelineStage& s : tl.stages) {
        Json e = complete(stageName(s), trace::kStageCategory, s.startUs, s.endUs, kStageTid);
        e["args"] = Json{{"block", s.block},
                         {"stage", s.stage},
                         {"groups", s.groups},
                         {trace::kActiveSmPct, roundPct(s.meanActiveSmFraction)},
                         {trace::kWarpOccupancyPct, roundPct(s.meanWarpOccupancy)},
                         {trace::kFlopUtilisationPct, roundPct(s.meanFlopUtilisation)}};
        events.push_back(std::move(e));
    }
    // Per stream in time order (kernels of one stream never overlap).
    for (int stream = 0; stream < tl.streams; ++stream) {
        for (const eval::TimelineKernel& k : tl.kernels) {
            if (k.stream != stream)
                continue;
            Json e = complete(k.opName + ": " + k.kernel, trace::kKernelCategory, k.startUs,
                              k.endUs, stream + 1);
            e["args"] = Json{{"op", k.opName},
                             {"kernel", k.kernel},
                             {"ctas", k.ctas},
                             {"block", k.block},
                             {"stage", k.stage}};
            events.push_back(std::move(e));
        }
    }
    // Flow events bind to the slices around them on their tracks: "s" to the one enclosing it
    // (the recorded work ends there), "f" with "bp": "e" to the one enclosing it too.
    for (size_t i = 0; i < flows.size(); ++i) {
        const TraceFlow& f = flows[i];
        for (const bool start : {true, false}) {
            Json e;
            e["name"] = f.name;
            e["cat"] = kFlowCategory;
            e["ph"] = start ? "s" : "f";
            if (!start)
                e["bp"] = "e";
            e["id"] = i + 1;
            e["ts"] = roundUs(start ? f.fromUs : f.toUs);
            e["pid"] = kPid;
            e["tid"] = (start ? f.fromStream : f.toStream) + 1;
            events.push_back(std::move(e));
        }
    }
    const bool measured = info.source == trace::kMeasuredSource;
    for (const eval::TimelineSample& u : tl.samples) {
        Json e;
        if (measured) { // PM sampling gives active warps only (% of the peak per SM)
            e["name"] = trace::kMeasuredCounter;
            e["ph"] = "C";
            e["ts"] = roundUs(u.timeUs);
            e["pid"] = kPid;
            e["args"] = Json{{trace::kActiveWarpsPct, roundPct(u.warpOccupancy)}};
            events.push_back(std::move(e));
            continue;
        }
        e["name"] = trace::kSimulatedCounter;
        e["ph"] = "C";
        e["ts"] = roundUs(u.timeUs);
        e["pid"] = kPid;
        e["args"] = Json{{trace::kActiveSmPct,
                          roundPct(static_cast<double>(u.activeSms) / std::max(1, tl.smCount))},
                         {trace::kWarpOccupancyPct, roundPct(u.warpOccupancy)},
                         {trace::kFlopUtilisationPct, roundPct(u.flopUtilisation)}};
        events.push_back(std::move(e));
    }

    Json doc;
    doc["traceEvents"] = std::move(events);
    doc["displayTimeUnit"] = "ms";
    doc["otherData"] = Json{{"generator", "ios-sched (IOS Explorer)"},
                            {"model", info.model},
                            {"strategy", info.strategy},
                            {"source", info.source},
                            {"device", tl.device},
                            {"batch", tl.batch},
                            {"latency_ms", roundUs(tl.latencyUs) / 1000.0}};
    if (!info.mode.empty())
        doc["otherData"]["mode"] = info.mode;
    if (measured) {
        doc["otherData"]["warp_metric"] = info.warpMetric;
        doc["otherData"]["warp_unit"] = trace::kActiveWarpsUnit;
    }
    return dumpPythonStyle(doc) + "\n";
}

std::string timelineCsv(const eval::Timeline& tl) {
    std::string out = "kind,block,stage,stream,op,kernel,ctas,start_us,end_us,active_sm_pct,"
                      "warp_occupancy_pct,flop_utilisation_pct\n";
    for (const eval::TimelineStage& s : tl.stages) {
        out += "stage," + std::to_string(s.block) + "," + std::to_string(s.stage) + ",,," +
               (s.kind == schedule::StageKind::Merge ? "merge" : "parallel") + "," + "," +
               fixed(s.startUs, 3) + "," + fixed(s.endUs, 3) + "," +
               fixed(100 * s.meanActiveSmFraction, 1) + "," + fixed(100 * s.meanWarpOccupancy, 1) +
               "," + fixed(100 * s.meanFlopUtilisation, 1) + "\n";
    }
    for (const eval::TimelineKernel& k : tl.kernels) {
        // Operator names are IOS node names (no commas in the bundled models); quote anyway.
        std::string op = k.opName;
        for (size_t p = op.find('"'); p != std::string::npos; p = op.find('"', p + 2))
            op.insert(p, "\"");
        out += "kernel," + std::to_string(k.block) + "," + std::to_string(k.stage) + "," +
               std::to_string(k.stream) + ",\"" + op + "\"," + k.kernel + "," +
               std::to_string(k.ctas) + "," + fixed(k.startUs, 3) + "," + fixed(k.endUs, 3) +
               ",,,\n";
    }
    return out;
}

std::string timelineText(const std::filesystem::path& path, const eval::Timeline& timeline,
                         const TraceInfo& info) {
    return timelineText(path, timeline, info, {});
}

std::string timelineText(const std::filesystem::path& path, const eval::Timeline& timeline,
                         const TraceInfo& info, const std::vector<TraceFlow>& flows) {
    return path.extension() == ".csv" ? timelineCsv(timeline)
                                      : chromeTraceJson(timeline, info, flows);
}

void writeTimeline(const std::filesystem::path& path, const eval::Timeline& timeline,
                   const TraceInfo& info) {
    writeFileAtomically(path, timelineText(path, timeline, info));
}

} // namespace ios::io
