#include "cost_options.h"

#include "cost/analytic_cost_model.h"
#include "cost/measurement_cache.h"
#include "cost/simulated_gpu_cost_model.h"
#include "gpu_runs.h"
#include "util/error.h"

namespace ios::cli {

namespace {

std::string deviceNames() {
    std::string names;
    for (const std::string& n : cost::bundledDeviceNames())
        names += (names.empty() ? "" : ", ") + n;
    return names;
}

} // namespace

void addCostOptions(ArgParser& parser) {
    parser.option("--batch", "N", "Batch size the stage latencies are estimated for", "1");
    parser.option("--device", "D",
                  "Simulated device: " + deviceNames() + ", or a device profile JSON file",
                  std::string(cost::kDefaultDeviceName));
    parser.option("--cost-model, --cost", "M",
                  "simulated (kernel-level GPU simulation, docs/cost-model.md), analytic "
                  "(roofline per operator), measured (on the CUDA GPU, saved to "
                  "--measure-cache) or cache:FILE (replay saved measurements, no GPU needed)",
                  "simulated");
    parser.option("--measure-cache", "FILE",
                  "Where --cost measured saves its stage measurements (reused when present)",
                  "ios-measurements.json");
}

cost::DeviceProfile deviceOption(const ArgParser& parser) {
    return cost::loadDevice(parser.get("device"));
}

int batchOption(const ArgParser& parser) {
    return parser.getInt("batch", 1, 65536);
}

std::string costModelOption(const ArgParser& parser) {
    const std::string kind = parser.get("cost-model");
    if (kind == "simulated" || kind == "analytic" || kind == "measured" ||
        (kind.rfind("cache:", 0) == 0 && kind.size() > 6))
        return kind;
    if (kind == "cache:")
        throw UserError("--cost-model cache:FILE needs a FILE (saved by --cost measured)");
    throw UserError("--cost-model must be simulated, analytic, measured or cache:FILE, not '" +
                    kind + "'");
}

std::unique_ptr<cost::CostModel> makeCostModel(const ArgParser& parser, const ir::Graph& graph,
                                               const cost::DeviceProfile& device, int batch) {
    const std::string kind = costModelOption(parser);
    if (kind == "simulated")
        return std::make_unique<cost::SimulatedGpuCostModel>(graph, device, batch);
    if (kind == "analytic") {
        // The roofline model takes the device's peak figures; its overheads stay its own.
        cost::AnalyticParams params;
        params.peakGflops = device.fp32PeakTflops * 1000;
        params.bandwidthGBs = device.dramBandwidthGBs;
        params.batch = batch;
        return std::make_unique<cost::AnalyticCostModel>(graph, params);
    }
    if (kind == "measured")
        return profiling::makeMeasuredCostModel(graph, batch, parser.get("measure-cache"));
    const std::string file = kind.substr(6); // cache:FILE
    return std::make_unique<cost::CachedCostModel>(cost::MeasurementCache::load(file), graph.name,
                                                   batch, std::string(), file);
}

std::unique_ptr<cost::CostModel> makeCostModel(const ArgParser& parser, const ir::Graph& graph) {
    return makeCostModel(parser, graph, deviceOption(parser), batchOption(parser));
}

} // namespace ios::cli
