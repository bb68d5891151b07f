// SPDX-License-Identifier: Apache-2.0
// File ▸ Open Schedule (schedule_document.h): a saved schedule opens against the open model and
// the window shows exactly it — the header's latency and the stage tree's stages are the file's
// priced under the panel's settings, the banner names the file — a batch change re-prices it
// without searching, "Search again" goes back to searching, and a file of another model is
// refused with the file named.
#include "bundled_models.h"
#include "cost/simulated_gpu_cost_model.h"
#include "io/ios_json.h"
#include "io/schedule_document.h"
#include "io/schedule_file.h"
#include "main_window_test_support.h"
#include "schedule/ios_stages.h"
#include "schedule_document.h"
#include "session.h"
#include "window_menus.h"

#include <QPushButton>
#include <QTemporaryDir>
#include <QToolBar>
#include <QTreeView>
#include <fstream>

using namespace ios;
using namespace ios::gui;
using namespace ios::gui::test;

namespace {

// The stage tree's stages: the children of its block rows.
int shownStages(QTreeView* tree) {
    const QAbstractItemModel* m = tree->model();
    int n = 0;
    for (int b = 0; b < m->rowCount(); ++b)
        n += m->rowCount(m->index(b, 0));
    return n;
}

} // namespace

class TestOpenSchedule : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { useTestSettings("tst_open_schedule"); }

    void showsExactlyTheFile() {
        QTemporaryDir dir;
        // IOS-Merge's schedule of SqueezeNet (merge stages as merged nodes), written as IOS JSON.
        const ir::Graph graph = samples::loadBundledModel("squeezenet");
        const ir::PreparedModel prepared(graph);
        const cost::SimulatedGpuCostModel v100(graph, *cost::findBundledDevice("V100"));
        const schedulers::Outcome o =
            schedulers::schedulerByName("ios-merge").run(prepared, {}, v100, nullptr);
        const QString path = dir.filePath(QStringLiteral("merge.ios.json"));
        std::ofstream(path.toStdString())
            << io::writeIosJson(schedule::optimizedGraph(graph, prepared.dags(), o.schedule));
        size_t fileStages = 0;
        for (const auto& b : o.schedule.blocks)
            fileStages += b.stages.size();

        MainWindow w;
        w.setDialogsEnabled(false);
        w.settingsPanel()->strategyBox()->setCurrentIndex(strategyIndex(w, "sequential"));
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        QVERIFY(waitForResult(w));
        QCOMPARE(w.lastResult()->runs.front().schedule.blocks.front().stages.size(),
                 prepared.dags().front().ops.size()); // sequential: one operator per stage

        QVERIFY(w.openSchedule(path));
        QVERIFY(waitFor([&] {
            return !w.jobs()->isRunning() && w.lastResult() && w.lastResult()->scheduleFile == path;
        }));
        const RunResult& run = w.lastResult()->runs.front();
        QCOMPARE(run.latencyMs, schedulers::outcomeLatencyMs(prepared.dags(), o, v100));
        QCOMPARE(run.peakBytes, o.peakBytes);
        QCOMPARE(static_cast<size_t>(shownStages(w.stageTree())), fileStages);
        QVERIFY(run.timeline);
        QCOMPARE(run.timeline->latencyUs / 1000.0, run.latencyMs);
        QVERIFY2(w.scheduleDocument()->bannerText().contains(QStringLiteral("merge.ios.json")),
                 qPrintable(w.scheduleDocument()->bannerText()));

        // Batch 8 re-prices the same stages: nothing is searched.
        w.settingsPanel()->batchBox()->setValue(8);
        QVERIFY(
            waitFor([&] { return !w.jobs()->isRunning() && w.lastResult()->settings.batch == 8; }));
        const cost::SimulatedGpuCostModel batch8(graph, *cost::findBundledDevice("V100"), 8);
        QCOMPARE(w.lastResult()->scheduleFile, path);
        QCOMPARE(w.lastResult()->runs.front().latencyMs,
                 schedulers::outcomeLatencyMs(prepared.dags(), o, batch8));
        QCOMPARE(static_cast<size_t>(shownStages(w.stageTree())), fileStages);

        // Search again: the panel's strategy (sequential) searches; the banner goes.
        auto* again =
            w.scheduleDocument()->banner()->findChild<QPushButton*>(QStringLiteral("searchAgain"));
        QVERIFY(again);
        again->click();
        QVERIFY(waitFor(
            [&] { return !w.jobs()->isRunning() && w.lastResult()->scheduleFile.isEmpty(); }));
        QCOMPARE(w.lastResult()->runs.front().strategy, QStringLiteral("sequential"));
        QVERIFY(w.scheduleDocument()->bannerText().isEmpty());
    }

    // IOS JSON cannot hold explicit parts: for NasNet-A the export offers native JSON first.
    void exportOffersNativeForExplicitParts() {
        const views::LoadedModel nasnet(samples::loadBundledModel("nasnet_large"),
                                        QStringLiteral("nasnet_large"));
        const views::LoadedModel squeeze(samples::loadBundledModel("squeezenet"),
                                         QStringLiteral("squeezenet"));
        QVERIFY(scheduleExportFilters(&nasnet).startsWith(QStringLiteral("Native JSON")));
        QVERIFY(scheduleExportFilters(&squeeze).startsWith(QStringLiteral("IOS JSON")));
    }

    void refusesAnotherModelsSchedule() {
        QTemporaryDir dir;
        const ir::Graph other = samples::loadBundledModel("inception_v3");
        const ir::PreparedModel prepared(other);
        const cost::SimulatedGpuCostModel v100(other, *cost::findBundledDevice("V100"));
        const schedulers::Outcome o =
            schedulers::schedulerByName("sequential").run(prepared, {}, v100, nullptr);
        const QString path = dir.filePath(QStringLiteral("inception.json"));
        std::ofstream(path.toStdString())
            << io::writeScheduleFile(other, prepared.dags(), o.schedule);
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        QVERIFY(!w.openSchedule(path));
        QVERIFY2(w.lastError().contains(QStringLiteral("inception.json")),
                 qPrintable(w.lastError()));
        QVERIFY(w.session()->savedSchedule() == nullptr);
    }
};

QTEST_MAIN(TestOpenSchedule)
#include "tst_open_schedule.moc"
