// SPDX-License-Identifier: Apache-2.0
// The settings panel lists exactly the registry's schedulers (a throw-away scheduler registered
// in-process appears with nothing else edited), enables the controls of the knobs the chosen
// scheduler reads (the memory budget too: parsed with units, persisted, a too-small budget's
// note and its button), reads old strategy names from saved settings, and the explorer
// searches with the analytic model and with a measurement cache (the committed H100 cache).
#include "../throwaway_scheduler.h"
#include "bundled_models.h"
#include "charts.h"
#include "engine_jobs.h"
#include "estimate_text.h"
#include "job_controller.h"
#include "main_window.h"
#include "settings_panel.h"
#include "store/measurement_store.h"
#include "store/store_json.h"

#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ios;
using namespace ios::gui;

namespace {

QStringList comboKeys(const QComboBox* box) {
    QStringList out;
    for (int i = 0; i < box->count(); ++i)
        out << box->itemData(i).toString();
    return out;
}

void choose(QComboBox* box, const QString& data) {
    const int i = box->findData(data);
    QVERIFY2(i >= 0, qPrintable(data));
    box->setCurrentIndex(i);
}

// Waits until the explorer is idle and shows a result computed with `costModel`.
bool waitForCostModel(MainWindow& w, const QString& costModel) {
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 120000) {
        if (!w.jobs()->isRunning() && w.lastResult() &&
            w.lastResult()->settings.costModel == costModel)
            return true;
        if (!w.lastError().isEmpty())
            return false;
        QTest::qWait(20);
    }
    return false;
}

} // namespace

class TestSettingsPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // An unfinished count read "> 1.00 s … — over the 2.00 s auto-run limit": contradictory.
    // It is not known to be under the limit; a counted estimate is over it or runs.
    void estimateNoteSaysWhyItDidNotRun() {
        ios::schedulers::SearchEstimate unfinished;
        unfinished.complete = false;
        unfinished.seconds = 1.0;
        QVERIFY(!estimate_text::runsUnder(unfinished, 2.0));
        const QString note = estimate_text::notRunNote(&unfinished, 2.0);
        QVERIFY2(note.contains(QStringLiteral("not known to be under")), qPrintable(note));
        QVERIFY2(!note.contains(QStringLiteral("over the")), qPrintable(note));
        ios::schedulers::SearchEstimate counted;
        counted.complete = true;
        counted.seconds = 3.0;
        QVERIFY(!estimate_text::runsUnder(counted, 2.0));
        QVERIFY(estimate_text::notRunNote(&counted, 2.0).contains(QStringLiteral("over the")));
        counted.seconds = 1.0;
        QVERIFY(estimate_text::runsUnder(counted, 2.0));
        QCOMPARE(estimate_text::notRunNote(nullptr, 0), QStringLiteral(" — press F5 to run"));
    }

    void comboboxIsTheRegistry() {
        const SettingsPanel panel;
        QCOMPARE(comboKeys(panel.strategyBox()), testing::registeredKeys());
        QCOMPARE(panel.settings().strategy, QStringLiteral("ios-both"));
    }

    // Max part size says its limit and whether the open model's parts are explicit.
    void maxPartSizeSaysWhereItApplies() {
        SettingsPanel panel;
        choose(panel.strategyBox(), QStringLiteral("ios-both"));
        QCOMPARE(panel.maxPartBox()->maximum(), 128);
        QVERIFY(panel.maxPartBox()->isEnabled());
        panel.setExplicitParts(2, 2); // every block has its own parts
        QVERIFY(!panel.maxPartBox()->isEnabled());
        QVERIFY(panel.maxPartBox()->toolTip().contains(QLatin1String("does not apply")));
        panel.setExplicitParts(1, 3);
        QVERIFY(panel.maxPartBox()->isEnabled());
        QVERIFY2(panel.maxPartBox()->toolTip().contains(QLatin1String("2 of this model's 3")),
                 qPrintable(panel.maxPartBox()->toolTip()));
        panel.setExplicitParts(0, 3);
        QVERIFY(panel.maxPartBox()->isEnabled());
        QVERIFY(!panel.maxPartBox()->toolTip().contains(QLatin1String("explicit parts:")));
    }

    void throwawaySchedulerAppears() {
        const testing::ThrowawayRegistration reg;
        SettingsPanel panel;
        QCOMPARE(comboKeys(panel.strategyBox()), testing::registeredKeys());
        QVERIFY(comboKeys(panel.strategyBox()).contains(QLatin1String(testing::kThrowawayKey)));
        choose(panel.strategyBox(), QLatin1String(testing::kThrowawayKey));
        QCOMPARE(panel.strategyBox()->currentText(), QStringLiteral("Throw-away"));
        // It reads batch and device only.
        QVERIFY(!panel.rBox()->isEnabled());
        QVERIFY(panel.batchBox()->isEnabled());
    }

    // The comparison job runs whatever is registered, the throw-away scheduler included.
    void comparisonRunsTheRegistry() {
        const testing::ThrowawayRegistration reg;
        JobSettings settings;
        settings.model = views::loadModel(QStringLiteral("squeezenet"));
        JobControl control;
        const SearchResult r = compareJob(settings).run(control);
        QStringList ran;
        for (const RunResult& run : r.runs)
            ran << run.strategy;
        QCOMPARE(ran, testing::registeredKeys());
        QCOMPARE(strategyLabel(ran.back()), QStringLiteral("Throw-away"));
        QCOMPARE(r.runs.back().latencyMs, r.sequentialLatencyMs); // it schedules sequentially
    }

    // The specialization job carries the sequential baseline at the settings too (the same
    // figure as the comparison's), not only its matrices.
    void specializationHasTheSequentialBaseline() {
        JobSettings settings;
        settings.model = views::loadModel(QStringLiteral("squeezenet"));
        JobControl control;
        const SpecializeResult r = specializeJob(settings).run(control);
        QCOMPARE(r.matrices.size(), size_t{2});
        QVERIFY(r.sequentialLatencyMs > 0);
        JobControl again;
        QCOMPARE(r.sequentialLatencyMs, compareJob(settings).run(again).sequentialLatencyMs);
        QCOMPARE(control.progress.load(), 1.0);
    }

    // Replayed measurements cannot price MetaFlow's rewritten graph: its row says why, the
    // others run, and the chart's row and heading say "not applicable" (issue 35).
    void comparisonRowThatCannotRunSaysWhy() {
        JobSettings settings;
        settings.model = views::loadModel(QStringLiteral("squeezenet"));
        settings.costModel = QStringLiteral("cache");
        settings.cacheFile =
            QStringLiteral(IOS_SOURCE_DIR "/sample_models/measured/h100_measured_cache.json");
        JobControl control;
        const SearchResult r = compareJob(settings).run(control);
        QCOMPARE(r.runs.size(), schedulers::registeredSchedulers().size());
        int ran = 0;
        for (const RunResult& run : r.runs) {
            if (run.strategy == QLatin1String("metaflow"))
                QVERIFY2(run.notApplicable.contains(QLatin1String("rewritten graph")),
                         qPrintable(run.notApplicable));
            ran += run.notApplicable.isEmpty() && run.latencyMs > 0 ? 1 : 0;
        }
        QVERIFY2(ran >= 5, qPrintable(QString::number(ran)));
        QVERIFY(r.sequentialLatencyMs > 0);
        QVERIFY2(r.costModel.contains(QLatin1String("H100")), qPrintable(r.costModel));

        views::ComparisonChart chart;
        std::vector<views::ComparisonEntry> entries;
        for (const RunResult& run : r.runs)
            entries.push_back({run.strategy, run.latencyMs, run.searchSeconds, 0, 0,
                               static_cast<double>(run.peakBytes), run.notApplicable});
        chart.setData(QStringLiteral("Strategies"), std::move(entries), r.sequentialLatencyMs);
        QImage image(1400, 900, QImage::Format_ARGB32);
        QPainter painter(&image);
        chart.render(painter, image.rect());
        painter.end();
        QStringList texts;
        for (const views::ChartLabel& label : chart.lastLabels())
            texts << label.text;
        QVERIFY2(texts.contains(QStringLiteral("not applicable")), qPrintable(texts.join(u'|')));
        QVERIFY2(
            texts.filter(QStringLiteral("metaflow: not applicable — a rewritten graph")).size() ==
                1,
            qPrintable(texts.join(u'|')));
    }

    // The specialization of one block alone (the Specialize tab's block selector, IOS paper
    // Figure 10) names the block and runs its matrices on that block only: its latencies are
    // a block's, far below the whole model's.
    void specializationOfOneBlock() {
        JobSettings settings;
        settings.model = views::loadModel(QStringLiteral("inception_v3"));
        const int block = static_cast<int>(settings.model->graph().blocks.size()) - 2;
        JobControl control;
        const SpecializeResult r = specializeJob(settings, block).run(control);
        QCOMPARE(r.matrices.size(), size_t{2});
        for (const SpecializeMatrix& m : r.matrices) {
            QVERIFY2(m.title.endsWith(QStringLiteral(", block %1").arg(block)),
                     qPrintable(m.title));
            QVERIFY(!m.latencyMs.empty());
        }
        // Batch 1 on the settings' device, optimised for batch 1: the block's own search.
        const double blockMs = r.matrices.front().latencyMs.at(0).at(0);
        QVERIFY(blockMs > 0 && blockMs < r.sequentialLatencyMs / 4);
        QCOMPARE(control.progress.load(), 1.0);
    }

    // Comparison and sweep jobs run their searches as parallel jobs: the same results for
    // every thread count, in the same order.
    void jobsSameForEveryThreadCount() {
        JobSettings settings;
        settings.model = views::loadModel(QStringLiteral("squeezenet"));
        // The comparison as a sweep without a grid, so both compare alike.
        const auto compareRuns = [](JobSettings s) {
            return Job<SweepResult>{[s](JobControl& c) {
                return SweepResult{compareJob(s).run(c), {}, {}};
            }};
        };
        for (Job<SweepResult> (*kind)(JobSettings) : {+compareRuns, &sweepJob}) {
            std::vector<SweepResult> results;
            for (int threads : {1, 3}) {
                settings.threads = threads;
                JobControl control;
                results.push_back(kind(settings).run(control));
                QCOMPARE(control.progress.load(), 1.0);
            }
            QCOMPARE(results[0].search.runs.size(), results[1].search.runs.size());
            for (size_t i = 0; i < results[0].search.runs.size(); ++i) {
                const RunResult& a = results[0].search.runs[i];
                const RunResult& b = results[1].search.runs[i];
                QCOMPARE(a.strategy, b.strategy);
                QCOMPARE(a.r, b.r);
                QCOMPARE(a.s, b.s);
                QCOMPARE(a.latencyMs, b.latencyMs);
                QCOMPARE(a.schedule.blocks.size(), b.schedule.blocks.size());
                for (size_t k = 0; k < a.schedule.blocks.size(); ++k)
                    QCOMPARE(a.schedule.blocks[k].stages.size(),
                             b.schedule.blocks[k].stages.size());
            }
            QCOMPARE(results[0].r, results[1].r);
            QCOMPARE(results[0].s, results[1].s);
        }
    }

    // The thread count is persisted; changing it starts no search (it changes no result).
    void threadsPersistedWithoutRerun() {
        {
            SettingsPanel panel;
            auto* threads = panel.findChild<QSpinBox*>(QStringLiteral("threads"));
            QVERIFY(threads != nullptr);
            QCOMPARE(threads->minimum(), 1);
            QSignalSpy changed(&panel, &SettingsPanel::settingsChanged);
            threads->setValue(3);
            QCOMPARE(changed.count(), 0);
            QCOMPARE(panel.settings().threads, 3);
            panel.save();
        }
        SettingsPanel again;
        again.load();
        QCOMPARE(again.settings().threads, 3);
    }

    void knobsEnableControls_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<bool>("rs");
        QTest::addColumn<bool>("batch");
        QTest::newRow("sequential") << "sequential" << false << true;
        QTest::newRow("ios-merge") << "ios-merge" << false << true;
        QTest::newRow("ios-parallel") << "ios-parallel" << true << true;
        QTest::newRow("ios-both") << "ios-both" << true << true;
    }
    void knobsEnableControls() {
        QFETCH(QString, strategy);
        QFETCH(bool, rs);
        QFETCH(bool, batch);
        SettingsPanel panel;
        choose(panel.strategyBox(), strategy);
        QCOMPARE(panel.rBox()->isEnabled(), rs);
        QCOMPARE(panel.sBox()->isEnabled(), rs);
        QCOMPARE(panel.batchBox()->isEnabled(), batch);
    }

    // The memory budget field is enabled exactly for the schedulers that read the knob, and
    // only those get the budget in their settings.
    void budgetFieldFollowsKnob_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<bool>("reads");
        for (const schedulers::Scheduler* s : schedulers::registeredSchedulers())
            QTest::newRow(std::string(s->key()).c_str())
                << QString::fromUtf8(s->key().data(), s->key().size())
                << s->reads(schedulers::Knob::MemoryBudget);
    }
    void budgetFieldFollowsKnob() {
        QFETCH(QString, strategy);
        QFETCH(bool, reads);
        SettingsPanel panel;
        panel.chooseBudget(int64_t{24} << 20);
        choose(panel.strategyBox(), strategy);
        QCOMPARE(panel.budgetEdit()->isEnabled(), reads);
        QCOMPARE(panel.settings().memoryBudget, reads ? int64_t{24} << 20 : 0);
        QCOMPARE(panel.memoryBudgetField(), int64_t{24} << 20); // kept for the next strategy
    }

    // Typed with a unit, applied on editing finished (one settingsChanged), persisted in
    // bytes; a bad value is said under the field and changes nothing; empty means none.
    void budgetParsedAndPersisted() {
        {
            SettingsPanel panel;
            choose(panel.strategyBox(), QStringLiteral("ios-both"));
            QSignalSpy changed(&panel, &SettingsPanel::settingsChanged);
            panel.budgetEdit()->setText(QStringLiteral("19.25 MiB"));
            Q_EMIT panel.budgetEdit()->editingFinished();
            QCOMPARE(changed.count(), 1);
            QCOMPARE(panel.settings().memoryBudget, int64_t{20185088});
            panel.budgetEdit()->setText(QStringLiteral("lots"));
            Q_EMIT panel.budgetEdit()->editingFinished();
            QCOMPARE(changed.count(), 1);
            QVERIFY(panel.budgetNote()->isVisibleTo(&panel));
            QVERIFY(panel.budgetNote()->text().contains(QLatin1String("lots")));
            QVERIFY(!panel.useSuggestedBudget()->isVisibleTo(&panel));
            QCOMPARE(panel.settings().memoryBudget, int64_t{20185088});
            panel.budgetEdit()->setText(QStringLiteral("19.25mib"));
            Q_EMIT panel.budgetEdit()->editingFinished();
            QVERIFY(!panel.budgetNote()->isVisibleTo(&panel));
            QCOMPARE(changed.count(), 1); // the same value
            panel.save();
            QCOMPARE(QSettings().value(QStringLiteral("search/memoryBudget")).toLongLong(),
                     qlonglong{20185088});
        }
        SettingsPanel again;
        again.load();
        QCOMPARE(again.settings().memoryBudget, int64_t{20185088});
        QCOMPARE(again.budgetEdit()->text(), QStringLiteral("19.25 MiB"));
        QSignalSpy changed(&again, &SettingsPanel::settingsChanged);
        again.budgetEdit()->clear(); // the clear button
        QCOMPARE(changed.count(), 1);
        QCOMPARE(again.settings().memoryBudget, 0);
        QSettings().remove(QStringLiteral("search/memoryBudget")); // later tests search freely
    }

    // The note of a too-small budget names the least peak; its button applies it (one
    // settingsChanged, strategy kept).
    void tooSmallBudgetNote() {
        SettingsPanel panel;
        choose(panel.strategyBox(), QStringLiteral("ios-parallel"));
        panel.chooseBudget(1 << 20);
        panel.showBudgetTooSmall(1 << 20, 2508800);
        QVERIFY(panel.budgetNote()->isVisibleTo(&panel));
        QVERIFY(panel.budgetNote()->text().contains(QLatin1String("2508800")));
        QVERIFY(panel.budgetNote()->text().contains(QLatin1String("2.4 MiB")));
        QVERIFY(panel.useSuggestedBudget()->text().contains(QLatin1String("2.4 MiB")));
        QSignalSpy changed(&panel, &SettingsPanel::settingsChanged);
        QTest::mouseClick(panel.useSuggestedBudget(), Qt::LeftButton);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(panel.settings().memoryBudget, int64_t{2508800});
        QCOMPARE(panel.settings().strategy, QStringLiteral("ios-parallel"));
        QVERIFY(!panel.budgetNote()->isVisibleTo(&panel));
        // Choosing a budget from the trade-off may switch to the strategy that searched it.
        choose(panel.strategyBox(), QStringLiteral("greedy"));
        panel.chooseBudget(3 << 20, QStringLiteral("ios-both"));
        QCOMPARE(panel.settings().strategy, QStringLiteral("ios-both"));
        QCOMPARE(panel.settings().memoryBudget, int64_t{3} << 20);
    }

    // Settings saved by an older build say "both": read as ios-both, saved back as the key.
    void oldNameInSavedSettings() {
        {
            QSettings q;
            q.beginGroup(QStringLiteral("search"));
            q.setValue(QStringLiteral("strategy"), QStringLiteral("parallel"));
            q.setValue(QStringLiteral("costModel"), QStringLiteral("analytic"));
        }
        SettingsPanel panel;
        panel.load();
        QCOMPARE(panel.settings().strategy, QStringLiteral("ios-parallel"));
        QCOMPARE(panel.settings().costModel, QStringLiteral("analytic"));
        panel.save();
        QSettings q;
        QCOMPARE(q.value(QStringLiteral("search/strategy")).toString(),
                 QStringLiteral("ios-parallel"));
        q.remove(QStringLiteral("search"));
    }

    void costModelChoices() {
        const SettingsPanel panel;
        const QStringList kinds = comboKeys(panel.costModelBox());
        QVERIFY(kinds.contains(QStringLiteral("simulated")));
        QVERIFY(kinds.contains(QStringLiteral("analytic")));
        QVERIFY(kinds.contains(QStringLiteral("cache")));
        // Measured needs a GPU: never offered on the CI machine (no device).
        QVERIFY(!panel.cacheFileEdit()->isEnabled());
    }

    void searchesWithAnalyticModel() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        choose(w.settingsPanel()->costModelBox(), QStringLiteral("analytic"));
        QVERIFY2(waitForCostModel(w, QStringLiteral("analytic")), qPrintable(w.lastError()));
        const SearchResult& r = *w.lastResult();
        QVERIFY2(r.costModel.startsWith(QLatin1String("analytic")), qPrintable(r.costModel));
        QVERIFY(r.runs.front().latencyMs > 0);
        QVERIFY(r.runs.front().latencyMs <= r.sequentialLatencyMs);
        // The analytic model describes kernels: a timeline adding up to the latency.
        QVERIFY(r.runs.front().timeline);
        QVERIFY(qAbs(r.runs.front().timeline->latencyUs / 1000 - r.runs.front().latencyMs) <
                1e-9 * r.runs.front().latencyMs + 1e-12);
    }

    void searchesWithMeasurementCache() {
        const QString cache =
            QStringLiteral(IOS_SOURCE_DIR "/sample_models/measured/h100_measured_cache.json");
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        w.settingsPanel()->cacheFileEdit()->setText(cache);
        choose(w.settingsPanel()->costModelBox(), QStringLiteral("cache"));
        QVERIFY2(waitForCostModel(w, QStringLiteral("cache")), qPrintable(w.lastError()));
        const SearchResult& r = *w.lastResult();
        QCOMPARE(r.settings.cacheFile, cache);
        QVERIFY2(r.costModel.contains(QLatin1String("H100")), qPrintable(r.costModel));
        QCOMPARE(r.runs.front().strategy, QStringLiteral("ios-both"));
        QVERIFY(r.runs.front().latencyMs > 0);
        QVERIFY(r.runs.front().stats);
        QVERIFY(!r.runs.front().timeline); // measurements know stages, not kernels
    }

    // The committed H100 cache imported into a SQLite measurement store: the store cost model
    // chosen in the panel gives the cache's numbers; a store lacking stages is refused unless
    // the fallback is ticked, and then the result says how many stages were simulated.
    void searchesWithMeasurementStore() {
        const QString cache =
            QStringLiteral(IOS_SOURCE_DIR "/sample_models/measured/h100_measured_cache.json");
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("team.db"));
        {
            auto store = store::openStore(db.toStdString(), store::OpenMode::CreateIfMissing);
            std::map<std::string, ir::Graph> graphs; // the models the cache names
            store::importStoreJson(
                cache.toStdString(), *store,
                [&graphs](const std::string& name) -> const ir::Graph* {
                    auto it = graphs.find(name);
                    if (it == graphs.end())
                        it = graphs.emplace(name, ios::samples::loadBundledModel(name)).first;
                    return &it->second;
                });
        }
        QSettings().remove(QStringLiteral("search")); // a saved choice of an earlier run
        SettingsPanel panel;
        QVERIFY(comboKeys(panel.costModelBox()).contains(QStringLiteral("store")));
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        w.settingsPanel()->cacheFileEdit()->setText(db);
        choose(w.settingsPanel()->costModelBox(), QStringLiteral("store"));
        QVERIFY2(waitForCostModel(w, QStringLiteral("store")), qPrintable(w.lastError()));
        const SearchResult& r = *w.lastResult();
        QVERIFY2(r.costModel.contains(QLatin1String("store:")), qPrintable(r.costModel));
        QVERIFY2(r.costModel.contains(QLatin1String("H100")), qPrintable(r.costModel));
        QVERIFY(r.runs.front().latencyMs > 0);

        // A random DAG's stages are not in this store: refused, then simulated when allowed.
        QVERIFY(w.openModel(QStringLiteral("random_dag:40")));
        // The up-front estimate prices stages too: it says the search would fail, and why.
        QTRY_VERIFY_WITH_TIMEOUT(
            w.settingsPanel()->estimateText().contains(QLatin1String("no measurement of stage")),
            20000);
        w.settingsPanel()->findChild<QCheckBox*>(QStringLiteral("storeFallback"))->setChecked(true);
        QTRY_VERIFY_WITH_TIMEOUT(
            w.lastResult() && w.lastResult()->settings.storeFallback &&
                w.lastResult()->costModel.contains(QLatin1String("stages simulated")),
            30000);
        QSettings().remove(QStringLiteral("search"));
    }
};

QTEST_MAIN(TestSettingsPanel)
#include "tst_settings_panel.moc"
