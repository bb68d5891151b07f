// SPDX-License-Identifier: Apache-2.0
// Stage latency source for the schedulers and for schedule evaluation (docs/algorithms.md §5).
#pragma once

#include "ir/block_dag.h"
#include "schedule/schedule.h"

#include <memory>
#include <string>
#include <vector>

namespace ios::cost {

class KernelTimelineModel; // kernel_timeline.h
class ProgramSimulation;   // program_simulator.h
class StageShortcuts;      // stage_shortcuts.h
class GraphRetargeting;    // below

// What every cost model is: stage latencies at one batch size, and a description. A model that
// only prices stages implements stageLatencyMs and describe (and batch when it is not 1); every
// further capability is an interface of its own, offered through one accessor that returns
// nullptr when the model lacks it (docs/architecture.md "Seams at a glance").
class CostModel {
public:
    virtual ~CostModel() = default;

    // Latency in milliseconds of running `stage` (operators are indices into dag.ops) at the
    // model's batch size. Must be deterministic. The DP memoises calls per distinct stage.
    virtual double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const = 0;

    // Short human-readable description, e.g. "analytic (V100)" or "simulated V100, batch 1".
    virtual std::string describe() const = 0;

    // The batch size its latencies are for (the memory model sizes tensors with it).
    virtual int batch() const { return 1; }

    // The DP's pricing shortcuts (additive stages, canonical stage memo, lower bounds), or
    // nullptr: the DP then builds and prices every candidate stage.
    virtual const StageShortcuts* stageShortcuts() const { return nullptr; }

    // The model's kernel-level view of stages (for timelines), or nullptr when it has none
    // (e.g. replayed measurements, which know stage latencies only).
    virtual const KernelTimelineModel* kernelTimeline() const { return nullptr; }

    // Its own simulation of stream programs, or nullptr: simulateProgram (program_simulator.h)
    // then runs the operator-level dataflow of one-operator stage latencies.
    virtual const ProgramSimulation* programSimulation() const { return nullptr; }

    // The same model for another graph (schedulers that rewrite the graph price it with this),
    // or nullptr for models whose figures are keyed by operator names (measurements), where a
    // rewritten operator would silently take another's time.
    virtual const GraphRetargeting* retargeting() const { return nullptr; }
};

// Capability: the same model (device, batch, parameters) for another validated graph.
class GraphRetargeting {
public:
    virtual ~GraphRetargeting() = default;
    // `graph` must outlive the result. Models that price operators from their signatures alone
    // share their canonical stage memo with the result.
    virtual std::unique_ptr<CostModel> forGraph(const ir::Graph& graph) const = 0;
};

// cost.retargeting()->forGraph(graph), or nullptr when the model cannot price another graph.
std::unique_ptr<CostModel> forGraph(const CostModel& cost, const ir::Graph& graph);

// The largest stage latency any cost model may report (about 11.6 days). A larger, negative,
// NaN or infinite latency is a broken model or input (a measurement cache with 1e308 ms): it
// would make the DP's sums infinite, so it is refused before any sum is formed.
inline constexpr double kMaxStageLatencyMs = 1e9;

// The largest batch size any cost model, option or file accepts.
inline constexpr int kMaxBatch = 65536;

// cost.stageLatencyMs(dag, stage) after checking that it is finite and in
// [0, kMaxStageLatencyMs]; otherwise a UserError naming the stage's operators and the cost
// model. Every caller that sums stage latencies (the DP, eval, the GUI) goes through this.
double checkedStageLatencyMs(const CostModel& cost, const ir::BlockDag& dag,
                             const schedule::Stage& stage);

// The model's StageShortcuts::additiveParallelStages(dag, opMs, overheadMs) (false without
// shortcuts) with every operator time and the overhead checked like a stage latency (a
// UserError naming the operator and the cost model).
bool checkedAdditiveParallelStages(const CostModel& cost, const ir::BlockDag& dag,
                                   std::vector<double>& opMs, double& overheadMs);

} // namespace ios::cost
