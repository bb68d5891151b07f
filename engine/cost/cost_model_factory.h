// The one place a cost model is built from a user's choice (CLI --cost-model, GUI settings):
// simulated GPU (device profile + batch), analytic roofline, replayed measurements
// (cache:FILE) and, where the profiling library is built and a GPU is present, measured.
#pragma once

#include "cost/cost_model.h"
#include "cost/device_profile.h"
#include "cost/simulation_mode.h"
#include "ir/graph.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace ios::cost {

enum class CostModelKind : uint8_t { Simulated, Analytic, Measured, Cache };

struct CostModelSpec {
    CostModelKind kind = CostModelKind::Simulated;
    DeviceProfile device; // simulated: the device; analytic: its peak figures
    int batch = 1;
    std::string cacheFile;    // Cache: the measurement file to replay
    std::string cacheDevice;  // Cache: which device's measurements (empty: the only one)
    std::string measureCache; // Measured: where new measurements are saved (and reused)
    SimulationMode simulation = SimulationMode::Fast; // Simulated: "simulated-exact" steps
};

// "simulated", "simulated-exact" (the event by event simulation, simulation_mode.h),
// "analytic", "measured", "cache:FILE" or "cache:FILE@DEVICE" (spec.cacheFile,
// spec.cacheDevice; the text after the last '@' is the device unless the whole text names an
// existing file).
// Throws UserError with the valid choices for anything else.
void parseCostModelKind(std::string_view text, CostModelSpec& spec);
// The inverse: "simulated", ..., "cache:FILE".
std::string costModelKindText(const CostModelSpec& spec);

// Builds the model for `graph` (which must outlive it). Throws UserError for a bad spec (batch
// < 1, an unreadable cache, a cache without this model) and when `measured` is asked for but
// no measured-model builder is installed.
std::unique_ptr<CostModel> makeCostModel(const CostModelSpec& spec, const ir::Graph& graph);

// The measured model lives in profiling/ (above the engine): a front end built with it
// installs its builder at start-up. Throws UserError from the builder without a usable GPU.
using MeasuredCostModelBuilder = std::function<std::unique_ptr<CostModel>(
    const ir::Graph& graph, int batch, const std::string& measureCache)>;
void installMeasuredCostModel(MeasuredCostModelBuilder builder);
bool measuredCostModelInstalled();

} // namespace ios::cost
