// SPDX-License-Identifier: Apache-2.0
// Raw device activity as the collectors deliver it (CUPTI on a GPU, synthetic in the mock and
// the tests): kernel records and active-warp samples, timestamps in device nanoseconds.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ios::profiling {

// One CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL record (CUPTI Activity API; docs/performance.md).
struct KernelRecord {
    std::string name;
    uint64_t streamId = 0; // the device's stream id (GpuBackend::traceStreamId)
    uint64_t startNs = 0;
    uint64_t endNs = 0;
    std::array<int32_t, 3> grid{};
    std::array<int32_t, 3> block{};
    int32_t registersPerThread = 0;
    int32_t sharedMemoryBytes = 0;
    uint32_t correlationId = 0;
    uint64_t tag = 0; // the executor's trace tag active at launch (0 = none)
    // CUPTI's id of the graph node that launched it in a CUDA-graph replay (0 = eager launch,
    // or unknown: the mock leaves it 0 and replays in capture order).
    uint64_t graphNodeId = 0;
};

// One PM-sampling interval: the value of the active-warps metric over [startNs, endNs).
struct WarpSample {
    uint64_t startNs = 0;
    uint64_t endNs = 0;
    double value = 0;
};

struct WarpSamples {
    std::string metric; // e.g. sm__warps_active.avg.pct_of_peak_sustained_elapsed
    std::vector<WarpSample> samples;
    std::string unavailable; // why there are no samples (empty when sampled)
};

} // namespace ios::profiling
