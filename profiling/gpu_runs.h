// What the front ends do with a GPU: latency statistics of a schedule, a traced run (kernel
// timeline + active warps), the numeric check, and the measured cost model with its cache.
#pragma once

#include "cost/cost_model.h"
#include "cuda_backend.h"
#include "eval/timeline.h"
#include "executor.h"

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

struct MeasuredTrace {
    eval::Timeline timeline;
    std::string warpMetric;
    std::string warpNote;          // why there are no active-warp samples (empty if sampled)
    double meanWarpOccupancy = -1; // fraction of peak over the run; -1 without samples
};

// One warm run, then one run with kernel records (and PM sampling every warpIntervalNs).
MeasuredTrace traceSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                            const schedule::Schedule& schedule, uint64_t warpIntervalNs = 10000);
// A stream program's: its timeline's stages are the program's segments (cut at barriers and
// syncs; kind Parallel, groups = streams launched on), as eval::buildProgramTimeline's are;
// kernel tracks are executor streams.
MeasuredTrace traceSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                            const schedule::Program& program, uint64_t warpIntervalNs = 10000);

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
// allocates the model at `batch` and traces one run of `schedule`.
MeasuredTrace traceOnGpu(const ir::Graph& graph, const schedule::Schedule& schedule, int batch);

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
