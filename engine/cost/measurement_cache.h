// Measured stage latencies saved to JSON, so that a measurement taken on a GPU machine can be
// explored on a laptop (docs/architecture.md "Data flow"), and the CostModel that replays
// them. Entries are keyed by device name, model, batch size and the stage's kind and contents
// (operator names per group).
#pragma once

#include "cost/cost_model.h"
#include "ir/block_dag.h"
#include "schedule/schedule.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ios::cost {

// "parallel:a,b|c" / "merge:a,b": the stage's kind and operator names per group, in order.
std::string stageKey(const ir::BlockDag& dag, const schedule::Stage& stage);

struct StageMeasurement {
    std::string device;
    std::string model;
    int batch = 1;
    std::string stage; // stageKey
    double latencyMs = 0;
    int samples = 0; // timed runs the latency is the median of
};

class MeasurementCache {
public:
    // Reads a cache file ("format": "ios-explorer-measurements"). Throws ios::UserError naming
    // the file for unreadable or malformed files.
    static MeasurementCache load(const std::filesystem::path& path);
    // The same from text in memory (`source` names it in errors; the cache fuzz target).
    static MeasurementCache parse(std::string_view jsonText, const std::string& source);
    // Written atomically.
    void save(const std::filesystem::path& path) const;
    // What save() writes (for an output transaction, util/output_file.h).
    std::string text() const;

    // Adds or replaces the entry with the same device, model, batch and stage.
    void add(const StageMeasurement& m);
    std::optional<double> find(const std::string& device, const std::string& model, int batch,
                               const std::string& stage) const;
    // Devices with entries for (model, batch), in file order.
    std::vector<std::string> devices(const std::string& model, int batch) const;
    const std::vector<StageMeasurement>& entries() const { return entries_; }

private:
    std::vector<StageMeasurement> entries_;
    std::unordered_map<std::string, size_t> index_; // composite key → entry
};

// Replays a MeasurementCache: a stage that was never measured is a UserError naming it (a
// cache written by `optimize --cost measured` holds every stage the DP asked about).
class CachedCostModel final : public CostModel {
public:
    // `device` empty: the only device the cache holds for (model, batch); a UserError when
    // there is none or more than one.
    CachedCostModel(MeasurementCache cache, std::string model, int batch, std::string device = {},
                    std::string source = {});

    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override;
    std::string describe() const override;
    int batch() const override { return batch_; }
    const std::string& device() const { return device_; }

private:
    MeasurementCache cache_;
    std::string model_;
    int batch_;
    std::string device_;
    std::string source_;
};

} // namespace ios::cost
