// SPDX-License-Identifier: Apache-2.0
// MetaFlow as a scheduler (engine/schedulers/metaflow.h; docs/metaflow.md "Scheduler and CLI",
// "Composition with IOS"): the seam for outcomes over a rewritten graph, the registered
// `metaflow` scheduler, the `ios` objective, cancel, and cost models for rewritten graphs.
#include "build_flavour.h"
#include "bundled_models.h"
#include "cost/analytic_cost_model.h"
#include "cost/cost_model_factory.h"
#include "eval/evaluate.h"
#include "rewrite/graph_hash.h"
#include "rewrite/verify_rewrite.h"
#include "rewrite_test_support.h"
#include "schedule/verify.h"
#include "schedulers/metaflow.h"
#include "util/error.h"

#include <QtTest>
#include <atomic>
#include <chrono>
#include <memory>

using namespace ios;
using namespace ios::testing;
using schedulers::MetaflowObjective;

namespace {

std::unique_ptr<cost::CostModel> simulated(const ir::Graph& g, const std::string& device = "V100") {
    return std::make_unique<cost::SimulatedGpuCostModel>(g, cost::loadDevice(device), 1);
}

// A cost model that prices stages like the simulated one but, like replayed measurements,
// cannot price another graph.
class NameKeyedModel final : public cost::CostModel {
public:
    explicit NameKeyedModel(const ir::Graph& g) : inner_(simulated(g)) {}
    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override {
        return inner_->stageLatencyMs(dag, stage);
    }
    std::string describe() const override { return "name-keyed test model"; }

private:
    std::unique_ptr<cost::CostModel> inner_;
};

double sequentialMs(const ir::PreparedModel& m, const cost::CostModel& cost) {
    return schedulers::schedulerByName("sequential").run(m, {}, cost, nullptr).latencyMs;
}

} // namespace

class TestMetaflowScheduler : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // forGraph of the simulated and analytic models prices the same graph bit-identically,
    // and a rewritten graph reuses the original's canonical memo.
    void forGraphPricesLikeTheOriginal() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        const ir::PreparedModel m(g);
        const ir::Graph copy = g;
        const ir::PreparedModel mc(copy);
        std::vector<std::unique_ptr<cost::CostModel>> models;
        models.push_back(simulated(g));
        models.push_back(std::make_unique<cost::AnalyticCostModel>(g));
        for (const auto& original : models) {
            const double direct = sequentialMs(m, *original);
            const double ios =
                schedulers::schedulerByName("ios-both").run(m, {}, *original, nullptr).latencyMs;
            const std::unique_ptr<cost::CostModel> other = cost::forGraph(*original, copy);
            QVERIFY(other != nullptr);
            QCOMPARE(other->describe(), original->describe());
            QCOMPARE(other->batch(), original->batch());
            QCOMPARE(sequentialMs(mc, *other), direct);
            QCOMPARE(schedulers::schedulerByName("ios-both").run(mc, {}, *other, nullptr).latencyMs,
                     ios);
            // The memo is shared: the copy's stages were all priced on the original.
            const cost::OperatorClasses a = cost::operatorClasses(*original, m.dags()[0]);
            const cost::OperatorClasses b = cost::operatorClasses(*other, mc.dags()[0]);
            QVERIFY(a.memo != nullptr);
            QCOMPARE(a.memo, b.memo);
            QCOMPARE(a.classes, b.classes);
        }
    }

    void registryListsMetaflowAfterIos() {
        const schedulers::Scheduler* mf = schedulers::findScheduler("metaflow");
        QVERIFY(mf != nullptr);
        QVERIFY(mf->label().find("MetaFlow") != std::string_view::npos);
        QVERIFY(mf->description().find("IOS-both") != std::string_view::npos);
        QVERIFY(mf->reads(schedulers::Knob::MaxGroupSize));
        QVERIFY(mf->reads(schedulers::Knob::Device));
        QVERIFY(!mf->reads(schedulers::Knob::MemoryBudget));
        const auto all = schedulers::registeredSchedulers();
        const auto at = [&](std::string_view key) {
            return std::find_if(all.begin(), all.end(),
                                [&](const auto* s) { return s->key() == key; }) -
                   all.begin();
        };
        QVERIFY(at("metaflow") > at("ios-both"));
        QVERIFY(at("metaflow") > at("ios-parallel"));
        QVERIFY(schedulers::schedulerKeyList().find("metaflow") != std::string::npos);
    }

    // The seam: the outcome refers to G*, verifies on G*'s DAGs, and every helper prices it
    // there, equal to pricing G*'s schedule directly with G*'s model.
    void outcomeOverRewrittenGraphUsesItsModel() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        const ir::PreparedModel m(g);
        const auto cost = simulated(g);
        const schedulers::Outcome out =
            schedulers::schedulerByName("metaflow").run(m, {}, *cost, nullptr);
        QVERIFY(out.rewritten != nullptr);
        const schedulers::RewrittenModel& rw = *out.rewritten;
        QVERIFY(rewrite::graphHash(rw.graph()) != rewrite::graphHash(g));
        QVERIFY(!rw.search.history.empty());
        QCOMPARE(&schedulers::scheduledModel(m, out), &rw.prepared);
        schedule::verify(rw.prepared.dags(), out.schedule);
        const double direct = eval::totalLatencyMs(rw.prepared.dags(), out.schedule, *rw.cost);
        QCOMPARE(out.latencyMs, direct);
        QCOMPARE(schedulers::outcomeLatencyMs(m.dags(), out, *cost), direct);
        const eval::Timeline t = schedulers::outcomeTimeline(m.dags(), out, *cost);
        QCOMPARE(t.latencyUs / 1000.0, direct);
        QVERIFY(out.peakBytes > 0);
        // IOS-both's DP counts on G* are not this scheduler's search: left out.
        QVERIFY(!out.stats && !out.stateSpace);
        // A memory budget is not its knob: a budget no schedule of G* meets changes nothing.
        schedulers::Params budgeted;
        budgeted.memoryBudget = 1;
        QCOMPARE(schedulers::schedulerByName("metaflow").run(m, budgeted, *cost, nullptr).schedule,
                 out.schedule);
        // An outcome of the original graph keeps using the given DAGs and model.
        const schedulers::Outcome seq =
            schedulers::schedulerByName("sequential").run(m, {}, *cost, nullptr);
        QVERIFY(seq.rewritten == nullptr);
        QCOMPARE(&schedulers::scheduledModel(m, seq), &m);
        // A model keyed by operator names cannot price G*: a clear error.
        NameKeyedModel named(g);
        try {
            schedulers::outcomeLatencyMs(m.dags(), out, named);
            QFAIL("priced a rewritten graph with a name-keyed model");
        } catch (const UserError& e) {
            QVERIFY(std::string(e.what()).find("simulated and analytic") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(
            UserError, schedulers::schedulerByName("metaflow").run(m, {}, named, nullptr));
    }

    // docs/metaflow.md "Tests": IOS-both on G* is never slower than G* run sequentially, and the
    // result's figures are G0's and G*'s.
    void metaflowNoSlowerThanSequentialOfRewritten_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("squeezenet") << "squeezenet";
        if (kFullModels) {
            QTest::newRow("inception_v3") << "inception_v3";
            QTest::newRow("nasnet_large") << "nasnet_large";
            QTest::newRow("randwire_large") << "randwire_large";
        }
    }
    void metaflowNoSlowerThanSequentialOfRewritten() {
        QFETCH(QString, model);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const ir::PreparedModel m(g);
        const auto cost = simulated(g);
        const schedulers::MetaflowResult r =
            schedulers::runMetaflow(m, {}, *cost, schedulers::metaflowPreset("paper"), nullptr);
        QVERIFY(r.then.latencyMs <= r.after.sequentialMs);
        QVERIFY(r.after.objectiveMs <= r.before.objectiveMs);
        QCOMPARE(r.before.sequentialMs, sequentialMs(m, *cost));
        QCOMPARE(r.before.mfKernels, rewrite::mfKernels(g));
        QCOMPARE(r.after.mfKernels, rewrite::mfKernels(r.rewritten->graph()));
        QVERIFY(r.before.kernels > 0 && r.after.kernels > 0);
        QVERIFY(r.before.flops > 0 && r.after.flops > 0);
        QCOMPARE(r.then.rewritten.get(), r.rewritten.get());
        const auto rows = schedulers::compositionTable(m, {}, *cost, r);
        QCOMPARE(rows.size(), size_t{2});
        QCOMPARE(rows[0].scheduler, std::string("sequential"));
        QCOMPARE(rows[0].originalMs, r.before.sequentialMs);
        QCOMPARE(rows[0].rewrittenMs, r.after.sequentialMs);
        QCOMPARE(rows[1].scheduler, std::string("ios-both"));
        QCOMPARE(rows[1].rewrittenMs, r.then.latencyMs);
        if (model == "randwire_large")
            QCOMPARE(rewrite::graphHash(r.rewritten->graph()), rewrite::graphHash(g));
    }

    // The `ios` objective: G0's cost is IOS-both's latency summed over blocks, and G* is
    // never worse under it; the figures report the sequential cost too.
    void iosObjective() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        const ir::PreparedModel m(g);
        const auto cost = simulated(g);
        schedulers::MetaflowOptions o = schedulers::metaflowPreset("paper");
        o.objective = MetaflowObjective::Ios;
        const schedulers::MetaflowResult r = schedulers::runMetaflow(m, {}, *cost, o, nullptr);
        double sum = 0;
        for (size_t b = 0; b < g.blocks.size(); ++b)
            sum +=
                schedulers::iosBlockLatencyMs(g, static_cast<int>(b), m.maxPartSize(), {}, *cost);
        QCOMPARE(r.before.objectiveMs, sum);
        const double whole =
            schedulers::schedulerByName("ios-both").run(m, {}, *cost, nullptr).latencyMs;
        QVERIFY(std::abs(sum - whole) <= 1e-9 * whole);
        QVERIFY(r.after.objectiveMs <= r.before.objectiveMs);
        QVERIFY(r.before.objectiveMs != r.before.sequentialMs);
        for (const rewrite::Substitution& s : r.rewritten->search.history)
            QVERIFY(s.costAfterMs > 0);
    }

    void deterministic() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        const ir::PreparedModel m(g);
        const auto cost = simulated(g);
        const auto a = schedulers::runMetaflow(m, {}, *cost, schedulers::metaflowPreset("paper"));
        const auto b = schedulers::runMetaflow(m, {}, *cost, schedulers::metaflowPreset("paper"));
        QCOMPARE(a.rewritten->graph(), b.rewritten->graph());
        QCOMPARE(a.then.schedule, b.then.schedule);
        QCOMPARE(a.then.latencyMs, b.then.latencyMs);
        QCOMPARE(a.rewritten->search.stats.expanded, b.rewritten->search.stats.expanded);
    }

    void cancelWithin100ms() {
        const ir::Graph g = samples::loadBundledModel(kFullModels ? "inception_v3" : "squeezenet");
        const ir::PreparedModel m(g);
        const auto cost = simulated(g);
        schedulers::SearchControl control;
        control.cancel = true;
        QVERIFY_THROWS_EXCEPTION(
            Cancelled,
            schedulers::runMetaflow(m, {}, *cost, schedulers::metaflowPreset("paper"), &control));
        // Cancelled from the progress hook while searching: the search stops at its next poll.
        schedulers::SearchControl later;
        rewrite::SearchHooks hooks;
        std::atomic<int> polls{0};
        hooks.cancelled = [&] { return ++polls > 3; };
        QVERIFY_THROWS_EXCEPTION(
            Cancelled, schedulers::runMetaflow(m, {}, *cost, schedulers::metaflowPreset("paper"),
                                               &later, hooks));
        QCOMPARE(polls.load(), 4);
    }

    // The --verify check: the log replays to G* (exactly equal outputs for R3 merges), and a
    // log that does not belong to the graph is refused.
    void checkRewrite() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        const ir::PreparedModel m(g);
        const auto cost = simulated(g);
        const auto r = schedulers::runMetaflow(m, {}, *cost, schedulers::metaflowPreset("paper"));
        const rewrite::RewriteCheck c =
            rewrite::checkRewrite(g, r.rewritten->graph(), r.rewritten->search.history);
        QVERIFY(c.maxRelError <= 1e-4 && c.maxAbsError >= 0);
        QVERIFY_THROWS_EXCEPTION(UserError, rewrite::checkRewrite(g, r.rewritten->graph(), {}));
        const rewrite::RewriteCheck same = rewrite::checkRewrite(g, g, {});
        QCOMPARE(same.maxAbsError, 0.0);
    }

    void badOptions() {
        QVERIFY_THROWS_EXCEPTION(UserError, schedulers::metaflowPreset("fast"));
        schedulers::MetaflowOptions o;
        o.search.alpha = 0.9;
        QVERIFY_THROWS_EXCEPTION(UserError, schedulers::checkMetaflowOptions(o));
        o = {};
        o.then = "nope";
        QVERIFY_THROWS_EXCEPTION(UserError, schedulers::checkMetaflowOptions(o));
        o.then = "metaflow";
        QVERIFY_THROWS_EXCEPTION(UserError, schedulers::checkMetaflowOptions(o));
        QCOMPARE(schedulers::objectiveFromName("ios"), std::optional(MetaflowObjective::Ios));
        QCOMPARE(schedulers::objectiveFromName("seq"), std::optional(MetaflowObjective::Seq));
        QVERIFY(!schedulers::objectiveFromName("IOS"));
    }
};

QTEST_GUILESS_MAIN(TestMetaflowScheduler)
#include "tst_metaflow_scheduler.moc"
