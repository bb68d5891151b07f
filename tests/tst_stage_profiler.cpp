// SPDX-License-Identifier: Apache-2.0
// Stage profiling at scale on the mock backend (profiling/stage_profiler.h, docs/gpu.md
// "Stage profiling at scale"): the stages listed are exactly those the measured search asks
// for, stages that share a canonical key launch the same kernels, many stages timed in one
// graph time as each does alone, the replay rule, the compact cache (one entry per class,
// replayed by class bit for bit as the cache of every stage), the journal (resume, truncated
// line, malformed files, a class known by another member) and progress.
#include "bundled_models.h"
#include "cost/device_profile.h"
#include "cost/measurement_cache.h"
#include "cost/simulated_gpu_cost_model.h"
#include "executor.h"
#include "measured_cost_model.h"
#include "mock_backend.h"
#include "schedulers/scheduler.h"
#include "stage_enumeration.h"
#include "stage_journal.h"
#include "stage_profiler.h"
#include "user_error_text.h"

#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <fstream>
#include <set>
#include <sstream>

using namespace ios;
using namespace ios::profiling;

namespace {

schedulers::Params searchParams(int threads = 1) {
    schedulers::Params p; // r 3, s 8
    p.threads = threads;
    return p;
}

StageEnumeration enumerate(const ir::PreparedModel& model, int threads = 1) {
    return enumerateStages(model, {&schedulers::schedulerByName("ios-both")}, searchParams(threads),
                           1);
}

std::string readAll(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream s(text);
    for (std::string line; std::getline(s, line);)
        out.push_back(line);
    return out;
}

// What decides a kernel's time on any device: its kind and its work.
std::vector<std::pair<std::string, double>> kernelShape(Executor& ex, const ir::BlockDag& dag,
                                                        const schedule::Stage& stage) {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& group : ex.stageKernels(dag, stage)) {
        for (const Kernel& k : group)
            out.emplace_back(kernelKindName(k), kernelFlops(k));
        out.emplace_back("|", 0);
    }
    return out;
}

bool close(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

// A profiled model: the graph, its DAGs, the stages met.
struct Profiled {
    ir::Graph graph;
    ir::PreparedModel model;
    StageEnumeration met;
    explicit Profiled(const std::string& name)
        : graph(samples::loadBundledModel(name)), model(graph), met(enumerate(model)) {}
};

// The met stages of the classes of `measured`'s stages (the stages a cache holding them
// gives a latency).
size_t membersOfClasses(const Profiled& p, const std::vector<cost::StageMeasurement>& measured) {
    const StageClasses classes = canonicalClasses(p.model, p.met.stages, false);
    std::set<std::string> keys;
    for (const cost::StageMeasurement& m : measured)
        keys.insert(m.stage);
    size_t n = 0;
    for (const auto& members : classes.members)
        for (size_t i : members)
            if (keys.count(p.met.stages[i].key)) {
                n += members.size();
                break;
            }
    return n;
}

// The first `count` of a journal's lines, read back.
std::vector<cost::StageMeasurement> readJournalLines(const std::vector<std::string>& text,
                                                     size_t count) {
    QTemporaryDir dir;
    const std::string file = dir.filePath("j.partial").toStdString();
    {
        std::ofstream out(file, std::ios::binary);
        for (size_t i = 0; i < count; ++i)
            out << text[i] << "\n";
    }
    std::vector<std::string> warnings;
    return readJournal(file, warnings);
}

ProfileResult profile(const Profiled& p, const std::string& file, ProfileOptions options) {
    MockBackend backend(MockOptions::timingOnly("Mock GPU"));
    Executor ex(p.graph, backend, 1);
    return profileStages(ex, p.graph.name, p.model, p.met.stages, file, options);
}

} // namespace

class TestStageProfiler : public QObject {
    Q_OBJECT

private slots:
    void theStagesListedAreThoseTheMeasuredSearchAsksFor_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("squeezenet") << "squeezenet";
        QTest::newRow("inception_v3") << "inception_v3";
    }
    void theStagesListedAreThoseTheMeasuredSearchAsksFor() {
        QFETCH(QString, model);
        const Profiled p(model.toStdString());
        std::set<std::string> listed;
        for (const MetStage& m : p.met.stages)
            QVERIFY2(listed.insert(m.key).second, m.key.c_str()); // distinct
        QVERIFY(p.met.calls >= p.met.stages.size());

        MockBackend backend(MockOptions::timingOnly("Mock GPU"));
        Executor ex(p.graph, backend, 1);
        cost::MeasurementCache cache;
        const MeasuredCostModel measured(ex, p.graph.name, {0, 1, 1, true}, &cache);
        schedulers::schedulerByName("ios-both").run(p.model, searchParams(), measured, nullptr);
        std::set<std::string> asked;
        for (const cost::StageMeasurement& m : cache.entries())
            asked.insert(m.stage);
        QCOMPARE(asked.size(), listed.size());
        QVERIFY(asked == listed);
    }

    // Greedy's stages may span DP parts: NasNet-A's do, so a cache of the DP's stages alone
    // cannot price greedy's schedule; listing greedy after the DP adds them, after the DP's.
    void baselineStagesAreListedAfterTheSearchesStages() {
        const ir::Graph g = samples::loadBundledModel("nasnet_large");
        const ir::PreparedModel model(g);
        const schedulers::Scheduler& greedy = schedulers::schedulerByName("greedy");
        const StageEnumeration dp = enumerate(model);
        const StageEnumeration both = enumerateStages(
            model, {&schedulers::schedulerByName("ios-both"), &greedy}, searchParams(), 1);
        std::set<std::string> dpKeys, bothKeys;
        for (const MetStage& m : dp.stages)
            dpKeys.insert(m.key);
        for (size_t i = 0; i < both.stages.size(); ++i) {
            bothKeys.insert(both.stages[i].key);
            if (i < dp.stages.size())
                QCOMPARE(both.stages[i].key, dp.stages[i].key); // the DP's first, same order
        }
        const schedulers::Outcome g1 =
            greedy.run(model, searchParams(),
                       cost::SimulatedGpuCostModel(g, cost::loadDevice("H100")), nullptr);
        size_t missing = 0;
        for (size_t b = 0; b < g1.schedule.blocks.size(); ++b)
            for (const schedule::Stage& st : g1.schedule.blocks[b].stages) {
                const std::string key = cost::stageKey(model.dags()[b], st);
                missing += dpKeys.count(key) == 0;
                QVERIFY2(bothKeys.count(key) == 1, key.c_str());
            }
        QVERIFY(missing > 0);
        QCOMPARE(both.stages.size(), dp.stages.size() + missing);
    }

    void theOrderDoesNotDependOnThreads() {
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const ir::PreparedModel model(g);
        const StageEnumeration one = enumerate(model, 1);
        const StageEnumeration four = enumerate(model, 4);
        QCOMPARE(four.stages.size(), one.stages.size());
        for (size_t i = 0; i < one.stages.size(); ++i) {
            QCOMPARE(four.stages[i].key, one.stages[i].key);
            QCOMPARE(four.stages[i].block, one.stages[i].block);
        }
        for (size_t i = 1; i < one.stages.size(); ++i)
            QVERIFY(one.stages[i - 1].block <= one.stages[i].block);
    }

    void stagesOfOneCanonicalClassLaunchTheSameKernels() {
        const Profiled p("inception_v3");
        const StageClasses classes = canonicalClasses(p.model, p.met.stages, false);
        QVERIFY2(classes.members.size() < p.met.stages.size(),
                 qPrintable(QString("%1 classes").arg(classes.members.size())));
        MockBackend backend(MockOptions::timingOnly("Mock GPU"));
        Executor ex(p.graph, backend, 1);
        size_t checked = 0;
        for (const std::vector<size_t>& members : classes.members) {
            const MetStage& first = p.met.stages[members.front()];
            const auto& dags = p.model.dags();
            const auto shape = kernelShape(ex, dags[static_cast<size_t>(first.block)], first.stage);
            for (size_t i : members) {
                QCOMPARE(classes.classOf[i], classes.classOf[members.front()]);
                const MetStage& m = p.met.stages[i];
                QVERIFY2(kernelShape(ex, dags[static_cast<size_t>(m.block)], m.stage) == shape,
                         qPrintable(QString::fromStdString(m.key + " vs " + first.key)));
                ++checked;
            }
        }
        QCOMPARE(checked, p.met.stages.size());
        const StageClasses every = canonicalClasses(p.model, p.met.stages, true);
        QCOMPARE(every.members.size(), p.met.stages.size());
    }

    void batchedTimesEqualEachStageAlone_data() {
        QTest::addColumn<int>("perGraph");
        QTest::newRow("one stage per graph") << 1;
        QTest::newRow("K = 3") << 3;
        QTest::newRow("K = 7") << 7;
        QTest::newRow("K > stages") << 100000;
    }
    void batchedTimesEqualEachStageAlone() {
        QFETCH(int, perGraph);
        const Profiled p("demo_inception_module");
        const auto& dags = p.model.dags();
        bool merged = false, parallel = false;
        std::vector<StageRef> all;
        for (const MetStage& m : p.met.stages) {
            all.push_back({&dags[static_cast<size_t>(m.block)], &m.stage});
            merged |= m.stage.kind == schedule::StageKind::Merge && m.stage.operatorCount() > 1;
            parallel |= m.stage.groups.size() > 1;
        }
        QVERIFY(merged && parallel); // both kinds are covered

        MockBackend alone(MockOptions::timingOnly("Mock GPU"));
        Executor exAlone(p.graph, alone, 1);
        MockBackend batched(MockOptions::timingOnly("Mock GPU"));
        Executor ex(p.graph, batched, 1);
        const BatchTiming timing;
        for (size_t from = 0; from < all.size(); from += static_cast<size_t>(perGraph)) {
            const std::vector<StageRef> chunk(
                all.begin() + static_cast<std::ptrdiff_t>(from),
                all.begin() + static_cast<std::ptrdiff_t>(
                                  std::min(all.size(), from + static_cast<size_t>(perGraph))));
            const int launchedBefore = batched.graphsLaunched();
            const BatchedTimes t = ex.timeStages(chunk, timing);
            QCOMPARE(t.medianMs.size(), chunk.size());
            QCOMPARE(batched.graphsLaunched() - launchedBefore, t.replays);
            QCOMPARE(t.replays, timing.warmup + t.repeats);
            for (size_t i = 0; i < chunk.size(); ++i) {
                const double single =
                    median(exAlone.timeStage(*chunk[i].dag, *chunk[i].stage, {1, 1, 1, true}));
                QVERIFY2(close(t.medianMs[i], single),
                         qPrintable(QString("%1: %2 batched, %3 alone")
                                        .arg(QString::fromStdString(
                                            cost::stageKey(*chunk[i].dag, *chunk[i].stage)))
                                        .arg(t.medianMs[i])
                                        .arg(single)));
            }
        }
        QCOMPARE(batched.graphsLive(), 0); // every batch's graph was freed
        QCOMPARE(batched.hazardCount(), 0);
    }

    void replaysFollowTheStatedRule() {
        const BatchTiming t; // W 2, R = clamp(ceil(20 ms / span), 10, 50)
        QCOMPARE(t.warmup, 2);
        QCOMPARE(t.repeatsFor(5.0), 10);  // ceil(4) below the floor
        QCOMPARE(t.repeatsFor(1.0), 20);  // 20 ms / 1 ms
        QCOMPARE(t.repeatsFor(0.75), 27); // ceil(26.7)
        QCOMPARE(t.repeatsFor(0.1), 50);  // capped
        QCOMPARE(t.repeatsFor(0.0), 50);  // below the events' resolution
        const Profiled p("demo_inception_module");
        MockBackend backend(MockOptions::timingOnly("Mock GPU"));
        Executor ex(p.graph, backend, 1);
        const MetStage& m = p.met.stages.front();
        const StageRef one{&p.model.dags()[static_cast<size_t>(m.block)], &m.stage};
        const BatchedTimes times = ex.timeStages({one}, t);
        QCOMPARE(times.repeats, t.repeatsFor(times.medianMs.front()));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ex.timeStages({}, t));
    }

    void sharingMeasuresAndWritesOnePerClass() {
        const Profiled p("squeezenet");
        QTemporaryDir dir;
        const std::string shared = dir.filePath("shared.json").toStdString();
        const std::string every = dir.filePath("every.json").toStdString();
        const ProfileResult r = profile(p, shared, {});
        ProfileOptions all;
        all.everyStage = true;
        const ProfileResult e = profile(p, every, all);
        QVERIFY(r.complete && e.complete);
        QCOMPARE(r.stagesMet, p.met.stages.size());
        QCOMPARE(r.measured, r.classes);
        QVERIFY(r.classes < r.stagesMet);
        QCOMPARE(r.shared, r.stagesMet - r.measured);
        QCOMPARE(e.measured, e.stagesMet);
        QCOMPARE(e.shared, size_t{0});
        QVERIFY(!QFile::exists(QString::fromStdString(journalPath(shared).string())));
        // The compact cache holds the representatives, in enumeration order; --every-stage
        // every met stage.
        const cost::MeasurementCache a = cost::MeasurementCache::load(shared);
        const cost::MeasurementCache b = cost::MeasurementCache::load(every);
        const StageClasses classes = canonicalClasses(p.model, p.met.stages, false);
        QCOMPARE(a.entries().size(), classes.members.size());
        QCOMPARE(r.written, classes.members.size());
        QCOMPARE(r.cacheEntries, classes.members.size());
        std::vector<size_t> representatives;
        for (const auto& members : classes.members)
            representatives.push_back(members.front());
        std::sort(representatives.begin(), representatives.end());
        for (size_t i = 0; i < representatives.size(); ++i)
            QCOMPARE(a.entries()[i].stage, p.met.stages[representatives[i]].key);
        QCOMPARE(b.entries().size(), p.met.stages.size());
        QCOMPARE(e.written, p.met.stages.size());
        // Replayed by class, every met stage gets what measuring it alone gives on the mock.
        const cost::CachedCostModel replay(a, p.graph, 1);
        for (const MetStage& m : p.met.stages) {
            const auto y = b.find("Mock GPU", p.graph.name, 1, m.key);
            QVERIFY(y);
            const double x =
                replay.stageLatencyMs(p.model.dags()[static_cast<size_t>(m.block)], m.stage);
            QVERIFY2(close(x, *y), m.key.c_str());
        }
        // A second run finds every class in the cache and measures nothing.
        const ProfileResult again = profile(p, shared, {});
        QCOMPARE(again.fromCache, p.met.stages.size());
        QCOMPARE(again.measured, size_t{0});
        QCOMPARE(again.graphs, size_t{0});
        QCOMPARE(again.written, size_t{0});
    }

    // What the cache held before compact caches (every met stage under its name, with its
    // class's latency) and the compact cache give every stage the same latency, bit for bit,
    // and the same schedule.
    void aCompactCacheReplaysLikeTheFullCache_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("inception_v3") << "inception_v3";
        QTest::newRow("nasnet_large") << "nasnet_large";
    }
    void aCompactCacheReplaysLikeTheFullCache() {
        QFETCH(QString, model);
        const Profiled p(model.toStdString());
        QTemporaryDir dir;
        const std::string file = dir.filePath("compact.json").toStdString();
        const ProfileResult r = profile(p, file, {});
        QVERIFY(r.complete);
        const cost::MeasurementCache compact = cost::MeasurementCache::load(file);
        QCOMPARE(compact.entries().size(), r.classes);
        const StageClasses classes = canonicalClasses(p.model, p.met.stages, false);
        cost::MeasurementCache full;
        for (size_t i = 0; i < p.met.stages.size(); ++i) {
            const std::string& rep = p.met.stages[classes.members[classes.classOf[i]].front()].key;
            full.add({"Mock GPU", p.graph.name, 1, p.met.stages[i].key,
                      *compact.find("Mock GPU", p.graph.name, 1, rep), 10, {}});
        }
        QVERIFY(full.entries().size() > compact.entries().size());
        const cost::CachedCostModel byClass(compact, p.graph, 1);
        const cost::CachedCostModel byName(full, p.graph.name, 1);
        for (const MetStage& m : p.met.stages) {
            const ir::BlockDag& dag = p.model.dags()[static_cast<size_t>(m.block)];
            if (byClass.stageLatencyMs(dag, m.stage) != byName.stageLatencyMs(dag, m.stage))
                QFAIL(m.key.c_str());
        }
        const schedulers::Scheduler& ios = schedulers::schedulerByName("ios-both");
        const schedulers::Outcome a = ios.run(p.model, searchParams(2), byClass, nullptr);
        const schedulers::Outcome b = ios.run(p.model, searchParams(1), byName, nullptr);
        QVERIFY(a.latencyMs == b.latencyMs);
        QVERIFY(a.schedule == b.schedule);
    }

    // A class is found in the cache by any of its members, even one this search does not meet
    // (a compact cache written for other strategies), and is not measured again.
    void aClassKnownByAnotherMemberIsNotMeasuredAgain() {
        const Profiled p("inception_v3");
        QTemporaryDir dir;
        const std::string first = dir.filePath("first.json").toStdString();
        const std::string moved = dir.filePath("moved.json").toStdString();
        profile(p, first, {});
        const StageClasses classes = canonicalClasses(p.model, p.met.stages, false);
        // Each class stored under its last member instead of its representative.
        const cost::MeasurementCache compact = cost::MeasurementCache::load(first);
        cost::MeasurementCache other;
        size_t movedClasses = 0;
        for (const auto& members : classes.members) {
            const std::string& rep = p.met.stages[members.front()].key;
            const std::string& last = p.met.stages[members.back()].key;
            movedClasses += members.size() > 1;
            other.add({"Mock GPU", p.graph.name, 1, last,
                       *compact.find("Mock GPU", p.graph.name, 1, rep), 10, {}});
        }
        QVERIFY(movedClasses > 0);
        other.save(moved);
        const ProfileResult r = profile(p, moved, {});
        QVERIFY(r.complete);
        QCOMPARE(r.measured, size_t{0});
        QCOMPARE(r.fromCache, p.met.stages.size());
        QCOMPARE(r.written, size_t{0});
    }

    void aCutRunResumesWithExactlyTheRest() {
        const Profiled p("squeezenet");
        QTemporaryDir dir;
        const std::string uncut = dir.filePath("uncut.json").toStdString();
        const std::string cut = dir.filePath("cut.json").toStdString();
        ProfileOptions o;
        o.stagesPerGraph = 8;
        const ProfileResult whole = profile(p, uncut, o);
        QVERIFY(whole.complete && whole.graphs > 4);

        std::atomic<bool> cancel{false};
        ProfileOptions first = o;
        first.cancel = &cancel;
        first.progress = [&](const ProfileProgress& pr) {
            if (pr.graphsDone == 3)
                cancel = true;
        };
        const ProfileResult a = profile(p, cut, first);
        QVERIFY(!a.complete);
        QCOMPARE(a.graphs, size_t{3});
        QCOMPARE(a.measured, size_t{24});
        QVERIFY(!QFile::exists(QString::fromStdString(cut)));
        const std::string journal = journalPath(cut).string();
        std::vector<std::string> warnings;
        const std::vector<cost::StageMeasurement> journaled = readJournal(journal, warnings);
        QCOMPARE(journaled.size(), a.measured); // the representatives alone

        const ProfileResult b = profile(p, cut, o);
        QVERIFY(b.complete);
        QCOMPARE(b.fromCache, membersOfClasses(p, journaled));
        QCOMPARE(b.measured, whole.measured - a.measured);
        QCOMPARE(b.graphs, whole.graphs - 3);
        QCOMPARE(readAll(cut), readAll(uncut)); // byte for byte
        QVERIFY(!QFile::exists(QString::fromStdString(journal)));
    }

    void maxGraphsStopsAndKeepsTheJournal() {
        const Profiled p("squeezenet");
        QTemporaryDir dir;
        const std::string file = dir.filePath("c.json").toStdString();
        ProfileOptions o;
        o.stagesPerGraph = 16;
        o.maxGraphs = 2;
        const ProfileResult a = profile(p, file, o);
        QCOMPARE(a.graphs, size_t{2});
        QVERIFY(!a.complete);
        o.maxGraphs = 0;
        const ProfileResult b = profile(p, file, o);
        QVERIFY(b.complete);
        QCOMPARE(a.measured + b.measured, b.classes);
    }

    void aTruncatedLastJournalLineIsIgnored() {
        const Profiled p("squeezenet");
        QTemporaryDir dir;
        const std::string uncut = dir.filePath("uncut.json").toStdString();
        const std::string file = dir.filePath("c.json").toStdString();
        ProfileOptions o;
        o.stagesPerGraph = 8;
        profile(p, uncut, o);
        ProfileOptions cut = o;
        cut.maxGraphs = 2;
        profile(p, file, cut);
        const std::string journal = journalPath(file).string();
        const std::vector<std::string> kept = lines(readAll(journal));
        { // the last line cut in half, as a kill during the write leaves it
            std::ofstream out(journal, std::ios::binary | std::ios::trunc);
            for (size_t i = 0; i + 1 < kept.size(); ++i)
                out << kept[i] << "\n";
            out << kept.back().substr(0, kept.back().size() / 2);
        }
        std::vector<std::string> warnings;
        QCOMPARE(readJournal(journal, warnings).size(), kept.size() - 1);
        QCOMPARE(warnings.size(), size_t{1});
        QVERIFY(warnings.front().find("line " + std::to_string(kept.size())) != std::string::npos);
        const ProfileResult r = profile(p, file, o);
        QVERIFY(r.complete);
        QCOMPARE(r.warnings.size(), size_t{1});
        QCOMPARE(r.fromCache, membersOfClasses(p, readJournalLines(kept, kept.size() - 1)));
        QCOMPARE(readAll(file), readAll(uncut));
    }

    void malformedFilesAreUserErrorsNamingThem() {
        const Profiled p("demo_inception_module");
        QTemporaryDir dir;
        const std::string file = dir.filePath("c.json").toStdString();
        std::ofstream(file) << R"({"format": "ios-explorer-measurements", "version": 1, )"
                            << R"("entries": [{"device": "x"}]})";
        QString error = testing::userErrorOf([&] { profile(p, file, {}); });
        QVERIFY2(error.contains(QString::fromStdString(file)), qPrintable(error));
        std::filesystem::remove(file);

        const std::string journal = journalPath(file).string();
        const cost::StageMeasurement ok{"Mock GPU", p.graph.name, 1, p.met.stages[0].key, 0.01, 10, {}};
        std::ofstream(journal) << journalLine(ok) << "{not json}\n" << journalLine(ok);
        error = testing::userErrorOf([&] { profile(p, file, {}); });
        QVERIFY2(error.contains(QString::fromStdString(journal + " line 2")), qPrintable(error));

        cost::StageMeasurement other = ok;
        other.device = "Another GPU";
        std::ofstream(journal, std::ios::trunc) << journalLine(other);
        error = testing::userErrorOf([&] { profile(p, file, {}); });
        QVERIFY2(error.contains("Another GPU") && error.contains(QString::fromStdString(journal)),
                 qPrintable(error));
        QVERIFY(!QFile::exists(QString::fromStdString(file)));
    }

    void progressReportsEveryGraphWithAnEta() {
        const Profiled p("squeezenet");
        QTemporaryDir dir;
        std::vector<ProfileProgress> seen;
        ProfileOptions o;
        o.stagesPerGraph = 10;
        o.progress = [&](const ProfileProgress& pr) { seen.push_back(pr); };
        const ProfileResult r = profile(p, dir.filePath("c.json").toStdString(), o);
        QCOMPARE(seen.size(), r.graphs);
        for (size_t i = 0; i < seen.size(); ++i) {
            QCOMPARE(seen[i].graphsDone, i + 1);
            QCOMPARE(seen[i].graphsTotal, r.graphs);
            QCOMPARE(seen[i].stagesTotal, r.measured);
            QVERIFY(seen[i].etaSeconds >= 0);
            if (i > 0)
                QVERIFY(seen[i].stagesDone > seen[i - 1].stagesDone);
        }
        QCOMPARE(seen.back().stagesDone, r.measured);
        QCOMPARE(seen.back().etaSeconds, 0.0);
    }

    void storedLatenciesAreWholeNanoseconds() {
        QCOMPARE(storedLatencyMs(0.0123456789), 0.012346);
        QCOMPARE(storedLatencyMs(0.0), 1e-6);
    }
};

QTEST_GUILESS_MAIN(TestStageProfiler)
#include "tst_stage_profiler.moc"
