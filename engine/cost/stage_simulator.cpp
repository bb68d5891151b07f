#include "cost/stage_simulator.h"

#include "cost/gpu_simulation.h"

namespace ios::cost {

StageRun simulateStage(const std::vector<GroupKernels>& groups, const DeviceProfile& device) {
    const bool synchronized = groups.size() > 1;
    detail::GpuSimulation sim(groups.size(), device, true, synchronized, synchronized);
    for (size_t g = 0; g < groups.size(); ++g)
        for (const OpKernels& op : groups[g])
            for (const KernelDesc& k : op.kernels)
                sim.add(k, static_cast<int>(g), op.op, &op.label);
    sim.run();
    return sim.timeline();
}

double stageLatencyUs(const std::vector<StageKernel>& kernels, size_t groupCount,
                      const DeviceProfile& device) {
    const bool synchronized = groupCount > 1;
    detail::GpuSimulation sim(groupCount, device, false, synchronized, synchronized);
    for (const StageKernel& k : kernels)
        sim.add(*k.kernel, k.group, 0, nullptr);
    return sim.run();
}

} // namespace ios::cost
