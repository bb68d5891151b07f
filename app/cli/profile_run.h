// SPDX-License-Identifier: Apache-2.0
// What `ios-sched profile` does whatever it writes to (cmd_profile.cpp: a measurement cache,
// profile_store.cpp: a measurement store): the run's shared state, progress on stderr, the
// replay command, the common JSON fields and the searches after the measurement.
#pragma once

#include "args.h"
#include "cost/cost_model.h"
#include "executor.h"
#include "stage_enumeration.h"
#include "stage_profiler.h"
#include "strategies.h"
#include "util/json_text.h"
#include "util/output_file.h"

#include <chrono>
#include <optional>
#include <string>

namespace ios::cli {

using ProfileClock = std::chrono::steady_clock;

double secondsSince(ProfileClock::time_point start);

// The parsed command line, the model, the device and the stages met (one shard's with
// --shard): what both destinations start from.
struct ProfileRun {
    const ArgParser& parser;
    const SearchOptions& search;
    int batch = 1;
    std::string modelArg;
    const ir::Graph& graph;
    const ir::PreparedModel& prepared;
    profiling::GpuBackend& backend;
    profiling::Executor& executor;
    const profiling::StageEnumeration& met;
    std::optional<profiling::Shard> shard;
    size_t stagesBeforeShard = 0; // met stages of every shard
    size_t shardClasses = 0;      // classes of this shard
    profiling::ProfileOptions& options;
    util::OutputTransaction& outputs;
    ProfileClock::time_point wallStart;
    bool json = false;
};

// Progress of the measurement on stderr: on a terminal one line rewritten at most four times
// a second; otherwise a line at most every ten seconds (logs of long runs stay short).
class ProfileProgressPrinter {
public:
    explicit ProfileProgressPrinter(std::string label);
    ~ProfileProgressPrinter();
    ProfileProgressPrinter(const ProfileProgressPrinter&) = delete;
    ProfileProgressPrinter& operator=(const ProfileProgressPrinter&) = delete;
    void operator()(const profiling::ProfileProgress& p);

private:
    std::string label_;
    bool tty_;
    bool printed_ = false;
    ProfileClock::time_point lastPrint_ = ProfileClock::now();
};

// `ios-sched optimize MODEL --strategy S -r R -s S [--batch N] [--max-part-size P]
// --cost-model COST`: the search of the first --strategy, replayed from the measurements.
std::string replayCommand(const ProfileRun& run, const std::string& costModel);

// "model", "device", "batch", "strategies", "stage_requests" and, with --shard, "shard",
// "shard_stages_of", "shard_classes".
util::Json commonJson(const ProfileRun& run);

// The counters both profilers report (profiling::ProfileResult, profiling::StoreProfileResult),
// added to `j` under the same keys.
template <class Result> void addMeasureCounters(util::Json& j, const ProfileRun& run,
                                                const Result& result) {
    j["stages_met"] = result.stagesMet;
    j["distinct_canonical"] = result.classes;
    j["measured"] = result.measured;
    j["graphs"] = result.graphs;
    j["kernels"] = result.kernels;
    j["replays"] = result.replays;
    j["gpu_busy_seconds"] = result.busySeconds;
    j["enumeration_seconds"] = run.met.seconds;
    j["preparation_seconds"] = result.prepareSeconds;
    j["measurement_seconds"] = result.measureSeconds;
    j["complete"] = result.complete;
}

// Runs every --strategy's search under `cost` (progress labelled "from `source`"), stages
// --save-schedule for the first, and returns [{"strategy", "latency_ms", "search_seconds"}].
util::Json runSearches(const ProfileRun& run, const cost::CostModel& cost,
                       const std::string& source);

// The lines "from the SOURCE: STRATEGY X ms, search Y s" of `searches`.
void printSearches(const util::Json& searches, const std::string& source);

// With --shard: the note on stderr that no search follows.
void noteShard(const ProfileRun& run, size_t stagesDone);

// Runs `profile` into the store --store names (profile_store.cpp).
int profileIntoStore(ProfileRun& run, const std::string& url);

} // namespace ios::cli
