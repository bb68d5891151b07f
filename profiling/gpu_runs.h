// SPDX-License-Identifier: Apache-2.0
// What the front ends do with a GPU: latency statistics of a schedule, a traced run (kernel
// timeline + active warps), the numeric check, and the measured cost model with its cache.
#pragma once

#include "cost/cost_model.h"
#include "cuda_backend.h"
#include "eval/timeline.h"
#include "executor.h"
#include "kernel_records.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ios::profiling {

struct LatencySummary {
    double medianMs = 0, p10Ms = 0, p90Ms = 0;
    std::vector<double> samples;
};
LatencySummary summarize(std::vector<double> samples);

// How a traced run executes: issued eagerly from the host, or captured once and replayed as
// a CUDA graph, which removes the host's launch gaps (docs/gpu.md "Active warps and eager
// runs": eager runs of InceptionV3 are host-bound on an H100).
enum class TraceMode { Eager, CudaGraph };
// "eager" / "cuda-graph": what a trace's otherData.mode records (io::TraceInfo::mode).
std::string traceModeName(TraceMode mode);

struct TraceOptions {
    TraceMode mode = TraceMode::Eager;
    uint64_t warpIntervalNs = 10000; // PM sampling interval
    int replays = 20; // CudaGraph: back-to-back replays sampled; the middle one is the timeline
};

struct MeasuredTrace {
    eval::Timeline timeline;
    TraceMode mode = TraceMode::Eager;
    std::string warpMetric;
    std::string warpNote;          // why there are no active-warp samples (empty if sampled)
    double meanWarpOccupancy = -1; // fraction of peak over the run; -1 without samples
    double busyWarpOccupancy = -1; // the same over busy time (a kernel runs): gpu_trace.h
};

// Eager: one warm run, then one run with kernel records (and PM sampling every
// warpIntervalNs). CudaGraph: the warm run, one recorded eager run (the kernels' stage tags),
// a capture, one warm replay, then `replays` back-to-back replays with kernel records and PM
// sampling; the timeline is the middle replay with the samples over it. A replay's kernels
// carry no stage tags of their own (CUPTI correlates them with the graph launch), so they
// take the eager run's tags and streams in capture order: by CUPTI graph node id (the mock:
// record order), checked by kernel name (a mismatch leaves them unattributed, with a note).
MeasuredTrace traceSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                            const schedule::Schedule& schedule, const TraceOptions& options = {});
MeasuredTrace traceSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                            const schedule::Schedule& schedule, uint64_t warpIntervalNs);
// A stream program's: its timeline's stages are the program's segments (cut at barriers and
// syncs; kind Parallel, groups = streams launched on), as eval::buildProgramTimeline's are;
// kernel tracks are executor streams.
MeasuredTrace traceSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                            const schedule::Program& program, const TraceOptions& options = {});
MeasuredTrace traceSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                            const schedule::Program& program, uint64_t warpIntervalNs);

// A replay's records → the eager run's kernels: `replayed` holds `replays` back-to-back
// replays (they do not overlap, so by start time they fall into runs of eager.size()); replay
// `index` gets the tags and stream ids of `eager` in issue order (correlation id) matched to
// capture order (graph node id, then correlation id). Throws std::runtime_error when the
// counts differ; `note` says why tags were left off when the kernel names differ.
std::vector<KernelRecord> attributeReplay(std::vector<KernelRecord> eager,
                                          std::vector<KernelRecord> replayed, int replays,
                                          int index, std::string& note);

// The eager-versus-replay verdict of `measure --cuda-graph` per strategy (the note's claim,
// backed by this run's medians): eager/replay, and whether the strategy loses to the
// baseline (sequential) eagerly while winning replayed: a multi-stream schedule that needs
// CUDA-graph replay.
struct EagerReplayTiming {
    std::string strategy;
    double eagerMs = 0, replayMs = 0;
};
struct EagerReplayVerdict {
    std::string strategy;
    double ratio = 0; // eager / replay
    bool needsReplay = false;
};
std::vector<EagerReplayVerdict> eagerReplayVerdicts(const std::vector<EagerReplayTiming>& runs,
                                                    const std::string& baseline = "sequential");
// The note measure prints for eager timings (cites docs/gpu.md; H100 numbers).
std::string eagerExecutionNote();

// Active warps while the GPU does nothing but the schedule: PM sampling over `replays`
// back-to-back CUDA-graph replays (no host gaps, unlike an eager traced run). The mean is
// weighted by sample length; samples longer than 10 intervals (the one spanning the time
// before sampling reached the device) are left out.
struct ReplayWarps {
    double meanPct = -1; // -1 without samples
    int samples = 0;
    std::string metric, note;
};
ReplayWarps replayWarps(Executor& executor, const std::vector<ir::BlockDag>& dags,
                        const schedule::Schedule& schedule, int replays = 20,
                        uint64_t intervalNs = 10000);
ReplayWarps replayWarps(Executor& executor, const std::vector<ir::BlockDag>& dags,
                        const schedule::Program& program, int replays = 20,
                        uint64_t intervalNs = 10000);

// `trace --gpu`: opens the CUDA device (UserError "no CUDA device available: …" without one),
// allocates the model at `batch` and traces `schedule` (eagerly, or replayed: `options`).
MeasuredTrace traceOnGpu(const ir::Graph& graph, const schedule::Schedule& schedule, int batch,
                         const TraceOptions& options = {});

// Runs `schedule` with poisoned activations and compares the output with `reference`.
NumericCheck checkSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                           const schedule::Schedule& schedule, const std::vector<float>& reference);
// The same for a stream program (reference: the sequential schedule's output). With
// `cudaGraph`, the program is captured and its graph replayed instead of issued eagerly.
NumericCheck checkSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                           const schedule::Program& program, const std::vector<float>& reference,
                           bool cudaGraph = false);

// `--cost measured`: a GPU backend, an executor and a MeasuredCostModel in one object that
// saves its measurements to `cacheFile` (every 200 new stages and at destruction). Throws
// ios::UserError("no CUDA device available: …") without a usable GPU.
std::unique_ptr<cost::CostModel> makeMeasuredCostModel(const ir::Graph& graph, int batch,
                                                       const std::filesystem::path& cacheFile,
                                                       const CudaBackendOptions& options = {});

// Makes `measured` available to the engine's cost-model factory (cost::makeCostModel).
void installMeasuredCostModel();

} // namespace ios::profiling
