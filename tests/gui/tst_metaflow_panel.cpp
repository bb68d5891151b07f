// SPDX-License-Identifier: Apache-2.0
// The MetaFlow tab in the real main window (issue 15 item 6): a SqueezeNet run shows the
// engine's substitution log, metrics and comparison rows; a log row selects exactly its
// operators in G0 and G*; a long search cancels; the settings persist; a batch change makes the
// result stale; the registered `metaflow` scheduler in the main strategy box and the Compare
// tab never draws G*'s schedule over G0.
#include "analysis_tab.h"
#include "chart_fixtures.h"
#include "charts.h"
#include "engine_jobs.h"
#include "exports.h"
#include "graph_diff_view.h"
#include "graph_view.h"
#include "io/model_file.h"
#include "job_controller.h"
#include "main_window.h"
#include "main_window_test_support.h"
#include "metaflow_panel.h"
#include "metaflow_search_chart.h"
#include "operator_item.h"
#include "schedulers/metaflow.h"
#include "settings_panel.h"
#include "stage_tree_model.h"
#include "util/error.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <algorithm>
#include <functional>

using namespace ios;
using namespace ios::gui;
using ios::gui::test::waitFor;

namespace {

// A window with SqueezeNet open and the main search's auto-run off (the tab runs alone).
std::unique_ptr<MainWindow> openWindow(const char* model) {
    auto w = std::make_unique<MainWindow>();
    w->setDialogsEnabled(false);
    w->settingsPanel()->autoRunBox()->setValue(0);
    w->resize(1280, 800);
    w->show();
    if (!w->openModel(QString::fromLatin1(model)))
        return nullptr;
    w->tabs()->setCurrentWidget(w->metaflowPanel());
    return w;
}

bool runPanel(MainWindow& w, int timeoutMs = 120000) {
    MetaflowPanel* panel = w.metaflowPanel();
    QSignalSpy shown(panel, &MetaflowPanel::resultShown);
    QSignalSpy failed(panel, &MetaflowPanel::failed);
    panel->runButton()->click();
    const bool done = waitFor([&] { return !shown.isEmpty() || !failed.isEmpty(); }, timeoutMs);
    if (!failed.isEmpty())
        qWarning("MetaFlow failed: %s", qPrintable(failed.front().front().toString()));
    return done && !shown.isEmpty();
}

std::vector<int> emphasised(const views::GraphView& view) {
    std::vector<int> out;
    for (const views::OperatorItem* item : view.operatorItems())
        if (item->emphasis() == views::OperatorItem::Emphasis::Selected)
            out.push_back(item->flatIndex());
    std::sort(out.begin(), out.end());
    return out;
}

QString text(const QTableWidget* t, int row, int column) {
    return t->item(row, column) ? t->item(row, column)->text() : QString();
}

} // namespace

class TestMetaflowPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { test::useTestSettings("tst_metaflow_panel"); }

    // The tab shows what the engine computes for the same settings.
    void squeezeNetRun() {
        auto w = openWindow("squeezenet");
        QVERIFY(w);
        QVERIFY(runPanel(*w));
        MetaflowPanel* panel = w->metaflowPanel();
        const auto& result = panel->result();
        QVERIFY(result && result->metaflow);
        const MetaflowResult& mf = *result->metaflow;

        // The engine, run directly with the tab's settings.
        const JobSettings& s = result->settings;
        const auto cost = EngineJobs::makeCostModel(*s.model, s, s.device, s.batch);
        schedulers::Params params;
        params.r = s.r;
        params.s = s.s;
        const schedulers::MetaflowResult engine =
            schedulers::runMetaflow(s.model->prepared(), params, *cost, s.metaflow.options());
        const auto& history = engine.rewritten->search.history;
        QVERIFY(!history.empty());
        QCOMPARE(panel->substitutions()->rowCount(), static_cast<int>(history.size()));
        QCOMPARE(mf.search.history.size(), history.size());
        for (size_t i = 0; i < history.size(); ++i)
            QCOMPARE(mf.search.history[i].provenance, history[i].provenance);

        // Metrics: the engine's figures, row by row.
        QTableWidget* metrics = panel->metrics();
        auto row = [&](const QString& name) {
            for (int r = 0; r < metrics->rowCount(); ++r)
                if (text(metrics, r, 0).startsWith(name))
                    return r;
            return -1;
        };
        const int kernels = row(QStringLiteral("MetaFlow kernels"));
        QVERIFY(kernels >= 0);
        QCOMPARE(text(metrics, kernels, 1), QString::number(engine.before.mfKernels));
        QCOMPARE(text(metrics, kernels, 2), QString::number(engine.after.mfKernels));
        QCOMPARE(mf.metrics[static_cast<size_t>(row(QStringLiteral("Sequential")))].after,
                 std::optional<double>(engine.after.sequentialMs));
        QCOMPARE(mf.metrics[static_cast<size_t>(row(QStringLiteral("Cost")))].before,
                 std::optional<double>(engine.before.objectiveMs));
        QCOMPARE(mf.metrics[static_cast<size_t>(row(QStringLiteral("Operators")))].after,
                 std::optional<double>(static_cast<double>(engine.after.operators)));

        // The four comparison rows, in order, priced as the engine's composition table.
        const auto& entries = panel->comparisonChart()->entries();
        QCOMPARE(entries.size(), size_t{4});
        const QStringList labels = {
            QStringLiteral("Sequential (G0)"), QStringLiteral("IOS-Both (G0)"),
            QStringLiteral("Sequential (G*)"), QStringLiteral("IOS-Both (G*)")};
        const auto table = schedulers::compositionTable(s.model->prepared(), params, *cost, engine);
        for (size_t i = 0; i < 4; ++i) {
            QCOMPARE(entries[i].label, labels[static_cast<int>(i)]);
            const schedulers::CompositionRow& c = table[i % 2];
            QCOMPARE(entries[i].latencyMs, i < 2 ? c.originalMs : c.rewrittenMs);
        }
        QVERIFY(entries[3].latencyMs < entries[1].latencyMs); // SqueezeNet gains (docs/metaflow.md)
        QVERIFY(!panel->searchChart()->points().empty());
    }

    // A log row (mouse or arrow keys) selects exactly its sources in G0 and its creations in
    // G*; the diff colours what changed.
    void rowSelectsProvenance() {
        auto w = openWindow("squeezenet");
        QVERIFY(w);
        QVERIFY(runPanel(*w));
        MetaflowPanel* panel = w->metaflowPanel();
        views::GraphDiffView* diff = panel->diffView();
        QVERIFY(waitFor(
            [&] { return diff->before()->isLayoutReady() && diff->after()->isLayoutReady(); }));
        const MetaflowResult& mf = *panel->result()->metaflow;
        QTableWidget* table = panel->substitutions();
        table->setFocus();
        table->setCurrentCell(0, 0);
        for (int r = 0; r < table->rowCount(); ++r) {
            if (r > 0)
                QTest::keyClick(table, Qt::Key_Down);
            QCOMPARE(table->currentRow(), r);
            const rewrite::Provenance& p = mf.search.history[static_cast<size_t>(r)].provenance;
            // SqueezeNet's merges are independent: each step's operators are G0's and G*'s.
            QCOMPARE(emphasised(*diff->before()), views::flatIndicesOf(*mf.original, p.sources));
            QCOMPARE(emphasised(*diff->after()), views::flatIndicesOf(*mf.rewritten, p.created));
            QCOMPARE(emphasised(*diff->before()).size(), p.sources.size());
            QCOMPARE(emphasised(*diff->after()).size(), p.created.size());
        }
        const views::GraphDiff& d = diff->diff();
        // Every step's sources are G0's operators here (R3: two convs, R5: the concatenation).
        std::vector<std::string> sources;
        for (const auto& step : mf.search.history)
            sources.insert(sources.end(), step.provenance.sources.begin(),
                           step.provenance.sources.end());
        QCOMPARE(d.replaced, views::flatIndicesOf(*mf.original, sources));
        for (int i : d.replaced)
            QCOMPARE(diff->before()->operatorItems()[static_cast<size_t>(i)]->fill(),
                     views::GraphDiffView::replacedColor());
        for (int i : d.created)
            QCOMPARE(diff->after()->operatorItems()[static_cast<size_t>(i)]->fill(),
                     views::GraphDiffView::createdColor());
        QVERIFY(!d.rewiredAfter.empty()); // the merged convs' consumers read channel ranges
    }

    // A source created by an earlier step is followed back to G0; a creation rewritten by a
    // later step is followed forward to G*.
    void chainedStepsResolve() {
        const views::LoadedModelPtr m = views::loadModel(QStringLiteral("squeezenet"));
        const auto name = [&](int i) {
            return m->node(m->operators()[static_cast<size_t>(i)]).name;
        };
        std::vector<rewrite::Provenance> steps(2);
        steps[0].sources = {name(1), name(2)};
        steps[0].created = {name(1)};
        steps[1].sources = {name(1), name(3)};
        steps[1].created = {name(3)};
        const views::StepOperators first = views::stepOperators(*m, *m, steps, 0);
        QCOMPARE(first.before, (std::vector<int>{1, 2}));
        QCOMPARE(first.after, (std::vector<int>{3}));
        const views::StepOperators second = views::stepOperators(*m, *m, steps, 1);
        QCOMPARE(second.before, (std::vector<int>{1, 2, 3}));
        QCOMPARE(second.after, (std::vector<int>{3}));
    }

    // The live chart keeps its labels inside and apart at the sizes it gets (the side tab at
    // 1280×800 and 1920×1080, a large window), with units on both value axes.
    void searchChartLabels() {
        views::MetaflowSearchChart chart;
        std::vector<views::SearchTracePoint> points;
        for (int i = 0; i <= 40; ++i) // two regions: the second's cost restarts lower
            points.push_back({i * 2500.0, 300.0 + 40 * (i % 7), i < 20 ? 1.2 - i * 0.01 : 0.6,
                              i < 20 ? 1.25 - i * 0.008 : 0.65 + 0.002 * i});
        chart.setData(QStringLiteral("Search progress"), points);
        for (const QSize size : {QSize(350, 420), QSize(420, 300), QSize(560, 520), QSize(900, 500),
                                 QSize(1600, 900)}) {
            const QString problem =
                chart_fixtures::labelLayoutProblem(chart, size, QStringLiteral("metaflow_search"));
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        chart.resize(900, 500);
        chart.grab();
        QVERIFY(chart_fixtures::hasLabel(chart, chart.costTitle()));
        QVERIFY(chart.costTitle().endsWith(QStringLiteral("(ms)")));
        QVERIFY(chart_fixtures::hasLabel(chart, QStringLiteral("Graphs expanded (×10³)")));
        QVERIFY(chart_fixtures::hasLabel(chart, QStringLiteral("Queue (graphs waiting)")));
        QVERIFY(!chart.tooltipAt(QPointF(450, 200)).isEmpty());
    }

    // A search that would run for hours stops when cancelled; the live text and chart move.
    void cancelStopsLongSearch() {
        auto w = openWindow("inception_v3");
        QVERIFY(w);
        MetaflowPanel* panel = w->metaflowPanel();
        panel->presetBox()->setCurrentIndex(panel->presetBox()->findData(kMetaflowArtifact));
        panel->alphaBox()->setValue(1.2); // every subset of InceptionV3's 32 merges is kept
        panel->budgetBox()->setValue(panel->budgetBox()->maximum());
        QSignalSpy cancelled(panel, &MetaflowPanel::cancelled);
        panel->runButton()->click();
        QVERIFY(panel->isRunning());
        QVERIFY(waitFor(
            [&] { return panel->progressText().startsWith(QStringLiteral("expanded")); }, 60000));
        QVERIFY(panel->progressText().contains(QStringLiteral("queue")));
        QVERIFY(panel->progressText().contains(QStringLiteral("best")));
        QVERIFY(waitFor([&] { return !panel->searchChart()->points().empty(); }, 60000));
        QVERIFY(panel->isRunning());
        QVERIFY(panel->cancelButton()->isEnabled());
        QElapsedTimer stopping;
        stopping.start();
        panel->cancelButton()->click();
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(!panel->isRunning());
        // The worker returns (its result dropped) within a bounded wait, not hours.
        QVERIFY(waitFor([&] { return panel->jobs()->droppedResults() == 1; }, 10000));
        qInfo("worker returned %lld ms after Cancel", static_cast<long long>(stopping.elapsed()));
        QVERIFY(!panel->result());
    }

    void settingsPersist() {
        {
            auto w = openWindow("squeezenet");
            QVERIFY(w);
            MetaflowPanel* panel = w->metaflowPanel();
            panel->presetBox()->setCurrentIndex(panel->presetBox()->findData(kMetaflowArtifact));
            QCOMPARE(panel->settings().alpha,
                     MetaflowSettings::fromPreset(kMetaflowArtifact).alpha);
            panel->alphaBox()->setValue(1.13);
            panel->budgetBox()->setValue(777);
            panel->ruleBoxes().front()->setChecked(!panel->ruleBoxes().front()->isChecked());
            panel->objectiveBox()->setCurrentIndex(panel->objectiveBox()->findData(kObjectiveIos));
            panel->thenBox()->setCurrentIndex(panel->thenBox()->findData(QStringLiteral("greedy")));
        }
        auto w = openWindow("squeezenet");
        QVERIFY(w);
        const MetaflowSettings s = w->metaflowPanel()->settings();
        QCOMPARE(s.preset, kMetaflowArtifact);
        QCOMPARE(s.alpha, 1.13);
        QCOMPARE(s.budget, quint64{777});
        QCOMPARE(s.rules.on(rewrite::kAllRules.front()),
                 !rewrite::RuleSet{}.on(rewrite::kAllRules.front()));
        QCOMPARE(s.objective, kObjectiveIos);
        QCOMPARE(s.then, QStringLiteral("greedy"));
        // One rule switch per engine rule, the scheduler list from the registry without
        // schedulers that rewrite the graph themselves.
        QCOMPARE(w->metaflowPanel()->ruleBoxes().size(), rewrite::kAllRules.size());
        QCOMPARE(w->metaflowPanel()->thenBox()->findData(QStringLiteral("metaflow")), -1);
        QVERIFY(w->metaflowPanel()->thenBox()->findData(QStringLiteral("ios-both")) >= 0);
        const auto keys = w->shortcuts();
        QVERIFY(std::any_of(keys.begin(), keys.end(), [](const ShortcutHelp& k) {
            return k.section == QStringLiteral("MetaFlow");
        }));
    }

    void staleAfterBatchChange() {
        auto w = openWindow("squeezenet");
        QVERIFY(w);
        QVERIFY(runPanel(*w));
        MetaflowPanel* panel = w->metaflowPanel();
        QVERIFY(panel->staleMessage().isEmpty());
        w->settingsPanel()->batchBox()->setValue(16);
        QVERIFY(panel->staleMessage().contains(QStringLiteral("batch 1 → 16")));
        w->settingsPanel()->batchBox()->setValue(1);
        QVERIFY(panel->staleMessage().isEmpty());
        panel->alphaBox()->setValue(1.1);
        QVERIFY(panel->staleMessage().contains(QStringLiteral("α")));
    }

    // `metaflow` chosen in the main strategy box: its schedule is of G*, so the views of G0
    // show none and a note points to the MetaFlow tab; the Compare tab lists it.
    void metaflowStrategyInMainViews() {
        auto w = openWindow("squeezenet");
        QVERIFY(w);
        const int index = test::strategyIndex(*w, "metaflow");
        QVERIFY(index >= 0);
        w->settingsPanel()->strategyBox()->setCurrentIndex(index);
        w->tabs()->setCurrentIndex(0);
        w->runOptimize();
        QVERIFY(test::waitForResult(*w));
        const RunResult& run = w->lastResult()->runs.front();
        QVERIFY(run.rewritten);
        QVERIFY(run.substitutions > 0);
        QVERIFY(run.latencyMs > 0);
        QVERIFY(run.schedule.blocks.empty());
        QVERIFY(w->rewrittenNote().contains(QStringLiteral("MetaFlow tab")));
        QCOMPARE(w->stageTree()->model()->rowCount(), 0);
        QVERIFY(w->graphView()->isVisible());
        // Exporting it as the open model's schedule or trace is refused with the CLI's way.
        QTemporaryDir dir;
        const std::function<void(const SearchResult&, const QString&)> exporters[] = {
            [](const SearchResult& r, const QString& p) { exportSchedule(r, p); }, &exportTrace};
        for (const auto& exporter : exporters) {
            QString message;
            try {
                exporter(*w->lastResult(), dir.filePath(QStringLiteral("x.json")));
            } catch (const UserError& e) {
                message = QString::fromUtf8(e.what());
            }
            QVERIFY2(message.contains(QLatin1String("rewritten graph")), qPrintable(message));
        }
        QVERIFY(QDir(dir.path()).isEmpty());

        // Back to a scheduler of G0: the note goes, its stages come.
        w->settingsPanel()->strategyBox()->setCurrentIndex(test::strategyIndex(*w, "greedy"));
        w->runOptimize();
        QVERIFY(test::waitForResult(*w));
        QVERIFY(w->rewrittenNote().isEmpty());
        QVERIFY(w->stageTree()->model()->rowCount() > 0);

        auto* compare = w->tabs()->findChild<AnalysisTab*>(QStringLiteral("comparisonTab"));
        QVERIFY(compare);
        QSignalSpy shown(w.get(), &MainWindow::analysisShown);
        w->tabs()->setCurrentWidget(compare);
        QVERIFY(waitFor([&] { return !shown.isEmpty(); }));
        const auto& entries = static_cast<views::ComparisonChart*>(compare->chart())->entries();
        const auto it = std::find_if(entries.begin(), entries.end(), [](const auto& e) {
            return e.label == strategyLabel(QStringLiteral("metaflow"));
        });
        QVERIFY(it != entries.end());
        QVERIFY(it->latencyMs > 0);
    }

    // G* saved natively keeps SqueezeNet's in-place concatenations (R5); opened and scheduled,
    // its schedule exported as IOS JSON loses them, and the export says so.
    void exportWarnsOfInPlaceTerms() {
        QTemporaryDir dir;
        const QString native = dir.filePath(QStringLiteral("g.json"));
        {
            const views::LoadedModelPtr m = views::loadModel(QStringLiteral("squeezenet"));
            JobSettings s;
            const auto cost = EngineJobs::makeCostModel(*m, s, s.device, s.batch);
            const schedulers::MetaflowResult mf =
                schedulers::runMetaflow(m->prepared(), {}, *cost, schedulers::MetaflowOptions{});
            io::saveModelFile(mf.rewritten->graph(), native.toStdString());
        }
        auto w = openWindow(qPrintable(native));
        QVERIFY(w);
        w->settingsPanel()->strategyBox()->setCurrentIndex(test::strategyIndex(*w, "greedy"));
        w->runOptimize();
        QVERIFY(test::waitForResult(*w));
        const QString ios = dir.filePath(QStringLiteral("s.ios.json"));
        QStringList warnings;
        exportSchedule(*w->lastResult(), ios, &warnings);
        QCOMPARE(warnings.size(), 1);
        QVERIFY2(warnings.front().contains(QLatin1String("in-place")),
                 qPrintable(warnings.front()));
        QVERIFY(QFileInfo::exists(ios));
        QStringList none;
        exportSchedule(*w->lastResult(), dir.filePath(QStringLiteral("s.json")), &none);
        QVERIFY(none.isEmpty()); // the native format keeps the flags
    }
};

QTEST_MAIN(TestMetaflowPanel)
#include "tst_metaflow_panel.moc"
