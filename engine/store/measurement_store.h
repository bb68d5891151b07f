// SPDX-License-Identifier: Apache-2.0
// The measurement store (docs/formats.md "Measurement store", docs/gpu.md "Sharing
// measurements"): stage latencies measured on GPUs, keyed by what was measured — the stage's
// canonical signature (cost/stage_signature.h), the device identity (cost/device_identity.h),
// the batch size and the data type — so a stage measured once serves every model that
// contains it, on any machine, and setups never mix. Backends are chosen by URL
// ("sqlite:PATH", a bare PATH, "postgresql://…"); each registers itself from its own file
// (IOS_REGISTER_STORE_BACKEND). A store is trusted data the tool wrote; a JSON cache from
// elsewhere is validated when imported (store_json.h).
#pragma once

#include "cost/device_identity.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::store {

// What one measurement is of.
struct MeasurementKey {
    std::string signature; // cost::signatureBytes of the stage's signature (binary)
    cost::DeviceIdentity device;
    int batch = 1;
    std::string dtype = "fp32";
};

// One measurement run of a stage: the median of `count` timed runs and their spread
// (max - min), with the tool version that took it and when (Unix seconds; SOURCE_DATE_EPOCH
// when set, so reproducible runs write identical stores).
struct Sample {
    double medianMs = 0;
    double spreadMs = 0;
    int count = 0;
    std::string toolVersion;
    int64_t measuredAt = 0;
};

struct Measurement {
    MeasurementKey key;
    Sample sample;
};

// Which measurements a query is about: one device setup, batch and data type.
struct Setup {
    cost::DeviceIdentity device;
    int batch = 1;
    std::string dtype = "fp32";
};

struct StoreInfo {
    std::string url;
    std::string backend;   // "sqlite", "postgresql"
    int64_t entries = 0;   // distinct keys
    int64_t samples = 0;   // sample rows (an entry has one or more)
    int64_t stages = 0;    // distinct stage signatures
    int64_t operators = 0; // distinct operator signatures
    int64_t bytes = -1;    // size on disk where known, else -1
    struct DeviceCount {
        cost::DeviceIdentity device;
        int batch = 1;
        std::string dtype;
        int64_t entries = 0;
    };
    std::vector<DeviceCount> setups; // per (device, batch, dtype), in canonical order
};

class MeasurementStore {
public:
    virtual ~MeasurementStore() = default;

    // Adds the measurements in one transaction: all of them are durable when it returns, or
    // none (a process killed mid-call leaves the store as it was). A sample equal to one the
    // key already has (same median, spread and count) is not added again, so adding the same
    // measurements twice — a re-run, a merge of overlapping shards — changes nothing. Safe
    // while other processes read and write the same store. Returns the samples added.
    virtual int64_t add(const std::vector<Measurement>& measurements) = 0;

    // The latency of `signature` under `setup`: the median of its samples' medians (the lower
    // of the two middle ones for an even count, so the value is one that was measured);
    // nullopt when the store has no sample for it.
    virtual std::optional<double> latencyMs(const Setup& setup, std::string_view signature) = 0;

    // Which of `signatures` have a sample under `setup` (one flag per signature, in order).
    virtual std::vector<bool> has(const Setup& setup,
                                  const std::vector<std::string>& signatures) = 0;

    // The device setups the store holds measurements of, with counts.
    virtual StoreInfo info() = 0;

    // The setups alone, in canonical order (device canonical text, batch, dtype), without
    // counting their entries: what choosing a setup needs (store:URL), where info() counts
    // the whole store (about 2 s for 1 M entries in SQLite). Default: from info().
    virtual std::vector<Setup> setups();

    // Every measurement, in canonical order (device canonical text, batch, dtype, signature
    // bytes, then median, spread, count), streamed: `visit` is called once per sample and
    // the store is never held in memory whole.
    virtual void forEach(const std::function<void(const Measurement&)>& visit) = 0;

    // Reads from one snapshot of the store while `hold` is set: a search prices every stage
    // from the same data, and a backend may answer many lookups in one read transaction
    // (SQLite: two lock syscalls and a stat less per lookup, a third of a NasNet-A search's
    // time). Writes through this handle end the snapshot; SQLite renews it after 5 s, so a
    // long-lived holder never keeps a WAL from being checkpointed for longer. Default:
    // nothing (every read sees the latest data).
    virtual void holdSnapshot(bool hold) { (void)hold; }

    // Deletes samples older than `before` (Unix seconds) and/or of one device setup (empty
    // optional: any); returns the samples removed. One transaction.
    virtual int64_t prune(std::optional<int64_t> before, const std::optional<Setup>& setup) = 0;
};

enum class OpenMode : uint8_t {
    ReadOnly,  // the store must exist
    ReadWrite, // the store must exist
    CreateIfMissing,
};

// Opens the store a URL names: "sqlite:PATH" or a PATH (SQLite), "postgresql://…" or
// "postgres://…" (PostgreSQL, where built with libpqxx). Throws ios::UserError naming the URL
// for an unknown scheme, a backend not built in, a store that cannot be opened or is not a
// measurement store (or of a newer schema).
std::unique_ptr<MeasurementStore> openStore(const std::string& url, OpenMode mode);

// The backend seam: a factory per URL scheme, registered once from the backend's own file.
using StoreFactory =
    std::function<std::unique_ptr<MeasurementStore>(const std::string& url, OpenMode mode)>;
struct StoreBackend {
    std::string name;                 // "sqlite"
    std::vector<std::string> schemes; // "sqlite:" prefixes it answers to
    StoreFactory open;
};
bool registerStoreBackend(StoreBackend backend);
std::vector<std::string> storeBackendNames();

#define IOS_REGISTER_STORE_BACKEND(ident, ...)                                                     \
    [[maybe_unused]] static const bool ios_store_backend_registered_##ident =                      \
        ::ios::store::registerStoreBackend(__VA_ARGS__)

// The current time for Sample::measuredAt: SOURCE_DATE_EPOCH when set (reproducible runs),
// else the system clock.
int64_t measurementTime();

} // namespace ios::store
