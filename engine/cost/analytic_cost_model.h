// SPDX-License-Identifier: Apache-2.0
// A simple analytic latency model (roofline-like): the default until a simulated or measured
// device model is chosen. Per group: Σ over operators of flops/peak + bytes/bandwidth +
// launch overhead; a parallel stage takes its slowest group plus a synchronisation overhead;
// a merge stage runs as one convolution (docs/algorithms.md §2.3, §5).
#pragma once

#include "cost/cost_model_with.h"
#include "cost/kernel_timeline.h"
#include "cost/program_simulator.h"
#include "cost/stage_memo.h"
#include "cost/stage_shortcuts.h"
#include "ir/graph.h"
#include "ir/metrics.h"

#include <memory>
#include <unordered_map>
#include <vector>

namespace ios::cost {

struct AnalyticParams {
    double peakGflops = 15'700;  // fp32 peak, V100-like
    double bandwidthGBs = 900;   // device memory bandwidth
    double launchOverheadUs = 5; // per kernel launch
    double syncOverheadUs = 2;   // per stage (stream/event synchronisation)
    int batch = 1;
};

class AnalyticCostModel final : public CostModelWith<KernelTimelineModel, StageShortcuts,
                                                     ProgramSimulation, GraphRetargeting> {
public:
    // `graph` must be validated and outlive the model (node metrics are looked up by name).
    AnalyticCostModel(const ir::Graph& graph, AnalyticParams params = {});

    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override;
    bool additiveParallelStages(const ir::BlockDag& dag, std::vector<double>& opMs,
                                double& overheadMs) const override;
    bool pricesWithinPartsConcurrently() const override { return true; } // pure, thread-safe
    std::string describe() const override;
    StageMemo* canonicalStageMemo(const ir::BlockDag& dag,
                                  std::vector<uint32_t>& classes) const override;
    // Dataflow of operatorMs per launch; every segment with launches pays the sync overhead,
    // as every stage does.
    ProgramRun simulateProgram(const ir::BlockDag& dag, const schedule::StreamProgram& program,
                               bool timeline) const override;

    // The roofline's view of a stage: each group's operators back to back on its stream, one
    // kernel per operator (a merge stage: one merged kernel), then the sync overhead. No
    // utilisation curves (the model has no notion of SMs).
    StageRun simulate(const ir::BlockDag& dag, const schedule::Stage& stage) const override;
    std::string deviceName() const override;
    int smCount() const override { return 0; }
    int batch() const override { return params_.batch; }

    const AnalyticParams& params() const { return params_; }
    // Same parameters; shares the canonical stage memo.
    std::unique_ptr<CostModel> forGraph(const ir::Graph& graph) const override;
    // Latency in ms of one operator run alone on one stream, launch included, no sync.
    double operatorMs(const ir::Node& node) const;

private:
    AnalyticCostModel(const ir::Graph& graph, const AnalyticCostModel& sharing);
    void precompute(const ir::Graph& graph);
    double metricsMs(const ir::OperatorMetrics& m, int launches) const;
    double mergedMs(const ir::BlockDag& dag, const std::vector<int>& ops) const;
    const ir::OperatorMetrics& metricsOf(const ir::Node& node) const;
    const std::vector<double>* precomputedOpMs(const ir::BlockDag& dag) const;

    AnalyticParams params_;
    ir::NodeIndex index_;
    std::unordered_map<const ir::Node*, ir::OperatorMetrics> metrics_;
    // Per block (keyed by its first operator): operatorMs of each operator in BlockDag::ops
    // order, so a stage costs one hash lookup instead of one per operator.
    std::unordered_map<const ir::Node*, std::vector<double>> blockOpMs_;
    CanonicalStages canonical_; // operators are priced from their signature alone
};

} // namespace ios::cost
