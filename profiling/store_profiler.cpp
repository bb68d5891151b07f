// SPDX-License-Identifier: Apache-2.0
#include "store_profiler.h"

#include "util/version.h"

#include <chrono>
#include <cmath>

namespace ios::profiling {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

store::Setup measurementSetup(Executor& executor) {
    store::Setup setup;
    setup.device = executor.backend().identity();
    setup.batch = executor.batch();
    setup.dtype = "fp32";
    return setup;
}

StoreProfileResult profileIntoStore(Executor& executor, const ir::PreparedModel& model,
                                    const std::vector<MetStage>& stages,
                                    store::MeasurementStore& store, const ProfileOptions& options) {
    const auto prepareStart = Clock::now();
    StoreProfileResult result;
    result.stagesMet = stages.size();
    const StageClasses classes = canonicalClasses(model, stages, false);
    result.classes = classes.members.size();
    std::vector<MetStage> representatives;
    for (const std::vector<size_t>& members : classes.members)
        representatives.push_back(stages[members.front()]);
    const std::vector<std::string> signatures = stageSignatureBytes(model, representatives);
    const store::Setup setup = measurementSetup(executor);
    const std::vector<bool> held = store.has(setup, signatures);

    std::vector<size_t> toMeasure; // representatives' indices into `stages`
    std::vector<size_t> classOfStage(stages.size(), 0);
    for (size_t c = 0; c < classes.members.size(); ++c) {
        if (held[c]) {
            result.fromStore += classes.members[c].size();
            continue;
        }
        toMeasure.push_back(classes.members[c].front());
        classOfStage[classes.members[c].front()] = c;
    }
    const std::vector<std::vector<size_t>> graphs = graphBatches(
        executor, model, stages, toMeasure, options.stagesPerGraph, options.kernelsPerGraph);
    const auto start = Clock::now();
    result.prepareSeconds = std::chrono::duration<double>(start - prepareStart).count();

    ProfileProgress progress;
    progress.stagesTotal = toMeasure.size();
    progress.graphsTotal = graphs.size();
    const std::string version = util::toolVersion();
    for (const std::vector<size_t>& graph : graphs) {
        if ((options.maxGraphs > 0 && result.graphs >= options.maxGraphs) ||
            (options.cancel != nullptr && options.cancel->load())) {
            result.measureSeconds = secondsSince(start);
            return result;
        }
        std::vector<StageRef> refs;
        for (size_t i : graph)
            refs.push_back({&model.dags()[static_cast<size_t>(stages[i].block)], &stages[i].stage});
        const BatchedTimes times = executor.timeStages(refs, options.timing);
        std::vector<store::Measurement> batch;
        const int64_t now = store::measurementTime();
        for (size_t j = 0; j < graph.size(); ++j) {
            store::Measurement m;
            m.key.signature = signatures[classOfStage[graph[j]]];
            m.key.device = setup.device;
            m.key.batch = setup.batch;
            m.key.dtype = setup.dtype;
            m.sample.medianMs = storedLatencyMs(times.medianMs[j]);
            m.sample.spreadMs =
                j < times.spreadMs.size() ? std::round(times.spreadMs[j] * 1e6) / 1e6 : 0;
            m.sample.count = times.repeats;
            m.sample.toolVersion = version;
            m.sample.measuredAt = now;
            batch.push_back(std::move(m));
            result.kernels += executor.stageKernelCount(*refs[j].dag, *refs[j].stage);
        }
        result.samplesAdded += store.add(batch); // one transaction: the graph, or nothing
        countGraph(result, graph.size(), times, progress, start, options);
    }
    result.measureSeconds = secondsSince(start);
    result.complete = true;
    return result;
}

} // namespace ios::profiling
