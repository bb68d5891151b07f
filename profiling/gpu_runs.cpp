// SPDX-License-Identifier: Apache-2.0
#include "gpu_runs.h"

#include "cost/cost_model_factory.h"
#include "cost/measurement_cache.h"
#include "cost/program_simulator.h"
#include "gpu_trace.h"
#include "io/trace_format.h"
#include "measured_cost_model.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace ios::profiling {

LatencySummary summarize(std::vector<double> samples) {
    LatencySummary s;
    s.medianMs = percentile(samples, 50);
    s.p10Ms = percentile(samples, 10);
    s.p90Ms = percentile(samples, 90);
    s.samples = std::move(samples);
    return s;
}

std::string traceModeName(TraceMode mode) {
    return mode == TraceMode::CudaGraph ? io::trace::kCudaGraphMode : io::trace::kEagerMode;
}

std::vector<KernelRecord> attributeReplay(std::vector<KernelRecord> eager,
                                          std::vector<KernelRecord> replayed, int replays,
                                          int index, std::string& note) {
    const size_t n = eager.size();
    if (replays < 1 || index < 0 || index >= replays || replayed.size() != n * size_t(replays))
        throw std::runtime_error("CUDA-graph replays recorded " + std::to_string(replayed.size()) +
                                 " kernels, expected " + std::to_string(replays) + " × " +
                                 std::to_string(n) + " (the eager run's)");
    std::stable_sort(
        replayed.begin(), replayed.end(),
        [](const KernelRecord& a, const KernelRecord& b) { return a.startNs < b.startNs; });
    std::vector<KernelRecord> run(replayed.begin() + static_cast<std::ptrdiff_t>(n * size_t(index)),
                                  replayed.begin() +
                                      static_cast<std::ptrdiff_t>(n * size_t(index + 1)));
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::tie(run[a].graphNodeId, run[a].correlationId) <
               std::tie(run[b].graphNodeId, run[b].correlationId);
    });
    std::stable_sort(eager.begin(), eager.end(), [](const KernelRecord& a, const KernelRecord& b) {
        return a.correlationId < b.correlationId;
    });
    for (size_t i = 0; i < n; ++i)
        if (run[order[i]].name != eager[i].name) {
            note = "replayed kernel " + std::to_string(i) + " (" + run[order[i]].name +
                   ") is not the eager run's (" + eager[i].name + "): kernels left without stages";
            for (KernelRecord& r : run)
                r.tag = 0;
            return run;
        }
    for (size_t i = 0; i < n; ++i) {
        run[order[i]].tag = eager[i].tag;
        run[order[i]].streamId = eager[i].streamId;
    }
    return run;
}

namespace {

// The samples over the kernels' window [from, to) only, on the kernels' clock (when the
// sample range does not cover the first kernel the clocks differ: shifted to start there, as
// buildMeasuredTimeline does for one run).
WarpSamples samplesOver(WarpSamples warps, uint64_t firstKernelNs, uint64_t fromNs, uint64_t toNs) {
    if (warps.samples.empty())
        return warps;
    const bool covers = warps.samples.front().startNs <= firstKernelNs &&
                        warps.samples.back().endNs >= firstKernelNs;
    const int64_t shift = covers ? 0
                                 : static_cast<int64_t>(firstKernelNs) -
                                       static_cast<int64_t>(warps.samples.front().startNs);
    std::vector<WarpSample> kept;
    for (WarpSample w : warps.samples) {
        w.startNs = static_cast<uint64_t>(static_cast<int64_t>(w.startNs) + shift);
        w.endNs = static_cast<uint64_t>(static_cast<int64_t>(w.endNs) + shift);
        if (w.endNs > fromNs && w.startNs < toNs)
            kept.push_back(w);
    }
    warps.samples = std::move(kept);
    return warps;
}

// The warm run, then the recorded one(s) (issue(true) tags kernels with the ordinals of
// `stages()`; capture() captures the run as a CUDA graph).
MeasuredTrace tracedRun(Executor& executor, const std::function<void(bool)>& issue,
                        const std::function<GraphId()>& capture,
                        const std::function<std::vector<TracedStage>()>& stages,
                        const TraceOptions& options) {
    GpuBackend& backend = executor.backend();
    issue(false); // warm: streams, algorithms, workspaces
    backend.synchronize();

    const bool replay = options.mode == TraceMode::CudaGraph;
    std::unique_ptr<KernelRecorder> recorder = backend.kernelRecorder();
    std::unique_ptr<WarpSampler> sampler = backend.warpSampler();
    recorder->begin();
    std::string refused = replay ? std::string() : sampler->begin(options.warpIntervalNs);
    issue(true);
    backend.synchronize();
    // The sampler ends before the recorder (the mock samples the records it holds).
    WarpSamples warps;
    if (!replay && refused.empty())
        warps = sampler->end();
    std::vector<KernelRecord> kernels = recorder->end();
    std::string note;
    if (replay) {
        const GraphId graph = capture();
        backend.launchGraph(graph, executor.mainStream()); // warm replay
        backend.synchronize();
        recorder->begin();
        refused = sampler->begin(options.warpIntervalNs);
        for (int i = 0; i < options.replays; ++i)
            backend.launchGraph(graph, executor.mainStream());
        backend.synchronize();
        if (refused.empty())
            warps = sampler->end();
        std::vector<KernelRecord> replayed = recorder->end();
        uint64_t first = std::numeric_limits<uint64_t>::max();
        for (const KernelRecord& k : replayed)
            first = std::min(first, k.startNs);
        kernels = attributeReplay(std::move(kernels), std::move(replayed),
                                  std::max(options.replays, 1), options.replays / 2, note);
        uint64_t from = std::numeric_limits<uint64_t>::max(), to = 0;
        for (const KernelRecord& k : kernels) {
            from = std::min(from, k.startNs);
            to = std::max(to, k.endNs);
        }
        warps = samplesOver(std::move(warps), first, from, to);
    }
    if (!refused.empty())
        warps.unavailable = refused;

    MeasuredTraceInput in;
    in.device = backend.deviceName();
    in.batch = executor.batch();
    in.kernels = std::move(kernels);
    in.warps = warps;
    for (StreamId s : executor.streams())
        in.streamIds.push_back(backend.traceStreamId(s));
    in.stages = stages();
    MeasuredTrace out;
    out.mode = options.mode;
    out.timeline = buildMeasuredTimeline(in);
    out.warpMetric = warps.metric;
    out.warpNote = note.empty()
                       ? warps.unavailable
                       : (warps.unavailable.empty() ? note : note + "; " + warps.unavailable);
    if (!out.timeline.samples.empty()) {
        out.meanWarpOccupancy = meanWarpOccupancy(out.timeline, 0, out.timeline.latencyUs);
        out.busyWarpOccupancy = busyWarpOccupancy(out.timeline);
    }
    return out;
}

std::vector<std::string> opNames(const ir::BlockDag& dag) {
    std::vector<std::string> names;
    for (const ir::Node* op : dag.ops)
        names.push_back(op->name);
    return names;
}

ReplayWarps sampleReplays(Executor& executor, GraphId graph, int replays, uint64_t intervalNs) {
    GpuBackend& backend = executor.backend();
    backend.launchGraph(graph, executor.mainStream());
    backend.synchronize();
    std::unique_ptr<WarpSampler> sampler = backend.warpSampler();
    ReplayWarps out;
    out.note = sampler->begin(intervalNs);
    if (!out.note.empty())
        return out;
    for (int i = 0; i < replays; ++i)
        backend.launchGraph(graph, executor.mainStream());
    backend.synchronize();
    const WarpSamples warps = sampler->end();
    out.metric = warps.metric;
    out.note = warps.unavailable;
    const bool percent = warps.metric.find("pct") != std::string::npos;
    double weighted = 0, total = 0;
    for (const WarpSample& w : warps.samples) {
        const double len = static_cast<double>(w.endNs - std::min(w.endNs, w.startNs));
        if (len <= 0 || len > 10.0 * static_cast<double>(intervalNs))
            continue;
        weighted += len * (percent ? w.value : 100 * w.value);
        total += len;
        ++out.samples;
    }
    if (total > 0)
        out.meanPct = weighted / total;
    return out;
}

} // namespace

MeasuredTrace traceSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                            const schedule::Schedule& schedule, const TraceOptions& options) {
    return tracedRun(
        executor, [&](bool tag) { executor.issueSchedule(dags, schedule, tag); },
        [&] { return executor.captureSchedule(dags, schedule); },
        [&] {
            std::vector<TracedStage> stages;
            for (size_t b = 0; b < dags.size(); ++b) {
                const std::vector<std::string> names = opNames(dags[b]);
                for (size_t st = 0; st < schedule.blocks[b].stages.size(); ++st) {
                    const schedule::Stage& stage = schedule.blocks[b].stages[st];
                    stages.push_back({static_cast<int>(b), static_cast<int>(st), stage.kind,
                                      static_cast<int>(stage.groups.size()), names});
                }
            }
            return stages;
        },
        options);
}

MeasuredTrace traceSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                            const schedule::Schedule& schedule, uint64_t warpIntervalNs) {
    TraceOptions options;
    options.warpIntervalNs = warpIntervalNs;
    return traceSchedule(executor, dags, schedule, options);
}

// Stages = segments, numbered as Executor::issueProgram tags them.
MeasuredTrace traceSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                            const schedule::Program& program, const TraceOptions& options) {
    return tracedRun(
        executor, [&](bool tag) { executor.issueProgram(dags, program, tag); },
        [&] { return executor.captureProgram(dags, program); },
        [&] {
            std::vector<TracedStage> stages;
            for (size_t b = 0; b < dags.size(); ++b) {
                const std::vector<std::string> names = opNames(dags[b]);
                const auto segments = cost::programSegments(program[b]);
                for (size_t s = 0; s < segments.size(); ++s)
                    stages.push_back({static_cast<int>(b), static_cast<int>(s),
                                      schedule::StageKind::Parallel, segments[s].streams, names});
            }
            return stages;
        },
        options);
}

MeasuredTrace traceSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                            const schedule::Program& program, uint64_t warpIntervalNs) {
    TraceOptions options;
    options.warpIntervalNs = warpIntervalNs;
    return traceSchedule(executor, dags, program, options);
}

std::vector<EagerReplayVerdict> eagerReplayVerdicts(const std::vector<EagerReplayTiming>& runs,
                                                    const std::string& baseline) {
    const auto base = std::find_if(runs.begin(), runs.end(), [&](const EagerReplayTiming& r) {
        return r.strategy == baseline;
    });
    std::vector<EagerReplayVerdict> out;
    for (const EagerReplayTiming& r : runs) {
        EagerReplayVerdict v;
        v.strategy = r.strategy;
        v.ratio = r.replayMs > 0 ? r.eagerMs / r.replayMs : 0;
        v.needsReplay = base != runs.end() && r.strategy != baseline && r.eagerMs > base->eagerMs &&
                        r.replayMs < base->replayMs;
        out.push_back(v);
    }
    return out;
}

std::string eagerExecutionNote() {
    return "note: these are eager timings (every kernel launched from the host). On fast GPUs "
           "eager execution is host-bound, so multi-stream schedules need CUDA-graph replay "
           "(--cuda-graph) to win: on an H100, InceptionV3 sequential takes 6.2 ms eager vs "
           "3.5 ms replayed, and IOS-both 9.7 ms eager loses to sequential's 6.2 ms "
           "(docs/gpu.md \"Active warps and eager runs\").";
}

ReplayWarps replayWarps(Executor& executor, const std::vector<ir::BlockDag>& dags,
                        const schedule::Schedule& schedule, int replays, uint64_t intervalNs) {
    return sampleReplays(executor, executor.captureSchedule(dags, schedule), replays, intervalNs);
}

ReplayWarps replayWarps(Executor& executor, const std::vector<ir::BlockDag>& dags,
                        const schedule::Program& program, int replays, uint64_t intervalNs) {
    return sampleReplays(executor, executor.captureProgram(dags, program), replays, intervalNs);
}

MeasuredTrace traceOnGpu(const ir::Graph& graph, const schedule::Schedule& schedule, int batch,
                         const TraceOptions& options) {
    std::unique_ptr<GpuBackend> backend = requireCudaBackend();
    Executor executor(graph, *backend, batch);
    return traceSchedule(executor, ir::buildDags(graph), schedule, options);
}

NumericCheck checkSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                           const schedule::Schedule& schedule,
                           const std::vector<float>& reference) {
    executor.poisonActivations();
    executor.issueSchedule(dags, schedule);
    return compareOutputs(executor.output(), reference);
}

NumericCheck checkSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                           const schedule::Program& program, const std::vector<float>& reference,
                           bool cudaGraph) {
    if (cudaGraph) {
        // Capturing issues the program once eagerly first: poison after it, then replay.
        const GraphId graph = executor.captureProgram(dags, program);
        executor.poisonActivations();
        executor.backend().launchGraph(graph, executor.mainStream());
    } else {
        executor.poisonActivations();
        executor.issueProgram(dags, program);
    }
    return compareOutputs(executor.output(), reference);
}

namespace {

class OwningMeasuredCostModel final : public cost::CostModel {
public:
    OwningMeasuredCostModel(const ir::Graph& graph, int batch, std::filesystem::path file,
                            const CudaBackendOptions& options)
        : file_(std::move(file)), backend_(requireCudaBackend(options)),
          executor_(graph, *backend_, batch) {
        if (std::filesystem::exists(file_))
            cache_ = cost::MeasurementCache::load(file_);
        model_ = std::make_unique<MeasuredCostModel>(executor_, graph.name,
                                                     MeasuredCostModel::defaultTiming(), &cache_);
    }
    ~OwningMeasuredCostModel() override {
        try {
            save();
        } catch (const std::exception& e) {
            std::cerr << "warning: could not save measurements to " << file_.string() << ": "
                      << e.what() << "\n";
        }
    }
    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override {
        const double ms = model_->stageLatencyMs(dag, stage);
        if (model_->stagesMeasured() >= savedAt_ + 200)
            save();
        return ms;
    }
    std::string describe() const override { return model_->describe(); }
    int batch() const override { return model_->batch(); }

private:
    void save() const {
        if (model_->stagesMeasured() == savedAt_)
            return;
        cache_.save(file_);
        savedAt_ = model_->stagesMeasured();
    }
    std::filesystem::path file_;
    std::unique_ptr<GpuBackend> backend_;
    Executor executor_;
    cost::MeasurementCache cache_;
    std::unique_ptr<MeasuredCostModel> model_;
    mutable int savedAt_ = 0;
};

} // namespace

std::unique_ptr<cost::CostModel> makeMeasuredCostModel(const ir::Graph& graph, int batch,
                                                       const std::filesystem::path& cacheFile,
                                                       const CudaBackendOptions& options) {
    return std::make_unique<OwningMeasuredCostModel>(graph, batch, cacheFile, options);
}

void installMeasuredCostModel() {
    cost::installMeasuredCostModel(
        [](const ir::Graph& graph, int batch, const std::string& cacheFile) {
            return makeMeasuredCostModel(graph, batch, cacheFile);
        });
}

} // namespace ios::profiling
