// SPDX-License-Identifier: Apache-2.0
// The measurement store's JSON form (engine/store/store_json.h): export is deterministic
// (insertion order does not matter) and import(export) is lossless byte for byte; legacy
// measurement caches import by resolving their stage keys in the model they name; malformed
// files are refused naming the file and the entry, and add nothing.
#include "bundled_models.h"
#include "cost/measurement_cache.h"
#include "cost/simulated_gpu_cost_model.h"
#include "cost/stage_signature.h"
#include "ir/metrics.h"
#include "ir/prepared_model.h"
#include "store/measurement_store.h"
#include "store/store_json.h"
#include "user_error_text.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <random>
#include <sstream>

using namespace ios;
using ios::testing::userErrorOf;

namespace {

std::vector<store::Measurement> syntheticMeasurements() {
    std::vector<store::Measurement> out;
    cost::DeviceIdentity a;
    a.name = "NVIDIA H100 80GB HBM3";
    a.smCount = 132;
    a.driver = "580.65.06";
    cost::DeviceIdentity b = a;
    b.mathMode = "tf32";
    std::mt19937 rng(7);
    for (int i = 0; i < 60; ++i) {
        cost::StageSignature s;
        s.kind = i % 5 == 0 ? schedule::StageKind::Merge : schedule::StageKind::Parallel;
        for (int g = 0; g <= i % 3; ++g) {
            s.groups.emplace_back();
            for (int o = 0; o <= (i + g) % 2; ++o)
                s.groups.back().push_back("op\x01\xff" + std::to_string((i * 7 + g * 3 + o) % 11));
        }
        store::Measurement m;
        m.key.signature = cost::signatureBytes(s);
        m.key.device = i % 2 ? a : b;
        m.key.batch = 1 + i % 3;
        m.key.dtype = i % 4 ? "fp32" : "fp16";
        m.sample.medianMs = std::uniform_real_distribution<double>(0.001, 3.0)(rng);
        m.sample.spreadMs = m.sample.medianMs / 7;
        m.sample.count = 1 + i % 30;
        m.sample.toolVersion = i % 2 ? "0.1.0" : "0.0.9";
        m.sample.measuredAt = 1700000000 + i;
        out.push_back(m);
        if (i % 6 == 0) { // a second sample of the same key
            m.sample.medianMs *= 1.01;
            out.push_back(m);
        }
    }
    return out;
}

std::string exportText(store::MeasurementStore& s) {
    std::ostringstream out;
    store::exportStoreJson(s, out);
    return out.str();
}

} // namespace

class TestStoreJson : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    int n_ = 0;

    std::unique_ptr<store::MeasurementStore> freshStore() {
        return store::openStore(dir_.filePath(QString("s%1.db").arg(n_++)).toStdString(),
                                store::OpenMode::CreateIfMissing);
    }
    std::string write(const std::string& name, const std::string& text) {
        const std::string path = dir_.filePath(QString::fromStdString(name)).toStdString();
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

private slots:
    void exportIsDeterministicAndImportLossless() {
        std::vector<store::Measurement> ms = syntheticMeasurements();
        auto one = freshStore();
        one->add(ms);
        std::reverse(ms.begin(), ms.end());
        auto two = freshStore();
        for (const store::Measurement& m : ms) // another order, one transaction each
            two->add({m});
        const std::string text = exportText(*one);
        QCOMPARE(exportText(*two), text);
        QVERIFY(text.find("\"samples\": [\n{") != std::string::npos);
        auto three = freshStore();
        const store::JsonCounts counts = store::importStoreJson(write("e.json", text), *three);
        QCOMPARE(counts.samples, int64_t(ms.size()));
        QCOMPARE(counts.added, int64_t(ms.size()));
        QCOMPARE(exportText(*three), text);
        // Importing again adds nothing.
        QCOMPARE(store::importStoreJson(write("e.json", text), *three).added, int64_t{0});
    }

    void importsALegacyCache() {
        const ir::Graph graph = samples::loadBundledModel("squeezenet");
        const ir::PreparedModel model(graph);
        const cost::SimulatedGpuCostModel sim(graph, *cost::findBundledDevice("V100"), 1);
        cost::MeasurementCache cache;
        std::vector<std::pair<std::string, double>> expected; // signature, latency
        const ir::NodeIndex nodes(graph);
        const ir::ShapeLookup shapeOf = [&](const std::string& n) -> const ir::TensorShape* {
            const ir::Node* node = nodes.find(n);
            return node ? &node->outputShape : nullptr;
        };
        for (const ir::BlockDag& dag : model.dags())
            for (size_t i = 0; i < dag.ops.size(); ++i) {
                schedule::Stage stage;
                stage.groups = {{static_cast<int>(i)}};
                const double ms = sim.stageLatencyMs(dag, stage);
                cache.add({"Tesla V100", graph.name, 1, cost::stageKey(dag, stage), ms, 5, {}});
                expected.emplace_back(
                    cost::signatureBytes(cost::stageSignature(dag, stage, shapeOf)), ms);
            }
        const std::string file = write("legacy.json", cache.text());
        auto s = freshStore();
        const store::ModelResolver resolve = [&](const std::string& name) -> const ir::Graph* {
            return name == graph.name ? &graph : nullptr;
        };
        const store::JsonCounts counts = store::importStoreJson(file, *s, resolve);
        QCOMPARE(counts.samples, int64_t(cache.entries().size()));
        cost::DeviceIdentity device;
        device.name = "Tesla V100";
        device.mathMode = "";
        const store::Setup setup{device, 1, "fp32"};
        for (const auto& [signature, ms] : expected)
            QCOMPARE(*s->latencyMs(setup, signature), ms);
        // A model the resolver does not know: refused, naming it, nothing added.
        auto empty = freshStore();
        const QString error = userErrorOf([&] { store::importStoreJson(file, *empty, {}); });
        QVERIFY2(error.contains("legacy.json") && error.contains("'squeezenet'") &&
                     error.contains("entries[0]"),
                 qPrintable(error));
        QCOMPARE(empty->info().samples, int64_t{0});
    }

    void refusesMalformedFiles_data() {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<QString>("expected");
        QTest::newRow("truncated") << "truncate"
                                   << "syntax error";
        QTest::newRow("random bytes") << "random"
                                      << "syntax error";
        QTest::newRow("bad hex") << "operators[0]=zz"
                                 << "operators[0]";
        QTest::newRow("odd hex") << "operators[0]=abc"
                                 << "operators[0]";
        QTest::newRow("negative latency") << "\"median_ms\":-1"
                                          << "samples[0].median_ms";
        QTest::newRow("zero count") << "\"count\":0"
                                    << "samples[0].count";
        QTest::newRow("zero batch") << "\"batch\":0"
                                    << "samples[0].batch";
        QTest::newRow("device out of range") << "\"device\":9"
                                             << "samples[0].device";
        QTest::newRow("operator out of range") << "\"groups\":[[999]]"
                                               << "samples[0].groups[0]";
        QTest::newRow("unknown kind") << "\"kind\":\"serial\""
                                      << "samples[0].kind";
        QTest::newRow("unknown format") << "format=other"
                                        << "unknown format";
        QTest::newRow("newer version") << "version=2"
                                       << "version";
    }
    void refusesMalformedFiles() {
        QFETCH(QString, edit);
        QFETCH(QString, expected);
        auto source = freshStore();
        source->add(syntheticMeasurements());
        std::string text = exportText(*source);
        const std::string e = edit.toStdString();
        const size_t samples = text.find("\"samples\"");
        if (e == "truncate") {
            text.resize(text.size() * 2 / 3);
        } else if (e == "random") {
            std::mt19937 rng(3);
            for (char& c : text)
                c = static_cast<char>(rng());
        } else if (e.rfind("operators[0]=", 0) == 0) {
            const size_t start = text.find("\"operators\": [\n\"") + 16;
            text.replace(start, text.find('"', start) - start, e.substr(13));
        } else if (e == "format=other") {
            text.replace(text.find("ios-explorer-measurement-store"), 30, "other-format");
        } else if (e == "version=2") {
            text.replace(text.find("\"version\": 1"), 12, "\"version\": 2");
        } else { // replace one field of the first sample
            const std::string key = e.substr(0, e.find(':') + 1);
            const size_t at = text.find(key, samples);
            const size_t end =
                text.find_first_of(",}", key == "\"groups\":" ? text.find(']', at) + 1 : at);
            text.replace(at, end - at, e);
        }
        const std::string file = write("bad.json", text);
        auto target = freshStore();
        const QString error = userErrorOf([&] { store::importStoreJson(file, *target); });
        QVERIFY2(error.contains("bad.json") && error.contains(expected), qPrintable(error));
        QCOMPARE(target->info().samples, int64_t{0}); // validated first: nothing added
    }

    void aLaterBadSampleAddsNothing() {
        auto source = freshStore();
        source->add(syntheticMeasurements());
        std::string text = exportText(*source);
        const size_t last = text.rfind("\"median_ms\":");
        text.replace(last, text.find(',', last) - last, "\"median_ms\":1e999");
        auto target = freshStore();
        const QString error =
            userErrorOf([&] { store::importStoreJson(write("late.json", text), *target); });
        QVERIFY2(error.contains("late.json"), qPrintable(error));
        QCOMPARE(target->info().samples, int64_t{0});
    }
};

QTEST_GUILESS_MAIN(TestStoreJson)
#include "tst_store_json.moc"
