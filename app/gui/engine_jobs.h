// The real JobEngine: runs the engine's registered schedulers under the cost model the settings
// choose (cost::makeCostModel) for the GUI's jobs.
#pragma once

#include "cost/cost_model.h"
#include "cost/cost_model_factory.h"
#include "job.h"

#include <memory>

namespace ios::gui {

class EngineJobs final : public JobEngine {
public:
    JobResult run(JobKind kind, const JobSettings& settings, JobControl& control) const override;

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
