// SPDX-License-Identifier: Apache-2.0
// The analysis and memory charts on one tick/label engine (issue 17 item 7 and 9): at the
// window sizes people use, every label stays inside its chart and clear of the others, ticks
// sit at 1/2/5 × 10^k in the unit the axis title names, and the specialization heat map
// colours every cell on one scale with a legend.
#include "chart_axes.h"
#include "chart_fixtures.h"

#include <QApplication>
#include <QTest>
#include <algorithm>
#include <map>

using namespace ios;
using namespace chart_fixtures;

namespace {

struct Charts {
    views::ComparisonChart comparison;
    views::SweepChart sweep;
    views::HeatMapChart heat;
    views::ParetoChart pareto;
    views::TauTraceChart tau;
    views::PeakDistributionChart peaks;
    Charts() {
        fillComparison(comparison);
        fillSweep(sweep);
        fillHeatMap(heat);
        fillPareto(pareto);
        fillTau(tau);
        fillPeaks(peaks);
    }
    std::vector<std::pair<QString, views::ChartWidget*>> all() {
        return {{QStringLiteral("comparison"), &comparison},
                {QStringLiteral("sweep"), &sweep},
                {QStringLiteral("heatmap"), &heat},
                {QStringLiteral("pareto"), &pareto},
                {QStringLiteral("tau"), &tau},
                {QStringLiteral("peaks"), &peaks}};
    }
};

bool isNumber(const QString& text) {
    bool ok = false;
    text.toDouble(&ok);
    return ok;
}

} // namespace

class TestCharts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void labelsStayInsideAndApart_data() {
        QTest::addColumn<QSize>("size");
        // The whole window's size, and about what a tab's chart gets inside it (the main
        // window's own sizes are checked in tst_analysis_tabs).
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
        QTest::newRow("tab at 1280x800") << QSize(1000, 640);
        QTest::newRow("tab at 1920x1080") << QSize(1640, 920);
        QTest::newRow("narrow") << QSize(760, 520);
    }
    void labelsStayInsideAndApart() {
        QFETCH(QSize, size);
        Charts charts;
        for (const auto& [name, chart] : charts.all()) {
            const QString problem = labelLayoutProblem(*chart, size, name);
            QVERIFY2(problem.isEmpty(), qPrintable(name + QStringLiteral(": ") + problem));
        }
    }

    // What must be there survives the thinning: every scheduler's name, both sweep axis
    // titles, the heat map's labels and legend, the memory charts' axis titles.
    void essentialLabelsAreDrawn_data() { labelsStayInsideAndApart_data(); }
    void essentialLabelsAreDrawn() {
        QFETCH(QSize, size);
        Charts charts;
        for (const auto& [name, chart] : charts.all())
            labelLayoutProblem(*chart, size, name);
        for (const views::ComparisonEntry& e : charts.comparison.entries())
            QVERIFY2(hasLabel(charts.comparison, e.label), qPrintable(e.label));
        // Each axis's unit is in its title: 12 ms latencies, 1.5 s searches, 1.8 M transitions.
        QVERIFY(hasLabel(charts.comparison, QStringLiteral("Latency (ms) — lower is better")));
        QVERIFY(hasLabel(charts.comparison, QStringLiteral("Search time (s)")));
        QVERIFY(hasLabel(charts.comparison, QStringLiteral("DP transitions (×10⁶)")));
        QVERIFY(hasLabel(charts.sweep, charts.sweep.latencyTitle()));
        QVERIFY(hasLabel(charts.sweep, QStringLiteral("s (max groups per stage)")));
        for (int r = 1; r <= 4; ++r)
            QVERIFY(hasLabel(charts.sweep, QStringLiteral("r = %1").arg(r)));
        for (const views::HeatMatrix& m : charts.heat.matrices())
            for (const QString& label : m.labels)
                QVERIFY2(hasLabel(charts.heat, label), qPrintable(label));
        QVERIFY(hasLabel(charts.pareto, QStringLiteral("peak activation memory →")));
        QVERIFY(hasLabel(charts.tau, QStringLiteral("DP run →")));
        QVERIFY(hasLabel(charts.peaks, QStringLiteral("peak of an order →")));
    }

    // The y axes of the sweep and the trade-off chart: ticks at k × step with step = 1, 2 or
    // 5 × 10^n, no tick label cut (elided) and at least three per axis.
    void yTicksAreNice_data() { labelsStayInsideAndApart_data(); }
    void yTicksAreNice() {
        QFETCH(QSize, size);
        Charts charts;
        const std::vector<std::pair<views::ChartWidget*, int>> checked{{&charts.sweep, 2},
                                                                       {&charts.pareto, 1}};
        for (const auto& [chart, expectedAxes] : checked) {
            QVERIFY(labelLayoutProblem(*chart, size, QStringLiteral("ticks")).isEmpty());
            // Right-aligned y labels of one axis share their right edge.
            std::map<int, std::vector<double>> axes;
            for (const views::ChartLabel& l : chart->lastLabels()) {
                // No tick label is cut: a number is drawn whole or not at all.
                QVERIFY2(!(l.text.endsWith(QChar(0x2026)) && isNumber(l.text.chopped(1))),
                         qPrintable(l.text));
                if (isNumber(l.text))
                    axes[qRound(l.rect.right())].push_back(l.text.toDouble());
            }
            int yAxes = 0;
            for (auto& [right, values] : axes) {
                if (values.size() < 3)
                    continue; // centred x labels: one per right edge
                ++yAxes;
                std::sort(values.begin(), values.end());
                const double step = values[1] - values[0];
                QVERIFY2(views::isNiceStep(step), qPrintable(QString::number(step)));
                for (size_t i = 1; i < values.size(); ++i) {
                    QVERIFY(std::abs(values[i] - values[i - 1] - step) < step * 1e-6);
                    const double k = values[i] / step;
                    QVERIFY2(std::abs(k - std::round(k)) < 1e-6, qPrintable(QString::number(k)));
                }
            }
            QCOMPARE(yAxes, expectedAxes);
        }
    }

    // The unit is chosen once per axis and the title says it.
    void sweepUnitsMatchTitles() {
        views::SweepChart sweep;
        fillSweep(sweep); // 12.2 ms latencies, up to 1.2 M transitions
        QCOMPARE(sweep.latencyTitle(), QStringLiteral("Latency (ms)"));
        QCOMPARE(sweep.costTitle(), QStringLiteral("DP transitions (×10⁶)"));
        sweep.setData({}, {1}, {1, 2}, {0.412, 0.398}, {120, 240}, {0.001, 0.002});
        QCOMPARE(sweep.latencyTitle(), QStringLiteral("Latency (µs)"));
        QCOMPARE(sweep.costTitle(), QStringLiteral("DP transitions"));
        QVERIFY(labelLayoutProblem(sweep, {1280, 800}, QStringLiteral("sweep-us")).isEmpty());
        QVERIFY(hasLabel(sweep, QStringLiteral("Latency (µs)")));
        QVERIFY(hasLabel(sweep, QStringLiteral("400"))); // 0.4 ms read in µs
    }

    void tooltipHasWallClockSeconds() {
        views::SweepChart sweep;
        fillSweep(sweep);
        sweep.resize(1280, 800);
        const QPointF p = sweep.pointAt(sweep.chartArea(), 0, 2, 3); // latencies stand apart
        const QString tip = sweep.tooltipAt(p);
        QVERIFY2(tip.contains(QStringLiteral("DP transitions")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("search took")), qPrintable(tip));
        QVERIFY(tip.contains(QStringLiteral("r = 3, s = 4")));
    }

    void axisUnits_data() {
        QTest::addColumn<double>("maxSeconds");
        QTest::addColumn<QString>("unit");
        QTest::newRow("µs") << 0.00042 << "µs";
        QTest::newRow("ms") << 0.012265 << "ms";
        QTest::newRow("s") << 28.0 << "s";
    }
    void axisUnits() {
        QFETCH(double, maxSeconds);
        QFETCH(QString, unit);
        QCOMPARE(views::durationUnit(maxSeconds).name, unit);
        QCOMPARE(views::durationUnit(maxSeconds).title(QStringLiteral("Search time")),
                 QStringLiteral("Search time (%1)").arg(unit));
    }

    // ValueAxis: a 12.0–12.3 ms range ticks at nice ms values, never at 12.265.
    void valueAxisTicks_data() {
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::newRow("sweep latency") << 12.16 << 12.29;
        QTest::newRow("from zero") << 0.0 << 1234567.0;
        QTest::newRow("tiny") << 0.0001 << 0.00042;
        QTest::newRow("one value") << 5.0 << 5.0;
    }
    void valueAxisTicks() {
        QFETCH(double, lo);
        QFETCH(double, hi);
        for (int target : {2, 4, 6}) {
            const views::ValueAxis axis = views::ValueAxis::of(lo, hi, target);
            QVERIFY(views::isNiceStep(axis.range.step));
            QVERIFY(axis.lo() <= lo && axis.hi() >= hi);
            for (double v : axis.range.ticks()) {
                const double k = v / axis.range.step;
                QVERIFY(std::abs(k - std::round(k)) < 1e-6);
            }
        }
        QCOMPARE(views::tickLabel(12.2, 0.1), QStringLiteral("12.2"));
        QCOMPARE(views::tickLabel(12.25, 0.05), QStringLiteral("12.25"));
        QCOMPARE(views::tickLabel(400, 100), QStringLiteral("400"));
        QCOMPARE(views::tickLabel(-0.0, 0.5), QStringLiteral("0.0"));
    }

    // One scale for the whole matrix: equal slow-downs in different columns share a colour,
    // ×1.002 is lighter than ×1.006, the best is white, and a legend with ticks is drawn.
    void heatMapHasOneScale() {
        views::HeatMatrix m{QStringLiteral("t"),
                            {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")},
                            {{10.0, 20.04, 30.0}, {10.02, 20.0, 30.18}, {10.06, 20.2, 30.06}}};
        views::HeatMapChart chart;
        chart.setData({m});
        QCOMPARE(chart.cellColor(0, 1, 0), chart.cellColor(0, 0, 1)); // both ×1.002
        QCOMPARE(chart.cellColor(0, 0, 0), QColor(Qt::white));        // best in its column
        QCOMPARE(chart.cellColor(0, 1, 1), QColor(Qt::white));
        const QColor small = chart.cellColor(0, 1, 0); // ×1.002
        const QColor large = chart.cellColor(0, 2, 0); // ×1.006
        QVERIFY(small != large);
        QVERIFY(small.lightnessF() > large.lightnessF());
        QVERIFY(large.lightnessF() > chart.cellColor(0, 2, 1).lightnessF()); // ×1.010
        // A few per mille stays pale: the scale reaches at least ×1.05.
        QVERIFY(chart.scaleTop(0) >= 1.05);
        QVERIFY(large.lightnessF() > 0.8);
        QVERIFY(labelLayoutProblem(chart, {1280, 800}, QStringLiteral("heat-scale")).isEmpty());
        int legend = 0;
        for (const views::ChartLabel& l : chart.lastLabels())
            if (l.text.startsWith(QStringLiteral("×1.0")) && !l.text.contains(QLatin1Char('\n')))
                ++legend;
        QVERIFY2(legend >= 2, "the legend's ticks");
        QVERIFY(hasLabel(chart, QStringLiteral("10.000 ms\n×1.000 best")) ||
                hasLabel(chart, QStringLiteral("×1.000 best")));
    }

    void heatMapTooltipNamesTheCell() {
        views::HeatMapChart chart;
        fillHeatMap(chart);
        chart.resize(1280, 800);
        labelLayoutProblem(chart, {1280, 800}, QStringLiteral("heat"));
        // Any cell of the first matrix: the label drawn inside it names its slow-down.
        for (const views::ChartLabel& l : chart.lastLabels())
            if (l.text.endsWith(QStringLiteral("best"))) {
                const QString tip = chart.tooltipAt(l.rect.center());
                QVERIFY2(tip.contains(QStringLiteral("×1.0000")), qPrintable(tip));
                return;
            }
        QFAIL("no best cell drawn");
    }
};

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
