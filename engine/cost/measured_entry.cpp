// SPDX-License-Identifier: Apache-2.0
// The "measured" cost model: stages timed on this machine's GPU. The model lives in profiling/
// (above the engine); a front end built with it installs its builder at start-up, and this
// entry builds through it.
#include "cost/cost_model_factory.h"
#include "util/error.h"

#include <mutex>

namespace ios::cost {

namespace {

struct MeasuredSlot {
    std::mutex mutex;
    MeasuredCostModelBuilder builder;
};

MeasuredSlot& measuredSlot() {
    static MeasuredSlot slot;
    return slot;
}

std::unique_ptr<CostModel> buildMeasured(const CostModelSpec& spec, const ir::Graph& graph) {
    MeasuredCostModelBuilder builder;
    {
        MeasuredSlot& slot = measuredSlot();
        const std::lock_guard lock(slot.mutex);
        builder = slot.builder;
    }
    if (!builder)
        throw UserError("the measured cost model needs the CUDA profiling backend, which this "
                        "build does not have (use simulated, analytic or cache:FILE)");
    return builder(graph, spec.batch, spec.measureCache);
}

} // namespace

void installMeasuredCostModel(MeasuredCostModelBuilder builder) {
    MeasuredSlot& slot = measuredSlot();
    const std::lock_guard lock(slot.mutex);
    slot.builder = std::move(builder);
}

bool measuredCostModelInstalled() {
    MeasuredSlot& slot = measuredSlot();
    const std::lock_guard lock(slot.mutex);
    return static_cast<bool>(slot.builder);
}

IOS_REGISTER_COST_MODEL(measured,
                        CostModelEntry{.key = "measured",
                                       .label = "Measured on this GPU",
                                       .usage = "measured",
                                       .description = "on the CUDA GPU, saved to the measurement "
                                                      "cache",
                                       .can = {.needsGpu = true, .savesMeasurements = true},
                                       .rank = 40,
                                       .build = buildMeasured,
                                       .available = measuredCostModelInstalled});

} // namespace ios::cost
