// SPDX-License-Identifier: Apache-2.0
// The scheduler registry (schedulers/scheduler.h): the built-ins in their order, keys and
// aliases, errors naming the valid keys, run-time registration, and each built-in's outcome
// equal to the function it wraps.
#include "bundled_models.h"
#include "cost/simulated_gpu_cost_model.h"
#include "eval/evaluate.h"
#include "schedule/verify.h"
#include "schedulers/baselines.h"
#include "schedulers/ios_dp.h"
#include "schedulers/scheduler.h"
#include "throwaway_scheduler.h"
#include "util/error.h"

#include <QTest>

using namespace ios;

namespace {

std::vector<std::string> keys() {
    std::vector<std::string> out;
    for (const schedulers::Scheduler* s : schedulers::registeredSchedulers())
        out.emplace_back(s->key());
    return out;
}

} // namespace

class TestSchedulerRegistry : public QObject {
    Q_OBJECT

private slots:
    void builtinsInOrder() {
        QVERIFY(keys() == (std::vector<std::string>{
                              "sequential", "greedy", "ios-merge", "ios-parallel", "ios-both",
                              "metaflow", "raf-wavefront", "raf-asap", "raf-ios", "serenity"}));
        QCOMPARE(schedulers::schedulerKeyList(),
                 std::string("sequential, greedy, ios-merge, ios-parallel, ios-both, metaflow, "
                             "raf-wavefront, raf-asap, raf-ios, serenity"));
        for (const schedulers::Scheduler* s : schedulers::registeredSchedulers()) {
            QVERIFY(!s->label().empty());
            QVERIFY(!s->description().empty());
            QVERIFY(s->reads(schedulers::Knob::Batch));
            QVERIFY(s->reads(schedulers::Knob::Device));
        }
    }

    void aliases_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("key");
        QTest::newRow("both") << "both"
                              << "ios-both";
        QTest::newRow("merge") << "merge"
                               << "ios-merge";
        QTest::newRow("parallel") << "parallel"
                                  << "ios-parallel";
        QTest::newRow("key") << "ios-both"
                             << "ios-both";
        QTest::newRow("sequential") << "sequential"
                                    << "sequential";
    }
    void aliases() {
        QFETCH(QString, name);
        QFETCH(QString, key);
        QCOMPARE(QString::fromUtf8(schedulers::schedulerByName(name.toStdString()).key().data()),
                 key);
    }

    void knobs() {
        using schedulers::Knob;
        QVERIFY(!schedulers::schedulerByName("sequential").reads(Knob::MaxGroupSize));
        QVERIFY(!schedulers::schedulerByName("ios-merge").reads(Knob::MaxGroupSize));
        QVERIFY(schedulers::schedulerByName("ios-merge").reads(Knob::MaxPartSize));
        QVERIFY(schedulers::schedulerByName("ios-both").reads(Knob::Endings));
        for (Knob k : schedulers::kAllKnobs) {
            QVERIFY(!schedulers::knobKey(k).empty());
            QVERIFY(!schedulers::knobDescription(k).empty());
        }
    }

    void unknownNameListsKeys() {
        QVERIFY(schedulers::findScheduler("nope") == nullptr);
        try {
            schedulers::schedulerByName("nope");
            QFAIL("no error");
        } catch (const UserError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("'nope'") != std::string::npos, e.what());
            QVERIFY2(what.find("ios-both") != std::string::npos, e.what());
        }
    }

    void registerAtRunTime() {
        {
            const testing::ThrowawayRegistration reg;
            QCOMPARE(keys().back(), std::string(testing::kThrowawayKey));
            QVERIFY(schedulers::findScheduler("test-alias") != nullptr);
            // A taken key or alias is refused.
            QVERIFY_THROWS_EXCEPTION(
                std::logic_error,
                schedulers::registerScheduler(std::make_unique<testing::ThrowawayScheduler>()));
            const ir::Graph g = samples::loadBundledModel("squeezenet");
            const ir::PreparedModel model(g);
            const cost::SimulatedGpuCostModel cost(g, *cost::findBundledDevice("V100"));
            const auto out =
                schedulers::schedulerByName(testing::kThrowawayKey).run(model, {}, cost, nullptr);
            schedule::verify(model.dags(), out.schedule);
        }
        QCOMPARE(keys().size(), size_t{10});
        QVERIFY(!schedulers::unregisterScheduler(testing::kThrowawayKey));
    }

    // Each built-in gives what the function it wraps gives, on a prepared model.
    void builtinsWrapTheEngine() {
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const ir::PreparedModel model(g);
        const cost::SimulatedGpuCostModel cost(g, *cost::findBundledDevice("V100"));
        const schedulers::Params params;
        const auto seq =
            schedulers::schedulerByName("sequential").run(model, params, cost, nullptr);
        QVERIFY(seq.schedule == schedulers::sequential(model.dags()));
        QCOMPARE(seq.latencyMs, eval::totalLatencyMs(model.dags(), seq.schedule, cost));
        QVERIFY(!seq.stats);
        const auto gr = schedulers::schedulerByName("greedy").run(model, params, cost, nullptr);
        QVERIFY(gr.schedule == schedulers::greedy(model.dags()));
        for (auto [key, strategy] : {std::pair{"ios-merge", schedulers::Strategy::Merge},
                                     {"ios-parallel", schedulers::Strategy::Parallel},
                                     {"ios-both", schedulers::Strategy::Both}}) {
            schedulers::Options o;
            o.strategy = strategy;
            const auto direct = schedulers::optimize(model, o, cost);
            const auto out = schedulers::schedulerByName(key).run(model, params, cost, nullptr);
            QVERIFY(out.schedule == direct.schedule);
            QCOMPARE(out.latencyMs, direct.latencyMs);
            QVERIFY(out.stats);
            QCOMPARE(out.stats->transitions, direct.stats.transitions);
        }
    }

    void cancelledBeforeStart() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        const ir::PreparedModel model(g);
        const cost::SimulatedGpuCostModel cost(g, *cost::findBundledDevice("V100"));
        schedulers::SearchControl control;
        control.cancel = true;
        for (const schedulers::Scheduler* s : schedulers::registeredSchedulers())
            QVERIFY_THROWS_EXCEPTION(Cancelled, s->run(model, {}, cost, &control));
    }
};

QTEST_GUILESS_MAIN(TestSchedulerRegistry)
#include "tst_scheduler_registry.moc"
