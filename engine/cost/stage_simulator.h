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

#include <cstdint>
#include <string>
#include <vector>

namespace ios::cost {

// The kernels of one operator of a group (op = index into the block's ir::BlockDag::ops).
struct OpKernels {
    int op = 0;
    std::string label; // operator name for timelines ("a", or "merged(a,b)")
    std::vector<KernelDesc> kernels;
};
using GroupKernels = std::vector<OpKernels>;

// Simulates `groups` run as one stage. Deterministic; an empty stage takes no time.
StageRun simulateStage(const std::vector<GroupKernels>& groups, const DeviceProfile& device);

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
                      const DeviceProfile& device);

} // namespace ios::cost
