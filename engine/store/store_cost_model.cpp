// SPDX-License-Identifier: Apache-2.0
#include "store/store_cost_model.h"

#include "cost/cost_model_factory.h"
#include "cost/measurement_cache.h"
#include "cost/simulated_gpu_cost_model.h"
#include "cost/stage_signature.h"

#include <filesystem>
#include <sstream>

namespace ios::store {

StoreChoice parseStoreChoice(const std::string& argument) {
    StoreChoice choice{argument, {}};
    const size_t at = argument.rfind('@');
    if (at == std::string::npos)
        return choice;
    const std::string device = argument.substr(at + 1);
    const std::string url = argument.substr(0, at);
    std::error_code ec;
    if (device.find_first_of("/:") != std::string::npos || std::filesystem::exists(argument, ec))
        return choice;
    // postgresql://user@host/db: that '@' is the URL's own (the host part follows it).
    const size_t scheme = url.find("://");
    if (scheme != std::string::npos && url.find('/', scheme + 3) == std::string::npos)
        return choice;
    choice.url = url;
    choice.device = device;
    return choice;
}

Setup chooseSetup(MeasurementStore& store, const std::string& url, const std::string& device,
                  int batch) {
    std::vector<Setup> matches;
    std::string listing;
    for (const Setup& s : store.setups()) {
        listing += (listing.empty() ? "" : "; ") + cost::identityId(s.device) + " '" +
                   s.device.name + "' batch " + std::to_string(s.batch) + " " + s.dtype;
        if (s.batch != batch || s.dtype != "fp32")
            continue;
        if (device.empty() || device == cost::identityId(s.device) || device == s.device.name)
            matches.push_back(s);
    }
    if (matches.size() == 1)
        return matches.front();
    const std::string holds =
        " (it holds: " + (listing.empty() ? std::string("no measurements") : listing) + ")";
    const std::string where = "measurement store '" + url + "': ";
    if (matches.empty())
        throw UserError(where + "no setup " + (device.empty() ? "" : "'" + device + "' ") +
                        "at batch " + std::to_string(batch) + " fp32" + holds);
    throw UserError(where + std::to_string(matches.size()) + " setups at batch " +
                    std::to_string(batch) + (device.empty() ? "" : " named '" + device + "'") +
                    "; choose one by its id (store:URL@ID)" + holds);
}

StoreCostModel::StoreCostModel(std::shared_ptr<MeasurementStore> store, Options options,
                               const ir::Graph& graph)
    : shared_(std::make_shared<Shared>()), graph_(graph), nodes_(graph),
      fallback_(options.fallback) {
    shared_->store = std::move(store);
    shared_->options = std::move(options);
    shared_->options.fallback.reset(); // each model holds the fallback for its own graph
}

StoreCostModel::StoreCostModel(const StoreCostModel& sharing, const ir::Graph& graph)
    : shared_(sharing.shared_), graph_(graph), nodes_(graph),
      fallback_(sharing.fallback_ ? std::shared_ptr<const cost::CostModel>(
                                        cost::forGraph(*sharing.fallback_, graph))
                                  : nullptr),
      canonical_(cost::CanonicalStages::SharedWith{sharing.canonical_}) {
    if (sharing.fallback_ && !fallback_)
        throw std::logic_error("StoreCostModel: the fallback model has no forGraph");
}

const ir::TensorShape* StoreCostModel::shapeOf(const std::string& name) const {
    const ir::Node* n = nodes_.find(name);
    return n ? &n->outputShape : nullptr;
}

double StoreCostModel::stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const {
    const std::string signature = cost::signatureBytes(
        cost::stageSignature(dag, stage, [this](const std::string& n) { return shapeOf(n); }));
    Shared& s = *shared_;
    const uint64_t hash = cost::stableHash64(signature);
    {
        const std::lock_guard lock(s.mutex);
        s.priced.insert(hash);
        if (const std::optional<double> ms = s.store->latencyMs(s.options.setup, signature))
            return *ms;
    }
    const Setup& setup = s.options.setup;
    if (!fallback_)
        throw StageNotMeasured(
            "measurement store '" + s.options.url + "' has no measurement of stage " +
            cost::stageKey(dag, stage) + " on " + setup.device.name + " (" +
            cost::identityId(setup.device) + ") at batch " + std::to_string(setup.batch) +
            " (the first missing stage the search met; others may be missing too): profile the "
            "model into the store or allow the simulated fallback");
    const double ms = cost::checkedStageLatencyMs(*fallback_, dag, stage);
    const std::lock_guard lock(s.mutex);
    s.simulated.insert(hash);
    return ms;
}

cost::StageMemo* StoreCostModel::canonicalStageMemo(const ir::BlockDag& dag,
                                                    std::vector<uint32_t>& classes) const {
    // A class is the operator signature, which is what a stage signature is made of: stages
    // of equal canonical keys have equal signatures, hence one stored latency.
    return canonical_.classify(
        dag, [this](const std::string& n) { return shapeOf(n); }, classes);
}

std::unique_ptr<cost::CostModel> StoreCostModel::forGraph(const ir::Graph& graph) const {
    return std::unique_ptr<cost::CostModel>(new StoreCostModel(*this, graph));
}

int64_t StoreCostModel::stagesPriced() const {
    const std::lock_guard lock(shared_->mutex);
    return static_cast<int64_t>(shared_->priced.size());
}

int64_t StoreCostModel::stagesSimulated() const {
    const std::lock_guard lock(shared_->mutex);
    return static_cast<int64_t>(shared_->simulated.size());
}

std::string StoreCostModel::describe() const {
    const Options& o = shared_->options;
    std::ostringstream out;
    out << "store:" << o.url << " (" << o.setup.device.name << ", batch " << o.setup.batch << ")";
    if (const int64_t simulated = stagesSimulated(); simulated > 0)
        out << ", " << simulated << " of " << stagesPriced() << " stages simulated";
    return out.str();
}

namespace {

// The bundled profile of the store's device when one matches its name (full name, or the
// short name as a word of it: "H100" in "NVIDIA H100 80GB HBM3"), else `fallback`.
cost::DeviceProfile profileFor(const std::string& deviceName, const cost::DeviceProfile& fallback) {
    for (const cost::DeviceProfile& p : cost::bundledDevices())
        if (p.fullName == deviceName || p.name == deviceName)
            return p;
    for (const cost::DeviceProfile& p : cost::bundledDevices()) {
        const std::string padded = " " + deviceName + " ";
        if (!p.name.empty() && padded.find(" " + p.name + " ") != std::string::npos)
            return p;
    }
    return fallback;
}

std::unique_ptr<cost::CostModel> buildStoreCostModel(const cost::CostModelSpec& spec,
                                                     const ir::Graph& graph) {
    if (spec.batch < 1 || spec.batch > cost::kMaxBatch)
        throw UserError("batch must be in [1, " + std::to_string(cost::kMaxBatch) + "]");
    const StoreChoice choice = parseStoreChoice(spec.argument);
    std::shared_ptr<MeasurementStore> store = openStore(choice.url, OpenMode::ReadOnly);
    StoreCostModel::Options options;
    options.url = choice.url;
    store->holdSnapshot(true); // one search, one snapshot (and no transaction per lookup)
    options.setup = chooseSetup(*store, choice.url, choice.device, spec.batch);
    if (spec.simulatedFallback)
        options.fallback = std::make_shared<cost::SimulatedGpuCostModel>(
            graph, profileFor(options.setup.device.name, spec.device), spec.batch);
    return std::make_unique<StoreCostModel>(std::move(store), std::move(options), graph);
}

} // namespace

IOS_REGISTER_COST_MODEL(
    store, cost::CostModelEntry{
               .key = "store:",
               .label = "Measurement store",
               .usage = "store:URL[@DEVICE]",
               .description = "stage latencies from a measurement store (sqlite:PATH, PATH or "
                              "postgresql://...); @DEVICE picks a setup by id or device name",
               .can = {.rewrittenGraphs = true, .simulatedFallback = true},
               .rank = 60,
               .build = buildStoreCostModel});

} // namespace ios::store
