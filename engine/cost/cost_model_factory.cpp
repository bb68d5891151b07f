#include "cost/cost_model_factory.h"

#include "cost/analytic_cost_model.h"
#include "cost/measurement_cache.h"
#include "cost/simulated_gpu_cost_model.h"
#include "util/error.h"

#include <filesystem>
#include <mutex>
#include <optional>

namespace ios::cost {

namespace {

constexpr std::string_view kCachePrefix = "cache:";

struct MeasuredSlot {
    std::mutex mutex;
    MeasuredCostModelBuilder builder;
};

MeasuredSlot& measuredSlot() {
    static MeasuredSlot slot;
    return slot;
}

struct SchemeRegistry {
    std::mutex mutex;
    std::vector<CostModelScheme> schemes;
};

SchemeRegistry& schemeRegistry() {
    static SchemeRegistry r;
    return r;
}

// The registered scheme `text` starts with, if any.
std::optional<CostModelScheme> schemeOf(std::string_view text) {
    for (CostModelScheme& scheme : costModelSchemes())
        if (text.substr(0, scheme.prefix.size()) == scheme.prefix)
            return std::move(scheme);
    return std::nullopt;
}

} // namespace

bool registerCostModelScheme(CostModelScheme scheme) {
    SchemeRegistry& r = schemeRegistry();
    const std::lock_guard lock(r.mutex);
    r.schemes.push_back(std::move(scheme));
    return true;
}

std::vector<CostModelScheme> costModelSchemes() {
    SchemeRegistry& r = schemeRegistry();
    const std::lock_guard lock(r.mutex);
    return r.schemes;
}

void parseCostModelKind(std::string_view text, CostModelSpec& spec) {
    spec.simulation = SimulationMode::Fast;
    if (text == "simulated") {
        spec.kind = CostModelKind::Simulated;
    } else if (text == "simulated-exact") {
        spec.kind = CostModelKind::Simulated;
        spec.simulation = SimulationMode::Exact;
    } else if (text == "analytic") {
        spec.kind = CostModelKind::Analytic;
    } else if (text == "measured") {
        spec.kind = CostModelKind::Measured;
    } else if (text.substr(0, kCachePrefix.size()) == kCachePrefix) {
        if (text.size() == kCachePrefix.size())
            throw UserError("--cost-model cache:FILE needs a FILE (saved by --cost measured)");
        spec.kind = CostModelKind::Cache;
        spec.cacheFile = std::string(text.substr(kCachePrefix.size()));
        spec.cacheDevice.clear();
        const size_t at = spec.cacheFile.rfind('@');
        std::error_code ec;
        if (at != std::string::npos && !std::filesystem::exists(spec.cacheFile, ec)) {
            spec.cacheDevice = spec.cacheFile.substr(at + 1);
            spec.cacheFile.resize(at);
            if (spec.cacheFile.empty() || spec.cacheDevice.empty())
                throw UserError("--cost-model cache:FILE@DEVICE needs both a FILE and a DEVICE");
        }
    } else if (const std::optional<CostModelScheme> scheme = schemeOf(text)) {
        if (text.size() == scheme->prefix.size())
            throw UserError("--cost-model " + scheme->usage + " needs the text after '" +
                            scheme->prefix + "'");
        spec.kind = CostModelKind::Scheme;
        spec.scheme = scheme->prefix;
        spec.argument = std::string(text.substr(scheme->prefix.size()));
    } else {
        std::string choices = "simulated, simulated-exact, analytic, measured, cache:FILE";
        for (const CostModelScheme& s : costModelSchemes())
            choices += ", " + s.usage;
        throw UserError("--cost-model must be one of " + choices + ", not '" + std::string(text) +
                        "'");
    }
}

std::string costModelKindText(const CostModelSpec& spec) {
    switch (spec.kind) {
    case CostModelKind::Simulated:
        return spec.simulation == SimulationMode::Exact ? "simulated-exact" : "simulated";
    case CostModelKind::Analytic:
        return "analytic";
    case CostModelKind::Measured:
        return "measured";
    case CostModelKind::Cache:
        return std::string(kCachePrefix) + spec.cacheFile +
               (spec.cacheDevice.empty() ? "" : "@" + spec.cacheDevice);
    case CostModelKind::Scheme:
        return spec.scheme + spec.argument;
    }
    return "simulated";
}

std::unique_ptr<CostModel> makeCostModel(const CostModelSpec& spec, const ir::Graph& graph) {
    switch (spec.kind) {
    case CostModelKind::Simulated:
        return std::make_unique<SimulatedGpuCostModel>(graph, spec.device, spec.batch,
                                                       spec.simulation);
    case CostModelKind::Analytic: {
        // The roofline model takes the device's peak figures; its overheads stay its own.
        AnalyticParams params;
        params.peakGflops = spec.device.fp32PeakTflops * 1000;
        params.bandwidthGBs = spec.device.dramBandwidthGBs;
        params.batch = spec.batch;
        return std::make_unique<AnalyticCostModel>(graph, params);
    }
    case CostModelKind::Measured: {
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
    case CostModelKind::Cache:
        return std::make_unique<CachedCostModel>(MeasurementCache::load(spec.cacheFile), graph,
                                                 spec.batch, spec.cacheDevice, spec.cacheFile);
    case CostModelKind::Scheme: {
        const std::optional<CostModelScheme> scheme = schemeOf(spec.scheme);
        if (!scheme || scheme->prefix != spec.scheme)
            throw UserError("the cost model '" + spec.scheme + "' is not built into this program");
        return scheme->build(spec.argument, spec, graph);
    }
    }
    throw std::logic_error("makeCostModel: unknown kind");
}

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

} // namespace ios::cost
