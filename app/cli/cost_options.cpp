// SPDX-License-Identifier: Apache-2.0
#include "cost_options.h"

#include "cost/cost_model_factory.h"
#include "schedulers/search_params.h"
#include "util/error.h"

namespace ios::cli {

namespace {

std::string deviceNames() {
    std::string names;
    for (const std::string& n : cost::bundledDeviceNames())
        names += (names.empty() ? "" : ", ") + n;
    return names;
}

// The registered cost models (cost::costModelEntries), as the help lists them.
std::string costModelHelp() {
    std::string text;
    for (const cost::CostModelEntry& e : cost::costModelEntries())
        text += (text.empty() ? "" : ", ") + e.usage + " (" + e.description + ")";
    return text;
}

bool simulatedFallback(const ArgParser& parser) {
    const std::string value = parser.get("store-fallback");
    if (value != "none" && value != "simulated")
        throw UserError("--store-fallback must be none or simulated, not '" + value + "'");
    return value == "simulated";
}

} // namespace

void addCostOptions(ArgParser& parser) {
    parser.option("--batch", "N", "Batch size the stage latencies are estimated for",
                  std::to_string(schedulers::kDefaultBatch));
    parser.option("--device", "D",
                  "Simulated device: " + deviceNames() +
                      ", or a device profile JSON file; NAME@fp32 or NAME@tf32 picks the "
                      "convolution math where the device has TF32 tensor cores",
                  std::string(cost::kDefaultDeviceName));
    parser.option("--cost-model, --cost", "M", costModelHelp(), cost::CostModelSpec{}.key);
    parser.option("--store-fallback", "F",
                  "What a stored-measurement cost model (store:URL) does with a stage the store "
                  "lacks: none (refuse it, naming the stage) or simulated (price it with the "
                  "simulated GPU; the result says how many stages were simulated)",
                  "none");
    parser.option("--measure-cache", "FILE",
                  "Where --cost measured saves its stage measurements (reused when present)",
                  "ios-measurements.json");
}

cost::DeviceProfile deviceOption(const ArgParser& parser) {
    return cost::loadDevice(parser.get("device"));
}

int batchOption(const ArgParser& parser) {
    return parser.getInt("batch", 1, cost::kMaxBatch);
}

cost::CostModelSpec costModelSpec(const ArgParser& parser, const cost::DeviceProfile& device,
                                  int batch) {
    cost::CostModelSpec spec;
    cost::parseCostModelKind(parser.get("cost-model"), spec);
    spec.device = device;
    spec.batch = batch;
    spec.measureCache = parser.get("measure-cache");
    spec.simulatedFallback = simulatedFallback(parser);
    return spec;
}

std::string costModelOption(const ArgParser& parser) {
    cost::CostModelSpec spec;
    cost::parseCostModelKind(parser.get("cost-model"), spec);
    return cost::costModelKindText(spec);
}

void planCostModelFiles(const ArgParser& parser, util::OutputTransaction& outputs) {
    cost::CostModelSpec spec;
    cost::parseCostModelKind(parser.get("cost-model"), spec);
    const std::optional<cost::CostModelEntry> entry = cost::findCostModel(spec.key);
    if (entry && entry->inputFile)
        outputs.input(entry->inputFile(spec.argument),
                      "the measurement cache of --cost-model " + entry->key + "FILE");
    else if (entry && entry->can.savesMeasurements)
        outputs.check(parser.get("measure-cache"), "the measurement cache (--measure-cache)");
}

std::unique_ptr<cost::CostModel> makeCostModel(const ArgParser& parser, const ir::Graph& graph,
                                               const cost::DeviceProfile& device, int batch) {
    return cost::makeCostModel(costModelSpec(parser, device, batch), graph);
}

std::unique_ptr<cost::CostModel> makeCostModel(const ArgParser& parser, const ir::Graph& graph) {
    return makeCostModel(parser, graph, deviceOption(parser), batchOption(parser));
}

} // namespace ios::cli
