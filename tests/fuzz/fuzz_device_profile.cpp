// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the device-profile loader (cost/device_profile.h): any input either
// loads or throws ios::UserError. A profile that loads must write back to text that loads to
// the same profile (a UserError there escapes: a finding), and the simulated cost model on it
// must give every operator of a small demo model a finite, non-negative latency or refuse
// with a UserError.
#include "cost/device_profile.h"
#include "cost/simulated_gpu_cost_model.h"
#include "fuzz_support.h"
#include "ir/block_dag.h"
#include "util/error.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    static const ios::fuzz::LoadedModel& demo = ios::fuzz::sampleModel("demo_inception_module");
    ios::cost::DeviceProfile profile;
    try {
        profile = ios::cost::parseDeviceProfile(text, "fuzz");
    } catch (const ios::UserError&) {
        return 0; // rejected with a message: the expected outcome for malformed input
    }
    const std::string written = ios::cost::writeDeviceProfile(profile);
    if (ios::cost::writeDeviceProfile(ios::cost::parseDeviceProfile(written, "fuzz-rewritten")) !=
        written)
        std::abort(); // a round trip that changes the profile is a finding
    try {
        const ios::cost::SimulatedGpuCostModel model(demo.graph, profile, 1);
        for (const ios::ir::BlockDag& dag : demo.dags)
            for (size_t i = 0; i < dag.ops.size(); ++i) {
                ios::schedule::Stage stage;
                stage.groups = {{static_cast<int>(i)}};
                const double ms = model.stageLatencyMs(dag, stage);
                if (!std::isfinite(ms) || ms < 0)
                    std::abort(); // an accepted profile must give usable latencies
            }
    } catch (const ios::UserError&) {
        // The cost model refused the profile with a message.
    }
    return 0;
}
