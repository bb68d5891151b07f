// SPDX-License-Identifier: Apache-2.0
// Absurd latencies (issue 19, defect 2): a NaN, infinite, negative or huge stage latency from
// any cost model is refused with a UserError naming the stage (or operator) and the cost model,
// in the DP (both pricing paths), in schedule evaluation and the baselines; measurement caches,
// results files and traces refuse such numbers (and narrowed integers) when they are read; the
// JSON writer refuses non-finite numbers. Before the fix the DP spun forever on 1e308.
#include "analysis/measured_validation.h"
#include "cost/cost_model_with.h"
#include "cost/measurement_cache.h"
#include "cost/stage_shortcuts.h"
#include "dp_test_support.h"
#include "eval/evaluate.h"
#include "io/trace_import.h"
#include "ir/prepared_model.h"
#include "ir/validate.h"
#include "schedulers/ios_dp.h"
#include "schedulers/scheduler.h"
#include "user_error_text.h"
#include "util/error.h"
#include "util/json_number.h"
#include "util/message_text.h"

#include <QtTest>
#include <cmath>
#include <limits>
#include <random>

using namespace ios;

namespace {

// Every stage costs `ms`; optionally offers the additive fast path with every operator at `ms`.
class FixedCost final : public cost::CostModelWith<cost::StageShortcuts> {
public:
    FixedCost(double ms, bool additive) : ms_(ms), additive_(additive) {}
    double stageLatencyMs(const ir::BlockDag&, const schedule::Stage&) const override {
        return ms_;
    }
    bool additiveParallelStages(const ir::BlockDag& dag, std::vector<double>& opMs,
                                double& overheadMs) const override {
        if (!additive_)
            return false;
        opMs.assign(dag.ops.size(), ms_);
        overheadMs = 0;
        return true;
    }
    std::string describe() const override { return "fixed test model"; }

private:
    double ms_;
    bool additive_;
};

ir::Graph smallGraph() {
    std::mt19937 rng(7);
    ir::Graph g = testing::randomDag(rng, 6).graph;
    ir::validateAndInferShapes(g);
    return g;
}

const double kInf = std::numeric_limits<double>::infinity();

std::string cacheText(const std::string& batch, const std::string& latency) {
    return R"({"format": "ios-explorer-measurements", "version": 1, "entries": [
        {"device": "V100", "model": "m", "batch": )" +
           batch + R"(, "stage": "parallel:a", "latency_ms": )" + latency + "}]}";
}

} // namespace

class TestLatencySanity : public QObject {
    Q_OBJECT

private slots:
    void dpRefusesAbsurdStageLatency_data() {
        QTest::addColumn<double>("ms");
        QTest::addColumn<bool>("additive");
        for (bool additive : {false, true}) {
            const char* path = additive ? "additive" : "per stage";
            QTest::addRow("1e308 %s", path) << 1e308 << additive;
            QTest::addRow("inf %s", path) << kInf << additive;
            QTest::addRow("nan %s", path) << std::nan("") << additive;
            QTest::addRow("negative %s", path) << -1.0 << additive;
            QTest::addRow("above 1e9 %s", path) << 2e9 << additive;
        }
    }
    void dpRefusesAbsurdStageLatency() {
        QFETCH(double, ms);
        QFETCH(bool, additive);
        const ir::Graph g = smallGraph();
        const ir::PreparedModel prepared(g);
        const FixedCost cost(ms, additive);
        const QString err = testing::userErrorOf([&] { schedulers::optimize(prepared, {}, cost); });
        QVERIFY2(err.contains("fixed test model"), qPrintable(err));
        QVERIFY2(err.contains("must be finite and in [0, 1e+09] ms"), qPrintable(err));
        // names what it priced: a stage by its operators, or an operator (additive path)
        QVERIFY2(err.contains(additive ? "operator 'o" : "stage "), qPrintable(err));
    }

    void plausibleLatenciesStillWork() {
        const ir::Graph g = smallGraph();
        const ir::PreparedModel prepared(g);
        for (bool additive : {false, true}) {
            const FixedCost cost(cost::kMaxStageLatencyMs, additive);
            const schedulers::Result r = schedulers::optimize(prepared, {}, cost);
            QVERIFY(std::isfinite(r.latencyMs) && r.latencyMs > 0);
        }
    }

    void evaluationAndBaselinesRefuse() {
        const ir::Graph g = smallGraph();
        const ir::PreparedModel prepared(g);
        const FixedCost huge(1e308, false);
        for (const char* key : {"sequential", "greedy"}) {
            const schedulers::Scheduler& s = schedulers::schedulerByName(key);
            const QString err = testing::userErrorOf([&] { s.run(prepared, {}, huge, nullptr); });
            QVERIFY2(err.contains("stage ") && err.contains("1e+308 ms"), qPrintable(err));
        }
        const schedulers::Outcome ok = schedulers::schedulerByName("sequential")
                                           .run(prepared, {}, FixedCost(1, false), nullptr);
        const QString err =
            testing::userErrorOf([&] { eval::totalLatencyMs(prepared.dags(), ok.schedule, huge); });
        QVERIFY2(err.contains("fixed test model"), qPrintable(err));
    }

    void cacheRefusesAbsurdNumbers_data() {
        QTest::addColumn<QString>("batch");
        QTest::addColumn<QString>("latency");
        QTest::addColumn<QString>("message");
        QTest::newRow("1e308 ms") << "1"
                                  << "1e308"
                                  << "entries[0].latency_ms must be a number in [0, 1e+09] "
                                     "(got 1e+308)";
        QTest::newRow("negative ms") << "1"
                                     << "-0.5"
                                     << "(got -0.5)";
        QTest::newRow("zero ms") << "1"
                                 << "0"
                                 << "entries[0].latency_ms must be greater than 0";
        QTest::newRow("batch 2^32+1") << "4294967297"
                                      << "1"
                                      << "entries[0].batch must be an integer in [1, 65536] "
                                         "(got 4294967297)";
        QTest::newRow("batch 1.0") << "1.0"
                                   << "1"
                                   << "(got 1)";
        QTest::newRow("batch -0") << "-0.0"
                                  << "1"
                                  << "(got 0)";
        QTest::newRow("batch 2^64") << "18446744073709551616"
                                    << "1"
                                    << "(got 1.84467e+19)";
    }
    void cacheRefusesAbsurdNumbers() {
        QFETCH(QString, batch);
        QFETCH(QString, latency);
        QFETCH(QString, message);
        const QString err = testing::userErrorOf([&] {
            cost::MeasurementCache::parse(cacheText(batch.toStdString(), latency.toStdString()),
                                          "c.json");
        });
        QVERIFY2(err.startsWith("c.json: ") && err.contains(message), qPrintable(err));
    }

    void cacheVersionIsNotNarrowed() {
        // 2^32+1 used to read as version 1 (get<int>)
        std::string text = cacheText("1", "1");
        text.replace(text.find("\"version\": 1"), 12, "\"version\": 4294967297");
        const QString err =
            testing::userErrorOf([&] { cost::MeasurementCache::parse(text, "c.json"); });
        QVERIFY2(err.contains("\"version\" must be the integer 1"), qPrintable(err));
    }

    void resultsFileBatchIsNotNarrowed() {
        const std::string text =
            R"({"model": "squeezenet", "batch": 4294967297, "results": [{"strategy": "sequential",
                "latency": {"median_ms": 1.5}}]})";
        const QString err =
            testing::userErrorOf([&] { analysis::parseMeasuredResults(text, "results.json"); });
        QVERIFY2(err.contains("\"batch\" must be an integer in [1, 65536] (got 4294967297)"),
                 qPrintable(err));
        std::string huge = text;
        huge.replace(huge.find("4294967297"), 10, "1");
        huge.replace(huge.find("1.5"), 3, "1e308");
        const QString err2 =
            testing::userErrorOf([&] { analysis::parseMeasuredResults(huge, "r.json"); });
        QVERIFY2(err2.contains("latency.median_ms must be a number"), qPrintable(err2));
    }

    void traceBatchIsNotNarrowed() {
        const std::string text =
            R"({"traceEvents": [], "otherData": {"batch": 4294967297, "latency_ms": 1}})";
        const QString err = testing::userErrorOf([&] { io::parseChromeTrace(text, "t.json"); });
        QVERIFY2(err.contains("otherData.batch must be an integer in [1, 65536]"), qPrintable(err));
    }

    void jsonWriterRefusesNonFinite() {
        util::Json j = util::Json::array();
        j.push_back({{"strategy", "x"}, {"latency_ms", kInf}});
        const QString err = testing::userErrorOf([&] { util::dumpJson(j, 2); });
        QVERIFY2(err.contains("cannot write inf at /0/latency_ms"), qPrintable(err));
        j[0]["latency_ms"] = 1.5;
        QCOMPARE(util::dumpJson(j, -1), std::string(R"([{"strategy":"x","latency_ms":1.5}])"));
    }

    void numbersInMessagesAreCompact() {
        QCOMPARE(util::formatNumber(1e300), std::string("1e+300"));
        QCOMPARE(util::formatNumber(-0.0), std::string("0"));
        QCOMPARE(util::formatNumber(0.1), std::string("0.1"));
        QCOMPARE(util::formatNumber(123456), std::string("123456"));
        QCOMPARE(util::formatNumber(1234567), std::string("1.23457e+06"));
        QCOMPARE(util::formatNumber(-kInf), std::string("-inf"));
        QCOMPARE(util::formatNumber(std::nan("")), std::string("nan"));
    }
};

QTEST_GUILESS_MAIN(TestLatencySanity)
#include "tst_latency_sanity.moc"
