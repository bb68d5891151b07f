// SPDX-License-Identifier: Apache-2.0
// Discrete-event simulation of one stage on a simulated GPU (IOS paper §3, §5, §6.3).
//
// Execution follows the IOS runtime: group i runs on stream i; the host issues the kernels
// group after group, one every launchOverheadUs. A stage of one group (a sequential or
// merge stage) is pipelined with its neighbours: the host runs ahead, so no launch latency
// and no synchronisation are paid, only the issue rate bounds it. A stage of several groups
// starts after a device synchronisation (its first kernel pays the launch latency) and ends
// with one (syncOverheadUs). On the GPU, CTAs of concurrent kernels fill free SM slots in
// launch order; resident CTAs share the SMs' issue slots, the L2 and the DRAM bandwidth
// (kernel_model.h, ctaRates).
#pragma once

#include "cost/device_profile.h"
#include "cost/kernel_model.h"
#include "cost/kernel_timeline.h"
#include "cost/simulation_mode.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ios::cost {

namespace detail {
class GpuSimulation;
struct PreparedKernel;
} // namespace detail

// The kernels of one operator of a group (op = index into the block's ir::BlockDag::ops).
struct OpKernels {
    int op = 0;
    std::string label; // operator name for timelines ("a", or "merged(a,b)")
    std::vector<KernelDesc> kernels;
};
using GroupKernels = std::vector<OpKernels>;

// Simulates `groups` run as one stage. Deterministic; an empty stage takes no time.
StageRun simulateStage(const std::vector<GroupKernels>& groups, const DeviceProfile& device,
                       SimulationMode mode = SimulationMode::Fast);

// One kernel of a stage, by reference, for stageLatencyUs.
struct StageKernel {
    const KernelDesc* kernel = nullptr;
    int group = 0; // = stream
};

// simulateStage(...).latencyUs, bit-identical, without the timeline: `kernels` in issue order
// (group after group, groups numbered 0 .. groupCount-1, each kernel object listed once), a
// stage of groupCount groups (groups without kernels count: a stage of several groups is
// synchronised). The search's hot path: no allocation once the calling thread's buffers grew.
double stageLatencyUs(const std::vector<StageKernel>& kernels, size_t groupCount,
                      const DeviceProfile& device, SimulationMode mode = SimulationMode::Fast);

// stageLatencyUs for a search that prices stages one group apart, bit for bit the same
// values. A stage of several groups issues its groups in order, so until the first kernel of
// its last group arrives it runs exactly as the stage without that group would, with that
// arrival pending (GpuSimulation::resume); that run, paused there, is kept per prefix of
// groups and the stages that extend it start from it. The search enumerates a stage's
// extensions right after it (one more head each), so the prefixes kept are a stack: the
// longest one that matches is resumed, deeper ones are dropped. Kernels are compared by
// address, and what the simulation derives from each kernel alone (its rate terms and
// occupancy) is kept by address too: one per cost model and thread (reset() when the kernels
// may have moved).
class PrefixStageSimulator {
public:
    explicit PrefixStageSimulator(const DeviceProfile& device,
                                  SimulationMode mode = SimulationMode::Fast);
    ~PrefixStageSimulator();
    PrefixStageSimulator(const PrefixStageSimulator&) = delete;
    PrefixStageSimulator& operator=(const PrefixStageSimulator&) = delete;

    double latencyUs(const std::vector<StageKernel>& kernels, size_t groupCount);
    // A latency latencyUs(kernels, groupCount) is never below, without simulating: every
    // stream's kernels in turn, each admitted no earlier than its arrival and its
    // predecessor's end plus the kernel gap and running no shorter than alone on an idle
    // device (detail::PreparedKernel::minUs); the latest end or the host's issue end, plus
    // the join. A few parts per million below the exact bound, for the simulation's rounding.
    double lowerBoundUs(const std::vector<StageKernel>& kernels, size_t groupCount);
    void reset();
    uint64_t resumed() const { return resumed_; } // stages that started from a kept prefix
    static constexpr size_t kMaxGroups = 32;      // larger stages are simulated whole

private:
    struct Level; // groups 0..i run, paused before group i + 1 arrives
    struct Prepared;
    // The kept preparation of `kernel` (in prepared_), made on first use.
    const detail::PreparedKernel* prepared(const KernelDesc* kernel);
    const DeviceProfile& device_;
    const SimulationMode mode_;
    const CtaRateModel rateModel_;
    // Open addressing by kernel address (nullptr: free) over prepared_, which grows only.
    std::vector<std::pair<const KernelDesc*, const detail::PreparedKernel*>> preparedSlots_;
    std::unique_ptr<Prepared> prepared_;
    std::vector<std::unique_ptr<Level>> levels_;
    size_t valid_ = 0; // levels_[0 .. valid_) hold runs
    std::vector<size_t> groupStart_;
    std::vector<const KernelDesc*> ptrs_;
    std::vector<double> streamEnd_;                           // lowerBoundUs
    std::vector<const detail::PreparedKernel*> boundKernels_; // lowerBoundUs: the stage's
    uint64_t resumed_ = 0;
};

} // namespace ios::cost
