// SPDX-License-Identifier: Apache-2.0
#include "stage_profiler.h"

#include "cost/stage_signature.h"
#include "stage_journal.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace ios::profiling {

namespace {

struct Known {
    double ms = 0;
    int samples = 0;
};

} // namespace

std::vector<std::vector<size_t>> graphBatches(Executor& executor, const ir::PreparedModel& model,
                                              const std::vector<MetStage>& stages,
                                              const std::vector<size_t>& toMeasure,
                                              size_t maxStages, size_t maxKernels) {
    std::vector<std::vector<size_t>> out;
    size_t kernels = 0;
    for (size_t i : toMeasure) {
        const MetStage& m = stages[i];
        const size_t k =
            executor.stageKernelCount(model.dags()[static_cast<size_t>(m.block)], m.stage);
        if (out.empty() || out.back().size() >= maxStages ||
            (!out.back().empty() && kernels + k > maxKernels)) {
            out.emplace_back();
            kernels = 0;
        }
        out.back().push_back(i);
        kernels += k;
    }
    return out;
}

void advanceProgress(ProfileProgress& progress, size_t stagesDone, size_t graphsDone,
                     std::chrono::steady_clock::time_point start) {
    progress.stagesDone = stagesDone;
    progress.graphsDone = graphsDone;
    progress.elapsedSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress.etaSeconds = stagesDone == 0 ? -1
                                          : progress.elapsedSeconds *
                                                static_cast<double>(progress.stagesTotal - stagesDone) /
                                                static_cast<double>(stagesDone);
}

double storedLatencyMs(double ms) {
    return std::max(1e-6, std::round(ms * 1e6) / 1e6);
}

ProfileResult profileStages(Executor& executor, const std::string& modelName,
                            const ir::PreparedModel& model, const std::vector<MetStage>& stages,
                            const std::filesystem::path& cacheFile, const ProfileOptions& options) {
    if (options.stagesPerGraph < 1 || options.kernelsPerGraph < 1)
        throw UserError("a graph needs room for at least one stage and one kernel");
    const auto prepareStart = std::chrono::steady_clock::now();
    const std::string device = executor.backend().deviceName();
    const int batch = executor.batch();
    ProfileResult result;
    result.stagesMet = stages.size();

    const std::string modelHash = cost::modelContentHash(model.graph());
    cost::MeasurementCache cache;
    if (std::filesystem::exists(cacheFile))
        cache = cost::MeasurementCache::load(cacheFile);
    // Entries of this name but of another model's contents are replaced by this run's.
    if (const size_t other = cache.removeOtherContents(modelName, modelHash))
        result.warnings.push_back(cacheFile.string() + ": " + std::to_string(other) +
                                  " measurements of another model named '" + modelName +
                                  "' (other contents) are dropped and measured again");
    const std::filesystem::path journal = journalPath(cacheFile);
    // Stage key → latency, cache then journal; `knownOrder` keeps their first-seen order (the
    // lookup by class takes the first of a class, as CachedCostModel does).
    std::unordered_map<std::string, Known> known;
    std::vector<std::string> knownOrder;
    std::vector<std::string> journaled; // journal keys the cache lacks, in journal order
    std::unordered_set<std::string> isJournaled;
    for (const cost::StageMeasurement& m : cache.entries())
        if (m.device == device && m.model == modelName && m.batch == batch &&
            known.emplace(m.stage, Known{m.latencyMs, m.samples}).second)
            knownOrder.push_back(m.stage);
    if (std::filesystem::exists(journal))
        for (const cost::StageMeasurement& m : readJournal(journal, result.warnings)) {
            if (m.device != device || m.model != modelName || m.batch != batch ||
                (!m.modelHash.empty() && m.modelHash != modelHash))
                throw UserError("the journal holds measurements of " + m.model +
                                    (m.modelHash != modelHash ? " (other contents)" : "") + " on " +
                                    m.device + " at batch " + std::to_string(m.batch) +
                                    ", not of " + modelName + " on " + device + " at batch " +
                                    std::to_string(batch) +
                                    " (finish that run, or remove the journal)",
                                journal.string());
            if (known.insert_or_assign(m.stage, Known{m.latencyMs, m.samples}).second)
                knownOrder.push_back(m.stage);
            if (!cache.find(device, modelName, batch, m.stage) &&
                isJournaled.insert(m.stage).second)
                journaled.push_back(m.stage);
        }

    // Per class: the latency of its first member known by name, else of the first known stage
    // of its class (a compact cache stores one stage per class, perhaps one this search does
    // not meet), else its representative is measured.
    const StageClasses classes = canonicalClasses(model, stages, options.everyStage);
    result.classes = classes.members.size();
    std::vector<std::optional<Known>> classValue(classes.members.size());
    std::vector<size_t> unknown; // classes no member of which is known by name
    for (size_t c = 0; c < classes.members.size(); ++c) {
        for (size_t i : classes.members[c])
            if (auto it = known.find(stages[i].key); it != known.end()) {
                classValue[c] = it->second;
                break;
            }
        if (!classValue[c])
            unknown.push_back(c);
    }
    if (!options.everyStage && !unknown.empty() && !known.empty()) {
        const cost::StageClassIndex index(model.graph());
        std::unordered_map<cost::StageMemo::Key, Known, cost::StageKeyHash> byClass;
        cost::StageMemo::Key key;
        for (const std::string& k : knownOrder)
            if (index.classKey(k, key))
                byClass.emplace(key, known.at(k));
        for (size_t c : unknown) {
            const MetStage& r = stages[classes.members[c].front()];
            if (index.classKey(model.dags()[static_cast<size_t>(r.block)], r.stage, key))
                if (auto it = byClass.find(key); it != byClass.end())
                    classValue[c] = it->second;
        }
    }
    std::vector<size_t> toMeasure;
    for (size_t c = 0; c < classes.members.size(); ++c)
        if (classValue[c])
            result.fromCache += classes.members[c].size();
        else
            toMeasure.push_back(classes.members[c].front());
    std::sort(toMeasure.begin(), toMeasure.end()); // enumeration order

    const std::vector<std::vector<size_t>> graphs = graphBatches(
        executor, model, stages, toMeasure, options.stagesPerGraph, options.kernelsPerGraph);
    const auto start = std::chrono::steady_clock::now();
    result.prepareSeconds = std::chrono::duration<double>(start - prepareStart).count();
    std::optional<JournalWriter> writer;
    std::unordered_map<std::string, Known> measured; // by this run
    ProfileProgress progress;
    progress.stagesTotal = toMeasure.size();
    progress.graphsTotal = graphs.size();
    bool stopped = false;
    for (const std::vector<size_t>& graph : graphs) {
        if ((options.maxGraphs > 0 && result.graphs >= options.maxGraphs) ||
            (options.cancel != nullptr && options.cancel->load())) {
            stopped = true;
            break;
        }
        std::vector<StageRef> refs;
        for (size_t i : graph)
            refs.push_back({&model.dags()[static_cast<size_t>(stages[i].block)], &stages[i].stage});
        const BatchedTimes times = executor.timeStages(refs, options.timing);
        for (const StageRef& r : refs)
            result.kernels += executor.stageKernelCount(*r.dag, *r.stage);
        // Only the measured stage: the replay finds its class's other members by class.
        std::vector<cost::StageMeasurement> lines;
        for (size_t j = 0; j < graph.size(); ++j) {
            const Known value{storedLatencyMs(times.medianMs[j]), times.repeats};
            const MetStage& m = stages[graph[j]];
            measured.emplace(m.key, value);
            lines.push_back({device, modelName, batch, m.key, value.ms, value.samples, modelHash});
        }
        if (!writer)
            writer.emplace(journal);
        writer->append(lines);
        countGraph(result, graph.size(), times, progress, start, options);
    }
    if (writer)
        writer->close();
    result.measureSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (stopped)
        return result;

    const auto saveStart = std::chrono::steady_clock::now();
    // The cache as an uncut run writes it, whatever runs the journal came from: its own
    // entries first, then the stages measured (by this run or the journal's), in enumeration
    // order, then journal stages this search does not meet, in journal order. Every other met
    // stage is found by class on replay (CachedCostModel); --every-stage measures them all.
    const size_t before = cache.entries().size();
    for (const MetStage& m : stages) {
        if (cache.find(device, modelName, batch, m.key))
            continue;
        const Known* value = nullptr;
        if (auto it = measured.find(m.key); it != measured.end())
            value = &it->second;
        else if (isJournaled.count(m.key))
            value = &known.at(m.key);
        if (value != nullptr)
            cache.add({device, modelName, batch, m.key, value->ms, value->samples, modelHash});
    }
    for (const std::string& k : journaled)
        if (!cache.find(device, modelName, batch, k))
            cache.add(
                {device, modelName, batch, k, known.at(k).ms, known.at(k).samples, modelHash});
    result.written = cache.entries().size() - before;
    result.cacheEntries = cache.entries().size();
    // Met stages neither known before nor measured took an equal stage's latency.
    result.shared = stages.size() - result.fromCache - result.measured;
    cache.save(cacheFile);
    std::error_code ignored;
    std::filesystem::remove(journal, ignored);
    result.saveSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - saveStart).count();
    result.complete = true;
    return result;
}

} // namespace ios::profiling
