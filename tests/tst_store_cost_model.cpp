// SPDX-License-Identifier: Apache-2.0
// The store cost model (engine/store/store_cost_model.h, --cost-model store:URL): a search
// priced from a store filled with a model's latencies finds the same schedule and latency as
// that model; a stage the store lacks is refused naming it, or priced by the simulated GPU
// and counted; two setups of one device name are never mixed: refused without @ID, chosen
// exactly with it.
#include "bundled_models.h"
#include "cost/cost_model_factory.h"
#include "cost/simulated_gpu_cost_model.h"
#include "cost/stage_signature.h"
#include "ir/metrics.h"
#include "ir/prepared_model.h"
#include "schedulers/scheduler.h"
#include "search_results.h"
#include "store/measurement_store.h"
#include "store/store_cost_model.h"
#include "user_error_text.h"

#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <mutex>

using namespace ios;
using ios::testing::userErrorOf;

namespace {

// The simulated GPU, recording every stage it prices (by signature) with its latency.
class Recorder final : public cost::CostModel {
public:
    explicit Recorder(const ir::Graph& graph)
        : sim_(graph, *cost::findBundledDevice("V100"), 1), nodes_(graph) {}
    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override {
        const double ms = sim_.stageLatencyMs(dag, stage);
        const std::string sig = cost::signatureBytes(cost::stageSignature(
            dag, stage, [this](const std::string& n) -> const ir::TensorShape* {
                const ir::Node* node = nodes_.find(n);
                return node ? &node->outputShape : nullptr;
            }));
        const std::lock_guard lock(mutex_);
        seen_.emplace(sig, ms);
        return ms;
    }
    std::string describe() const override { return "recorder"; }
    std::map<std::string, double> seen() const {
        const std::lock_guard lock(mutex_);
        return seen_;
    }

private:
    cost::SimulatedGpuCostModel sim_;
    ir::NodeIndex nodes_;
    mutable std::mutex mutex_;
    mutable std::map<std::string, double> seen_;
};

cost::DeviceIdentity v100(int sms = 80) {
    cost::DeviceIdentity d;
    d.name = "Tesla V100-SXM2-16GB";
    d.computeCapability = "7.0";
    d.smCount = sms;
    return d;
}

std::vector<store::Measurement> measurements(const std::map<std::string, double>& seen,
                                             const cost::DeviceIdentity& device, double scale = 1,
                                             size_t every = 1) {
    std::vector<store::Measurement> out;
    size_t i = 0;
    for (const auto& [sig, ms] : seen) {
        if (i++ % every != 0)
            continue;
        store::Measurement m;
        m.key.signature = sig;
        m.key.device = device;
        m.sample.medianMs = ms * scale;
        m.sample.count = 10;
        m.sample.toolVersion = "test";
        out.push_back(m);
    }
    return out;
}

schedulers::Outcome search(const ir::PreparedModel& model, const cost::CostModel& cost) {
    return schedulers::schedulerByName("ios-both").run(model, schedulers::Params{}, cost, nullptr);
}

cost::CostModelSpec storeSpec(const std::string& text, bool fallback = false) {
    cost::CostModelSpec spec;
    cost::parseCostModelKind(text, spec);
    spec.device = *cost::findBundledDevice("V100");
    spec.simulatedFallback = fallback;
    return spec;
}

} // namespace

class TestStoreCostModel : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    const ir::Graph graph_ = samples::loadBundledModel("squeezenet");
    const ir::PreparedModel model_{graph_};
    std::map<std::string, double> seen_;
    schedulers::Outcome reference_;

    std::string storeWith(const std::string& name, const std::vector<store::Measurement>& ms) {
        const std::string path = dir_.filePath(QString::fromStdString(name)).toStdString();
        store::openStore(path, store::OpenMode::CreateIfMissing)->add(ms);
        return path;
    }

private slots:
    void initTestCase() {
        const Recorder recorder(graph_);
        reference_ = search(model_, recorder);
        seen_ = recorder.seen();
        QVERIFY(seen_.size() > 50);
    }

    void searchFromTheStoreMatches() {
        const std::string path = storeWith("full.db", measurements(seen_, v100()));
        const auto cost = cost::makeCostModel(storeSpec("store:" + path), graph_);
        const schedulers::Outcome fromStore = search(model_, *cost);
        QVERIFY(testing::sameBits(fromStore.latencyMs, reference_.latencyMs));
        QCOMPARE(fromStore.schedule.blocks.size(), reference_.schedule.blocks.size());
        for (size_t b = 0; b < fromStore.schedule.blocks.size(); ++b) {
            const auto& x = fromStore.schedule.blocks[b].stages;
            const auto& y = reference_.schedule.blocks[b].stages;
            QCOMPARE(x.size(), y.size());
            for (size_t k = 0; k < x.size(); ++k) {
                QCOMPARE(x[k].kind, y[k].kind);
                QCOMPARE(x[k].groups, y[k].groups);
            }
        }
        const QString text = QString::fromStdString(cost->describe());
        QVERIFY2(text.contains("full.db") && text.contains("V100") && !text.contains("simulated"),
                 qPrintable(text));
    }

    void aMissingStageIsRefused() {
        const std::string path = storeWith("half.db", measurements(seen_, v100(), 1, 2));
        const auto cost = cost::makeCostModel(storeSpec("store:" + path), graph_);
        const QString error = userErrorOf([&] { search(model_, *cost); });
        QVERIFY2(error.contains("half.db") && error.contains("has no measurement of stage") &&
                     error.contains("simulated fallback"),
                 qPrintable(error));
    }

    void theFallbackSimulatesAndSays() {
        const std::string path = storeWith("half2.db", measurements(seen_, v100(), 1, 2));
        const auto cost = cost::makeCostModel(storeSpec("store:" + path, true), graph_);
        const schedulers::Outcome outcome = search(model_, *cost);
        // The fallback is the V100 profile the store's device name matches: the same
        // latencies the store lacks, so the same result.
        QVERIFY(testing::sameBits(outcome.latencyMs, reference_.latencyMs));
        const auto& model = dynamic_cast<const store::StoreCostModel&>(*cost);
        QVERIFY(model.stagesSimulated() > 0);
        QVERIFY(model.stagesSimulated() < model.stagesPriced());
        const QString text = QString::fromStdString(cost->describe());
        QVERIFY2(text.contains(QString("%1 of %2 stages simulated")
                                   .arg(model.stagesSimulated())
                                   .arg(model.stagesPriced())),
                 qPrintable(text));
    }

    void twoSetupsOfOneNameNeedAnId() {
        std::vector<store::Measurement> ms = measurements(seen_, v100(80));
        for (store::Measurement& m : measurements(seen_, v100(84), 2.0))
            ms.push_back(m);
        const std::string path = storeWith("two.db", ms);
        QString error =
            userErrorOf([&] { cost::makeCostModel(storeSpec("store:" + path), graph_); });
        QVERIFY2(error.contains(QString::fromStdString(cost::identityId(v100(80)))) &&
                     error.contains(QString::fromStdString(cost::identityId(v100(84)))),
                 qPrintable(error));
        error = userErrorOf([&] {
            cost::makeCostModel(storeSpec("store:" + path + "@Tesla V100-SXM2-16GB"), graph_);
        });
        QVERIFY2(error.contains("2 setups"), qPrintable(error));
        const auto slow = cost::makeCostModel(
            storeSpec("store:" + path + "@" + cost::identityId(v100(84))), graph_);
        const auto fast = cost::makeCostModel(
            storeSpec("store:" + path + "@" + cost::identityId(v100(80))), graph_);
        const ir::BlockDag& dag = model_.dags().front();
        schedule::Stage stage;
        stage.groups = {{0}};
        QCOMPARE(slow->stageLatencyMs(dag, stage), 2 * fast->stageLatencyMs(dag, stage));
        // Another batch: no setup.
        cost::CostModelSpec batch2 = storeSpec("store:" + path + "@" + cost::identityId(v100(80)));
        batch2.batch = 2;
        QVERIFY(userErrorOf([&] { cost::makeCostModel(batch2, graph_); }).contains("batch 2"));
    }

    void parsesTheChoice() {
        QCOMPARE(store::parseStoreChoice("a.db@h1").url, std::string("a.db"));
        QCOMPARE(store::parseStoreChoice("a.db@h1").device, std::string("h1"));
        QCOMPARE(store::parseStoreChoice("postgresql://me@host/db").url,
                 std::string("postgresql://me@host/db"));
        QCOMPARE(store::parseStoreChoice("postgresql://me@host/db@h2").device, std::string("h2"));
        QCOMPARE(store::parseStoreChoice("postgresql://me@host").device, std::string());
    }
};

QTEST_GUILESS_MAIN(TestStoreCostModel)
#include "tst_store_cost_model.moc"
