// The one place a cost model is built from a user's choice (CLI --cost-model, GUI settings):
// simulated GPU (device profile + batch), analytic roofline, replayed measurements
// (cache:FILE), where the profiling library is built and a GPU is present, measured, and the
// models of a higher layer registered by prefix (CostModelScheme: "store:URL[@DEVICE]").
#pragma once

#include "cost/cost_model.h"
#include "cost/device_profile.h"
#include "cost/simulation_mode.h"
#include "ir/graph.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ios::cost {

enum class CostModelKind : uint8_t { Simulated, Analytic, Measured, Cache, Scheme };

struct CostModelSpec {
    CostModelKind kind = CostModelKind::Simulated;
    DeviceProfile device; // simulated: the device; analytic: its peak figures
    int batch = 1;
    std::string cacheFile;    // Cache: the measurement file to replay
    std::string cacheDevice;  // Cache: which device's measurements (empty: the only one)
    std::string measureCache; // Measured: where new measurements are saved (and reused)
    SimulationMode simulation = SimulationMode::Fast; // Simulated: "simulated-exact" steps
    std::string scheme;                               // Scheme: the registered prefix ("store:")
    std::string argument; // Scheme: the text after it ("stages.db@h0123456789ab")
    // Scheme models that read stored measurements (store:): price the stages they lack with
    // the simulated GPU (counted in describe()) instead of refusing them.
    bool simulatedFallback = false;
};

// A cost model of a higher layer, chosen by a prefix of --cost-model's text and registered
// from its own file (IOS_REGISTER_COST_MODEL_SCHEME), so this factory names no model it
// cannot build.
using CostModelSchemeBuilder = std::function<std::unique_ptr<CostModel>(
    const std::string& argument, const CostModelSpec& spec, const ir::Graph& graph)>;
struct CostModelScheme {
    std::string prefix;      // "store:"
    std::string usage;       // "store:URL[@DEVICE]"
    std::string description; // one line for help texts
    CostModelSchemeBuilder build;
};
bool registerCostModelScheme(CostModelScheme scheme);
// In registration order.
std::vector<CostModelScheme> costModelSchemes();

#define IOS_REGISTER_COST_MODEL_SCHEME(ident, ...)                                                 \
    [[maybe_unused]] static const bool ios_cost_model_scheme_registered_##ident =                  \
        ::ios::cost::registerCostModelScheme(__VA_ARGS__)

// "simulated", "simulated-exact" (the event by event simulation, simulation_mode.h),
// "analytic", "measured", "cache:FILE" or "cache:FILE@DEVICE" (spec.cacheFile,
// spec.cacheDevice; the text after the last '@' is the device unless the whole text names an
// existing file), or PREFIX + ARGUMENT of a registered scheme (spec.scheme, spec.argument).
// Throws UserError with the valid choices (registered schemes included) for anything else.
void parseCostModelKind(std::string_view text, CostModelSpec& spec);
// The inverse: "simulated", ..., "cache:FILE", "store:URL".
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
