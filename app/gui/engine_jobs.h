// The real JobEngine: runs the engine's schedulers and cost model for the GUI's jobs.
#pragma once

#include "cost/simulated_gpu_cost_model.h"
#include "job.h"

#include <memory>

namespace ios::gui {

class EngineJobs final : public JobEngine {
public:
    JobResult run(JobKind kind, const JobSettings& settings, JobControl& control) const override;

    // The cost model a job uses (device profile + batch size). Throws ios::UserError for an
    // unknown device.
    static std::unique_ptr<cost::SimulatedGpuCostModel>
    makeCostModel(const views::LoadedModel& model, const QString& device, int batch);

    // Pruning grid of the sweep (IOS paper Figure 9).
    static constexpr int kSweepMaxR = 4;
    static constexpr int kSweepMaxS = 8;
    // Batch sizes of the specialization matrix (IOS paper Table 3).
    static constexpr int kSpecializeBatches[] = {1, 32, 128};
};

} // namespace ios::gui
