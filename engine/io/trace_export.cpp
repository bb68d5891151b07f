// SPDX-License-Identifier: Apache-2.0
#include "io/trace_export.h"

#include "io/trace_format.h"
#include "util/file_util.h"
#include "util/json_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace ios::io {

using util::dumpPythonStyle;
using util::Json;
using util::writeFileAtomically;

namespace {

using trace::kPid;
using trace::kStageTid;
using trace::streamTid;

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

// An "M" event; process metadata has no tid.
Json metadata(const char* what, std::optional<int> tid, Json args) {
    Json e;
    e["name"] = what;
    e["ph"] = "M";
    e["pid"] = kPid;
    if (tid)
        e["tid"] = *tid;
    e["args"] = std::move(args);
    return e;
}

Json complete(const std::string& name, const char* category, double start, double end, int tid) {
    Json e;
    e["name"] = name;
    e["cat"] = category;
    e["ph"] = "X";
    e["ts"] = roundUs(start);
    e["dur"] = roundUs(roundUs(end) - roundUs(start));
    e["pid"] = kPid;
    e["tid"] = tid;
    return e;
}

Json counter(const std::string& name, double us, std::optional<int> tid, Json args) {
    Json e;
    e["name"] = name;
    e["ph"] = "C";
    e["ts"] = roundUs(us);
    e["pid"] = kPid;
    if (tid)
        e["tid"] = *tid;
    e["args"] = std::move(args);
    return e;
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// Streams with kernels (a timeline's count may leave out ones that only record or wait).
int streamCount(const eval::Timeline& tl) {
    int streams = tl.streams;
    for (const eval::TimelineKernel& k : tl.kernels)
        streams = std::max(streams, k.stream + 1);
    return streams;
}

// Names and sort order: the stages first, then the streams in order.
void addTrackNames(Json& events, const eval::Timeline& tl, const TraceInfo& info) {
    events.push_back(
        metadata("process_name", {}, {{"name", tl.device + " (" + info.source + ")"}}));
    events.push_back(
        metadata("process_labels", {}, {{"labels", "batch " + std::to_string(tl.batch)}}));
    events.push_back(metadata("process_sort_index", {}, {{"sort_index", 0}}));
    events.push_back(metadata("thread_name", kStageTid, {{"name", "stages"}}));
    events.push_back(metadata("thread_sort_index", kStageTid, {{"sort_index", 0}}));
    for (int s = 0; s < streamCount(tl); ++s) {
        events.push_back(
            metadata("thread_name", streamTid(s), {{"name", "stream " + std::to_string(s)}}));
        events.push_back(metadata("thread_sort_index", streamTid(s), {{"sort_index", s + 1}}));
    }
}

void addStages(Json& events, const eval::Timeline& tl) {
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
}

// In time order over all streams (Chrome DevTools orders a flow's slices as the file does).
void addKernels(Json& events, const eval::Timeline& tl) {
    std::vector<size_t> order(tl.kernels.size());
    for (size_t k = 0; k < order.size(); ++k)
        order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const eval::TimelineKernel& x = tl.kernels[a];
        const eval::TimelineKernel& y = tl.kernels[b];
        return roundUs(x.startUs) != roundUs(y.startUs) ? roundUs(x.startUs) < roundUs(y.startUs)
                                                        : x.stream < y.stream;
    });
    for (size_t index : order) {
        const eval::TimelineKernel& k = tl.kernels[index];
        Json e = complete(k.opName + ": " + k.kernel, trace::kKernelCategory, k.startUs, k.endUs,
                          streamTid(k.stream));
        e["args"] = Json{{"op", k.opName},
                         {"kernel", k.kernel},
                         {"ctas", k.ctas},
                         {"block", k.block},
                         {"stage", k.stage}};
        events.push_back(std::move(e));
    }
}

// Per stream (its kernels never overlap): the CTAs of the kernel running on it, 0 while idle.
void addStreamCounters(Json& events, const eval::Timeline& tl) {
    for (int stream = 0; stream < streamCount(tl); ++stream) {
        const std::string track = "stream " + std::to_string(stream);
        const int tid = streamTid(stream);
        double idleFrom = -1; // end of the stream's last kernel, while no other has started
        for (const eval::TimelineKernel& k : tl.kernels) {
            if (k.stream != stream)
                continue;
            if (idleFrom >= 0 && roundUs(idleFrom) < roundUs(k.startUs))
                events.push_back(counter(track, idleFrom, tid, {{trace::kStreamCtas, 0}}));
            events.push_back(counter(track, k.startUs, tid, {{trace::kStreamCtas, k.ctas}}));
            idleFrom = k.endUs;
        }
        if (idleFrom >= 0)
            events.push_back(counter(track, idleFrom, tid, {{trace::kStreamCtas, 0}}));
    }
}

// Written after the slices: at equal timestamps a viewer then sees the slice open first.
void addFlows(Json& events, const eval::Timeline& tl, const std::vector<TraceFlow>& flows) {
    for (size_t i = 0; i < flows.size(); ++i) {
        const TraceFlow& f = flows[i];
        for (const bool start : {true, false}) {
            const eval::TimelineKernel& k =
                tl.kernels.at(static_cast<size_t>(start ? f.fromKernel : f.toKernel));
            Json e;
            e["name"] = f.name;
            e["cat"] = trace::kFlowCategory;
            e["ph"] = start ? "s" : "f";
            if (!start)
                e["bp"] = "e";
            e["id"] = i + 1;
            e["ts"] = roundUs(k.startUs); // exactly the slice's ts
            e["pid"] = kPid;
            e["tid"] = streamTid(k.stream);
            events.push_back(std::move(e));
        }
    }
}

// The device-wide utilisation; measured traces (PM sampling) only hold active warps.
void addUtilisation(Json& events, const eval::Timeline& tl, bool measured) {
    for (const eval::TimelineSample& u : tl.samples) {
        if (measured) {
            events.push_back(counter(trace::kMeasuredCounter, u.timeUs, {},
                                     {{trace::kActiveWarpsPct, roundPct(u.warpOccupancy)}}));
            continue;
        }
        events.push_back(counter(trace::kSimulatedCounter, u.timeUs, {},
                                 {{trace::kActiveSmPct, roundPct(static_cast<double>(u.activeSms) /
                                                                 std::max(1, tl.smCount))},
                                  {trace::kWarpOccupancyPct, roundPct(u.warpOccupancy)},
                                  {trace::kFlopUtilisationPct, roundPct(u.flopUtilisation)}}));
    }
}

} // namespace

std::string chromeTraceJson(const eval::Timeline& tl, const TraceInfo& info) {
    return chromeTraceJson(tl, info, {});
}

std::string chromeTraceJson(const eval::Timeline& tl, const TraceInfo& info,
                            const std::vector<TraceFlow>& flows) {
    Json events = Json::array();
    addTrackNames(events, tl, info);
    addStages(events, tl);
    addKernels(events, tl);
    addFlows(events, tl, flows);
    const bool measured = info.source == trace::kMeasuredSource;
    addUtilisation(events, tl, measured);
    addStreamCounters(events, tl);

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
    if (!measured && tl.smCount > 0)
        doc["otherData"][trace::kSmCount] = tl.smCount;
    if (!info.mode.empty())
        doc["otherData"]["mode"] = info.mode;
    if (measured) {
        doc["otherData"]["warp_metric"] = info.warpMetric;
        doc["otherData"]["warp_unit"] = trace::kActiveWarpsUnit;
    }
    if (info.provenance != nullptr)
        doc["otherData"][kProvenanceKey] = provenanceJson(*info.provenance);
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
    if (path.extension() != ".csv")
        return chromeTraceJson(timeline, info, flows);
    return (info.provenance != nullptr ? provenanceComment(*info.provenance) : std::string()) +
           timelineCsv(timeline);
}

void writeTimeline(const std::filesystem::path& path, const eval::Timeline& timeline,
                   const TraceInfo& info, const std::vector<TraceFlow>& flows) {
    writeFileAtomically(path, timelineText(path, timeline, info, flows));
}

} // namespace ios::io
