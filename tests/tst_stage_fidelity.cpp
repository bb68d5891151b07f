// SPDX-License-Identifier: Apache-2.0
// The simulator against measured stages (engine/analysis/stage_fidelity.h, docs/gpu.md): the
// rank correlations against their O(n²) definitions on random data with ties, hand-checked
// small cases, cache keys resolved in the model (and refused with the file and stage named),
// and the decision loss on a small model with a synthetic cache where the simulator is right
// (loss exactly 1) and where it is deliberately wrong (loss > 1).
#include "analysis/stage_fidelity.h"
#include "bundled_models.h"
#include "cost/device_profile.h"
#include "cost/measurement_cache.h"
#include "cost/simulated_gpu_cost_model.h"
#include "util/error.h"

#include <QTest>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <random>

using namespace ios;

namespace {

// Spearman by definition: ranks by counting (ties: the mean rank), then Pearson.
double bruteSpearman(const std::vector<double>& x, const std::vector<double>& y) {
    const auto ranks = [](const std::vector<double>& v) {
        std::vector<double> r(v.size());
        for (size_t i = 0; i < v.size(); ++i) {
            double less = 0, equal = 0;
            for (double w : v) {
                less += w < v[i] ? 1 : 0;
                equal += w == v[i] ? 1 : 0;
            }
            r[i] = less + (equal + 1) / 2;
        }
        return r;
    };
    const std::vector<double> rx = ranks(x), ry = ranks(y);
    double mx = 0, my = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        mx += rx[i] / static_cast<double>(x.size());
        my += ry[i] / static_cast<double>(x.size());
    }
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    return sxx == 0 || syy == 0 ? std::nan("") : sxy / std::sqrt(sxx * syy);
}

// Kendall τ-b by definition: every pair classified.
double bruteKendall(const std::vector<double>& x, const std::vector<double>& y) {
    double concordant = 0, discordant = 0, tiesX = 0, tiesY = 0, pairs = 0;
    for (size_t i = 0; i < x.size(); ++i)
        for (size_t j = i + 1; j < x.size(); ++j) {
            ++pairs;
            const double s = (x[i] - x[j]) * (y[i] - y[j]);
            if (x[i] == x[j])
                ++tiesX;
            if (y[i] == y[j])
                ++tiesY;
            if (s > 0)
                ++concordant;
            else if (s < 0)
                ++discordant;
        }
    const double d = std::sqrt((pairs - tiesX) * (pairs - tiesY));
    return d == 0 ? std::nan("") : (concordant - discordant) / d;
}

// Records every stage a search prices, with the latency the wrapped model gives it; no
// canonical memo, so every distinct stage reaches stageLatencyMs.
class RecordingCostModel final : public cost::CostModel {
public:
    explicit RecordingCostModel(const cost::CostModel& inner) : inner_(inner) {}
    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override {
        const double ms = inner_.stageLatencyMs(dag, stage);
        const std::lock_guard lock(mutex_);
        stages_.emplace(cost::stageKey(dag, stage), std::make_pair(stage, ms));
        return ms;
    }
    std::string describe() const override { return "recording " + inner_.describe(); }
    const std::map<std::string, std::pair<schedule::Stage, double>>& stages() const {
        return stages_;
    }

private:
    const cost::CostModel& inner_;
    mutable std::mutex mutex_;
    mutable std::map<std::string, std::pair<schedule::Stage, double>> stages_;
};

const std::string kDevice = "Test GPU";

// A cache of every stage the DP meets on `graph`, "measured" as `measure` says from the
// simulated latency and the stage.
cost::MeasurementCache
syntheticCache(const ir::Graph& graph, const cost::CostModel& simulated,
               const std::function<double(const schedule::Stage&, double)>& measure) {
    const ir::PreparedModel prepared(graph);
    const RecordingCostModel recorder(simulated);
    schedulers::schedulerByName("ios-both").run(prepared, {}, recorder, nullptr);
    cost::MeasurementCache cache;
    for (const auto& [key, entry] : recorder.stages())
        cache.add({kDevice, graph.name, 1, key, measure(entry.first, entry.second), 1, {}});
    return cache;
}

std::vector<std::string> stageKeys(const ir::PreparedModel& prepared,
                                   const schedule::Schedule& sched) {
    std::vector<std::string> keys;
    for (size_t b = 0; b < sched.blocks.size(); ++b)
        for (const schedule::Stage& s : sched.blocks[b].stages)
            keys.push_back(cost::stageKey(prepared.dags()[b], s));
    return keys;
}

} // namespace

class TestStageFidelity : public QObject {
    Q_OBJECT

private slots:
    void handCheckedCases_data() {
        QTest::addColumn<std::vector<double>>("x");
        QTest::addColumn<std::vector<double>>("y");
        QTest::addColumn<double>("spearman");
        QTest::addColumn<double>("kendall");
        QTest::newRow("perfect") << std::vector<double>{1, 2, 3, 4}
                                 << std::vector<double>{10, 20, 30, 40} << 1.0 << 1.0;
        QTest::newRow("reversed") << std::vector<double>{1, 2, 3, 4}
                                  << std::vector<double>{4, 3, 2, 1} << -1.0 << -1.0;
        // Pairs: 4 concordant, 0 discordant, one tied in x, one in y: τ-b = 4 / √(5·5).
        // Ranks x (1, 2.5, 2.5, 4), y (1, 3.5, 2, 3.5): ρ = 3.75 / 4.5.
        QTest::newRow("ties") << std::vector<double>{1, 2, 2, 3} << std::vector<double>{1, 3, 2, 3}
                              << 3.75 / 4.5 << 0.8;
        // One discordant pair of three: τ = 1/3; rank deviations (−1,0,1)·(0,−1,1) / 2.
        QTest::newRow("one swap") << std::vector<double>{1, 2, 3} << std::vector<double>{2, 1, 3}
                                  << 0.5 << 1.0 / 3.0;
    }
    void handCheckedCases() {
        QFETCH(std::vector<double>, x);
        QFETCH(std::vector<double>, y);
        QFETCH(double, spearman);
        QFETCH(double, kendall);
        QVERIFY(std::abs(analysis::spearmanRho(x, y) - spearman) < 1e-12);
        QVERIFY(std::abs(analysis::kendallTauB(x, y) - kendall) < 1e-12);
    }

    void undefinedCasesAreNaN() {
        // All ties: no ranking to compare, as for a single value or mismatched sizes.
        const std::vector<double> ties{2, 2, 2, 2}, some{1, 2, 3, 4};
        QVERIFY(std::isnan(analysis::spearmanRho(ties, some)));
        QVERIFY(std::isnan(analysis::kendallTauB(ties, some)));
        QVERIFY(std::isnan(analysis::kendallTauB(some, ties)));
        QVERIFY(std::isnan(analysis::spearmanRho({1}, {1})));
        QVERIFY(std::isnan(analysis::kendallTauB({1, 2}, {1, 2, 3})));
    }

    void matchBruteForceOnRandomDataWithTies() {
        std::mt19937 rng(20261124);
        for (int c = 0; c < 400; ++c) {
            const size_t n = 2 + rng() % 60;
            // Few distinct values on some cases: many ties, in x, in y and in both.
            const unsigned range = c % 3 == 0 ? 3 : c % 3 == 1 ? 12 : 1000;
            std::vector<double> x(n), y(n);
            for (size_t i = 0; i < n; ++i) {
                x[i] = static_cast<double>(rng() % range);
                y[i] = c % 4 == 0 ? x[i] + static_cast<double>(rng() % 2)
                                  : static_cast<double>(rng() % range);
            }
            const double bs = bruteSpearman(x, y), bk = bruteKendall(x, y);
            const double s = analysis::spearmanRho(x, y), k = analysis::kendallTauB(x, y);
            QCOMPARE(std::isnan(s), std::isnan(bs));
            QCOMPARE(std::isnan(k), std::isnan(bk));
            if (!std::isnan(bs))
                QVERIFY2(std::abs(s - bs) < 1e-9, qPrintable(QStringLiteral("case %1").arg(c)));
            if (!std::isnan(bk))
                QVERIFY2(std::abs(k - bk) < 1e-9, qPrintable(QStringLiteral("case %1").arg(c)));
        }
    }

    void mapeIsTheMeanRelativeError() {
        QCOMPARE(analysis::mapePct({1, 2}, {1.5, 1}), 50.0);
        QCOMPARE(analysis::mapePct({}, {}), 0.0);
    }

    void cacheStagesResolveInTheModel() {
        const ir::Graph graph = samples::loadModel("demo_inception_module");
        const ir::PreparedModel prepared(graph);
        // A device whose every stage takes time: on the H100 a stage of only the concatenation
        // launches nothing (its inputs were written in place), so its ratio is undefined.
        const cost::SimulatedGpuCostModel sim(graph, *cost::findBundledDevice("V100"), 1);
        // Measured = twice the simulated latency: perfect ranks, every ratio 0.5, MAPE 50 %.
        const cost::MeasurementCache cache =
            syntheticCache(graph, sim, [](const schedule::Stage&, double ms) { return 2 * ms; });
        const auto rows = analysis::resolveStages(prepared, cache, kDevice, 1, sim, "c.json");
        QCOMPARE(rows.size(), cache.entries().size());
        for (const analysis::StageFidelityRow& r : rows) {
            QCOMPARE(cost::stageKey(prepared.dags()[static_cast<size_t>(r.block)], r.stage), r.key);
            QCOMPARE(r.measuredMs, 2 * r.simulatedMs);
        }
        const auto summaries = analysis::rankSummaries(rows);
        QCOMPARE(summaries.front().kind, std::string("all"));
        QCOMPARE(summaries.front().stages, static_cast<int>(rows.size()));
        QVERIFY(std::abs(summaries.front().mapePct - 50) < 1e-9);
        QVERIFY(std::abs(summaries.front().geoMeanRatio - 0.5) < 1e-12);
        int perKind = 0;
        for (size_t i = 1; i < summaries.size(); ++i)
            perKind += summaries[i].stages;
        QCOMPARE(perKind, summaries.front().stages);
        QCOMPARE(summaries[1].kind, std::string("parallel"));
        // By groups: the parallel stages, split by their stream count, fewest first.
        const auto byGroups = analysis::rankSummariesByGroups(rows);
        QVERIFY(byGroups.size() >= 2);
        int parallel = 0;
        for (size_t i = 0; i < byGroups.size(); ++i) {
            QVERIFY(i == 0 || byGroups[i].groups > byGroups[i - 1].groups);
            parallel += byGroups[i].stages;
        }
        QCOMPARE(byGroups.front().groups, 1);
        QCOMPARE(byGroups.front().kind, std::string("1 group"));
        QCOMPARE(parallel, summaries[1].stages);
    }

    void worstStagesAreTheFurthestFromOne() {
        std::vector<analysis::StageFidelityRow> rows(4);
        const double ratios[] = {1.1, 0.25, 3.0, 0.9};
        for (size_t i = 0; i < rows.size(); ++i) {
            rows[i].key = "s" + std::to_string(i);
            rows[i].measuredMs = 1;
            rows[i].simulatedMs = ratios[i];
        }
        const auto worst = analysis::worstStages(rows, 3);
        QCOMPARE(worst.size(), size_t{3});
        QCOMPARE(worst[0].key, std::string("s1")); // |log 0.25| > |log 3|
        QCOMPARE(worst[1].key, std::string("s2"));
        QCOMPARE(worst[2].key, std::string("s3")); // |log 0.9| > |log 1.1|
    }

    void badCacheStagesNameFileAndStage_data() {
        QTest::addColumn<QString>("stageKey");
        QTest::addColumn<QString>("reason");
        QTest::newRow("unknown operator")
            << QStringLiteral("parallel:nope") << QStringLiteral("does not have");
        QTest::newRow("repeated operator")
            << QStringLiteral("parallel:A,A") << QStringLiteral("twice");
        QTest::newRow("bad kind") << QStringLiteral("serial:A") << QStringLiteral("neither");
        QTest::newRow("merge of groups")
            << QStringLiteral("merge:A|B") << QStringLiteral("several groups");
    }
    void badCacheStagesNameFileAndStage() {
        QFETCH(QString, stageKey);
        QFETCH(QString, reason);
        const ir::Graph graph = samples::loadModel("demo_figure2");
        const ir::PreparedModel prepared(graph);
        // A and B stand for the model's first two operators.
        const std::vector<const ir::Node*>& ops = prepared.dags().front().ops;
        const std::string stage =
            stageKey.replace(QLatin1Char('A'), QString::fromStdString(ops[0]->name))
                .replace(QLatin1Char('B'), QString::fromStdString(ops[1]->name))
                .toStdString();
        const std::string why = reason.toStdString();
        const cost::SimulatedGpuCostModel sim(graph, *cost::findBundledDevice("H100"), 1);
        cost::MeasurementCache cache;
        cache.add({kDevice, graph.name, 1, stage, 0.01, 1, {}});
        try {
            analysis::resolveStages(prepared, cache, kDevice, 1, sim, "c.json");
            QFAIL("a bad stage key was accepted");
        } catch (const UserError& e) {
            const std::string what = e.what();
            QVERIFY2(what.rfind("c.json: stage " + stage, 0) == 0, e.what());
            QVERIFY2(what.find(why) != std::string::npos, e.what());
        }
        // A cache without the model's stages is refused rather than summarised as empty.
        QVERIFY_THROWS_EXCEPTION(
            UserError, analysis::resolveStages(prepared, cache, "other GPU", 1, sim, "c.json"));
    }

    void decisionLossIsOneWhenTheSimulatorIsRight() {
        const ir::Graph graph = samples::loadModel("demo_inception_module");
        const ir::PreparedModel prepared(graph);
        const cost::SimulatedGpuCostModel sim(graph, *cost::findBundledDevice("H100"), 1);
        const cost::CachedCostModel measured(
            syntheticCache(graph, sim, [](const schedule::Stage&, double ms) { return ms; }),
            graph.name, 1);
        const analysis::DecisionLoss d = analysis::decisionLoss(
            prepared, schedulers::schedulerByName("ios-both"), {}, measured, sim);
        QCOMPARE(d.loss, 1.0);
        QVERIFY(d.simulatedChoice == d.measuredChoice);
        QCOMPARE(d.simulatedChoiceMeasuredMs, d.simulatedChoiceSimulatedMs);
    }

    void decisionLossExceedsOneWhenTheSimulatorIsWrong() {
        const ir::Graph graph = samples::loadModel("demo_inception_module");
        const ir::PreparedModel prepared(graph);
        const cost::SimulatedGpuCostModel sim(graph, *cost::findBundledDevice("H100"), 1);
        // On this "GPU" concurrency never pays: a stage of several groups costs the sum of its
        // groups and more, which the simulator does not know.
        const auto measure = [](const schedule::Stage& s, double ms) {
            return ms * static_cast<double>(4 * s.groups.size() - 3);
        };
        const cost::CachedCostModel measured(syntheticCache(graph, sim, measure), graph.name, 1);
        const analysis::DecisionLoss d = analysis::decisionLoss(
            prepared, schedulers::schedulerByName("ios-both"), {}, measured, sim);
        qInfo("simulator's choice %.4f ms measured, measured choice %.4f ms: loss %.3f",
              d.simulatedChoiceMeasuredMs, d.measuredChoiceMeasuredMs, d.loss);
        QVERIFY2(d.loss > 1.05, qPrintable(QString::number(d.loss)));
        // Each DP is optimal under its own model (up to float error).
        QVERIFY(d.measuredChoiceMeasuredMs <= d.simulatedChoiceMeasuredMs * (1 + 1e-12));
        QVERIFY(d.simulatedChoiceSimulatedMs <= d.measuredChoiceSimulatedMs * (1 + 1e-12));
        QVERIFY(!(d.simulatedChoice == d.measuredChoice));
        // The loss per block adds up to the whole, and shows where the choices differ.
        QCOMPARE(d.blocks.size(), prepared.dags().size());
        double simSum = 0, measSum = 0;
        bool differ = false;
        for (const analysis::BlockDecision& b : d.blocks) {
            simSum += b.simulatedChoiceMeasuredMs;
            measSum += b.measuredChoiceMeasuredMs;
            differ = differ || !b.sameStages;
            if (b.sameStages)
                QCOMPARE(b.simulatedChoiceMeasuredMs, b.measuredChoiceMeasuredMs);
        }
        QVERIFY(differ);
        QVERIFY(std::abs(simSum - d.simulatedChoiceMeasuredMs) < 1e-9);
        QVERIFY(std::abs(measSum - d.measuredChoiceMeasuredMs) < 1e-9);
    }

    void aStageTheSimulatorPicksButNobodyMeasuredIsNamed() {
        const ir::Graph graph = samples::loadModel("demo_inception_module");
        const ir::PreparedModel prepared(graph);
        const cost::SimulatedGpuCostModel sim(graph, *cost::findBundledDevice("H100"), 1);
        const schedulers::Scheduler& both = schedulers::schedulerByName("ios-both");
        const cost::MeasurementCache full =
            syntheticCache(graph, sim, [](const schedule::Stage&, double ms) { return ms; });
        const std::vector<std::string> chosen =
            stageKeys(prepared, both.run(prepared, {}, sim, nullptr).schedule);
        cost::MeasurementCache partial;
        for (const cost::StageMeasurement& m : full.entries())
            if (m.stage != chosen.back())
                partial.add(m);
        const cost::CachedCostModel measured(partial, graph.name, 1, {}, "partial.json");
        try {
            analysis::decisionLoss(prepared, both, {}, measured, sim);
            QFAIL("a schedule with an unmeasured stage was priced");
        } catch (const UserError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("partial.json") == 0, e.what());
            QVERIFY2(what.find("picks on the simulator") != std::string::npos, e.what());
            QVERIFY2(what.find("stage " + chosen.back() + " was not measured") != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestStageFidelity)
#include "tst_stage_fidelity.moc"
