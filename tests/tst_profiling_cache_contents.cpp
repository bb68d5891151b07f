// SPDX-License-Identifier: Apache-2.0
// Measurement caches and the identity of what they measured (issue 34): a cache written by
// save() loads again whatever its size (read entry by entry, no input cap); every entry
// written carries the model's content hash, so SqueezeNet saved under the name inception_v3
// is refused InceptionV3's measurements instead of replaying them, while legacy entries
// without a hash are trusted by name; the content hash ignores the model's name; mock devices
// named by IOS_PROFILING_MOCK differ in identity and speed; `profile --shard` parts cover
// every class exactly once.
#include "bundled_models.h"
#include "cost/measurement_cache.h"
#include "cost/stage_signature.h"
#include "cuda_backend.h"
#include "executor.h"
#include "mock_backend.h"
#include "schedulers/scheduler.h"
#include "stage_enumeration.h"
#include "stage_profiler.h"
#include "user_error_text.h"
#include "util/file_util.h"
#include "util/json_number.h"

#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <set>

using namespace ios;
using namespace ios::profiling;

namespace {

StageEnumeration enumerate(const ir::PreparedModel& model) {
    schedulers::Params p; // r 3, s 8
    p.threads = 1;
    return enumerateStages(model, {&schedulers::schedulerByName("ios-both")}, p, 1);
}

// Profiles `graph` on a timing-only mock into `cacheFile` (as `ios-sched profile` does).
ProfileResult profileInto(const ir::Graph& graph, const std::string& cacheFile,
                          const MockOptions& device = MockOptions::variant("1")) {
    const ir::PreparedModel model(graph);
    const StageEnumeration met = enumerate(model);
    MockBackend backend(device);
    Executor executor(graph, backend, 1);
    return profileStages(executor, graph.name, model, met.stages, cacheFile, {});
}

ir::Graph renamed(ir::Graph graph, const std::string& name) {
    graph.name = name;
    return graph;
}

} // namespace

class TestProfilingCacheContents : public QObject {
    Q_OBJECT

private slots:
    // A cache over the old 64 MiB input cap, written by save(), loads again entry for entry.
    void aCacheOverSixtyFourMiBLoadsAgain() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("big.json").toStdString();
        cost::MeasurementCache cache;
        const std::string stagePad(120, 'x'); // ~300 bytes per entry as written
        constexpr int kEntries = 240000;
        for (int i = 0; i < kEntries; ++i)
            cache.add({"Mock GPU", "model_" + std::to_string(i % 7), 1 + i % 3,
                       "parallel:" + stagePad + std::to_string(i), 0.001 * (1 + i % 997), 10,
                       "0123456789abcdef"});
        QElapsedTimer t;
        t.start();
        cache.save(file);
        qInfo("save: %lld ms", static_cast<long long>(t.elapsed()));
        const auto bytes = std::filesystem::file_size(file);
        QVERIFY2(bytes > (uint64_t{68} << 20), qPrintable(QString::number(bytes)));
        t.start();
        const cost::MeasurementCache back = cost::MeasurementCache::load(file);
        qInfo("load: %lld ms", static_cast<long long>(t.elapsed()));
        QCOMPARE(back.entries().size(), size_t{kEntries});
        for (size_t i = 0; i < back.entries().size(); ++i) {
            const cost::StageMeasurement& a = back.entries()[i];
            const cost::StageMeasurement& b = cache.entries()[i];
            QVERIFY(a.device == b.device && a.model == b.model && a.batch == b.batch &&
                    a.stage == b.stage && a.latencyMs == b.latencyMs && a.samples == b.samples &&
                    a.modelHash == b.modelHash);
        }
    }

    // text() writes entry by entry exactly what dumping the whole document writes.
    void theTextIsTheDocumentsDump() {
        cost::MeasurementCache cache;
        const auto dump = [&cache] {
            util::Json doc;
            doc["format"] = cost::kMeasurementCacheFormat;
            doc["version"] = cost::kMeasurementCacheVersion;
            doc["entries"] = util::Json::array();
            for (const cost::StageMeasurement& m : cache.entries())
                doc["entries"].push_back(cost::measurementJson(m));
            return util::dumpJson(doc, 1) + "\n";
        };
        QCOMPARE(cache.text(), dump());
        cache.add({"GPU \"1\"\n", "m", 2, "parallel:a\\,b|c", 0.25, 3, {}});
        QCOMPARE(cache.text(), dump());
        cache.add({"GPU", "m", 1, "merge:x", 1e-6, 0, "00ff"});
        QCOMPARE(cache.text(), dump());
        QCOMPARE(cost::MeasurementCache::parse(cache.text(), "t").text(), cache.text());
    }

    void malformedCachesAreRefusedNamingTheEntry() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("bad.json").toStdString();
        const auto errorOf = [&](const std::string& text) {
            util::writeFileAtomically(file, text);
            return testing::userErrorOf([&] { cost::MeasurementCache::load(file); }).toStdString();
        };
        const std::string head = R"({"format": "ios-explorer-measurements", "version": 1, )";
        QVERIFY(errorOf("").find("empty") != std::string::npos);
        QVERIFY(errorOf("[1]").find("not a measurement cache") != std::string::npos);
        QVERIFY(errorOf(head + R"("entries": {}})").find("\"entries\" must be an array") !=
                std::string::npos);
        const std::string missing =
            errorOf(head + R"("entries": [{"device": "d", "model": "m", "batch": 1, )"
                           R"("stage": "parallel:a", "latency_ms": 1}, {"device": "d"}]})");
        QVERIFY2(missing.find("entries[1]") != std::string::npos, missing.c_str());
        QVERIFY(missing.find(file) != std::string::npos);
        QVERIFY(errorOf(head + R"("entries": [{"device": [1]}]})").find("entries[0]") !=
                std::string::npos);
        QVERIFY(errorOf(head + R"("entries": [)").find("not valid JSON") != std::string::npos);
        QVERIFY(errorOf(R"({"format": "x", "entries": []})").find("not a measurement cache") !=
                std::string::npos);
    }

    void theContentHashIgnoresTheNameAndSeesTheOperators() {
        const ir::Graph squeeze = samples::loadBundledModel("squeezenet");
        const ir::Graph inception = samples::loadBundledModel("inception_v3");
        QCOMPARE(cost::modelContentHash(renamed(squeeze, "inception_v3")),
                 cost::modelContentHash(squeeze));
        QVERIFY(cost::modelContentHash(squeeze) != cost::modelContentHash(inception));
        ir::Graph wider = squeeze; // one convolution's activation changed
        for (ir::Node& n : wider.blocks.front().innerNodes)
            if (n.kind == ir::NodeKind::Conv) {
                n.conv.act =
                    n.conv.act == ir::ActType::Relu ? ir::ActType::Identity : ir::ActType::Relu;
                break;
            }
        QVERIFY(cost::modelContentHash(wider) != cost::modelContentHash(squeeze));
    }

    // The issue's case: SqueezeNet saved under the name inception_v3, replaying a cache
    // profiled for the real InceptionV3, is refused with one line naming both hashes.
    void anotherModelUnderTheNameIsRefused() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("inception.json").toStdString();
        const ir::Graph inception = samples::loadBundledModel("inception_v3");
        QVERIFY(profileInto(inception, file).complete);
        const cost::MeasurementCache cache = cost::MeasurementCache::load(file);
        const std::string own = cost::modelContentHash(inception);
        for (const cost::StageMeasurement& m : cache.entries())
            QCOMPARE(m.modelHash, own);
        // The real model replays its measurements.
        const cost::CachedCostModel replay(cache, inception, 1, {}, file);
        QCOMPARE(replay.device(), std::string("Mock GPU (IOS_PROFILING_MOCK)"));

        const ir::Graph impostor = renamed(samples::loadBundledModel("squeezenet"), "inception_v3");
        const std::string error = testing::userErrorOf([&] {
                                      const cost::CachedCostModel m(cache, impostor, 1, {}, file);
                                  }).toStdString();
        QVERIFY2(error.find(file + ": the measurements of 'inception_v3' are of another model") !=
                     std::string::npos,
                 error.c_str());
        QVERIFY(error.find(own) != std::string::npos);
        QVERIFY(error.find(cost::modelContentHash(impostor)) != std::string::npos);
        QVERIFY(error.find('\n') == std::string::npos);
    }

    // Entries written before the hash existed carry none: they are trusted by name.
    void legacyEntriesWithoutAHashAreTrustedByName() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("inception.json").toStdString();
        const ir::Graph inception = samples::loadBundledModel("inception_v3");
        QVERIFY(profileInto(inception, file).complete);
        cost::MeasurementCache legacy;
        const cost::MeasurementCache profiled = cost::MeasurementCache::load(file);
        for (cost::StageMeasurement m : profiled.entries()) {
            m.modelHash.clear();
            legacy.add(m);
        }
        QVERIFY(legacy.text().find("model_hash") == std::string::npos);
        const cost::CachedCostModel replay(legacy, inception, 1, {}, file);
        const ir::PreparedModel model(inception);
        const cost::StageMeasurement& first = legacy.entries().front();
        std::string why;
        const auto stage = cost::resolveStageKey(first.stage, cost::operatorPlaces(model.dags()),
                                                 model.dags(), inception.name, why);
        QVERIFY2(stage, why.c_str());
        QCOMPARE(
            replay.stageLatencyMs(model.dags()[static_cast<size_t>(stage->block)], stage->stage),
            first.latencyMs);
    }

    // Profiling a model into a cache holding another model of its name replaces those
    // measurements (with a warning) instead of reusing them.
    void profilingReplacesAnotherModelsMeasurements() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("c.json").toStdString();
        QVERIFY(profileInto(samples::loadBundledModel("inception_v3"), file).complete);
        const ir::Graph impostor = renamed(samples::loadBundledModel("squeezenet"), "inception_v3");
        const ProfileResult r = profileInto(impostor, file);
        QVERIFY(r.complete);
        QCOMPARE(r.fromCache, size_t{0});
        QCOMPARE(r.warnings.size(), size_t{1});
        QVERIFY(r.warnings.front().find("another model named 'inception_v3'") != std::string::npos);
        const cost::MeasurementCache after = cost::MeasurementCache::load(file);
        for (const cost::StageMeasurement& m : after.entries())
            QCOMPARE(m.modelHash, cost::modelContentHash(impostor));
        const cost::CachedCostModel replay(after, impostor, 1, {}, file); // no refusal
        QVERIFY(!replay.describe().empty());
    }

    void mockDevicesDifferInIdentityAndSpeed() {
        const MockBackend one(MockOptions::variant("1"));
        const MockBackend b(MockOptions::variant("mock-b"));
        QCOMPARE(one.deviceName(), std::string("Mock GPU (IOS_PROFILING_MOCK)"));
        QCOMPARE(b.deviceName(), std::string("Mock GPU (IOS_PROFILING_MOCK=mock-b)"));
        QVERIFY(one.identity() != b.identity());
        QVERIFY(one.identity().smCount != b.identity().smCount);
        QCOMPARE(one.identity().name, one.deviceName());
        QVERIFY(cost::identityId(one.identity()) != cost::identityId(b.identity()));

        QTemporaryDir dir;
        const ir::Graph squeeze = samples::loadBundledModel("squeezenet");
        const std::string fileOne = dir.filePath("1.json").toStdString();
        const std::string fileB = dir.filePath("b.json").toStdString();
        QVERIFY(profileInto(squeeze, fileOne, MockOptions::variant("1")).complete);
        QVERIFY(profileInto(squeeze, fileB, MockOptions::variant("mock-b")).complete);
        const cost::MeasurementCache a = cost::MeasurementCache::load(fileOne);
        const cost::MeasurementCache c = cost::MeasurementCache::load(fileB);
        QCOMPARE(a.entries().size(), c.entries().size());
        for (size_t i = 0; i < a.entries().size(); ++i) {
            const double ratio = c.entries()[i].latencyMs / a.entries()[i].latencyMs;
            QVERIFY2(ratio < 0.85 || ratio > 1.15, qPrintable(QString::number(ratio)));
        }
    }

    void theEnvironmentSelectsTheMockDevice() {
        const QByteArray before = qgetenv("IOS_PROFILING_MOCK");
        qputenv("IOS_PROFILING_MOCK", "mock-b");
        const std::unique_ptr<GpuBackend> b = requireCudaBackend({});
        qputenv("IOS_PROFILING_MOCK", "1");
        const std::unique_ptr<GpuBackend> one = requireCudaBackend({false, true});
        qputenv("IOS_PROFILING_MOCK", before);
        if (before.isEmpty())
            qunsetenv("IOS_PROFILING_MOCK");
        QCOMPARE(b->identity(), MockBackend(MockOptions::variant("mock-b")).identity());
        QCOMPARE(one->deviceName(), std::string("Mock GPU (IOS_PROFILING_MOCK)"));
        QCOMPARE(one->identity().mathMode, std::string("tf32"));
    }

    // The shards of a job cover every class of the model exactly once.
    void shardsPartitionTheClasses() {
        const ir::Graph graph = samples::loadBundledModel("inception_v3");
        const ir::PreparedModel model(graph);
        const StageEnumeration met = enumerate(model);
        const size_t classes = canonicalClasses(model, met.stages, false).members.size();
        const std::vector<std::string> all = stageSignatureBytes(model, met.stages);
        for (uint32_t n : {1U, 3U, 4U}) {
            size_t classSum = 0;
            std::multiset<std::string> seen;
            for (uint32_t i = 0; i < n; ++i) {
                size_t kept = 0;
                const std::vector<MetStage> part = shardStages(model, met.stages, {i, n}, &kept);
                classSum += kept;
                for (const MetStage& m : part)
                    seen.insert(m.key);
                for (const std::string& bytes : stageSignatureBytes(model, part))
                    QCOMPARE(cost::stableHash64(bytes) % n, uint64_t{i});
            }
            QCOMPARE(classSum, classes);
            QCOMPARE(seen.size(), met.stages.size());
            QCOMPARE(std::set<std::string>(seen.begin(), seen.end()).size(), met.stages.size());
        }
        QCOMPARE(all.size(), met.stages.size());
    }
};

QTEST_GUILESS_MAIN(TestProfilingCacheContents)
#include "tst_profiling_cache_contents.moc"
