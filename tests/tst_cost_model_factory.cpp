// SPDX-License-Identifier: Apache-2.0
// The one cost-model factory (cost/cost_model_factory.h): parsing the user's choice, building
// each kind, the measured builder hook, and timelines from any model that describes kernels.
#include "bundled_models.h"
#include "cost/analytic_cost_model.h"
#include "cost/cost_model_factory.h"
#include "cost/kernel_timeline.h"
#include "cost/simulated_gpu_cost_model.h"
#include "eval/evaluate.h"
#include "eval/timeline.h"
#include "schedulers/baselines.h"
#include "util/error.h"

#include <QTest>

using namespace ios;

namespace {

cost::CostModelSpec spec(std::string_view kind) {
    cost::CostModelSpec s;
    cost::parseCostModelKind(kind, s);
    s.device = *cost::findBundledDevice("V100");
    return s;
}

// An entry registered from this file only: the factory knows no cost model by name.
std::unique_ptr<cost::CostModel> buildTestScheme(const cost::CostModelSpec& spec,
                                                 const ir::Graph& graph) {
    cost::AnalyticParams params;
    params.batch = std::stoi(spec.argument);
    return std::make_unique<cost::AnalyticCostModel>(graph, params);
}

IOS_REGISTER_COST_MODEL(test_scheme,
                        cost::CostModelEntry{.key = "test-scheme:",
                                             .label = "Test scheme",
                                             .usage = "test-scheme:N",
                                             .description = "an analytic model at batch N (tests)",
                                             .build = buildTestScheme});

} // namespace

class TestCostModelFactory : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesKinds_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("key");
        QTest::newRow("simulated") << "simulated"
                                   << "simulated";
        QTest::newRow("simulated-exact") << "simulated-exact"
                                         << "simulated-exact";
        QTest::newRow("analytic") << "analytic"
                                  << "analytic";
        QTest::newRow("measured") << "measured"
                                  << "measured";
        QTest::newRow("cache") << "cache:some file.json"
                               << "cache:";
        QTest::newRow("store scheme") << "store:sqlite:some.db@h0123456789ab"
                                      << "store:";
        QTest::newRow("test scheme") << "test-scheme:7"
                                     << "test-scheme:";
    }
    void parsesKinds() {
        QFETCH(QString, text);
        QFETCH(QString, key);
        const cost::CostModelSpec s = spec(text.toStdString());
        QCOMPARE(QString::fromStdString(s.key), key);
        QCOMPARE(QString::fromStdString(cost::costModelKindText(s)), text);
    }

    void rejectsBadKinds_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << "";
        QTest::newRow("cache without file") << "cache:";
        QTest::newRow("unknown") << "roofline";
        QTest::newRow("store without URL") << "store:";
    }
    void rejectsBadKinds() {
        QFETCH(QString, text);
        cost::CostModelSpec s;
        QVERIFY_THROWS_EXCEPTION(UserError, cost::parseCostModelKind(text.toStdString(), s));
    }

    // Schemes are registered, not listed: the refusal names every registered one, and the
    // factory builds a scheme's model from its builder with the text after the prefix.
    void schemesAreRegistered() {
        cost::CostModelSpec s;
        try {
            cost::parseCostModelKind("roofline", s);
            QFAIL("roofline was accepted");
        } catch (const UserError& e) {
            const QString text = e.what();
            QVERIFY2(text.contains("store:URL[@DEVICE]") && text.contains("test-scheme:N"),
                     qPrintable(text));
        }
        const ir::Graph g = samples::loadBundledModel("demo_figure2");
        const auto model = cost::makeCostModel(spec("test-scheme:7"), g);
        QCOMPARE(model->batch(), 7);
        s.key = "never-registered:";
        QVERIFY_THROWS_EXCEPTION(UserError, cost::makeCostModel(s, g));
    }

    void buildsTheSameModelsAsDirectConstruction() {
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const auto dags = ir::buildDags(g);
        const auto sched = schedulers::greedy(dags);
        cost::CostModelSpec sim = spec("simulated");
        sim.batch = 16;
        const cost::SimulatedGpuCostModel direct(g, sim.device, 16);
        QCOMPARE(eval::totalLatencyMs(dags, sched, *cost::makeCostModel(sim, g)),
                 eval::totalLatencyMs(dags, sched, direct));
        const auto analytic = cost::makeCostModel(spec("analytic"), g);
        QVERIFY(analytic->describe().rfind("analytic", 0) == 0);
        QVERIFY(analytic->kernelTimeline() != nullptr);
    }

    void replaysTheCommittedCache() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        const auto dags = ir::buildDags(g);
        const auto model = cost::makeCostModel(
            spec("cache:" IOS_SOURCE_DIR "/sample_models/measured/h100_measured_cache.json"), g);
        QVERIFY(model->describe().find("H100") != std::string::npos);
        QVERIFY(model->kernelTimeline() == nullptr); // stage latencies only
        QVERIFY(eval::totalLatencyMs(dags, schedulers::sequential(dags), *model) > 0);
        QVERIFY_THROWS_EXCEPTION(
            UserError, cost::makeCostModel(spec("cache:" IOS_SOURCE_DIR "/no/such.json"), g));
    }

    void measuredNeedsAnInstalledBuilder() {
        const ir::Graph g = samples::loadBundledModel("demo_figure2");
        cost::installMeasuredCostModel(nullptr);
        QVERIFY(!cost::measuredCostModelInstalled());
        QVERIFY_THROWS_EXCEPTION(UserError, cost::makeCostModel(spec("measured"), g));
        int calls = 0;
        cost::installMeasuredCostModel([&](const ir::Graph& graph, int batch, const std::string&) {
            ++calls;
            cost::AnalyticParams p;
            p.batch = batch;
            return std::make_unique<cost::AnalyticCostModel>(graph, p);
        });
        QVERIFY(cost::measuredCostModelInstalled());
        QVERIFY(cost::makeCostModel(spec("measured"), g) != nullptr);
        QCOMPARE(calls, 1);
        cost::installMeasuredCostModel(nullptr);
    }

    // eval::buildTimeline takes any model that describes kernels: its timeline adds up to the
    // schedule's latency under that model.
    void timelinesFromEveryKernelModel_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("strategy");
        for (const char* kind : {"simulated", "analytic"})
            for (const char* strategy : {"sequential", "greedy"})
                QTest::newRow(qPrintable(
                    QStringLiteral("%1 %2").arg(QLatin1String(kind), QLatin1String(strategy))))
                    << kind << strategy;
    }
    void timelinesFromEveryKernelModel() {
        QFETCH(QString, kind);
        QFETCH(QString, strategy);
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const auto dags = ir::buildDags(g);
        const auto sched = strategy == QLatin1String("greedy") ? schedulers::greedy(dags)
                                                               : schedulers::sequential(dags);
        const auto model = cost::makeCostModel(spec(kind.toStdString()), g);
        QVERIFY(model->kernelTimeline());
        const eval::Timeline tl = eval::buildTimeline(dags, sched, *model->kernelTimeline());
        const double ms = eval::totalLatencyMs(dags, sched, *model);
        QVERIFY(qAbs(tl.latencyUs / 1000 - ms) <= 1e-9 * ms);
        QVERIFY(!tl.kernels.empty());
        for (const eval::TimelineKernel& k : tl.kernels)
            QVERIFY(k.startUs <= k.endUs && k.endUs <= tl.latencyUs * (1 + 1e-12));
    }
};

QTEST_GUILESS_MAIN(TestCostModelFactory)
#include "tst_cost_model_factory.moc"
