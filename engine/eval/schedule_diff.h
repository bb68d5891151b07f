// SPDX-License-Identifier: Apache-2.0
// Why one schedule is faster than another (issue 32, "a diff view of two schedules"): two
// timelines of the same model under the same cost model, compared per block and per stage,
// the kernels that moved, where each run's time goes (compute-bound, memory-bound, launch and
// sync overhead, idle; mean kernels in flight and mean active SMs and warps over the whole
// run), and one sentence per block naming the mechanism the figures show. Busy and idle time
// come from eval/timeline_stats.h; this file adds the concurrency and the comparison.
#pragma once

#include "cost/device_profile.h"
#include "eval/timeline.h"
#include "eval/timeline_stats.h"
#include "ir/block_dag.h"
#include "ir/graph.h"

#include <string>
#include <vector>

namespace ios::eval {

// Per operator of each block ([block][op] as ir::BlockDag::ops): true when its arithmetic
// intensity (flops per byte moved, weights included) reaches `ridgeFlopsPerByte`, the device's
// peak flops over its bandwidth (the roofline's ridge point).
using ComputeBound = std::vector<std::vector<char>>;
double ridgeFlopsPerByte(const cost::DeviceProfile& device);
ComputeBound computeBoundOperators(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                                   double ridgeFlopsPerByte);

// Where a timeline's time goes over [t0, t1) (the whole run: 0 to timelineEndUs).
// computeUs + memoryUs = busy time (any kernel running), split in proportion to the kernel
// time of compute-bound and memory-bound kernels (kernels without an operator count as memory
// bound); overheadUs = device idle inside a stage (waiting for a launch or the stage's sync);
// idleUs = device idle outside every stage. The four add up to the span.
struct TimeBreakdown {
    double spanUs = 0;
    double computeUs = 0;
    double memoryUs = 0;
    double overheadUs = 0;
    double idleUs = 0;
    int kernels = 0; // kernels intersecting the range: launches
    int stages = 0;  // stages intersecting the range: syncs
    int mergeStages = 0;
    int maxGroups = 0;              // the most concurrent groups (branches) of any stage
    double meanKernelsInFlight = 0; // Σ kernel time in the range / span
    double meanActiveSmFraction = 0;
    double meanWarpOccupancy = 0;
};
TimeBreakdown timeBreakdown(const Timeline& timeline, const ComputeBound& bound, double t0,
                            double t1);

// The range a block's stages take in `timeline`: [start, end); empty (0, 0) when it has none.
TimeInterval blockRange(const Timeline& timeline, int block);

// A block (stage = -1) or stage k of a block in both schedules. Stages are paired by their
// index in the block (the schedules cut it differently; a stage one lacks counts 0).
struct LatencyDelta {
    int block = 0;
    int stage = -1;
    double aUs = 0;
    double bUs = 0;
    double gainUs() const { return aUs - bUs; } // > 0: B is faster here
};

// An operator whose kernel runs elsewhere in B: another stage or stream, or another start
// relative to its block's start (by more than the tolerance).
struct MovedKernel {
    int block = 0;
    int op = 0;
    std::string opName;
    int aStage = 0, bStage = 0;
    int aStream = 0, bStream = 0;
    double aStartUs = 0, bStartUs = 0; // relative to the block's start in each timeline
};

struct BlockExplanation {
    int block = 0;
    double gainUs = 0; // > 0: B saves this much in the block
    std::string sentence;
};

struct ScheduleDiff {
    std::string aLabel, bLabel;
    double aLatencyUs = 0, bLatencyUs = 0;
    TimeBreakdown a, b;               // whole runs
    std::vector<LatencyDelta> blocks; // largest gain first (B faster first), ties by block
    std::vector<LatencyDelta> stages; // likewise
    std::vector<MovedKernel> moved;   // by block, then operator
    // Blocks whose latency differs by at least `minGainUs`, largest |gain| first.
    std::vector<BlockExplanation> explanations;
    std::string summary; // "B is 1.32× faster than A: 4.10 ms vs 5.41 ms."
};

struct DiffOptions {
    double moveToleranceUs = 0.5;
    double minGainUs = 1.0; // blocks closer than this get no sentence
};

// Compares two timelines of the same model (same blocks); `bound` as computeBoundOperators
// gives it. Throws UserError when the timelines have different numbers of blocks.
ScheduleDiff diffSchedules(const Timeline& a, const Timeline& b, const ComputeBound& bound,
                           const std::string& aLabel, const std::string& bLabel,
                           const DiffOptions& options = {});

// The sentence for one block from its two breakdowns: the faster schedule, what it saves and
// the mechanism the figures show (concurrent branches, merged convolutions, fewer launches and
// syncs, less overhead or idle time), with the figures compared.
std::string explainBlock(int block, const TimeBreakdown& a, const TimeBreakdown& b,
                         const std::string& aLabel, const std::string& bLabel);

} // namespace ios::eval
