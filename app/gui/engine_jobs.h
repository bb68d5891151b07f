// SPDX-License-Identifier: Apache-2.0
// The GUI's job kinds (job.h: Job<R>): each runs the engine's registered schedulers under the
// cost model the settings choose (cost::makeCostModel) and returns its own result type. A new
// kind is one more function here returning Job<ItsResult>; nothing else lists the kinds.
#pragma once

#include "cost/cost_model.h"
#include "cost/cost_model_factory.h"
#include "io/schedule_document.h"
#include "job.h"

#include <array>
#include <memory>
#include <vector>

namespace ios::gui {

// One strategy, with state-space recording (settings.recordStateSpace), stage latencies,
// timeline and program simulation: the main result.
Job<SearchResult> optimizeJob(JobSettings settings);
// A saved schedule (File ▸ Open Schedule) priced under the settings' cost model, with the
// views optimizeJob's result has (stage latencies, timeline, program): no search.
Job<SearchResult> savedScheduleJob(JobSettings settings,
                                   std::shared_ptr<const io::ScheduleDocument> document);
// Every registered scheduler.
Job<SearchResult> compareJob(JobSettings settings);
// The pruning grid r × s (IOS paper Figure 9).
Job<SweepResult> sweepJob(JobSettings settings);
// The batch × device matrices (IOS paper Table 3); block ≥ 0: of that block alone, numbered as
// `ios-sched info` lists them (IOS paper Figure 10; cost::BlockModel).
Job<SpecializeResult> specializeJob(JobSettings settings, int block = -1);
// The Memory view's report: Serenity per block, walks, peak distributions.
Job<MemoryJobResult> memoryJob(JobSettings settings);
// Latency against peak memory (schedulers::paretoFront).
Job<ParetoResult> paretoJob(JobSettings settings);
// What an Optimize with these settings will cost (schedulers::estimateSearch).
Job<EstimateResult> estimateJob(JobSettings settings);
// The MetaFlow tab: rewrite, then compare schedulers on G0 and G*.
Job<MetaflowJobResult> metaflowJob(JobSettings settings);

// The Diff tab: A and B run (their timelines under the settings' cost model) and compared.
// Throws ios::UserError when the cost model gives no kernel timeline.
Job<DiffJobResult> diffJob(JobSettings settings, DiffSource a, DiffSource b);

// The scheduler parameters of `settings` with r and s (a sweep's cell), state-space recording
// and the threads one search may use.
schedulers::Params searchParams(const JobSettings& settings, int r, int s, bool record,
                                int threads);

// One setting of the specialization's matrices, and both grids: the batch sizes on the chosen
// device (kSpecializeBatches), the validated devices and the chosen one at the chosen batch.
struct SpecializeSetting {
    QString label;
    QString device;
    int batch;
};
std::array<std::vector<SpecializeSetting>, 2> specializeGrids(const JobSettings& settings);

// The cost-model choices and the grids the jobs use.
class EngineJobs final {
public:
    // The cost-model choice of `settings` at another device / batch (specialization).
    static cost::CostModelSpec costModelSpec(const JobSettings& settings, const QString& device,
                                             int batch);
    // The cost model a job uses. Throws ios::UserError for an unknown device, an unreadable
    // cache or a cache without this model.
    static std::unique_ptr<cost::CostModel> makeCostModel(const views::LoadedModel& model,
                                                          const JobSettings& settings,
                                                          const QString& device, int batch);

    // Pruning grid of the sweep (IOS paper Figure 9).
    static constexpr int kSweepMaxR = 4;
    static constexpr int kSweepMaxS = 8;
    // How long the estimate may count before it says "more than this" (its counting pass is
    // the search without stage pricing: a search it cannot count in this time takes longer).
    static constexpr double kEstimateCountSeconds = 1.0;
    // Batch sizes of the specialization matrix (IOS paper Table 3).
    static constexpr int kSpecializeBatches[] = {1, 32, 128};
};

} // namespace ios::gui
