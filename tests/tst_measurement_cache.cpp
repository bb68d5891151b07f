// SPDX-License-Identifier: Apache-2.0
// Replaying a measurement cache by canonical class (engine/cost/measurement_cache.h,
// docs/formats.md "Measurement cache"): a stage the cache lacks by name takes the latency of the
// first entry of its class in file order, an entry under the stage's own name always wins, entries
// that do not resolve in the graph are left out of the classes, a stage of no measured class is
// still a UserError naming it, the model without a graph looks up names only, the index is built
// once for all threads, the factory's model (cache:FILE) replays by class, and entries are
// keyed field by field (issue 37 item 11).
#include "bundled_models.h"
#include "cost/cost_model_factory.h"
#include "cost/measurement_cache.h"
#include "ir/prepared_model.h"
#include "user_error_text.h"

#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <set>
#include <thread>

using namespace ios;

namespace {

struct OneOp {
    int block = 0;
    schedule::Stage stage;
    std::string key;
};

// A model, its one-operator stages, and three stages of one canonical class (a, b, c, in
// model order) and one of another (d).
struct Fixture {
    ir::Graph graph = samples::loadBundledModel("inception_v3");
    ir::PreparedModel model{graph};
    std::vector<OneOp> stages;
    OneOp a, b, c, d;

    Fixture() {
        const cost::StageClassIndex index(graph);
        std::map<cost::StageMemo::Key, std::vector<size_t>> byClass;
        cost::StageMemo::Key key;
        for (size_t bl = 0; bl < model.dags().size(); ++bl) {
            const ir::BlockDag& dag = model.dags()[bl];
            for (size_t i = 0; i < dag.ops.size(); ++i) {
                OneOp s{static_cast<int>(bl), {}, {}};
                s.stage.groups = {{static_cast<int>(i)}};
                s.key = cost::stageKey(dag, s.stage);
                if (!index.classKey(dag, s.stage, key))
                    throw std::logic_error("an operator of the graph has no class");
                byClass[key].push_back(stages.size());
                stages.push_back(std::move(s));
            }
        }
        for (const auto& [k, members] : byClass)
            if (members.size() >= 3 && a.key.empty()) {
                a = stages[members[0]];
                b = stages[members[1]];
                c = stages[members[2]];
            } else if (members.size() == 1 && d.key.empty()) {
                d = stages[members[0]];
            }
    }
    const ir::BlockDag& dag(const OneOp& s) const {
        return model.dags()[static_cast<size_t>(s.block)];
    }
};

cost::StageMeasurement entry(const std::string& stage, double ms) {
    return {"GPU", "inception_v3", 1, stage, ms, 10, {}};
}

} // namespace

class TestMeasurementCache : public QObject {
    Q_OBJECT

private slots:
    void theFixtureHasAClassOfThreeAndAnotherClass() {
        const Fixture f;
        QVERIFY(!f.a.key.empty() && !f.d.key.empty());
        QVERIFY(f.a.key != f.b.key && f.b.key != f.c.key);
    }

    void aStageMissingByNameTakesItsClasssLatency() {
        const Fixture f;
        cost::MeasurementCache cache;
        cache.add(entry(f.a.key, 1.5));
        const cost::CachedCostModel replay(cache, f.graph, 1);
        QCOMPARE(replay.stageLatencyMs(f.dag(f.a), f.a.stage), 1.5);
        QCOMPARE(replay.stageLatencyMs(f.dag(f.c), f.c.stage), 1.5);
        // The other class was never measured: a UserError naming the stage.
        const QString error =
            testing::userErrorOf([&] { replay.stageLatencyMs(f.dag(f.d), f.d.stage); });
        QVERIFY2(error.contains(QString::fromStdString("stage " + f.d.key + " was not measured")),
                 qPrintable(error));
        QCOMPARE(replay.describe(), std::string("measured on GPU, batch 1 (cache )"));
    }

    void withoutAGraphNamesAloneAreLookedUp() {
        const Fixture f;
        cost::MeasurementCache cache;
        cache.add(entry(f.a.key, 1.5));
        const cost::CachedCostModel replay(cache, f.graph.name, 1, {}, "c.json");
        QCOMPARE(replay.stageLatencyMs(f.dag(f.a), f.a.stage), 1.5);
        const QString error =
            testing::userErrorOf([&] { replay.stageLatencyMs(f.dag(f.b), f.b.stage); });
        QVERIFY2(error.contains(QString::fromStdString(f.b.key)) && error.contains("c.json"),
                 qPrintable(error));
    }

    void anEntryUnderTheStagesNameWinsAndTheFirstOfAClassAnswersTheRest() {
        const Fixture f;
        cost::MeasurementCache cache;
        cache.add(entry(f.b.key, 2.5)); // an --every-stage cache: several entries of one class
        cache.add(entry(f.a.key, 1.5));
        const cost::CachedCostModel replay(cache, f.graph, 1);
        QCOMPARE(replay.stageLatencyMs(f.dag(f.a), f.a.stage), 1.5); // its own, not b's
        QCOMPARE(replay.stageLatencyMs(f.dag(f.b), f.b.stage), 2.5);
        QCOMPARE(replay.stageLatencyMs(f.dag(f.c), f.c.stage), 2.5); // b is first in the file

        cost::MeasurementCache swapped;
        swapped.add(entry(f.a.key, 1.5));
        swapped.add(entry(f.b.key, 2.5));
        const cost::CachedCostModel other(swapped, f.graph, 1);
        QCOMPARE(other.stageLatencyMs(f.dag(f.c), f.c.stage), 1.5);
        QCOMPARE(other.stageLatencyMs(f.dag(f.b), f.b.stage), 2.5);
    }

    void entriesThatDoNotResolveAreLeftOutOfTheClasses() {
        const Fixture f;
        cost::MeasurementCache cache;
        cache.add(entry("parallel:no_such_operator", 9));
        cache.add(entry("parallel:" + f.a.key.substr(9) + "," + f.a.key.substr(9), 9)); // twice
        cache.add(entry("merge:" + f.a.key.substr(9) + "|" + f.b.key.substr(9), 9));
        cache.add(entry("sideways:" + f.a.key.substr(9), 9));
        cache.add({"GPU", "another_model", 1, f.b.key, 7, 10, {}}); // another model's
        cache.add({"Other GPU", "inception_v3", 1, f.b.key, 8, 10, {}});
        cache.add({"GPU", "inception_v3", 2, f.b.key, 6, 10, {}}); // another batch's
        cache.add(entry(f.a.key, 1.5));
        const cost::CachedCostModel replay(cache, f.graph, 1, "GPU");
        QCOMPARE(replay.stageLatencyMs(f.dag(f.c), f.c.stage), 1.5);
        QCOMPARE(replay.stageLatencyMs(f.dag(f.b), f.b.stage), 1.5);
        // They still answer their own names.
        QCOMPARE(*cache.find("GPU", "inception_v3", 1, "parallel:no_such_operator"), 9.0);
    }

    void theClassesAreBuiltOnceForAllThreads() {
        const Fixture f;
        cost::MeasurementCache cache;
        // Every class measured through its first member, with a latency of its own.
        std::map<std::string, double> expected;
        {
            const cost::StageClassIndex index(f.graph);
            std::map<cost::StageMemo::Key, double> byClass;
            cost::StageMemo::Key key;
            for (const OneOp& s : f.stages) {
                index.classKey(s.key, key);
                const auto [it, added] =
                    byClass.emplace(key, 0.001 * static_cast<double>(byClass.size() + 1));
                if (added)
                    cache.add(entry(s.key, it->second));
                expected[s.key] = it->second;
            }
        }
        QVERIFY(cache.entries().size() < f.stages.size());
        const cost::CachedCostModel replay(cache, f.graph, 1);
        constexpr int kThreads = 4;
        std::vector<std::vector<double>> got(kThreads);
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                for (size_t i = 0; i < f.stages.size(); ++i) {
                    // Each thread in another order: the first miss comes from any of them.
                    const OneOp& s =
                        f.stages[(i * 7 + static_cast<size_t>(t) * 13) % f.stages.size()];
                    got[static_cast<size_t>(t)].push_back(replay.stageLatencyMs(f.dag(s), s.stage));
                }
            });
        for (std::thread& t : threads)
            t.join();
        for (int t = 0; t < kThreads; ++t)
            for (size_t i = 0; i < f.stages.size(); ++i) {
                const OneOp& s = f.stages[(i * 7 + static_cast<size_t>(t) * 13) % f.stages.size()];
                QCOMPARE(got[static_cast<size_t>(t)][i], expected.at(s.key));
            }
    }

    void theFactorysCacheModelReplaysByClass() {
        const Fixture f;
        QTemporaryDir dir;
        const std::string file = dir.filePath("compact.json").toStdString();
        cost::MeasurementCache cache;
        cache.add(entry(f.a.key, 1.5));
        cache.save(file);
        cost::CostModelSpec spec;
        cost::parseCostModelKind("cache:" + file, spec);
        const std::unique_ptr<cost::CostModel> replay = cost::makeCostModel(spec, f.graph);
        QCOMPARE(replay->stageLatencyMs(f.dag(f.b), f.b.stage), 1.5);
        QCOMPARE(replay->describe(), "measured on GPU, batch 1 (cache " + file + ")");
    }

    // Issue 37 item 11: entries are keyed field by field. Device "a\x1fb" with model
    // "squeezenet" and device "a" with model "b\x1fsqueezenet" spelled one joined key: the
    // second replaced the first, and the cache then held nothing for squeezenet.
    void keysThatJoinAlikeAreDifferentEntries() {
        const std::string sep(1, '\x1f');
        cost::MeasurementCache cache;
        cache.add({"a" + sep + "b", "squeezenet", 1, "parallel:x", 1.0, 3, {}});
        cache.add({"a", "b" + sep + "squeezenet", 1, "parallel:x", 2.0, 3, {}});
        cache.add({"a", "b", 1, sep + "squeezenet" + sep + "1" + sep + "parallel:x", 4.0, 3, {}});
        QCOMPARE(cache.entries().size(), size_t{3});
        // Read back from its own text: the same three entries, each under its own key.
        const cost::MeasurementCache read = cost::MeasurementCache::parse(cache.text(), "c.json");
        QCOMPARE(read.entries().size(), size_t{3});
        QCOMPARE(read.find("a" + sep + "b", "squeezenet", 1, "parallel:x"), std::optional(1.0));
        QCOMPARE(read.find("a", "b" + sep + "squeezenet", 1, "parallel:x"), std::optional(2.0));
        QCOMPARE(read.find("a", "b", 1, sep + "squeezenet" + sep + "1" + sep + "parallel:x"),
                 std::optional(4.0));
        QCOMPARE(read.find("a", "b", 1, "parallel:x"), std::nullopt);
        QCOMPARE(read.devices("squeezenet", 1), std::vector<std::string>{"a" + sep + "b"});
        // A second add with equal fields still replaces.
        cache.add({"a", "b" + sep + "squeezenet", 1, "parallel:x", 2.5, 4, {}});
        QCOMPARE(cache.entries().size(), size_t{3});
        QCOMPARE(cache.find("a", "b" + sep + "squeezenet", 1, "parallel:x"), std::optional(2.5));
        QCOMPARE(cache.find("a" + sep + "b", "squeezenet", 1, "parallel:x"), std::optional(1.0));
    }

    // Operator names holding the key's separators: "a,b" then "c" is not "a" then "b,c".
    void stageKeysOfNamesWithSeparatorsAreDistinct() {
        const Fixture f;
        ir::BlockDag dag = f.dag(f.a);
        QVERIFY(dag.ops.size() >= 3);
        std::vector<ir::Node> named(3);
        const char* names[] = {"a,b", "c|d", "e\\"};
        for (size_t i = 0; i < 3; ++i) {
            named[i] = *dag.ops[i];
            named[i].name = names[i];
            dag.ops[i] = &named[i];
        }
        const std::vector<ir::BlockDag> dags{dag};
        const cost::OperatorPlaces places = cost::operatorPlaces(dags);
        std::vector<std::string> keys;
        for (const std::vector<schedule::Group>& groups :
             {std::vector<schedule::Group>{{0}, {1}}, {{0, 1}}, {{0}, {1}, {2}}, {{2, 1}}}) {
            schedule::Stage stage;
            stage.groups = groups;
            keys.push_back(cost::stageKey(dag, stage));
            std::string why;
            const auto back = cost::resolveStageKey(keys.back(), places, dags, "m", why);
            QVERIFY2(back.has_value(), why.c_str());
            QCOMPARE(back->stage.groups, groups); // read back to the same stage
        }
        QCOMPARE(keys[0], std::string("parallel:a\\,b|c\\|d"));
        QCOMPARE(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size());
    }
};

QTEST_GUILESS_MAIN(TestMeasurementCache)
#include "tst_measurement_cache.moc"
