// SPDX-License-Identifier: Apache-2.0
// The simulated H100 against the measurements on a real H100 (docs/performance.md "Measured
// on a GPU"): the committed schedules that were timed (sample_models/measured/schedules/)
// are evaluated on the bundled H100 profile, and the mean absolute percentage error per
// strategy over the four networks must stay within 15 % of the committed CUDA-graph medians
// (sample_models/measured/h100_results.json; issue "simulator error").
#include "analysis/measured_validation.h"
#include "bundled_models.h"
#include "util/error.h"

#include <QTest>
#include <algorithm>

using namespace ios;

namespace {

const std::filesystem::path kMeasured = IOS_SOURCE_DIR "/sample_models/measured";
// One run per network: the extra run "inception_v3_simdp" (IOS-both searched on the
// simulator) is a second IOS-both schedule of InceptionV3 and is not part of the MAPE.
const std::vector<std::string> kNetworks{"inception_v3", "squeezenet", "nasnet_large",
                                         "randwire_large"};

std::vector<analysis::ValidationRow>
validate(const std::vector<analysis::MeasuredSchedule>& measured) {
    return analysis::validateSchedules(measured, kMeasured / "schedules",
                                       *cost::findBundledDevice("H100"),
                                       [](const std::string& m) { return samples::loadModel(m); });
}

} // namespace

class TestH100Calibration : public QObject {
    Q_OBJECT

private slots:
    void everyMeasuredScheduleIsKept() {
        // Every timed schedule has its schedule file, with the measured stage count.
        const auto measured = analysis::loadMeasuredResults(kMeasured / "h100_results.json");
        QCOMPARE(measured.size(), size_t{13});
        const auto rows = validate(measured);
        QCOMPARE(rows.size(), measured.size());
        for (const analysis::ValidationRow& r : rows) {
            QVERIFY(r.measured.cudaGraph);
            QVERIFY(r.simulatedMs > 0);
        }
    }

    void mapePerStrategyWithin15Percent() {
        auto measured = analysis::loadMeasuredResults(kMeasured / "h100_results.json");
        std::erase_if(measured, [](const analysis::MeasuredSchedule& m) {
            return std::find(kNetworks.begin(), kNetworks.end(), m.run) == kNetworks.end();
        });
        const auto rows = validate(measured);
        for (const analysis::ValidationRow& r : rows)
            qInfo("%-15s %-10s measured %.3f ms simulated %.3f ms error %+.1f %%",
                  r.measured.run.c_str(), r.measured.strategy.c_str(), r.measured.measuredMs,
                  r.simulatedMs, r.errorPct);
        const auto errors = analysis::errorByStrategy(rows);
        QCOMPARE(errors.size(), size_t{3});
        for (const analysis::StrategyError& e : errors) {
            qInfo("%s: MAPE %.1f %% (worst %.1f %%)", e.strategy.c_str(), e.mapePct, e.maxAbsPct);
            QCOMPARE(e.count, 4);
            QVERIFY2(e.mapePct <= 15.0, qPrintable(QString::fromStdString(e.strategy) +
                                                   QStringLiteral(": MAPE %1 %").arg(e.mapePct)));
        }
    }

    void errorByStrategyIsTheMeanAbsoluteError() {
        std::vector<analysis::ValidationRow> rows(3);
        rows[0].measured.strategy = "greedy";
        rows[0].errorPct = -10;
        rows[1].measured.strategy = "both";
        rows[1].errorPct = 4;
        rows[2].measured.strategy = "greedy";
        rows[2].errorPct = 20;
        const auto e = analysis::errorByStrategy(rows);
        QCOMPARE(e.size(), size_t{2});
        QCOMPARE(e[0].strategy, std::string("greedy"));
        QCOMPARE(e[0].count, 2);
        QCOMPARE(e[0].mapePct, 15.0);
        QCOMPARE(e[0].maxAbsPct, 20.0);
        QCOMPARE(e[1].mapePct, 4.0);
    }

    void resultsErrorsNameTheFile() {
        QVERIFY_THROWS_EXCEPTION(UserError,
                                 analysis::parseMeasuredResults("{\"runs\": 3}", "r.json"));
        try {
            analysis::parseMeasuredResults(
                R"({"model": "squeezenet", "results": [{"strategy": "greedy"}]})", "r.json");
            QFAIL("a result without a latency was accepted");
        } catch (const UserError& e) {
            QVERIFY2(std::string(e.what()).find("r.json") == 0, e.what());
            QVERIFY2(std::string(e.what()).find("no latency median") != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestH100Calibration)
#include "tst_h100_calibration.moc"
