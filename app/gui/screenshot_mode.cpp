// SPDX-License-Identifier: Apache-2.0
#include "screenshot_mode.h"

#include "diff_tab.h"
#include "graph_diff_view.h"
#include "graph_view.h"
#include "job_controller.h"
#include "main_window.h"
#include "memory_view.h"
#include "metaflow_panel.h"
#include "pareto_chart.h"
#include "session.h"
#include "settings_panel.h"
#include "streams_view.h"
#include "timeline_view.h"
#include "util/message_text.h"
#include "window_menus.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <cstdio>
#include <functional>
#include <memory>

namespace ios::gui {

namespace {
bool failed = false;
} // namespace

void exitOnError(MainWindow& window) {
    QObject::connect(&window, &MainWindow::errorOccurred, &window, [](const QString& message) {
        if (failed)
            return;
        failed = true;
        // Escaped again: a message from a file never reaches the terminal raw.
        std::fprintf(stderr, "ios-explorer: %s\n",
                     util::escapeControl(message.toStdString()).c_str());
        std::fflush(stderr);
        QApplication::exit(1);
    });
}

bool batchFailed() {
    return failed;
}

void whenResultShown(MainWindow& window, std::function<void()> then) {
    auto fired = std::make_shared<bool>(false);
    auto check = [&window, then, fired] {
        if (*fired || !window.lastResult() || !window.graphView()->isLayoutReady())
            return;
        *fired = true;
        then();
    };
    QObject::connect(&window, &MainWindow::resultShown, &window, check);
    QObject::connect(window.graphView(), &views::GraphView::layoutReady, &window, check);
    check();
}

namespace {

QString slug(QString text) {
    text = text.toLower();
    text.replace(QLatin1Char(' '), QLatin1Char('_'));
    text.remove(QLatin1Char('&'));
    return text;
}

void settle() {
    // Let pending layouts and paints run; the views draw synchronously from their models.
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
}

// The Streams tab is shot with RAF's ASAP policy: its program has events between streams,
// where a stage schedule lowers to barriers and syncs only.
const QString kStreamsStrategy = QStringLiteral("raf-asap");

// Chooses `key` in the settings (when registered) and waits until its result is shown.
// Returns the strategy chosen before, or an empty string when nothing changed.
QString showStrategy(MainWindow& window, const QString& key) {
    QComboBox* box = window.settingsPanel()->strategyBox();
    const int row = box->findData(key);
    // A saved schedule (--schedule) is shot as it is: the strategy does not choose it.
    if (row < 0 || row == box->currentIndex() || window.session()->savedSchedule())
        return {};
    const QString before = box->currentData().toString();
    box->setCurrentIndex(row);
    window.runOptimize(); // F5: whatever the auto-run threshold says
    QElapsedTimer waited;
    waited.start();
    auto shown = [&window, &key] {
        const SearchResultPtr& r = window.lastResult();
        return r && !r->runs.empty() && r->runs.front().strategy == key &&
               !window.jobs()->isRunning();
    };
    while (!shown() && !batchFailed() && waited.elapsed() < 300'000)
        QApplication::processEvents(QEventLoop::WaitForMoreEvents, 100);
    return before;
}

// Selects the launch that waits on the most events, so the shot shows the highlighting.
void selectBusiestLaunch(views::StreamsView& view, const views::LoadedModel& model) {
    const views::StreamLayout& layout = view.layout();
    int best = -1;
    size_t waits = 0;
    for (size_t i = 0; i < layout.launches.size(); ++i)
        if (!layout.launches[i].synthetic && layout.launches[i].waitArrows.size() > waits) {
            waits = layout.launches[i].waitArrows.size();
            best = static_cast<int>(i);
        }
    if (best < 0)
        return;
    const int flat =
        model.flatIndex({view.block(), layout.launches[static_cast<size_t>(best)].ops[0]});
    view.selectOperator(flat);
    // As a click does: the main window's selection follows, so the stage tree and the operator
    // table beside the view show the launch's operator too.
    Q_EMIT view.operatorSelected(flat);
}

// The Memory tab is shot on RandWire: InceptionV3's peak is set by a block no schedule can
// shrink (its trade-off has a single point). Under a 21 MiB budget, with Serenity's DP limited
// to 2^14 expansions per run so that block 195's soft budget bisects (Serenity Fig. 8(b)).
const QString kMemoryModel = QStringLiteral("randwire_large");
constexpr int64_t kMemoryBudget = int64_t{21} << 20;
constexpr qulonglong kMemoryDpLimit = qulonglong{1} << 14;
const QString kMemoryBlock = QStringLiteral("195");

bool waitUntil(const std::function<bool()>& done) {
    QElapsedTimer waited;
    waited.start();
    while (!done() && !batchFailed() && waited.elapsed() < 300'000)
        QApplication::processEvents(QEventLoop::WaitForMoreEvents, 100);
    return done();
}

bool searchIdle(MainWindow& window) {
    return window.lastResult() && !window.jobs()->isRunning() &&
           window.lastResult()->settings.model == window.model();
}

// Opens the Memory tab's model and settings (on the Memory tab); returns the model to go back
// to, or an empty string when it could not open it.
QString showMemoryShot(MainWindow& window) {
    const QString before = window.model() ? window.model()->source() : QString();
    views::MemoryView* view = window.memoryView();
    if (!window.openModel(kMemoryModel))
        return {};
    window.runOptimize();
    if (!waitUntil([&] { return searchIdle(window); }))
        return {};
    window.settingsPanel()->chooseBudget(kMemoryBudget);
    window.runOptimize();
    waitUntil([&] {
        return searchIdle(window) && window.lastResult()->settings.memoryBudget == kMemoryBudget;
    });
    view->limitBox()->setCurrentIndex(view->limitBox()->findData(kMemoryDpLimit));
    waitUntil([&] {
        return view->report() && view->report()->dpLimit == kMemoryDpLimit &&
               view->paretoChart()->front() && !window.memoryJobs()->isRunning() &&
               !window.paretoJobs()->isRunning();
    });
    for (int b = 0; b < view->blockBox()->count(); ++b)
        if (view->report()->blocks[static_cast<size_t>(b)].problem.name ==
            kMemoryBlock.toStdString())
            view->setBlock(b);
    view->setOrder(views::MemoryView::Order::Serenity);
    view->showPanel(2); // the trade-off, when the small charts are tabs
    return before;
}

// The MetaFlow tab with its result on the open model, the first substitution selected in both
// graphs.
void showMetaflowShot(MainWindow& window) {
    MetaflowPanel* panel = window.metaflowPanel();
    if (!panel->result() || !panel->staleMessage().isEmpty()) {
        Q_EMIT panel->runRequested();
        waitUntil([&] { return !panel->isRunning(); });
    }
    views::GraphDiffView* diff = panel->diffView();
    waitUntil([&] { return diff->before()->isLayoutReady() && diff->after()->isLayoutReady(); });
    if (panel->substitutions()->rowCount() > 0)
        panel->substitutions()->setCurrentCell(0, 0);
}

void restoreAfterMemoryShot(MainWindow& window, const QString& model) {
    window.memoryView()->limitBox()->setCurrentIndex(0);
    window.settingsPanel()->chooseBudget(0);
    if (window.openModel(model)) {
        window.runOptimize();
        waitUntil([&] { return searchIdle(window) && window.graphView()->isLayoutReady(); });
    }
}

// The Diff tab with the default comparison (its chosen A and B) on screen.
void showDiffShot(DiffTab& diff) {
    bool shown = false;
    const QMetaObject::Connection c =
        QObject::connect(&diff, &DiffTab::shown, [&] { shown = true; });
    diff.compareChosen();
    waitUntil([&] { return shown || batchFailed(); });
    QObject::disconnect(c);
}

} // namespace

void takeScreenshots(MainWindow& window, const QString& directory, const QList<QSize>& sizes) {
    QDir().mkpath(directory);
    for (const QSize& size : sizes) {
        window.resize(size);
        settle();
        // Offscreen, the docks' widths set before the window was first laid out do not hold.
        setDefaultDockWidths(window);
        settle();
        QTabWidget* tabs = window.tabs();
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            settle();
            QElapsedTimer waited;
            waited.start();
            while (!window.isAnalysisCurrent(i) && !batchFailed() && waited.elapsed() < 300'000)
                QApplication::processEvents(QEventLoop::WaitForMoreEvents, 100);
            if (batchFailed())
                return; // exiting with the error already
            if (i == 0)
                window.graphView()->view()->fitWidth();
            QString restore;
            QString restoreModel;
            if (tabs->widget(i) == window.memoryView())
                restoreModel = showMemoryShot(window);
            if (tabs->widget(i) == window.metaflowPanel())
                showMetaflowShot(window);
            if (auto* diff = tabs->widget(i)->findChild<DiffTab*>();
                diff || (diff = qobject_cast<DiffTab*>(tabs->widget(i))))
                showDiffShot(*diff);
            if (tabs->widget(i) == window.timelineView()) {
                // A measured range over the second quarter: duration, kernels, busy %.
                views::TimelineCanvas* canvas = window.timelineView()->canvas();
                canvas->setRange(canvas->axis().totalUs() * 0.25, canvas->axis().totalUs() * 0.4);
            }
            if (tabs->widget(i) == window.streamsView()) {
                restore = showStrategy(window, kStreamsStrategy);
                if (window.model())
                    selectBusiestLaunch(*window.streamsView(), *window.model());
            }
            settle();
            const QString name = QStringLiteral("%1/%2_%3x%4.png")
                                     .arg(directory, slug(tabs->tabText(i)))
                                     .arg(size.width())
                                     .arg(size.height());
            window.grab().save(name);
            if (!restore.isEmpty())
                showStrategy(window, restore);
            if (!restoreModel.isEmpty())
                restoreAfterMemoryShot(window, restoreModel);
            if (batchFailed())
                return;
        }
        tabs->setCurrentIndex(0);
    }
    QTimer::singleShot(0, qApp, &QApplication::quit);
}

} // namespace ios::gui
