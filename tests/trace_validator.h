// SPDX-License-Identifier: Apache-2.0
// A strict checker of Chrome traces, written from the Trace Event Format document and the way
// trace viewers bind flow events, for the traces io/trace_export.h writes:
//  - every event has the fields its phase needs, of the right type ("X": name, cat, ts, dur ≥ 0,
//    pid, tid; "C": name, ts, pid, numeric args; "M": a known name with its args; "s"/"t"/"f":
//    name, cat, id, ts, pid, tid, "bp" only "e"); pids are not 0;
//  - metadata: one process_name per pid, one thread_name per track with slices;
//  - "X" slices nest properly on each track (pid, tid);
//  - every flow id has exactly one "s" and one "f", the "s" not after the "f";
//  - each flow event binds to the same slice under both binding rules in use: Chrome DevTools'
//    (the slice with equal pid, tid, ts and cat) and Perfetto's / catapult's (the slice
//    enclosing its ts on its track; "f" without "bp": "e" binds to the next slice instead).
// The flows come back as the slices their ends bind to, for the caller to compare with the
// kernels it meant to connect.
#pragma once

#include "util/json_text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace ios::testing {

// Times in integer ns, as Perfetto keeps them (it reads µs and rounds to ns).
inline int64_t toNs(double us) {
    return std::llround(us * 1000.0);
}

struct TraceSlice {
    int pid = 0;
    int tid = 0;
    double ts = 0; // as written (DevTools compares it exactly)
    double dur = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
    std::string name;
    std::string cat;
};

struct TraceValidation {
    std::vector<std::string> problems; // empty: valid
    std::vector<TraceSlice> slices;    // the "X" events, in file order
    // Per flow id: the indices into `slices` its "s" and "f" bind to.
    std::map<std::string, std::pair<size_t, size_t>> flows;
};

namespace trace_validator_detail {

using util::Json;

class Checker {
public:
    explicit Checker(TraceValidation& out) : out_(out) {}

    void problem(size_t i, const std::string& what) {
        out_.problems.push_back("event " + std::to_string(i) + ": " + what);
    }
    bool string(const Json& e, const char* key, size_t i) {
        if (e.contains(key) && e[key].is_string())
            return true;
        problem(i, std::string("\"") + key + "\" must be a string");
        return false;
    }
    bool number(const Json& e, const char* key, size_t i) {
        if (e.contains(key) && e[key].is_number())
            return true;
        problem(i, std::string("\"") + key + "\" must be a number");
        return false;
    }
    bool integer(const Json& e, const char* key, size_t i) {
        if (e.contains(key) && e[key].is_number_integer())
            return true;
        problem(i, std::string("\"") + key + "\" must be an integer");
        return false;
    }
    bool track(const Json& e, size_t i, bool needsTid) {
        bool ok = integer(e, "pid", i) && (!needsTid || integer(e, "tid", i));
        if (ok && e["pid"].get<int64_t>() == 0) {
            problem(i, "pid 0 (the idle task to trace viewers)");
            ok = false;
        }
        return ok;
    }

private:
    TraceValidation& out_;
};

inline void checkMetadata(Checker& c, const Json& e, size_t i,
                          std::map<std::pair<int, int>, int>& names) {
    if (!c.string(e, "name", i) || !c.track(e, i, false))
        return;
    const std::string name = e["name"].get<std::string>();
    static const std::map<std::string, std::pair<const char*, bool>> kinds = {
        {"process_name", {"name", false}},
        {"process_labels", {"labels", false}},
        {"process_sort_index", {"sort_index", false}},
        {"thread_name", {"name", true}},
        {"thread_sort_index", {"sort_index", true}}};
    const auto kind = kinds.find(name);
    if (kind == kinds.end())
        return c.problem(i, "unknown metadata \"" + name + "\"");
    const auto [arg, perThread] = kind->second;
    if (perThread && !c.integer(e, "tid", i))
        return;
    if (!e.contains("args") || !e["args"].is_object())
        return c.problem(i, "\"args\" must be an object");
    const bool index = std::string(arg) == "sort_index";
    if (index ? !c.integer(e["args"], arg, i) : !c.string(e["args"], arg, i))
        return;
    if (name == "process_name" || name == "thread_name")
        ++names[{e["pid"].get<int>(), perThread ? e["tid"].get<int>() : -1}];
}

inline void checkComplete(Checker& c, const Json& e, size_t i, TraceValidation& out) {
    if (!c.string(e, "name", i) || !c.string(e, "cat", i) || !c.number(e, "ts", i) ||
        !c.number(e, "dur", i) || !c.track(e, i, true))
        return;
    if (e["dur"].get<double>() < 0)
        return c.problem(i, "negative \"dur\"");
    if (e.contains("args") && !e["args"].is_object())
        return c.problem(i, "\"args\" must be an object");
    const double ts = e["ts"].get<double>();
    const double dur = e["dur"].get<double>();
    out.slices.push_back({e["pid"].get<int>(), e["tid"].get<int>(), ts, dur, toNs(ts),
                          toNs(ts + dur), e["name"].get<std::string>(),
                          e["cat"].get<std::string>()});
}

inline void checkCounter(Checker& c, const Json& e, size_t i) {
    if (!c.string(e, "name", i) || !c.number(e, "ts", i) || !c.track(e, i, false))
        return;
    if (!e.contains("args") || !e["args"].is_object() || e["args"].empty())
        return c.problem(i, "a counter needs an \"args\" object of series");
    for (const auto& [key, value] : e["args"].items())
        if (!value.is_number())
            c.problem(i, "counter series \"" + key + "\" must be a number");
}

// Slices of a track must nest: each lies inside the one still open around it or after it.
inline void checkNesting(TraceValidation& out) {
    std::map<std::pair<int, int>, std::vector<const TraceSlice*>> tracks;
    for (const TraceSlice& s : out.slices)
        tracks[{s.pid, s.tid}].push_back(&s);
    for (auto& [track, slices] : tracks) {
        std::stable_sort(slices.begin(), slices.end(), [](const auto* a, const auto* b) {
            return a->startNs != b->startNs ? a->startNs < b->startNs : a->endNs > b->endNs;
        });
        std::vector<const TraceSlice*> open;
        for (const TraceSlice* s : slices) {
            while (!open.empty() && open.back()->endNs <= s->startNs)
                open.pop_back();
            if (!open.empty() && s->endNs > open.back()->endNs)
                out.problems.push_back("slice \"" + s->name + "\" on pid " +
                                       std::to_string(track.first) + " tid " +
                                       std::to_string(track.second) + " overlaps \"" +
                                       open.back()->name + "\" without nesting in it");
            open.push_back(s);
        }
    }
}

struct FlowEnd {
    size_t event = 0;
    Json e;
};

// The slice a flow event binds to, or -1 when the binding rules disagree or find none.
inline long bindFlow(const TraceValidation& out, const Json& e) {
    const int pid = e["pid"].get<int>();
    const int tid = e["tid"].get<int>();
    const double ts = e["ts"].get<double>();
    const int64_t ns = toNs(ts);
    const bool next = e["ph"] == "f" && !e.contains("bp");
    long exact = -1, enclosing = -1, following = -1;
    for (size_t k = 0; k < out.slices.size(); ++k) {
        const TraceSlice& s = out.slices[k];
        if (s.pid != pid || s.tid != tid)
            continue;
        if (exact < 0 && s.ts == ts && s.cat == e["cat"].get<std::string>())
            exact = static_cast<long>(k);
        // The innermost (latest-starting) slice open at ts.
        if (s.startNs <= ns && (ns < s.endNs || s.startNs == ns) &&
            (enclosing < 0 || s.startNs >= out.slices[static_cast<size_t>(enclosing)].startNs))
            enclosing = static_cast<long>(k);
        if (s.startNs >= ns &&
            (following < 0 || s.startNs < out.slices[static_cast<size_t>(following)].startNs))
            following = static_cast<long>(k);
    }
    const long viewer = next ? following : enclosing;
    return exact == viewer ? exact : -1;
}

inline void checkFlows(Checker& c, const std::map<std::string, std::vector<FlowEnd>>& byId,
                       TraceValidation& out) {
    for (const auto& [id, ends] : byId) {
        const FlowEnd* start = nullptr;
        const FlowEnd* finish = nullptr;
        for (const FlowEnd& end : ends) {
            const FlowEnd*& slot = end.e["ph"] == "s" ? start : finish;
            if (end.e["ph"] == "t")
                continue;
            if (slot)
                c.problem(end.event, "flow " + id + " has a second \"" +
                                         end.e["ph"].get<std::string>() + "\"");
            slot = &end;
        }
        if (!start || !finish) {
            out.problems.push_back("flow " + id + " lacks its " + (start ? "\"f\"" : "\"s\""));
            continue;
        }
        if (start->e["ts"].get<double>() > finish->e["ts"].get<double>())
            c.problem(finish->event, "flow " + id + " ends before it starts");
        const long from = bindFlow(out, start->e);
        const long to = bindFlow(out, finish->e);
        if (from < 0)
            c.problem(start->event, "flow " + id + "'s \"s\" binds to no single slice");
        if (to < 0)
            c.problem(finish->event, "flow " + id + "'s \"f\" binds to no single slice");
        if (from >= 0 && to >= 0)
            out.flows[id] = {static_cast<size_t>(from), static_cast<size_t>(to)};
    }
}

} // namespace trace_validator_detail

inline TraceValidation validateTrace(const util::Json& doc) {
    using namespace trace_validator_detail;
    TraceValidation out;
    Checker c(out);
    if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
        out.problems.push_back("no \"traceEvents\" array");
        return out;
    }
    std::map<std::pair<int, int>, int> names; // (pid, tid or -1) → process/thread names
    std::map<std::string, std::vector<FlowEnd>> flows;
    const Json& events = doc["traceEvents"];
    for (size_t i = 0; i < events.size(); ++i) {
        const Json& e = events[i];
        if (!e.is_object() || !c.string(e, "ph", i))
            continue;
        const std::string ph = e["ph"].get<std::string>();
        if (ph == "M") {
            checkMetadata(c, e, i, names);
        } else if (ph == "X") {
            checkComplete(c, e, i, out);
        } else if (ph == "C") {
            checkCounter(c, e, i);
        } else if (ph == "s" || ph == "t" || ph == "f") {
            if (!c.string(e, "name", i) || !c.string(e, "cat", i) || !c.number(e, "ts", i) ||
                !c.track(e, i, true))
                continue;
            if (!e.contains("id") || !(e["id"].is_number_integer() || e["id"].is_string())) {
                c.problem(i, "a flow event needs an integer or string \"id\"");
                continue;
            }
            if (e.contains("bp") && e["bp"] != "e")
                c.problem(i, "\"bp\" can only be \"e\"");
            flows[e["cat"].get<std::string>() + "/" + e["name"].get<std::string>() + "/" +
                  e["id"].dump()]
                .push_back({i, e});
        } else {
            c.problem(i, "phase \"" + ph + "\" is not one this exporter writes");
        }
    }
    for (const auto& [track, count] : names)
        if (count > 1)
            out.problems.push_back(
                "pid " + std::to_string(track.first) +
                (track.second < 0 ? "" : " tid " + std::to_string(track.second)) + " is named " +
                std::to_string(count) + " times");
    std::set<int> pids;
    for (const TraceSlice& s : out.slices) {
        pids.insert(s.pid);
        if (!names.count({s.pid, s.tid}))
            out.problems.push_back("track pid " + std::to_string(s.pid) + " tid " +
                                   std::to_string(s.tid) + " has slices but no thread_name");
    }
    for (int pid : pids)
        if (!names.count({pid, -1}))
            out.problems.push_back("pid " + std::to_string(pid) + " has no process_name");
    checkNesting(out);
    checkFlows(c, flows, out);
    return out;
}

} // namespace ios::testing
