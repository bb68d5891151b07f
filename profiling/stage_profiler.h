// SPDX-License-Identifier: Apache-2.0
// Stage profiling at scale (docs/gpu.md "Stage profiling at scale", issue 16): every distinct
// stage a search meets (stage_enumeration.h) measured once, many stages per captured CUDA
// graph (Executor::timeStages), stages that launch the same kernels measured once for all,
// results streamed into a journal beside the measurement cache so a cut-off run resumes,
// progress with an ETA, and at the end the cache written atomically: `--cost-model
// cache:FILE` then replays the measured search anywhere, without a GPU.
#pragma once

#include "cost/measurement_cache.h"
#include "executor.h"
#include "stage_enumeration.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ios::profiling {

struct ProfileProgress {
    size_t stagesDone = 0; // stages measured in this run so far
    size_t stagesTotal = 0;
    size_t graphsDone = 0;
    size_t graphsTotal = 0;
    double elapsedSeconds = 0; // since measuring began
    double etaSeconds = -1;    // at the rate so far (-1: nothing measured yet)
};

// After a graph: `stagesDone` and `graphsDone` so far, the time since `start` and the ETA at
// the rate so far (stages left × seconds per stage measured).
void advanceProgress(ProfileProgress& progress, size_t stagesDone, size_t graphsDone,
                     std::chrono::steady_clock::time_point start);

struct ProfileOptions;

// After a graph of `stages` stages is measured: the counters every profiler's result has
// (graphs, measured, replays, busySeconds) and the progress, reported to options.progress.
template <class Result>
void countGraph(Result& result, size_t stages, const BatchedTimes& times,
                ProfileProgress& progress, std::chrono::steady_clock::time_point start,
                const ProfileOptions& options);

struct ProfileOptions {
    // A graph holds at most this many stages and kernels: big enough that capture and launch
    // costs are shared by many stages, small enough that instantiating it stays quick and a
    // cut-off run loses little.
    size_t stagesPerGraph = 64;
    size_t kernelsPerGraph = 1024;
    bool everyStage = false; // measure name-distinct stages, not one per canonical class
    BatchTiming timing;
    size_t maxGraphs = 0; // stop after this many graphs, journal kept (0: measure all)
    const std::atomic<bool>* cancel = nullptr; // looked at between graphs: stop, journal kept
    std::function<void(const ProfileProgress&)> progress; // after every graph
};

struct ProfileResult {
    size_t stagesMet = 0;
    size_t classes = 0;      // distinct canonical stages (stagesMet with everyStage)
    size_t fromCache = 0;    // met stages whose class the cache or the journal already held
    size_t shared = 0;       // met stages given the latency of an equal stage measured now
    size_t measured = 0;     // stages measured by this run
    size_t graphs = 0;       // graphs captured and replayed by this run
    size_t kernels = 0;      // kernels in those graphs (each issued once, captured once)
    size_t written = 0;      // entries the cache gained (measured now or journaled)
    size_t cacheEntries = 0; // entries of the cache written (all devices and models)
    long long replays = 0;
    double busySeconds = 0;    // GPU time of the replays (event spans)
    double prepareSeconds = 0; // reading the cache and journal, classes, lowering the stages
    double measureSeconds = 0; // capturing, replaying, journaling
    double saveSeconds = 0;    // writing the cache
    bool complete = false;     // every met stage has a latency and the cache was written
    std::vector<std::string> warnings;
};

template <class Result>
void countGraph(Result& result, size_t stages, const BatchedTimes& times,
                ProfileProgress& progress, std::chrono::steady_clock::time_point start,
                const ProfileOptions& options) {
    ++result.graphs;
    result.measured += stages;
    result.replays += times.replays;
    result.busySeconds += times.busyMs / 1000;
    advanceProgress(progress, result.measured, result.graphs, start);
    if (options.progress)
        options.progress(progress);
}

// A measured latency as stored: rounded to whole nanoseconds (CUDA events resolve about
// 0.5 µs), so a stage measured in a resumed run and in an uncut one is stored identically
// although the two executors' clocks differ; at least 1 ns (a cache refuses 0).
double storedLatencyMs(double ms);

// Consecutive stages to measure (`toMeasure`, indices into `stages`), cut into graphs of at
// most `maxStages` stages and `maxKernels` kernels (a single stage over the kernel bound gets
// a graph of its own).
std::vector<std::vector<size_t>> graphBatches(Executor& executor, const ir::PreparedModel& model,
                                              const std::vector<MetStage>& stages,
                                              const std::vector<size_t>& toMeasure,
                                              size_t maxStages, size_t maxKernels);

// Measures `stages` (of `model`, enumerated for it) on the executor's device and writes them
// to `cacheFile` under (device, model name, executor batch). Stages already in the cache or
// in its journal (journalPath), by name or by canonical class, are not measured again. When
// every stage has a latency the cache is saved atomically (its earlier entries first, then the
// stages measured, by this run or the journal's, in enumeration order: one per class, the
// others replayed by class, cost::CachedCostModel; with everyStage every met stage) and the
// journal removed; a run stopped by maxGraphs or cancel leaves both as they are, the journal
// holding what it measured (complete = false). Throws ios::UserError naming the file for a
// malformed cache or journal, and for a journal line of another device, model or batch.
ProfileResult profileStages(Executor& executor, const std::string& modelName,
                            const ir::PreparedModel& model, const std::vector<MetStage>& stages,
                            const std::filesystem::path& cacheFile, const ProfileOptions& options);

} // namespace ios::profiling
