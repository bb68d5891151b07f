// SPDX-License-Identifier: Apache-2.0
// A new cost model is one file and one registration line (cost/cost_model_factory.h): the
// throw-away model below is registered from this file only, and the factory builds it, the
// schedulers search under it, the CLI's --cost-model help and refusal list it and `optimize`
// runs with it, with nothing else edited. The built-in models are registry entries too.
#include "bundled_models.h"
#include "cli_run.h"
#include "cost/cost_model_factory.h"
#include "eval/evaluate.h"
#include "schedulers/scheduler.h"
#include "util/error.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace ios;

namespace {

// The whole model: a stage costs 1 ms per operator of its largest group, times the batch.
class WidestGroupModel final : public cost::CostModel {
public:
    explicit WidestGroupModel(int batch) : batch_(batch) {}
    double stageLatencyMs(const ir::BlockDag&, const schedule::Stage& stage) const override {
        size_t widest = 0;
        for (const schedule::Group& g : stage.groups)
            widest = std::max(widest, g.size());
        return static_cast<double>(widest * static_cast<size_t>(batch_));
    }
    std::string describe() const override { return "widest group"; }
    int batch() const override { return batch_; }

private:
    int batch_;
};

IOS_REGISTER_COST_MODEL(widest, cost::CostModelEntry{
                                    .key = "widest-group",
                                    .label = "Widest group",
                                    .usage = "widest-group",
                                    .description = "1 ms per operator of a stage's largest group",
                                    .build = [](const cost::CostModelSpec& spec, const ir::Graph&) {
                                        return std::make_unique<WidestGroupModel>(spec.batch);
                                    }});

using testing::runCli;

} // namespace

class TestCliCostModelRegistry : public QObject {
    Q_OBJECT

private slots:
    // Every model the program knows is an entry, each from its own file; the capabilities say
    // what front ends may offer with it.
    void builtInModelsAreEntries() {
        QStringList keys;
        for (const cost::CostModelEntry& e : cost::costModelEntries())
            keys << QString::fromStdString(e.key);
        for (const char* key : {"simulated", "simulated-exact", "analytic", "measured",
                                "cache:", "store:", "widest-group"})
            QVERIFY2(keys.contains(QLatin1String(key)), qPrintable(keys.join(' ')));
        QVERIFY(cost::findCostModel("simulated")->can.kernelTimelines);
        QVERIFY(cost::findCostModel("analytic")->can.rewrittenGraphs);
        QVERIFY(!cost::findCostModel("cache:")->can.kernelTimelines);
        QVERIFY(cost::findCostModel("cache:")->takesArgument());
        QVERIFY(cost::findCostModel("measured")->can.needsGpu);
        QVERIFY(!cost::findCostModel("widest-group")->can.programs);
    }

    // The factory builds the throw-away model and schedulers search under it: their results
    // are priced by it.
    void schedulersRunUnderIt() {
        cost::CostModelSpec spec;
        cost::parseCostModelKind("widest-group", spec);
        spec.batch = 2;
        const ir::Graph g = samples::loadBundledModel("demo_figure2");
        const auto model = cost::makeCostModel(spec, g);
        QCOMPARE(QString::fromStdString(model->describe()), QStringLiteral("widest group"));
        const ir::PreparedModel prepared(g);
        for (const char* key : {"sequential", "greedy", "ios-both"}) {
            const schedulers::Outcome o =
                schedulers::schedulerByName(key).run(prepared, {}, *model, nullptr);
            const double ms = eval::totalLatencyMs(prepared.dags(), o.schedule, *model);
            QCOMPARE(o.latencyMs, ms);
            QVERIFY(ms > 0 && ms <= 2.0 * g.operatorCount());
        }
        // Sequential runs one operator per stage: 1 ms each, times the batch.
        const schedulers::Outcome seq =
            schedulers::schedulerByName("sequential").run(prepared, {}, *model, nullptr);
        QCOMPARE(seq.latencyMs, 2.0 * g.operatorCount());
    }

    // The CLI lists it in --cost-model's help and refusal and runs with it.
    void theCliOffersIt() {
        const testing::CliRun help = runCli({"optimize", "--help"});
        QVERIFY2(help.out.find("widest-group (1 ms per operator of a stage's largest group)") !=
                     std::string::npos,
                 help.out.c_str());
        const testing::CliRun bad = runCli({"optimize", "demo_figure2", "--cost-model", "nope"});
        QCOMPARE(bad.code, 1);
        QVERIFY2(bad.err.find("widest-group") != std::string::npos, bad.err.c_str());
        QVERIFY2(bad.err.find("--cost-model") != std::string::npos, bad.err.c_str());
        const testing::CliRun run =
            runCli({"optimize", "demo_figure2", "--cost-model", "widest-group", "--json"});
        QCOMPARE(run.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(run.out)).object();
        const double ms = o.value(QLatin1String("total"))
                              .toObject()
                              .value(QLatin1String("latency_ms"))
                              .toDouble();
        QVERIFY2(ms > 0 && ms == std::floor(ms), run.out.c_str()); // whole ms: this model's
    }

    // A throw-away entry registered at run time goes as it came.
    void entriesRegisterAndUnregister() {
        QVERIFY(cost::registerCostModel(
            cost::CostModelEntry{.key = "later",
                                 .usage = "later",
                                 .build = [](const cost::CostModelSpec& s, const ir::Graph&) {
                                     return std::make_unique<WidestGroupModel>(s.batch);
                                 }}));
        QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                 cost::registerCostModel(cost::CostModelEntry{.key = "later"}));
        QVERIFY(cost::findCostModel("later"));
        QVERIFY(cost::unregisterCostModel("later"));
        QVERIFY(!cost::findCostModel("later"));
        cost::CostModelSpec spec;
        QVERIFY_THROWS_EXCEPTION(UserError, cost::parseCostModelKind("later", spec));
    }
};

QTEST_GUILESS_MAIN(TestCliCostModelRegistry)
#include "tst_cli_cost_model_registry.moc"
