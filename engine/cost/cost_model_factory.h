// SPDX-License-Identifier: Apache-2.0
// The one place a cost model is built from a user's choice (CLI --cost-model, GUI settings),
// and the registry of cost models it reads (docs/architecture.md "Adding a cost model"): every
// model (simulated, simulated-exact, analytic, measured, cache:FILE, store:URL, ...) is an
// entry registered from its own file with IOS_REGISTER_COST_MODEL. The CLI's help and errors,
// the GUI's cost-model box and the factory list and build the entries, never a kind by name.
#pragma once

#include "cost/cost_model.h"
#include "cost/device_profile.h"
#include "ir/graph.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::cost {

// What the models of an entry can do (for front ends: which controls and views apply).
struct CostModelCapabilities {
    bool rewrittenGraphs = false;   // retargeting(): prices graphs a scheduler rewrote (MetaFlow)
    bool programs = false;          // simulates stream programs kernel by kernel
    bool kernelTimelines = false;   // kernelTimeline(): timelines and traces
    bool needsGpu = false;          // measures on this machine's GPU
    bool usesDevice = false;        // priced from the device profile's figures (spec.device)
    bool savesMeasurements = false; // writes spec.measureCache
    bool simulatedFallback = false; // honours spec.simulatedFallback
};

// A user's choice: an entry's key, the text after it for keys that take one, and the settings
// every model may read.
struct CostModelSpec {
    std::string key = "simulated"; // a registered key ("simulated", "cache:", "store:")
    std::string argument;          // keys ending in ':': the text after it ("some.db@h0123")
    DeviceProfile device;          // simulated: the device; analytic: its peak figures
    int batch = 1;
    std::string measureCache; // savesMeasurements: where new measurements are saved (and reused)
    // Models that read stored measurements (store:): price the stages they lack with the
    // simulated GPU (counted in describe()) instead of refusing them.
    bool simulatedFallback = false;
};

using CostModelBuilder =
    std::function<std::unique_ptr<CostModel>(const CostModelSpec& spec, const ir::Graph& graph)>;

struct CostModelEntry {
    std::string key = {};         // "simulated"; a key ending in ':' takes an argument ("cache:")
    std::string label = {};       // for people, in the GUI: "Simulated GPU"
    std::string usage = {};       // "cache:FILE[@DEVICE]" (the key itself when it takes none)
    std::string description = {}; // one line for help texts
    CostModelCapabilities can = {};
    int rank = 1000; // where it sorts in lists (ties by key)
    CostModelBuilder build = {};
    // Optional: refuses a bad argument when the choice is parsed (a UserError).
    std::function<void(const std::string& argument)> checkArgument = {};
    // Optional: the file the model reads for `argument` (the CLI plans it as an input).
    std::function<std::string(const std::string& argument)> inputFile = {};
    // Optional: whether this build can make it (measured: a GPU backend is installed).
    std::function<bool()> available = {};

    bool takesArgument() const { return !key.empty() && key.back() == ':'; }
    bool isAvailable() const { return !available || available(); }
};

// Adds an entry; throws std::logic_error when its key is taken. Returns true.
bool registerCostModel(CostModelEntry entry);
// Removes the entry with this key (tests that register a throw-away one); true if found.
bool unregisterCostModel(std::string_view key);
// Every registered entry, by rank then key.
std::vector<CostModelEntry> costModelEntries();
// The entry with this key, or nullopt.
std::optional<CostModelEntry> findCostModel(std::string_view key);

#define IOS_REGISTER_COST_MODEL(ident, ...)                                                        \
    [[maybe_unused]] static const bool ios_cost_model_registered_##ident =                         \
        ::ios::cost::registerCostModel(__VA_ARGS__)

// A registered key ("simulated", "analytic", ...) or a key ending in ':' followed by its
// argument ("cache:FILE@DEVICE", "store:URL"): sets spec.key and spec.argument, checked by the
// entry. Throws UserError (Hint::ChooseCostModel) naming every registered usage otherwise.
void parseCostModelKind(std::string_view text, CostModelSpec& spec);
// The inverse: key + argument.
std::string costModelKindText(const CostModelSpec& spec);

// Builds the model for `graph` (which must outlive it) with its entry's builder. Throws
// UserError for a bad spec (batch < 1, an unknown key, an unreadable cache, a cache without
// this model, measured without a GPU backend).
std::unique_ptr<CostModel> makeCostModel(const CostModelSpec& spec, const ir::Graph& graph);

// The measured model lives in profiling/ (above the engine): a front end built with it
// installs its builder at start-up; the "measured" entry (measured_entry.cpp) calls it. Throws
// UserError from the builder without a usable GPU.
using MeasuredCostModelBuilder = std::function<std::unique_ptr<CostModel>(
    const ir::Graph& graph, int batch, const std::string& measureCache)>;
void installMeasuredCostModel(MeasuredCostModelBuilder builder);
bool measuredCostModelInstalled();

} // namespace ios::cost
