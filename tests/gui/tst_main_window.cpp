// SPDX-License-Identifier: Apache-2.0
// Drives the main window offscreen: every bundled model, every strategy, RAF ASAP's program
// timeline and Streams view, settings changes, cancel, every export format read back, bad
// files, and an event-loop latency probe while an unpruned NasNet search runs.
#include "bundled_models.h"
#include "engine_jobs.h"
#include "exports.h"
#include "graph_view.h"
#include "io/model_file.h"
#include "job_controller.h"
#include "main_window.h"
#include "main_window_test_support.h"
#include "settings_panel.h"
#include "streams_view.h"
#include "timed_application.h"
#include "timeline_canvas.h"
#include "timeline_view.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cmath>

using namespace ios::gui;
using namespace ios::gui::test;

namespace {

TimedApplication* timedApp() {
    return static_cast<TimedApplication*>(qApp);
}

// The combobox row of a registered scheduler (the combobox holds the registry's keys).
} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // QSettings go to a throw-away location
        QCoreApplication::setOrganizationName(QStringLiteral("ios-explorer-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_main_window"));
    }
    void init() { QSettings().clear(); } // every test starts from the default settings

    void opensEveryBundledModel_data() {
        QTest::addColumn<QString>("name");
        for (const auto& m : ios::samples::bundledModels())
            QTest::newRow(std::string(m.name).c_str())
                << QString::fromUtf8(m.name.data(), m.name.size());
    }
    void opensEveryBundledModel() {
        QFETCH(QString, name);
        MainWindow w;
        w.setDialogsEnabled(false);
        w.settingsPanel()->strategyBox()->setCurrentIndex(
            strategyIndex(w, "greedy")); // fast for the big models
        QVERIFY2(w.openModel(name), qPrintable(w.lastError()));
        QVERIFY(w.model()->operatorCount() > 0);
        QVERIFY(waitForResult(w));
        QCOMPARE(w.lastResult()->settings.model, w.model());
        QVERIFY(w.lastResult()->runs.front().latencyMs > 0);
        QSignalSpy layout(w.graphView(), &ios::views::GraphView::layoutReady);
        QVERIFY(w.graphView()->isLayoutReady() || layout.wait(60000));
        QCOMPARE(w.graphView()->scene()->items().isEmpty(), false);
    }

    void runsEveryStrategy_data() {
        QTest::addColumn<QString>("strategy");
        for (const ios::schedulers::Scheduler* s : ios::schedulers::registeredSchedulers())
            QTest::newRow(std::string(s->key()).c_str())
                << QString::fromUtf8(s->key().data(), s->key().size());
    }
    void runsEveryStrategy() {
        QFETCH(QString, strategy);
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        w.settingsPanel()->strategyBox()->setCurrentIndex(strategyIndex(w, strategy));
        w.runOptimize();
        QVERIFY(waitForResult(w));
        const RunResult& run = w.lastResult()->runs.front();
        QCOMPARE(run.strategy, strategy);
        QVERIFY(run.latencyMs <= w.lastResult()->sequentialLatencyMs * 1.000001);
        if (run.rewritten) { // its schedule is of G*: nothing for G0's views (tst_metaflow_panel)
            QVERIFY(!run.timeline && !run.stateSpace && run.schedule.blocks.empty());
            return;
        }
        const bool searches = strategy.startsWith(QLatin1String("ios-"));
        QCOMPARE(run.stats.has_value(), searches);
        QCOMPARE(run.stateSpace != nullptr, searches);
        QVERIFY(run.timeline);
    }

    // RAF ASAP has no stage form: its timeline is its program's (events between streams), not
    // its issue-order stages', and its latency is the outcome's.
    void rafAsapTimelineIsItsProgram() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        QVERIFY(waitForResult(w));
        w.settingsPanel()->strategyBox()->setCurrentIndex(strategyIndex(w, "raf-asap"));
        w.runOptimize();
        QTRY_VERIFY_WITH_TIMEOUT(!w.jobs()->isRunning() && w.lastResult() &&
                                     w.lastResult()->runs.front().strategy ==
                                         QLatin1String("raf-asap"),
                                 60000);
        const SearchResult& result = *w.lastResult();
        const RunResult& run = result.runs.front();
        QVERIFY(run.ownProgram);
        QVERIFY(run.timeline);
        // The same search outside the GUI.
        const auto cost = EngineJobs::makeCostModel(*w.model(), result.settings,
                                                    result.settings.device, result.settings.batch);
        const ios::schedulers::Outcome outcome =
            ios::schedulers::schedulerByName("raf-asap")
                .run(w.model()->prepared(), ios::schedulers::Params{}, *cost, nullptr);
        QVERIFY(run.program == outcome.programs);
        QVERIFY2(std::abs(run.timeline->latencyUs / 1000.0 - outcome.latencyMs) <=
                     1e-9 * outcome.latencyMs,
                 qPrintable(QStringLiteral("timeline %1 ms, outcome %2 ms")
                                .arg(run.timeline->latencyUs / 1000.0, 0, 'g', 17)
                                .arg(outcome.latencyMs, 0, 'g', 17)));
        QVERIFY(std::abs(run.latencyMs - outcome.latencyMs) <= 1e-9 * outcome.latencyMs);
        // Segments, not one stage per operator; kernels on the program's streams.
        size_t stages = 0;
        for (const auto& block : run.schedule.blocks)
            stages += block.stages.size();
        QVERIFY(run.timeline->stages.size() < stages);
        QVERIFY(run.timeline->streams > 1);
        QCOMPARE(w.timelineView()->timeline(), run.timeline.get());
        // The Streams view shows the same program, simulated.
        QCOMPARE(w.streamsView()->blockCount(), static_cast<int>(w.model()->dags().size()));
        QVERIFY(w.streamsView()->canShowTime());
        double blocksUs = 0;
        for (const auto& r : run.programRuns)
            blocksUs += r.latencyUs;
        QVERIFY(std::abs(blocksUs - run.timeline->latencyUs) <= 1e-9 * blocksUs);
        // Selecting an operator in the graph selects its launch.
        const int flat = w.model()->flatIndex({w.streamsView()->block(), 0});
        Q_EMIT w.graphView()->operatorSelected(flat);
        QCOMPARE(w.streamsView()->selectedLaunches().size(), size_t{1});
    }

    // Quick searches (under the auto-run limit) run on a settings change; rapid changes
    // coalesce and the latest settings win.
    void settingsChangesRerun() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        QVERIFY(waitForResult(w));
        SettingsPanel* panel = w.settingsPanel();
        panel->strategyBox()->setCurrentIndex(strategyIndex(w, "ios-parallel"));
        panel->rBox()->setValue(1);
        panel->sBox()->setValue(2);
        panel->batchBox()->setValue(16);
        panel->deviceBox()->setCurrentIndex(panel->deviceBox()->count() - 1);
        QSignalSpy shown(&w, &MainWindow::resultShown);
        QVERIFY(shown.wait(60000));
        // Rapid changes coalesce and the latest settings win.
        QTRY_VERIFY_WITH_TIMEOUT(!w.jobs()->isRunning(), 60000);
        const JobSettings& s = w.lastResult()->settings;
        QCOMPARE(s.r, 1);
        QCOMPARE(s.s, 2);
        QCOMPARE(s.batch, 16);
        QCOMPARE(s.device, panel->deviceBox()->currentData().toString());
        QCOMPARE(w.lastResult()->runs.front().timeline->batch, 16);
    }

    void cancelStopsTheSearch() {
        MainWindow w;
        QVERIFY(prepareLongNasnetSearch(w));
        SettingsPanel* panel = w.settingsPanel();
        QSignalSpy cancelled(w.jobs(), &JobController::cancelled);
        panel->runButton()->click(); // far over the auto-run limit: F5
        QVERIFY(w.jobs()->isRunning());
        QTest::qWait(50);
        panel->cancelButton()->click();
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(!w.jobs()->isRunning());
        QElapsedTimer stopping;
        stopping.start();
        w.jobs()->waitForIdle(); // the worker really stops (Cancelled reaches it)
        qInfo("worker returned %lld ms after Cancel", static_cast<long long>(stopping.elapsed()));
        QCOMPARE(w.lastResult()->runs.front().strategy, QStringLiteral("greedy"));
    }

    void eventLoopStaysResponsive() {
        // Unpruned NasNet-A large parallel search; the UI thread must keep serving events.
        MainWindow w;
        w.setDialogsEnabled(false);
        w.settingsPanel()->strategyBox()->setCurrentIndex(strategyIndex(w, "greedy"));
        QVERIFY(w.openModel(QStringLiteral("nasnet_large")));
        QVERIFY(waitForResult(w));
        QSignalSpy layout(w.graphView(), &ios::views::GraphView::layoutReady);
        QVERIFY(w.graphView()->isLayoutReady() || layout.wait(120000));
        SettingsPanel* panel = w.settingsPanel();
        panel->rBox()->setValue(100);
        panel->sBox()->setValue(100);
        panel->strategyBox()->setCurrentIndex(strategyIndex(w, "ios-parallel"));
        panel->runButton()->click(); // far over the auto-run limit: F5
        QVERIFY(w.jobs()->isRunning());

        // A real event loop (QTest::qWait sleeps between event batches) until the search's
        // result has been shown, or 30 s. Two measures:
        // - busy: the longest single event dispatch on the UI thread (TimedApplication), i.e.
        //   how long our code held the thread in one go, result delivery included;
        // - gap: the largest interval between ticks of a 5 ms timer, which also counts time
        //   the OS gave the thread no CPU (other processes on a loaded 2-core machine).
        QEventLoop loop;
        connect(&w, &MainWindow::resultShown, &loop, &QEventLoop::quit);
        connect(w.jobs(), &JobController::failed, &loop, &QEventLoop::quit);
        QTimer::singleShot(30000, &loop, &QEventLoop::quit);
        QElapsedTimer clock;
        clock.start();
        qint64 worstGapMs = 0, last = 0;
        int ticks = 0;
        QTimer probe;
        connect(&probe, &QTimer::timeout, this, [&] {
            worstGapMs = std::max(worstGapMs, clock.elapsed() - last);
            last = clock.elapsed();
            ++ticks;
        });
        probe.start(5);
        timedApp()->longestDispatchMs = 0;
        timedApp()->measuring = true;
        loop.exec();
        timedApp()->measuring = false;
        probe.stop();
        const qint64 busyMs = timedApp()->longestDispatchMs;
        const bool finished = !w.jobs()->isRunning();
        w.jobs()->cancel();
        qInfo("search %s after %lld ms; longest UI-thread dispatch %lld ms; worst timer gap "
              "%lld ms over %d ticks",
              finished ? "finished and shown" : "still running",
              static_cast<long long>(clock.elapsed()), static_cast<long long>(busyMs),
              static_cast<long long>(worstGapMs), ticks);
        QVERIFY(ticks > 100); // the loop served the probe throughout
        QVERIFY2(busyMs <= 50, qPrintable(QString::number(busyMs)));
    }

    void exportsEveryFormat() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        QVERIFY(waitForResult(w));
        QTemporaryDir dir;
        const SearchResult& result = *w.lastResult();
        const QString iosJson = dir.filePath(QStringLiteral("s.ios.json"));
        const QString native = dir.filePath(QStringLiteral("s.json"));
        QVERIFY(w.exportTo(iosJson, [&](const QString& p) { exportSchedule(result, p); }));
        QVERIFY(w.exportTo(native, [&](const QString& p) { exportSchedule(result, p); }));
        for (const QString& path : {iosJson, native}) {
            const ios::ir::Graph g = ios::io::loadModelFile(path.toStdString());
            QVERIFY(!g.blocks.empty());
            QVERIFY(!g.blocks.front().stages.empty()); // the schedule came back
        }
        const QString trace = dir.filePath(QStringLiteral("t.json"));
        const QString csv = dir.filePath(QStringLiteral("t.csv"));
        QVERIFY(w.exportTo(trace, [&](const QString& p) { exportTrace(result, p); }));
        QVERIFY(w.exportTo(csv, [&](const QString& p) { exportTrace(result, p); }));
        QFile traceFile(trace);
        QVERIFY(traceFile.open(QIODevice::ReadOnly));
        const QJsonDocument doc = QJsonDocument::fromJson(traceFile.readAll());
        QVERIFY(doc.isObject() || doc.isArray());
        QFile csvFile(csv);
        QVERIFY(csvFile.open(QIODevice::ReadOnly));
        QList<QByteArray> lines = csvFile.readAll().split('\n');
        // The provenance as comment lines, then the CSV.
        QVERIFY(lines.contains("# command: ios-explorer: export trace"));
        while (lines.front().startsWith("# "))
            lines.removeFirst();
        QVERIFY(static_cast<size_t>(lines.size()) > result.runs.front().timeline->kernels.size());
        QVERIFY(lines.front().startsWith("kind,"));
        for (int tab = 0; tab < w.tabs()->count(); ++tab) {
            for (const char* ext : {"svg", "png"}) {
                const QString path =
                    dir.filePath(QStringLiteral("v%1.%2").arg(tab).arg(QLatin1String(ext)));
                QVERIFY(w.exportTo(
                    path, [&](const QString& p) { exportPicture(w.tabs()->widget(tab), p); }));
                QFile f(path);
                QVERIFY(f.open(QIODevice::ReadOnly));
                const QByteArray head = f.read(256);
                QVERIFY2(QLatin1String(ext) == QLatin1String("png")
                             ? head.startsWith("\x89PNG")
                             : head.contains("<svg") || head.contains("<?xml"),
                         qPrintable(path));
            }
        }
    }

    // The Open dialog offers ONNX, which opens; a bare name typed in a save dialog gets the
    // suffix of the chosen format, and the export writes that format.
    void dialogFiltersAndSuffixes() {
        QVERIFY(modelFileFilter().contains(QLatin1String("*.onnx")));
        QVERIFY(modelFileFilter().contains(QLatin1String("*.ios.json")));
        const QString ios = QStringLiteral("IOS JSON (*.ios.json)");
        QCOMPARE(withFilterSuffix(QStringLiteral("/tmp/s"), ios),
                 QStringLiteral("/tmp/s.ios.json"));
        QCOMPARE(withFilterSuffix(QStringLiteral("/tmp/s.IOS.JSON"), ios),
                 QStringLiteral("/tmp/s.IOS.JSON"));
        QCOMPARE(withFilterSuffix(QStringLiteral("/tmp/s.json"), ios),
                 QStringLiteral("/tmp/s.json.ios.json"));
        QCOMPARE(withFilterSuffix(QStringLiteral("t"), QStringLiteral("CSV (*.csv)")),
                 QStringLiteral("t.csv"));
        QCOMPARE(withFilterSuffix(QStringLiteral("t"), QStringLiteral("All files (*)")),
                 QStringLiteral("t"));
        QCOMPARE(withFilterSuffix(QString(), ios), QString()); // dialog cancelled
        QCOMPARE(filterSuffixes(QStringLiteral("Models (*.ios.json *.json *.onnx)")),
                 (QStringList{QStringLiteral(".ios.json"), QStringLiteral(".json"),
                              QStringLiteral(".onnx")}));

        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(
            w.openModel(QStringLiteral(IOS_SOURCE_DIR "/sample_models/onnx/squeezenet1_1.onnx")));
        QVERIFY(waitForResult(w));
        QTemporaryDir dir;
        const QString path = withFilterSuffix(dir.filePath(QStringLiteral("bare")), ios);
        QVERIFY(w.exportTo(path, [&](const QString& p) { exportSchedule(*w.lastResult(), p); }));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("bare.ios.json"))));
        QVERIFY(!ios::io::loadModelFile(path.toStdString()).blocks.empty());
    }

    void badFileReportsFileAndNode() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.ios.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"name": "bad", "input": {"type": "placeholder", "name": "0", "hint_name": "0",
 "output_shape": [3, 8, 8]}, "blocks": [{"enter_name": "0", "enter_node": {"type": "placeholder",
 "name": "0", "hint_name": "0", "output_shape": [3, 8, 8]}, "inner_nodes": [], "exit_node":
 {"type": "relu", "name": "r1", "hint_name": "r1", "inputs": [[["nope", 0, 3]]],
 "output_shape": [3, 8, 8]}, "stages": []}]})");
        f.close();
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        QVERIFY(!w.openModel(path));
        QVERIFY2(w.lastError().contains(QLatin1String("bad.ios.json")), qPrintable(w.lastError()));
        QVERIFY2(w.lastError().contains(QLatin1String("r1")), qPrintable(w.lastError()));
        QCOMPARE(QString::fromStdString(w.model()->graph().name), QStringLiteral("squeezenet"));
        QVERIFY(!w.openModel(dir.filePath(QStringLiteral("missing.json"))));
    }

    // A file read otherwise than it is written (the IOS authors' ResNet-50: element-wise sums
    // of different widths) says so in the status bar's model label while it is open.
    void loadWarningStaysInSight() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral(
            IOS_SOURCE_DIR "/tests/data/authors_export/wider_sums/resnet50.ios.json")));
        const auto labels = w.statusBar()->findChildren<QLabel*>();
        const auto warned = std::find_if(labels.begin(), labels.end(), [](const QLabel* l) {
            return l->toolTip().contains(QLatin1String("'7' (64 of 256 channels from '3')"));
        });
        QVERIFY(warned != labels.end());
        QVERIFY((*warned)->text().contains(QLatin1String("read otherwise than written")));
        QVERIFY(w.openModel(QStringLiteral("squeezenet"))); // gone with the model
        QVERIFY((*warned)->toolTip().isEmpty());
    }

    // A measured H100 trace replaces the simulated timeline until the user goes back; a
    // malformed trace keeps what is shown and reports the file.
    void measuredTraceInTimeline() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        w.runOptimize();
        QVERIFY(waitForResult(w));
        const auto* simulated = w.timelineView()->timeline();
        QVERIFY(simulated);
        QVERIFY2(w.timelineView()->title().startsWith(QStringLiteral("simulated: inception_v3 · ")),
                 qPrintable(w.timelineView()->title()));

        const QString trace = QStringLiteral(
            IOS_SOURCE_DIR "/sample_models/measured/h100_trace_inception_v3-both.json");
        QVERIFY(w.openMeasuredTrace(trace));
        QVERIFY(w.showsMeasuredTrace());
        QVERIFY(w.timelineView()->timeline() != simulated);
        QVERIFY(!w.timelineView()->timeline()->kernels.empty());
        QVERIFY2(w.timelineView()->title().startsWith(
                     QLatin1String("measured: h100_trace_inception_v3-both.json")),
                 qPrintable(w.timelineView()->title()));
        QCOMPARE(w.tabs()->currentWidget(), w.timelineView());
        // The trace is of the open model: its kernels are linked to operators.
        for (const auto& k : w.timelineView()->timeline()->kernels)
            QVERIFY2(k.op >= 0, k.opName.c_str());
        QVERIFY(!w.timelineView()->title().contains(QLatin1String("not linked")));
        // The header is the measured run's (device, batch; this trace predates recorded
        // modes), not the window's settings; the chart is its active warps only.
        const ios::views::TimelineCanvas* canvas = w.timelineView()->canvas();
        QVERIFY2(canvas->fullTitle().contains(QLatin1String("NVIDIA H100 80GB HBM3, batch 1")) &&
                     canvas->fullTitle().contains(QLatin1String("mode not recorded")),
                 qPrintable(canvas->fullTitle()));
        QCOMPARE(canvas->legendTexts().front(),
                 QStringLiteral("active warps, % of peak — PM sampling"));
        QVERIFY(canvas->curveScale() < 0.1);
        QVERIFY2(w.statusBar()->currentMessage().contains(QLatin1String("over busy time")),
                 qPrintable(w.statusBar()->currentMessage()));

        QTemporaryDir dir;
        // The same trace with its mode recorded: replay or eager, in header and legend.
        QFile source(trace);
        QVERIFY(source.open(QIODevice::ReadOnly));
        QJsonObject doc = QJsonDocument::fromJson(source.readAll()).object();
        for (const char* mode : {"cuda-graph", "eager"}) {
            QJsonObject other = doc[QStringLiteral("otherData")].toObject();
            other[QStringLiteral("mode")] = QLatin1String(mode);
            other[QStringLiteral("batch")] = 4;
            doc[QStringLiteral("otherData")] = other;
            const QString copy = dir.filePath(QStringLiteral("mode.trace.json"));
            QFile out(copy);
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write(QJsonDocument(doc).toJson());
            out.close();
            QVERIFY(w.openMeasuredTrace(copy));
            const bool replay = std::string(mode) == "cuda-graph";
            const QString header = canvas->fullTitle();
            QVERIFY2(header.contains(QLatin1String("batch 4")) &&
                         header.contains(replay ? QLatin1String("CUDA-graph replay")
                                                : QLatin1String("eager run: host-bound, see "
                                                                "docs/gpu.md")),
                     qPrintable(header));
            QCOMPARE(canvas->legendTexts().front(),
                     replay ? QStringLiteral("active warps, % of peak — PM sampling, CUDA-graph "
                                             "replay")
                            : QStringLiteral("active warps, % of peak — PM sampling, eager run"));
            if (!replay)
                QVERIFY(w.statusBar()->currentMessage().contains(QLatin1String("host-bound")));
        }
        QVERIFY(w.openMeasuredTrace(trace));

        const QString bad = dir.filePath(QStringLiteral("bad.trace.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"traceEvents": [{"ph": "X", "cat": "kernel"}]})");
        f.close();
        const auto* measured = w.timelineView()->timeline();
        QVERIFY(!w.openMeasuredTrace(bad));
        QVERIFY2(w.lastError().contains(QLatin1String("bad.trace.json")),
                 qPrintable(w.lastError()));
        QCOMPARE(w.timelineView()->timeline(), measured);

        w.showSimulatedTimeline();
        QVERIFY(!w.showsMeasuredTrace());
        QCOMPARE(w.timelineView()->timeline(), w.lastResult()->runs.front().timeline.get());
        QVERIFY2(w.timelineView()->title().startsWith(QStringLiteral("simulated: inception_v3 · ")),
                 qPrintable(w.timelineView()->title()));
    }
};

int main(int argc, char** argv) {
    TimedApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    TestMainWindow test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_main_window.moc"
