// SPDX-License-Identifier: Apache-2.0
// Capability of a cost model (cost_model.h): the DP's pricing shortcuts. Each is optional on its
// own; the defaults say "none", and the DP then builds and prices every candidate stage.
#pragma once

#include "ir/block_dag.h"
#include "schedule/schedule.h"

#include <cstdint>
#include <vector>

namespace ios::cost {

class StageMemo;

class StageShortcuts {
public:
    virtual ~StageShortcuts() = default;

    // Additive stages (docs/algorithms.md §5 "Stage latency"): a model whose PARALLEL stage
    // latency is max over groups of Σ opMs[op] (summed in group order, starting from 0) plus a
    // fixed overheadMs, and whose MERGE stage of one operator costs opMs[op] + overheadMs,
    // fills both (opMs per dag.ops) and returns true. The DP then prices those stages from
    // operator bitsets, without building Stage objects or calling stageLatencyMs; the result
    // must be bit-identical to stageLatencyMs. Default: false.
    virtual bool additiveParallelStages(const ir::BlockDag& /*dag*/, std::vector<double>& /*opMs*/,
                                        double& /*overheadMs*/) const {
        return false;
    }

    // Canonical stage memo (stage_memo.h): a model whose stage latency depends only on the
    // stage kind and, group by group in order, on the classes of the group's operators in order,
    // fills `classes` (one per dag.ops; ids are the model's own, equal for interchangeable
    // operators in every DAG priced with the model) and returns its memo, which outlives the
    // model's searches and is shared by them (thread-safe). Stages with equal keys must get
    // bit-identical latencies. Default: nullptr (every distinct stage is priced).
    virtual StageMemo* canonicalStageMemo(const ir::BlockDag& /*dag*/,
                                          std::vector<uint32_t>& /*classes*/) const {
        return nullptr;
    }

    // Lower bound for the DP's branch and bound (docs/search-speed.md "Fifth pass"): a latency
    // in ms that stageLatencyMs(dag, stage) is never below, cheaper to get than the latency
    // itself; the DP then skips pricing a candidate stage that cannot beat the best one found
    // (same schedule, same cost, bit for bit). Negative (the default): no bound, the DP prices
    // every candidate (a model that records what the DP asks for relies on it).
    virtual double stageLowerBoundMs(const ir::BlockDag& /*dag*/,
                                     const schedule::Stage& /*stage*/) const {
        return -1;
    }

    // Whether the DP may price one part's stages from several threads at once (threads with
    // no part of their own help a running one: docs/performance.md "A part on two threads");
    // the order in which a part's stages are asked for then depends on timing. Default: false,
    // one thread per part asking in the search's order (a model that records what the DP asks
    // for, or measures it on one GPU, relies on it).
    virtual bool pricesWithinPartsConcurrently() const { return false; }
};

} // namespace ios::cost
