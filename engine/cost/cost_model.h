// Stage latency source for the schedulers and for schedule evaluation (docs/algorithms.md §5).
#pragma once

#include "cost/program_simulator.h"
#include "ir/block_dag.h"
#include "schedule/schedule.h"
#include "schedule/stream_program.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ios::cost {

class KernelTimelineModel;
class StageMemo;

class CostModel {
public:
    virtual ~CostModel() = default;

    // Latency in milliseconds of running `stage` (operators are indices into dag.ops) at the
    // model's batch size. Must be deterministic. The DP memoises calls per distinct stage.
    virtual double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const = 0;

    // Optional fast path for the DP (docs/algorithms.md §5 "Stage latency"): a model whose
    // PARALLEL stage latency is max over groups of Σ opMs[op] (summed in group order, starting
    // from 0) plus a fixed overheadMs, and whose MERGE stage of one operator costs
    // opMs[op] + overheadMs, fills both (opMs per dag.ops) and returns true. The DP then
    // prices those stages from operator bitsets, without building Stage objects or calling
    // stageLatencyMs; the result must be bit-identical to stageLatencyMs. Default: false (the
    // DP builds every stage).
    virtual bool additiveParallelStages(const ir::BlockDag& /*dag*/, std::vector<double>& /*opMs*/,
                                        double& /*overheadMs*/) const {
        return false;
    }

    // Optional canonical stage memo (stage_memo.h): a model whose stage latency depends only on
    // the stage kind and, group by group in order, on the classes of the group's operators in
    // order, fills `classes` (one per dag.ops; ids are the model's own, equal for interchangeable
    // operators in every DAG priced with the model) and returns its memo, which outlives the
    // model's searches and is shared by them (thread-safe). Stages with equal keys must get
    // bit-identical latencies. Default: nullptr (every distinct stage is priced).
    virtual StageMemo* canonicalStageMemo(const ir::BlockDag& /*dag*/,
                                          std::vector<uint32_t>& /*classes*/) const {
        return nullptr;
    }

    // Optional lower bound for the DP's branch and bound (docs/search-speed.md "Fifth
    // pass"): a latency in ms that stageLatencyMs(dag, stage) is never below, cheaper to get
    // than the latency itself; the DP then skips pricing a candidate stage that cannot beat
    // the best one found (same schedule, same cost, bit for bit). Negative (the default): no
    // bound, the DP prices every candidate (a model that records what the DP asks for relies
    // on it).
    virtual double stageLowerBoundMs(const ir::BlockDag& /*dag*/,
                                     const schedule::Stage& /*stage*/) const {
        return -1;
    }

    // The model's kernel-level view of stages (for timelines), or nullptr when it has none
    // (e.g. replayed measurements, which know stage latencies only).
    virtual const KernelTimelineModel* kernelTimeline() const { return nullptr; }

    // One block's stream program simulated (cost/program_simulator.h). segmentMs (per segment,
    // in order) must sum to stage latencies for a lowered stage schedule: segment i of
    // lowerBlock(bs) costs what stageLatencyMs(bs's stage) does, bit for bit. Default
    // (models that know stage latencies only, e.g. measurements): operator-level dataflow, each
    // launch taking its one-operator stage latency (a merged launch: its merge stage's), streams
    // not slowing each other. Throws UserError for an invalid program.
    virtual ProgramRun simulateProgram(const ir::BlockDag& dag,
                                       const schedule::StreamProgram& program, bool timeline) const;

    // The same model (device, batch, parameters) for another validated graph, which must
    // outlive the result: schedulers that rewrite the graph (MetaFlow) price and schedule the
    // rewritten graph with it. Models that price operators from their signatures alone share
    // their canonical stage memo with the result. Default: nullptr, for models whose figures
    // are keyed by operator names (measurements), where a rewritten operator would silently
    // take another's time.
    virtual std::unique_ptr<CostModel> forGraph(const ir::Graph& /*graph*/) const {
        return nullptr;
    }

    // The batch size its latencies are for (the memory model sizes tensors with it).
    virtual int batch() const { return 1; }

    // Short human-readable description, e.g. "analytic (V100)" or "simulated V100, batch 1".
    virtual std::string describe() const = 0;
};

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

// cost.simulateProgram(dag, program, timeline) after checking every segment's latency like a
// stage latency (a UserError naming the segment and the cost model).
ProgramRun checkedProgramRun(const CostModel& cost, const ir::BlockDag& dag,
                             const schedule::StreamProgram& program, bool timeline);

// cost.additiveParallelStages(dag, opMs, overheadMs) with every operator time and the overhead
// checked like a stage latency (a UserError naming the operator and the cost model).
bool checkedAdditiveParallelStages(const CostModel& cost, const ir::BlockDag& dag,
                                   std::vector<double>& opMs, double& overheadMs);

} // namespace ios::cost
