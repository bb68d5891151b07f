// SPDX-License-Identifier: Apache-2.0
// Measured stage latencies saved to JSON, so that a measurement taken on a GPU machine can be
// explored on a laptop (docs/architecture.md "Data flow"), and the CostModel that replays
// them. Entries are keyed by device name, model, batch size and the stage's kind and contents
// (operator names per group), and carry the model's content hash (modelContentHash), so a
// model that has another's name never replays its numbers (entries written before the hash
// have none and are trusted by name). A compact cache holds one entry per canonical class
// (stages that launch the same kernels, cost/stage_memo.h); the replay finds the other
// members by class. Caches are read incrementally (entry by entry), of any size.
#pragma once

#include "cost/cost_model.h"
#include "cost/stage_memo.h"
#include "ir/block_dag.h"
#include "ir/graph.h"
#include "schedule/schedule.h"
#include "util/json_text.h"

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ios::cost {

// "parallel:a,b|c" / "merge:a,b": the stage's kind and operator names per group, in order; a
// comma, bar or backslash in a name is escaped by a backslash (resolveStageKey reads it back),
// so two different stages never have one key.
std::string stageKey(const ir::BlockDag& dag, const schedule::Stage& stage);

// Where each operator of a model sits: its block and its index in that block's dag.ops.
struct OperatorPlace {
    int block = 0;
    int index = 0;
};
using OperatorPlaces = std::unordered_map<std::string, OperatorPlace>;
OperatorPlaces operatorPlaces(const std::vector<ir::BlockDag>& dags);

// The stage a stage key names, resolved in the model's dags (`ops` = operatorPlaces(dags)).
struct KeyedStage {
    int block = 0;
    schedule::Stage stage;
};
// nullopt when the key is neither "parallel:…" nor "merge:…", names an operator the model
// (`model` in the reason) lacks or one twice, spans blocks, or is a merge stage of several
// groups or of operators that cannot merge; `why` then says which, to follow "stage KEY ".
std::optional<KeyedStage> resolveStageKey(const std::string& key, const OperatorPlaces& ops,
                                          const std::vector<ir::BlockDag>& dags,
                                          const std::string& model, std::string& why);

inline constexpr const char* kMeasurementCacheFormat = "ios-explorer-measurements";
inline constexpr int kMeasurementCacheVersion = 1;

struct StageMeasurement {
    std::string device;
    std::string model;
    int batch = 1;
    std::string stage; // stageKey
    double latencyMs = 0;
    int samples = 0;       // timed runs the latency is the median of
    std::string modelHash; // modelContentHash of the model; empty in older caches
};

// One entry as a cache file and the profiling journal write it ("model_hash" only when set).
util::Json measurementJson(const StageMeasurement& m);
// Reads one entry back; throws ios::UserError naming `file` and `where` ("entries[3]") for a
// missing or mistyped field.
StageMeasurement measurementFromJson(const util::Json& entry, const std::string& where,
                                     const std::string& file);

class MeasurementCache {
public:
    // Reads a cache file ("format": "ios-explorer-measurements") entry by entry, with no size
    // cap: a cache the tool wrote always loads again, whatever its size; memory grows with the
    // entries, never with the text. Throws ios::UserError naming the file for unreadable or
    // malformed files.
    static MeasurementCache load(const std::filesystem::path& path);
    // The same from text in memory (`source` names it in errors; the cache fuzz target).
    static MeasurementCache parse(std::string_view jsonText, const std::string& source);
    // Written atomically.
    void save(const std::filesystem::path& path) const;
    // What save() writes (for an output transaction, util/output_file.h).
    std::string text() const;
    // A block written as the file's "provenance" (io/provenance.h builds it; this layer only
    // carries it). Readers skip it.
    void setProvenance(util::Json provenance) { provenance_ = std::move(provenance); }

    // Adds or replaces the entry with the same device, model, batch and stage.
    void add(const StageMeasurement& m);
    std::optional<double> find(const std::string& device, const std::string& model, int batch,
                               const std::string& stage) const;
    // Removes the entries of `model` whose content hash is set and is not `modelHash`: the
    // measurements of another model that had this name. Returns how many.
    size_t removeOtherContents(const std::string& model, const std::string& modelHash);
    // Devices with entries for (model, batch), in file order.
    std::vector<std::string> devices(const std::string& model, int batch) const;
    const std::vector<StageMeasurement>& entries() const { return entries_; }

private:
    // What identifies an entry: a structured key compared field by field (never the fields
    // joined into one string, which two different entries could spell alike). Looked up by
    // a view of the fields (no copies per lookup).
    struct EntryKey {
        std::string device, model;
        int batch = 1;
        std::string stage;
    };
    struct EntryKeyView {
        std::string_view device, model;
        int batch = 1;
        std::string_view stage;
        bool operator==(const EntryKeyView&) const = default;
    };
    static EntryKeyView view(const EntryKey& k) { return {k.device, k.model, k.batch, k.stage}; }
    struct EntryKeyHash {
        using is_transparent = void;
        size_t operator()(const EntryKeyView& k) const;
        size_t operator()(const EntryKey& k) const { return (*this)(view(k)); }
    };
    struct EntryKeyEqual {
        using is_transparent = void;
        template <class A, class B> bool operator()(const A& a, const B& b) const {
            return asView(a) == asView(b);
        }
        static EntryKeyView asView(const EntryKey& k) { return view(k); }
        static EntryKeyView asView(const EntryKeyView& k) { return k; }
    };

    std::vector<StageMeasurement> entries_;
    util::Json provenance_;
    std::unordered_map<EntryKey, size_t, EntryKeyHash, EntryKeyEqual> index_; // key → entry
};

// The canonical classes of a graph's stages, keyed by stage key: equal keys for stages that
// launch the same kernels (cost::CanonicalStages over the graph's block dags). Read-only once
// built, so any number of threads may use it.
class StageClassIndex {
public:
    // `graph` must be validated and outlive the index.
    explicit StageClassIndex(const ir::Graph& graph);

    // The canonical key (canonicalStageKey) of the stage a stage key names; false when the key
    // does not resolve in the graph (resolveStageKey).
    bool classKey(const std::string& stageKey, StageMemo::Key& key) const;
    // The same for a stage of a dag of this graph (any build of its dags: operators are found
    // by name); false when one of its operators is not in the graph or they span blocks.
    bool classKey(const ir::BlockDag& dag, const schedule::Stage& stage, StageMemo::Key& key) const;

private:
    const ir::Graph& graph_;
    std::vector<ir::BlockDag> dags_;
    OperatorPlaces places_;
    std::vector<std::vector<uint32_t>> classes_; // per block, per dag.ops
};

// StageMemo::Key hashed for unordered containers.
struct StageKeyHash {
    size_t operator()(const StageMemo::Key& key) const;
};

// The argument of the cost model "cache:FILE[@DEVICE]": the text after the last '@' is the
// device unless the whole text names an existing file. Throws UserError for an empty FILE or
// DEVICE.
struct CacheChoice {
    std::string file;
    std::string device; // empty: the only device the cache holds for the model and batch
};
CacheChoice parseCacheChoice(const std::string& argument);

// Replays a MeasurementCache: a stage is looked up by its stage key (operator names); when the
// model knows the graph and the cache lacks that key, by its canonical class: the first entry
// of the cache (file order) for (device, model, batch) whose stage is of the same class. A
// stage found neither way is a UserError naming it (a cache written by `optimize --cost
// measured` holds every stage the DP asked about; one written by `profile` holds one stage per
// class).
class CachedCostModel final : public CostModel {
public:
    // `device` empty: the only device the cache holds for (model, batch); a UserError when
    // there is none or more than one. Without a graph, lookups by name only.
    CachedCostModel(MeasurementCache cache, std::string model, int batch, std::string device = {},
                    std::string source = {});
    // Lookups by name, then by class in `graph` (validated, outliving the model; its name is
    // the model's). Throws ios::UserError when entries of the model's name carry another
    // content hash than the graph's (they are of another model).
    CachedCostModel(MeasurementCache cache, const ir::Graph& graph, int batch,
                    std::string device = {}, std::string source = {});

    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override;
    std::string describe() const override;
    int batch() const override { return batch_; }
    const std::string& device() const { return device_; }

private:
    // Latencies by canonical key, built on the first lookup by class.
    struct ClassLatencies {
        std::unique_ptr<StageClassIndex> index;
        std::unordered_map<StageMemo::Key, double, StageKeyHash> ms;
    };
    const ClassLatencies& classLatencies() const;

    MeasurementCache cache_;
    std::string model_;
    int batch_;
    std::string device_;
    std::string source_;
    const ir::Graph* graph_ = nullptr;
    mutable std::once_flag classesBuilt_;
    mutable ClassLatencies classes_;
};

} // namespace ios::cost
