// SPDX-License-Identifier: Apache-2.0
// The measurement store's benchmark (docs/performance.md "Measurement store (issue 34)"), not a
// test: writes a synthetic SQLite store of N entries (random valid operator signatures and
// stages over four device setups) plus the stages the default NasNet-A search meets (priced by
// the simulated V100), then measures opening the store and running that search from it
// (--cost-model store:), the store's file size, the size of a legacy JSON cache
// (cost::MeasurementCache::text()) of the same number of entries, and the JSON export's size.
//
//   bench_store [N] [FOLDER]     (defaults: 1000000, a temporary folder that is removed)
#include "bundled_models.h"
#include "cost/cost_model_factory.h"
#include "cost/cost_model_with.h"
#include "cost/measurement_cache.h"
#include "cost/simulated_gpu_cost_model.h"
#include "cost/stage_shortcuts.h"
#include "cost/stage_signature.h"
#include "ir/metrics.h"
#include "ir/prepared_model.h"
#include "schedulers/scheduler.h"
#include "store/measurement_store.h"
#include "store/store_json.h"
#include "util/version.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <thread>

using namespace ios;
namespace fs = std::filesystem;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The simulated V100, recording the signature and latency of every stage it prices; through
// its canonical memo, so each distinct signature is priced (and recorded) once.
class Recorder final : public cost::CostModelWith<cost::StageShortcuts> {
public:
    explicit Recorder(const ir::Graph& graph)
        : sim_(graph, *cost::findBundledDevice("V100"), 1), nodes_(graph) {}
    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override {
        const double ms = sim_.stageLatencyMs(dag, stage);
        const std::string sig = cost::signatureBytes(
            cost::stageSignature(dag, stage, [this](const std::string& n) { return shapeOf(n); }));
        const std::lock_guard lock(mutex_);
        seen_.emplace(sig, ms);
        return ms;
    }
    cost::StageMemo* canonicalStageMemo(const ir::BlockDag& dag,
                                        std::vector<uint32_t>& classes) const override {
        return canonical_.classify(
            dag, [this](const std::string& n) { return shapeOf(n); }, classes);
    }
    std::string describe() const override { return "recorder"; }
    std::map<std::string, double> seen() const { return seen_; }

private:
    const ir::TensorShape* shapeOf(const std::string& n) const {
        const ir::Node* node = nodes_.find(n);
        return node ? &node->outputShape : nullptr;
    }
    cost::SimulatedGpuCostModel sim_;
    ir::NodeIndex nodes_;
    cost::CanonicalStages canonical_;
    mutable std::mutex mutex_;
    mutable std::map<std::string, double> seen_;
};

cost::DeviceIdentity setup(int i) {
    cost::DeviceIdentity d;
    d.name = i == 0 ? "Tesla V100-SXM2-16GB" : "NVIDIA H100 80GB HBM3";
    d.computeCapability = i == 0 ? "7.0" : "9.0";
    d.smCount = i == 0 ? 80 : 132;
    d.smClockMHz = 1980;
    d.memoryClockMHz = 2619;
    d.memoryBytes = int64_t{80} << 30;
    d.driver = "580.65.06";
    d.cuda = "13.0";
    d.cudnn = "9.10.2";
    d.mathMode = i == 2 ? "tf32" : "fp32";
    if (i == 3)
        d.driver = "575.57.08";
    return d;
}

schedulers::Params searchParams() {
    schedulers::Params p;
    p.threads = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    return p;
}

// A synthetic measurement of entry `i`: one or two groups of one to three operators drawn
// from a pool of operator signatures of realistic size (NasNet-A's are 100-200 bytes), two
// at least.
store::Measurement synthetic(int64_t i, const std::vector<std::string>& pool, std::mt19937_64& rng,
                             int setups) {
    cost::StageSignature s;
    const int groups = 1 + static_cast<int>(rng() % 2);
    for (int g = 0; g < groups; ++g) {
        s.groups.emplace_back();
        // Two operators at least in all: 4e8 pairs, so random stages (almost) never repeat.
        for (int o = 0, n = 1 + static_cast<int>(rng() % 3) + (groups == 1); o < n; ++o)
            s.groups.back().push_back(pool[rng() % pool.size()]);
    }
    store::Measurement m;
    m.key.signature = cost::signatureBytes(s);
    m.key.device = setup(1 + static_cast<int>(i % setups));
    m.sample.medianMs = 0.001 + static_cast<double>(rng() % 1000000) / 1e5;
    m.sample.spreadMs = m.sample.medianMs / 20;
    m.sample.count = 20;
    m.sample.toolVersion = util::toolVersion();
    m.sample.measuredAt = 1764000000 + i;
    return m;
}

// The legacy cache's size for `n` entries of synthetic names: built and measured in chunks
// (the text of a cache is the sum of its entries' lines).
int64_t legacyCacheBytes(int64_t n) {
    constexpr int64_t chunk = 100000;
    int64_t total = 0;
    std::mt19937_64 rng(11);
    for (int64_t done = 0; done < n; done += chunk) {
        cost::MeasurementCache cache;
        for (int64_t i = done; i < std::min(n, done + chunk); ++i) {
            std::string key = "parallel:";
            for (int g = 0, groups = 1 + static_cast<int>(rng() % 2); g < groups; ++g) {
                key += g ? "|" : "";
                for (int o = 0, k = 1 + static_cast<int>(rng() % 3); o < k; ++o)
                    key += (o ? ",cell_" : "cell_") + std::to_string(rng() % 18) + "_op_" +
                           std::to_string(rng() % 40);
            }
            cache.add({setup(1 + static_cast<int>(i % 3)).name,
                       "synthetic_model",
                       1,
                       key,
                       0.001 + static_cast<double>(rng() % 1000000) / 1e5,
                       20,
                       {}});
        }
        const int64_t bytes = static_cast<int64_t>(cache.text().size());
        total += done == 0 ? bytes : bytes - 60; // one header, not one per chunk
    }
    return total;
}

struct CountingBuf : std::streambuf {
    int64_t bytes = 0;
    int overflow(int c) override {
        ++bytes;
        return c;
    }
    std::streamsize xsputn(const char*, std::streamsize n) override {
        bytes += n;
        return n;
    }
};

} // namespace

int main(int argc, char** argv) {
    const int64_t n = argc > 1 ? std::stoll(argv[1]) : 1000000;
    const bool temp = argc <= 2;
    const fs::path folder =
        temp ? fs::temp_directory_path() / "ios_bench_store" : fs::path(argv[2]);
    fs::create_directories(folder);
    const fs::path db = folder / "bench.db";
    fs::remove(db);
    fs::remove(db.string() + "-wal");
    fs::remove(db.string() + "-shm");

    const ir::Graph graph = samples::loadBundledModel("nasnet_large");
    const ir::PreparedModel model(graph);
    const schedulers::Scheduler& ios = schedulers::schedulerByName("ios-both");
    auto t = std::chrono::steady_clock::now();
    const Recorder recorder(graph);
    const double simulatedMs = ios.run(model, searchParams(), recorder, nullptr).latencyMs;
    const double simulatedSeconds = secondsSince(t);
    const std::map<std::string, double> real = recorder.seen();

    t = std::chrono::steady_clock::now();
    std::mt19937_64 rng(5);
    std::vector<std::string> pool(20000);
    for (std::string& op : pool) {
        op.resize(100 + rng() % 100);
        for (char& c : op)
            c = static_cast<char>(rng());
    }
    {
        auto s = store::openStore(db.string(), store::OpenMode::CreateIfMissing);
        std::vector<store::Measurement> batch;
        const int64_t syntheticCount = n - static_cast<int64_t>(real.size());
        for (int64_t i = 0; i < syntheticCount; ++i) {
            batch.push_back(synthetic(i, pool, rng, 3));
            if (batch.size() == 10000 || i + 1 == syntheticCount) {
                s->add(batch);
                batch.clear();
            }
        }
        for (const auto& [sig, ms] : real) {
            store::Measurement m;
            m.key.signature = sig;
            m.key.device = setup(0);
            m.sample.medianMs = ms;
            m.sample.count = 20;
            m.sample.toolVersion = util::toolVersion();
            m.sample.measuredAt = 1764000000;
            batch.push_back(m);
        }
        s->add(batch);
    }
    const double writeSeconds = secondsSince(t);
    const int64_t storeBytes = static_cast<int64_t>(fs::file_size(db));

    // Open + search from the store (a fresh process would also pay the OS page cache).
    t = std::chrono::steady_clock::now();
    cost::CostModelSpec spec;
    cost::parseCostModelKind("store:" + db.string() + "@" + cost::identityId(setup(0)), spec);
    spec.device = *cost::findBundledDevice("V100");
    const auto cost = cost::makeCostModel(spec, graph);
    const double openSeconds = secondsSince(t);
    const double storeMs = ios.run(model, searchParams(), *cost, nullptr).latencyMs;
    const double openSearchSeconds = secondsSince(t);

    t = std::chrono::steady_clock::now();
    const store::StoreInfo info = store::openStore(db.string(), store::OpenMode::ReadOnly)->info();
    const double infoSeconds = secondsSince(t);

    CountingBuf counter;
    std::ostream counted(&counter);
    t = std::chrono::steady_clock::now();
    store::exportStoreJson(*store::openStore(db.string(), store::OpenMode::ReadOnly), counted);
    const double exportSeconds = secondsSince(t);
    const int64_t legacyBytes = legacyCacheBytes(info.entries);

    std::printf("entries                 %lld (%lld NasNet-A stages on setup %s)\n",
                static_cast<long long>(info.entries), static_cast<long long>(real.size()),
                cost::identityId(setup(0)).c_str());
    std::printf("write (10k per add)     %.1f s\n", writeSeconds);
    std::printf("NasNet-A ios-both       simulated %.4f ms in %.2f s; from the store %.4f ms\n",
                simulatedMs, simulatedSeconds, storeMs);
    std::printf("open store + setup      %.3f s\n", openSeconds);
    std::printf("open + search           %.3f s  (%s)\n", openSearchSeconds,
                cost->describe().c_str());
    std::printf("store info              %.3f s\n", infoSeconds);
    std::printf("SQLite file             %lld bytes (%.1f per entry)\n",
                static_cast<long long>(storeBytes),
                static_cast<double>(storeBytes) / static_cast<double>(info.entries));
    std::printf("legacy JSON cache       %lld bytes (%.1f per entry)\n",
                static_cast<long long>(legacyBytes),
                static_cast<double>(legacyBytes) / static_cast<double>(info.entries));
    std::printf("store / JSON cache      %.1f %%\n",
                100.0 * static_cast<double>(storeBytes) / static_cast<double>(legacyBytes));
    std::printf("JSON export             %lld bytes in %.1f s\n",
                static_cast<long long>(counter.bytes), exportSeconds);
    if (temp)
        fs::remove_all(folder);
    return simulatedMs == storeMs ? 0 : 1;
}
