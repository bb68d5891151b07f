#include "gpu_runs.h"

#include "cost/cost_model_factory.h"
#include "cost/measurement_cache.h"
#include "cost/program_simulator.h"
#include "gpu_trace.h"
#include "measured_cost_model.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>

namespace ios::profiling {

LatencySummary summarize(std::vector<double> samples) {
    LatencySummary s;
    s.medianMs = percentile(samples, 50);
    s.p10Ms = percentile(samples, 10);
    s.p90Ms = percentile(samples, 90);
    s.samples = std::move(samples);
    return s;
}

namespace {

// One warm run, then a recorded one (issue(true) tags kernels with the ordinals of `stages()`).
MeasuredTrace tracedRun(Executor& executor, const std::function<void(bool)>& issue,
                        const std::function<std::vector<TracedStage>()>& stages,
                        uint64_t warpIntervalNs) {
    GpuBackend& backend = executor.backend();
    issue(false); // warm: streams, algorithms, workspaces
    backend.synchronize();

    std::unique_ptr<KernelRecorder> recorder = backend.kernelRecorder();
    std::unique_ptr<WarpSampler> sampler = backend.warpSampler();
    recorder->begin();
    const std::string refused = sampler->begin(warpIntervalNs);
    issue(true);
    backend.synchronize();
    WarpSamples warps = refused.empty() ? sampler->end() : WarpSamples{};
    if (!refused.empty())
        warps.unavailable = refused;

    MeasuredTraceInput in;
    in.device = backend.deviceName();
    in.batch = executor.batch();
    in.kernels = recorder->end();
    in.warps = warps;
    for (StreamId s : executor.streams())
        in.streamIds.push_back(backend.traceStreamId(s));
    in.stages = stages();
    MeasuredTrace out;
    out.timeline = buildMeasuredTimeline(in);
    out.warpMetric = warps.metric;
    out.warpNote = warps.unavailable;
    if (!out.timeline.samples.empty())
        out.meanWarpOccupancy = meanWarpOccupancy(out.timeline, 0, out.timeline.latencyUs);
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
                            const schedule::Schedule& schedule, uint64_t warpIntervalNs) {
    return tracedRun(
        executor, [&](bool tag) { executor.issueSchedule(dags, schedule, tag); },
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
        warpIntervalNs);
}

// Stages = segments, numbered as Executor::issueProgram tags them.
MeasuredTrace traceSchedule(Executor& executor, const std::vector<ir::BlockDag>& dags,
                            const schedule::Program& program, uint64_t warpIntervalNs) {
    return tracedRun(
        executor, [&](bool tag) { executor.issueProgram(dags, program, tag); },
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
        warpIntervalNs);
}

ReplayWarps replayWarps(Executor& executor, const std::vector<ir::BlockDag>& dags,
                        const schedule::Schedule& schedule, int replays, uint64_t intervalNs) {
    return sampleReplays(executor, executor.captureSchedule(dags, schedule), replays, intervalNs);
}

ReplayWarps replayWarps(Executor& executor, const std::vector<ir::BlockDag>& dags,
                        const schedule::Program& program, int replays, uint64_t intervalNs) {
    return sampleReplays(executor, executor.captureProgram(dags, program), replays, intervalNs);
}

MeasuredTrace traceOnGpu(const ir::Graph& graph, const schedule::Schedule& schedule, int batch) {
    std::unique_ptr<GpuBackend> backend = requireCudaBackend();
    Executor executor(graph, *backend, batch);
    return traceSchedule(executor, ir::buildDags(graph), schedule);
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
