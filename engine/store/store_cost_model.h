// SPDX-License-Identifier: Apache-2.0
// Stage latencies from a measurement store (docs/cli.md "--cost-model store:URL"): a stage is
// priced by its canonical signature (cost/stage_signature.h) under one device setup, so a
// stage measured in any model serves this one, and never one of another setup. Registered as
// the cost-model scheme "store:URL[@DEVICE]" (cost_model_factory.h).
#pragma once

#include "cost/cost_model_with.h"
#include "cost/device_profile.h"
#include "cost/stage_memo.h"
#include "cost/stage_shortcuts.h"
#include "ir/graph.h"
#include "ir/metrics.h"
#include "store/measurement_store.h"
#include "util/error.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace ios::store {

// A stage the store has no measurement of (and the simulated fallback is off).
class StageNotMeasured : public UserError {
public:
    StageNotMeasured(std::string message, std::string file = {})
        : UserError(std::move(message), std::move(file), {}, Hint::StoreFallback) {}
};

// "URL" or "URL@DEVICE": the text after the last '@' is a device (an identity id or a device
// name) unless it holds a '/' or ':' or the text names an existing file, or the '@' is a
// PostgreSQL URL's user@host.
struct StoreChoice {
    std::string url;
    std::string device; // empty: the only setup at the batch
};
StoreChoice parseStoreChoice(const std::string& argument);

// The setup `device` (identity id, or a device name matching exactly one setup) names among
// the store's setups at `batch` (fp32); empty `device`: the only one. Throws UserError
// listing the setups (id, name, batch) when none or several match.
Setup chooseSetup(MeasurementStore& store, const std::string& url, const std::string& device,
                  int batch);

class StoreCostModel final
    : public cost::CostModelWith<cost::StageShortcuts, cost::GraphRetargeting> {
public:
    struct Options {
        std::string url;
        Setup setup;
        // Stages the store lacks: priced by this model (the simulated GPU) and counted; null:
        // refused with StageNotMeasured.
        std::shared_ptr<const cost::CostModel> fallback;
    };
    // `graph` (validated) must outlive the model; `store` is shared with forGraph's models.
    StoreCostModel(std::shared_ptr<MeasurementStore> store, Options options,
                   const ir::Graph& graph);

    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override;
    cost::StageMemo* canonicalStageMemo(const ir::BlockDag& dag,
                                        std::vector<uint32_t>& classes) const override;
    // Signatures never name operators: the same store serves a rewritten graph.
    std::unique_ptr<cost::CostModel> forGraph(const ir::Graph& graph) const override;
    int batch() const override { return shared_->options.setup.batch; }
    // "store:URL (NAME, batch N)", then ", K of M stages simulated" when the fallback priced
    // any.
    std::string describe() const override;

    // Distinct stages priced so far, and how many of them by the fallback.
    int64_t stagesPriced() const;
    int64_t stagesSimulated() const;

private:
    struct Shared {
        std::shared_ptr<MeasurementStore> store;
        Options options;
        std::mutex mutex; // guards the store handle and the counts
        // Distinct stages priced and simulated, by stableHash64 of the signature (counts only:
        // the latencies themselves are memoised per canonical class, CanonicalStages).
        std::unordered_set<uint64_t> priced;
        std::unordered_set<uint64_t> simulated;
    };
    StoreCostModel(const StoreCostModel& sharing, const ir::Graph& graph);
    const ir::TensorShape* shapeOf(const std::string& name) const;

    std::shared_ptr<Shared> shared_;
    const ir::Graph& graph_;
    ir::NodeIndex nodes_;
    std::shared_ptr<const cost::CostModel> fallback_; // for graph_
    cost::CanonicalStages canonical_;                 // per graph; memo shared (forGraph)
};

} // namespace ios::store
