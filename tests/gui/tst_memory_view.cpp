// SPDX-License-Identifier: Apache-2.0
// The Memory view against the engine: the report's walks, arena and Serenity orders are the
// engine's (planBlock, orderPeak, arenaFootprint, the serenity scheduler's peak, the counting
// DP), the view shows the right peak for every block and order, a selected step highlights
// exactly the producers of its live tensors in the graph, a too-small budget says the least
// feasible peak and offers it, dragging the budget on the trade-off chart runs the budgeted
// search, the comparison shows each scheduler's peak, and the view exports as a picture.
#include "analysis_tab.h"
#include "charts.h"
#include "engine_jobs.h"
#include "eval/memory_eval.h"
#include "exports.h"
#include "graph_view.h"
#include "job_controller.h"
#include "main_window.h"
#include "main_window_test_support.h"
#include "memory_jobs.h"
#include "memory_step_chart.h"
#include "memory_view.h"
#include "operator_item.h"
#include "pareto_chart.h"
#include "schedulers/serenity/memory_dp.h"
#include "schedulers/serenity/memory_plan.h"
#include "settings_panel.h"
#include "units.h"

#include <QComboBox>
#include <QGraphicsScene>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <functional>
#include <numeric>
#include <set>

using namespace ios;
using namespace ios::gui;
using views::MemoryView;

using ios::gui::test::waitFor;

namespace {

template <class R> R runJob(Job<R> (*kind)(JobSettings), JobSettings settings) {
    settings.recordStateSpace = false;
    JobControl control;
    return kind(settings).run(control);
}

std::shared_ptr<const views::MemoryReport> report(const views::LoadedModelPtr& model) {
    JobSettings settings;
    settings.model = model;
    return runJob(&memoryJob, settings).report;
}

std::vector<int> fileOrder(const ir::MemoryProblem& p) {
    std::vector<int> order(p.ops.size());
    std::iota(order.begin(), order.end(), 0);
    return order;
}

// The flat indices of the operators producing the tensors live at `step` of `walk`, found
// from the problem's tensors directly.
std::set<int> producersAt(const views::LoadedModel& model, int block,
                          const ir::MemoryProblem& problem, const ir::MemoryWalk& walk, int step) {
    std::set<int> out;
    for (int t : walk.liveAt[static_cast<size_t>(step)])
        for (int op : problem.tensors[static_cast<size_t>(t)].producers)
            out.insert(model.flatIndex({block, problem.ops[static_cast<size_t>(op)].blockOp}));
    return out;
}

std::set<int> highlighted(const views::GraphView& graph) {
    std::set<int> out;
    for (QGraphicsItem* item : graph.scene()->items())
        if (item->type() == views::OperatorItem::Type &&
            static_cast<views::OperatorItem*>(item)->isHighlighted())
            out.insert(static_cast<views::OperatorItem*>(item)->flatIndex());
    return out;
}

// A shown main window on `model`, its result and graph ready, on the Memory tab with the
// report and the trade-off computed.
bool openOnMemoryTab(MainWindow& w, const QString& model) {
    w.setDialogsEnabled(false);
    w.resize(1700, 1000);
    w.show();
    if (!w.openModel(model))
        return false;
    if (!waitFor([&] { return w.lastResult() && !w.jobs()->isRunning(); }))
        return false;
    w.tabs()->setCurrentWidget(w.memoryView());
    return waitFor([&] {
        return w.memoryView()->report() && w.memoryView()->paretoChart()->front() &&
               !w.memoryJobs()->isRunning() && !w.paretoJobs()->isRunning() &&
               w.graphView()->isLayoutReady();
    });
}

// The result shown after the settings asked for `budget`.
bool waitForBudgetedResult(MainWindow& w, int64_t budget) {
    return waitFor([&] {
        return !w.jobs()->isRunning() && w.lastResult() &&
               w.lastResult()->settings.memoryBudget == budget;
    });
}

// The same search outside the GUI.
schedulers::Outcome engineRun(const MainWindow& w, const QString& strategy, int64_t budget) {
    const JobSettings& s = w.lastResult()->settings;
    const auto cost = EngineJobs::makeCostModel(*w.model(), s, s.device, s.batch);
    schedulers::Params params;
    params.memoryBudget = budget;
    return schedulers::schedulerByName(strategy.toStdString())
        .run(w.model()->prepared(), params, *cost, nullptr);
}

} // namespace

class TestMemoryView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("ios-explorer-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_memory_view"));
    }
    void init() { QSettings().clear(); }

    // Every block: the file walk and arena are the engine's, Serenity's order per partition
    // is planBlock's (order, peak, τ trace), the model's peak the serenity scheduler's, and each
    // window's distribution counts every order of its ops.
    void reportIsTheEngines_data() {
        QTest::addColumn<QString>("model");
        for (const char* m :
             {"squeezenet", "inception_v3", "randwire_large", "demo_inception_module"})
            QTest::newRow(m) << QString::fromLatin1(m);
    }
    void reportIsTheEngines() {
        QFETCH(QString, model);
        const views::LoadedModelPtr loaded = views::loadModel(model);
        const auto r = report(loaded);
        QVERIFY(r);
        const ir::MemoryOptions memory;
        const auto problems = ir::modelMemoryProblems(loaded->graph(), loaded->dags(), memory);
        QCOMPARE(r->blocks.size(), problems.size());
        schedulers::serenity::PlanOptions options;
        options.resolution = memory.bytesPerElement;
        options.limits.maxExpansions = views::kSerenityExpansions;
        options.escalations = views::kSerenityEscalations;
        int windows = 0;
        for (size_t b = 0; b < problems.size(); ++b) {
            const ir::MemoryProblem& p = problems[b];
            const views::BlockMemory& block = r->blocks[b];
            QCOMPARE(block.file.walk.peak, ir::orderPeak(p, fileOrder(p)));
            QCOMPARE(block.file.arenaAfter.back(), ir::arenaFootprint(p, fileOrder(p)));
            const schedulers::serenity::BlockPlan plan =
                schedulers::serenity::planBlock(p, options);
            std::vector<int> order;
            std::vector<schedulers::serenity::BudgetStep> trace;
            for (const views::DpPartition& part : block.partitions)
                trace.insert(trace.end(), part.trace.begin(), part.trace.end());
            for (const std::vector<int>& step : block.serenity.steps)
                order.insert(order.end(), step.begin(), step.end());
            QCOMPARE(order, plan.order);
            QCOMPARE(block.serenity.walk.peak, plan.peak);
            QCOMPARE(trace.size(), plan.tauTrace.size());
            for (size_t i = 0; i < trace.size(); ++i) {
                QCOMPARE(trace[i].tau, plan.tauTrace[i].tau);
                QVERIFY(trace[i].status == plan.tauTrace[i].status);
            }
            QVERIFY(block.serenity.walk.peak <= block.file.walk.peak);
            for (const views::PeakWindow& w : block.windows) {
                ++windows;
                QVERIFY(w.ops.size() >= 3 && w.ops.size() <= size_t{views::kWindowOps});
                QCOMPARE(w.ops.back() - w.ops.front() + 1, static_cast<int>(w.ops.size()));
                schedulers::serenity::Segment segment;
                segment.ops = w.ops;
                for (int op = 0; op < w.ops.front(); ++op)
                    segment.before.push_back(op);
                QCOMPARE(w.orders, schedulers::serenity::countOrders(p, segment).toDouble());
                QVERIFY(w.optimum() <= w.filePeak);
                QCOMPARE(w.filePeak, schedulers::serenity::segmentPeak(p, segment, w.ops));
            }
        }
        QVERIFY(windows > 0 || model == QLatin1String("squeezenet"));
        const auto cost =
            EngineJobs::makeCostModel(*loaded, JobSettings{}, QStringLiteral("v100"), 1);
        const schedulers::Outcome serenity =
            schedulers::schedulerByName("serenity")
                .run(loaded->prepared(), schedulers::Params{}, *cost, nullptr);
        QCOMPARE(r->serenityPeak(), serenity.peakBytes);
    }

    // The view shows each block's peak for the file order, Serenity's order and the current
    // schedule's stages, as the engine measures them.
    void viewShowsEnginePeaks() {
        const views::LoadedModelPtr model = views::loadModel(QStringLiteral("inception_v3"));
        const auto r = report(model);
        JobSettings settings;
        settings.model = model;
        const SearchResult optimized = runJob(&optimizeJob, settings);
        const RunResult& run = optimized.runs.front();
        MemoryView view;
        view.resize(1600, 900);
        view.setReport(model, r);
        QCOMPARE(view.order(), MemoryView::Order::Serenity); // no schedule yet
        view.setSchedule(model, run.schedule, QStringLiteral("IOS-Both"), run.peakBytes,
                         run.latencyMs, 0);
        QCOMPARE(view.order(), MemoryView::Order::Schedule);
        const auto problems = ir::modelMemoryProblems(model->graph(), model->dags(), {});
        const eval::ScheduleMemory stages = eval::scheduleMemory(problems, run.schedule);
        QCOMPARE(stages.peak, run.peakBytes);
        for (int b = 0; b < static_cast<int>(problems.size()); ++b) {
            const ir::MemoryProblem& p = problems[static_cast<size_t>(b)];
            view.setBlock(b);
            QCOMPARE(view.blockBox()->currentIndex(), b);
            view.setOrder(MemoryView::Order::File);
            QCOMPARE(view.shownSeries()->walk.peak, ir::orderPeak(p, fileOrder(p)));
            view.setOrder(MemoryView::Order::Serenity);
            QCOMPARE(view.shownSeries()->walk.peak,
                     r->blocks[static_cast<size_t>(b)].serenity.walk.peak);
            view.setOrder(MemoryView::Order::Schedule);
            const views::StepChartData& shown = view.stepChart()->data();
            QCOMPARE(shown.series.walk.peak, stages.blockPeak[static_cast<size_t>(b)]);
            QCOMPARE(view.stepChart()->stepCount(),
                     static_cast<int>(run.schedule.blocks[static_cast<size_t>(b)].stages.size()));
            QVERIFY(view.summaryLabel()->text().contains(
                views::formatBytes(static_cast<double>(stages.blockPeak[static_cast<size_t>(b)]))));
            // Nothing selected: the peak step's live tensors.
            const std::set<int> expected =
                producersAt(*model, b, p, shown.series.walk, shown.series.walk.peakStep);
            const std::vector<int> live = view.liveOperators();
            QCOMPARE(std::set<int>(live.begin(), live.end()), expected);
        }
        QVERIFY(view.summaryLabel()->text().contains(
            views::formatBytes(static_cast<double>(run.peakBytes))));
    }

    // Clicking a step (and ← / →) highlights exactly the producers of its live tensors in the
    // graph and selects the step's operator in the stage tree.
    void stepSelectionHighlightsProducers() {
        MainWindow w;
        QVERIFY(openOnMemoryTab(w, QStringLiteral("inception_v3")));
        MemoryView* view = w.memoryView();
        view->setBlock(5);
        view->setOrder(MemoryView::Order::File);
        views::MemoryStepChart* chart = view->stepChart();
        const views::BlockMemory& block = view->report()->blocks[5];
        const ir::MemoryWalk& walk = block.file.walk;
        QSignalSpy selected(view, &MemoryView::stepSelected);
        for (int step : {walk.peakStep, 0, chart->stepCount() - 1}) {
            QTest::mouseClick(chart, Qt::LeftButton, {}, chart->stepCenter(step).toPoint());
            QCOMPARE(chart->selectedStep(), step);
            const std::set<int> expected = producersAt(*w.model(), 5, block.problem, walk, step);
            QVERIFY(!expected.empty());
            QCOMPARE(highlighted(*w.graphView()), expected);
        }
        QCOMPARE(selected.count(), 3);
        QTest::keyClick(chart, Qt::Key_Left);
        const int step = chart->stepCount() - 2;
        QCOMPARE(chart->selectedStep(), step);
        QCOMPARE(highlighted(*w.graphView()),
                 producersAt(*w.model(), 5, block.problem, walk, step));
        // The step's operator in the stage tree; the graph's selection leads back to its step.
        const int op = block.file.steps[static_cast<size_t>(step)].front();
        const int flat =
            w.model()->flatIndex({5, block.problem.ops[static_cast<size_t>(op)].blockOp});
        const QModelIndex current =
            w.findChild<QTreeView*>(QStringLiteral("stageTree"))->currentIndex();
        QVERIFY(current.isValid());
        QVERIFY(current.data().toString().contains(
            QString::fromStdString(block.problem.ops[static_cast<size_t>(op)].name)));
        view->selectStep(0);
        Q_EMIT w.graphView()->operatorSelected(flat);
        QCOMPARE(chart->selectedStep(), step);
    }

    // A budget below every schedule's peak: the panel names the least feasible peak (the
    // engine's) and its button searches under it.
    void tooSmallBudgetOffersSmallestPeak() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("demo_inception_module")));
        QVERIFY(waitFor([&] { return w.lastResult() && !w.jobs()->isRunning(); }));
        SettingsPanel* panel = w.settingsPanel();
        QSignalSpy failed(&w, &MainWindow::errorOccurred);
        panel->budgetEdit()->setText(QStringLiteral("1 MiB"));
        Q_EMIT panel->budgetEdit()->editingFinished();
        QVERIFY(failed.wait(60000));
        const JobSettings& s = w.lastResult()->settings;
        const auto cost = EngineJobs::makeCostModel(*w.model(), s, s.device, s.batch);
        const int64_t smallest = schedulers::smallestSchedulePeak(
            w.model()->prepared(), schedulers::memoryOptions(schedulers::Params{}, *cost));
        QVERIFY(panel->budgetNote()->isVisibleTo(panel));
        QVERIFY2(panel->budgetNote()->text().contains(QString::number(smallest)),
                 qPrintable(panel->budgetNote()->text()));
        QVERIFY(panel->budgetNote()->text().contains(
            views::formatBytes(static_cast<double>(smallest))));
        QVERIFY(w.lastError().contains(QLatin1String("memory budget")));
        QVERIFY(panel->useSuggestedBudget()->isVisibleTo(panel));
        QTest::mouseClick(panel->useSuggestedBudget(), Qt::LeftButton);
        QVERIFY(waitForBudgetedResult(w, smallest));
        QCOMPARE(w.lastResult()->runs.front().peakBytes, smallest);
        QVERIFY(!panel->budgetNote()->isVisibleTo(panel));
        QCOMPARE(views::parseBytes(panel->budgetEdit()->text()).value_or(-1), smallest);
    }

    // Dragging the budget line runs IOS under the budget it was dropped at; the result is the
    // engine's under that budget and becomes current. Clicking a point picks its peak.
    void paretoDragRunsBudgetedSearch() {
        MainWindow w;
        QVERIFY(openOnMemoryTab(w, QStringLiteral("demo_inception_module")));
        views::ParetoChart* chart = w.memoryView()->paretoChart();
        w.memoryView()->showPanel(2);
        QVERIFY(chart->hasTradeOff());
        const schedulers::ParetoFront& front = *chart->front();
        QCOMPARE(chart->budget(), front.unconstrainedPeak); // no budget yet
        const int64_t between = (front.points[1].peakBytes + front.points[2].peakBytes) / 2;
        const double x = chart->xOfBudget(between);
        const int64_t expected = chart->budgetAtX(x);
        QVERIFY(expected >= front.points[2].peakBytes && expected < front.points[1].peakBytes);
        const int y = chart->height() / 2;
        QTest::mousePress(chart, Qt::LeftButton, {},
                          QPoint(static_cast<int>(chart->xOfBudget(chart->budget())), y));
        QTest::mouseMove(chart, QPoint(static_cast<int>(x), y));
        QCOMPARE(chart->budget(), expected);
        QTest::mouseRelease(chart, Qt::LeftButton, {}, QPoint(static_cast<int>(x), y));
        QVERIFY(waitForBudgetedResult(w, expected));
        const RunResult& run = w.lastResult()->runs.front();
        QVERIFY(run.peakBytes <= expected);
        const schedulers::Outcome engine = engineRun(w, run.strategy, expected);
        QCOMPARE(run.peakBytes, engine.peakBytes);
        QVERIFY(run.schedule == engine.schedule);
        QCOMPARE(w.settingsPanel()->settings().memoryBudget, expected);
        QCOMPARE(chart->budget(), expected);
        // A click on the least-memory point takes its peak as the budget.
        const schedulers::ParetoPoint& least = front.points.back();
        QSignalSpy chosen(chart, &views::ParetoChart::budgetChosen);
        const QPoint at = chart->pointCenter(front.points.size() - 1).toPoint();
        QTest::mousePress(chart, Qt::LeftButton, {}, at);
        QTest::mouseRelease(chart, Qt::LeftButton, {}, at);
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.front().front().toLongLong(), least.peakBytes);
        QVERIFY(waitForBudgetedResult(w, least.peakBytes));
        QCOMPARE(w.lastResult()->runs.front().peakBytes, least.peakBytes);
    }

    // The comparison's peak-memory panel shows each scheduler's peak (the engine's), the IOS
    // strategies within the budget.
    void comparisonShowsPeakMemory() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("demo_inception_module")));
        QVERIFY(waitFor([&] { return w.lastResult() && !w.jobs()->isRunning(); }));
        const int64_t budget = 2900800;
        w.settingsPanel()->chooseBudget(budget);
        QVERIFY(waitForBudgetedResult(w, budget));
        QSignalSpy shown(&w, &MainWindow::analysisShown);
        auto* tab = w.findChild<AnalysisTab*>(QStringLiteral("comparisonTab"));
        w.tabs()->setCurrentWidget(tab);
        QVERIFY(shown.wait(120000));
        const auto& entries = static_cast<views::ComparisonChart*>(tab->chart())->entries();
        const auto all = schedulers::registeredSchedulers();
        QCOMPARE(entries.size(), all.size());
        for (size_t i = 0; i < all.size(); ++i) {
            const QString key = QString::fromUtf8(all[i]->key().data(), all[i]->key().size());
            const bool budgeted = all[i]->reads(schedulers::Knob::MemoryBudget);
            const schedulers::Outcome o = engineRun(w, key, budgeted ? budget : 0);
            QCOMPARE(entries[i].label, strategyLabel(key));
            QCOMPARE(entries[i].peakBytes, static_cast<double>(o.peakBytes));
            QVERIFY(entries[i].peakBytes > 0);
            if (budgeted)
                QVERIFY(entries[i].peakBytes <= budget);
        }
    }

    // File ▸ Export ▸ Picture of the Memory tab.
    void exportsPicture() {
        MainWindow w;
        QVERIFY(openOnMemoryTab(w, QStringLiteral("demo_inception_module")));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("memory.png"));
        exportPicture(w.memoryView(), path);
        const QImage image(path);
        QCOMPARE(image.size(), w.memoryView()->size().expandedTo(QSize(800, 500)));
        // Not blank: the stacked bars paint many colours.
        std::set<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY(colours.size() > 20);
    }
};

QTEST_MAIN(TestMemoryView)
#include "tst_memory_view.moc"
