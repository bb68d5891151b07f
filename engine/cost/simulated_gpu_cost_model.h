// SPDX-License-Identifier: Apache-2.0
// The simulated GPU cost model: stage latencies from the kernel model and the discrete-event
// stage simulation on a device profile (docs/cost-model.md). The embedded default device,
// so every front end shows real schedules without a GPU.
#pragma once

#include "cost/cost_model_with.h"
#include "cost/device_profile.h"
#include "cost/kernel_timeline.h"
#include "cost/program_simulator.h"
#include "cost/stage_memo.h"
#include "cost/stage_shortcuts.h"
#include "cost/stage_simulator.h"
#include "ir/graph.h"
#include "ir/metrics.h"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace ios::cost {

class SimulatedGpuCostModel final : public CostModelWith<KernelTimelineModel, StageShortcuts,
                                                         ProgramSimulation, GraphRetargeting> {
public:
    // `graph` must be validated and outlive the model (input shapes are looked up by name).
    // Throws ios::UserError for batch < 1. `mode`: how the simulation advances (Exact: the
    // event by event reference the fast path is checked against).
    SimulatedGpuCostModel(const ir::Graph& graph, DeviceProfile device, int batch = 1,
                          SimulationMode mode = SimulationMode::Fast);

    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override;
    // PrefixStageSimulator::lowerBoundUs of the stage's kernels; 0 for a merge of several
    // operators (its merged convolution is built only to be simulated).
    double stageLowerBoundMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override;
    std::string describe() const override;
    StageMemo* canonicalStageMemo(const ir::BlockDag& dag,
                                  std::vector<uint32_t>& classes) const override;
    bool pricesWithinPartsConcurrently() const override { return true; } // pure, thread-safe
    // Kernel-level: every launch's kernels on its stream, SMs shared (program_simulator.h).
    ProgramRun simulateProgram(const ir::BlockDag& dag, const schedule::StreamProgram& program,
                               bool timeline) const override;

    // The full simulation of a stage (kernels per stream, utilisation), for timelines.
    StageRun simulate(const ir::BlockDag& dag, const schedule::Stage& stage) const override;
    std::string deviceName() const override { return device_.name; }
    int smCount() const override { return device_.smCount; }
    // The kernels the stage launches, per group (a merge stage: one merged convolution).
    std::vector<GroupKernels> stageKernels(const ir::BlockDag& dag,
                                           const schedule::Stage& stage) const;
    // The kernels of one operator at this model's batch size (cached).
    const std::vector<KernelDesc>& kernelsOf(const ir::Node& node) const;

    const DeviceProfile& device() const { return device_; }
    SimulationMode simulationMode() const { return mode_; }
    int batch() const override { return batch_; }
    // Same device and batch; shares the canonical stage memo.
    std::unique_ptr<CostModel> forGraph(const ir::Graph& graph) const override;

private:
    SimulatedGpuCostModel(const ir::Graph& graph, const SimulatedGpuCostModel& sharing);
    const ir::TensorShape* shapeOf(const std::string& name) const;
    struct ThreadStages;
    ThreadStages& threadStages(const ir::BlockDag& dag, const schedule::Stage& stage,
                               std::vector<StageKernel>& kernels) const;

    DeviceProfile device_;
    int batch_;
    SimulationMode mode_;
    ir::NodeIndex index_;
    uint64_t id_; // distinct per model, for the per-thread PrefixStageSimulator
    mutable std::mutex mutex_;
    mutable std::map<const ir::Node*, std::vector<KernelDesc>> cache_;
    CanonicalStages canonical_; // the canonical stage memo (stage_memo.h)
};

} // namespace ios::cost
