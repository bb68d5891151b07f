// SPDX-License-Identifier: Apache-2.0
// Runs schedules of one model on a GpuBackend (the IOS runtime, paper §5): the model's tensors
// and kernels are a LoweredModel (lowered_model.h: allocated and lowered once), a parallel
// stage runs its groups on separate streams joined by events at the stage boundary, a merge
// stage runs as ONE convolution with the members' filters concatenated (zero-padded to the
// largest kernel) and its output split back.
// Stream programs (schedule/stream_program.h, RAF's policies) run instruction by instruction
// on one backend stream per program stream (executor_program.cpp).
#pragma once

#include "gpu_backend.h"
#include "ir/block_dag.h"
#include "ir/graph.h"
#include "lowered_model.h"
#include "schedule/schedule.h"
#include "schedule/stream_program.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ios::profiling {

struct TimingOptions {
    int warmup = 2;         // untimed runs first (module load, algorithm selection, caches)
    int repeat = 20;        // timed samples
    int number = 1;         // back-to-back runs per sample (the sample is their mean)
    bool cudaGraph = false; // capture once, time graph replays
};

// Output equality of two runs (every schedule must equal the sequential one,
// docs/performance.md "GPU executor and profiling").
struct NumericCheck {
    double relativeL2 = 0; // ‖out − ref‖ / ‖ref‖
    double maxAbsDiff = 0;
    bool finite = true; // no NaN/Inf (unwritten outputs are poisoned with NaN)
    bool passed(double tolerance = 1e-3) const { return finite && relativeL2 <= tolerance; }
};
NumericCheck compareOutputs(const std::vector<float>& out, const std::vector<float>& ref);

// Median and percentiles (nearest-rank on the sorted samples, linear interpolation).
double percentile(std::vector<double> samples, double p);
inline double median(std::vector<double> samples) {
    return percentile(std::move(samples), 50);
}

// How many replays a graph of K stages gets (docs/gpu.md "Stage profiling at scale"): W
// untimed replays (module load, cuDNN's first calls, caches, clocks ramping up), then R timed
// ones with R = clamp(ceil(targetMs / span), minRepeat, maxRepeat), span = the last warm-up
// replay's time from its first to its last timing event. Every timed replay gives one sample
// per stage; the stage's latency is their median. The paper's rule (warm-up 2, 6 samples of 6
// runs: 36 runs) averaged eager launches, which are noisy; a replay has no host gaps, so a
// median of 10 single runs is as steady, and a fixed target of 20 ms of timed GPU time per
// graph gives quick graphs (few or tiny stages) more samples, up to 50, where the 0.5 µs
// resolution of CUDA events weighs most, at a bounded cost.
struct BatchTiming {
    int warmup = 2;
    int minRepeat = 10;
    int maxRepeat = 50;
    double targetMs = 20;
    int repeatsFor(double spanMs) const;
};

// One stage of a batch: a stage of `dag` (both outlive the call).
struct StageRef {
    const ir::BlockDag* dag = nullptr;
    const schedule::Stage* stage = nullptr;
};

struct BatchedTimes {
    std::vector<double> medianMs; // per stage, in order
    std::vector<double> spreadMs; // per stage: its slowest timed replay minus its fastest
    int repeats = 0;              // timed replays (samples per stage)
    int replays = 0;              // warm-up and timed
    double busyMs = 0;            // the replays' spans, first to last timing event, summed
};

class Executor {
public:
    // Allocates every tensor of a validated graph on `backend` (which must outlive this).
    // Throws ios::UserError for batch < 1.
    Executor(const ir::Graph& graph, GpuBackend& backend, int batch, uint64_t seed = 1);

    int batch() const { return batch_; }
    GpuBackend& backend() { return backend_; }
    const ir::Graph& graph() const { return graph_; }

    // Issues every stage of `schedule` in order (dags from ir::buildDags of the same graph).
    // With tagStages, kernels carry makeTraceTag(k + 1, op) for the k-th stage issued.
    void issueSchedule(const std::vector<ir::BlockDag>& dags, const schedule::Schedule& schedule,
                       bool tagStages = false);
    void issueStage(const ir::BlockDag& dag, const schedule::Stage& stage);

    // Timed runs: per sample, milliseconds of `number` runs divided by `number`.
    std::vector<double> timeSchedule(const std::vector<ir::BlockDag>& dags,
                                     const schedule::Schedule& schedule,
                                     const TimingOptions& options);
    std::vector<double> timeStage(const ir::BlockDag& dag, const schedule::Stage& stage,
                                  const TimingOptions& options);
    // Many stages timed in ONE captured CUDA graph (executor_batch.cpp): a timing event before
    // each stage and after the last, on the main stream; a stage forks its streams from the
    // main stream and joins them back, so consecutive events bracket exactly one stage, and
    // elapsed(e_i, e_i+1) of one replay is one sample of stage i. The graph is freed after.
    // Throws std::invalid_argument for an empty batch.
    BatchedTimes timeStages(const std::vector<StageRef>& stages, const BatchTiming& timing);
    // Kernels the stage launches (batch sizes are bounded by kernels as well as stages).
    size_t stageKernelCount(const ir::BlockDag& dag, const schedule::Stage& stage);

    // Issues `schedule` once (streams, algorithms, workspaces), then captures it as a CUDA
    // graph; replay it with backend().launchGraph(graph, mainStream()).
    GraphId captureSchedule(const std::vector<ir::BlockDag>& dags,
                            const schedule::Schedule& schedule);
    StreamId mainStream() { return stream(0); }

    // Stream programs, one per block (dags from ir::buildDags of the same graph). Program
    // streams map to executor streams in order of first use over the whole program (the first
    // is the main stream), program events to backend events (a re-record reuses its event).
    // Each segment of a block (cost::programSegments: cut at barriers and syncs) forks the
    // streams it uses other than main from the main stream and joins them back into it at its
    // end, so a run is ordered after the previous one, the timing events bracket all of it, and
    // a barrier joins every stream. A sync is a device synchronize (a barrier under capture); a
    // launch of several operators is the merged convolution of a merge stage; a synthetic
    // launch issues nothing. The program is not verified (schedule::verifyProgram does that);
    // only what cannot be issued is a UserError: a block count that differs from the model's, an
    // operator outside the block, a negative stream or event, members that cannot merge, a wait
    // on an event not recorded before it in the block. With `tag`, kernels carry
    // makeTraceTag(k + 1, op) for the k-th segment of the program (blocks in order).
    void issueProgram(const std::vector<ir::BlockDag>& dags, const schedule::Program& program,
                      bool tag = false);
    std::vector<double> timeProgram(const std::vector<ir::BlockDag>& dags,
                                    const schedule::Program& program, const TimingOptions& options);
    // As captureSchedule: issued once, then captured; replay on mainStream().
    GraphId captureProgram(const std::vector<ir::BlockDag>& dags, const schedule::Program& program);

    // Fills every activation buffer (not weights, not the input) with NaN, so an operator a
    // schedule forgot shows up in the numeric check.
    void poisonActivations();
    // The model's output (the last block's exit node), after synchronizing.
    std::vector<float> output();

    // The kernels one stage lowers to, per group (for tests and logs).
    const std::vector<std::vector<Kernel>>& stageKernels(const ir::BlockDag& dag,
                                                         const schedule::Stage& stage);
    const std::vector<StreamId>& streams() const { return streams_; }

private:
    void issueStageProgram(const StageProgram& program, int stageOrdinal = 0);
    struct ProgramPlan; // a stream program as backend calls (executor_program.cpp)
    ProgramPlan planProgram(const std::vector<ir::BlockDag>& dags, const schedule::Program& program,
                            bool tag);
    void appendLaunch(ProgramPlan& plan, const ir::BlockDag& dag, const schedule::Instruction& in,
                      StreamId stream, int segmentOrdinal);
    void runPlan(const ProgramPlan& plan);
    StreamId stream(size_t index);
    GraphId capture(const std::function<void()>& issueOnce);
    std::vector<double> timeRuns(const std::function<void()>& issueOnce,
                                 const TimingOptions& options);

    const ir::Graph& graph_;
    GpuBackend& backend_;
    int batch_;
    LoweredModel model_; // tensors, weights and kernels
    std::vector<StreamId> streams_;
    EventId fork_ = -1, start_ = -1, stop_ = -1;
    std::vector<EventId> joins_;         // per stream
    std::vector<EventId> programEvents_; // program events, by order of first use
    std::vector<EventId> timingEvents_;  // timeStages: one per stage boundary, reused
    bool capturing_ = false;             // capture() is issuing under stream capture
};

} // namespace ios::profiling
