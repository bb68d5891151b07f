// SPDX-License-Identifier: Apache-2.0
#include "main_window.h"

#include "error_hints.h"
#include "exports.h"
#include "graph_view.h"
#include "io/model_options.h"
#include "memory_tab.h"
#include "memory_view.h"
#include "metaflow_panel.h"
#include "operator_dock.h"
#include "properties_dock.h"
#include "recent_files.h"
#include "remembered_state.h"
#include "schedule_document.h"
#include "session.h"
#include "settings_panel.h"
#include "stage_dock.h"
#include "streams_view.h"
#include "timeline_tab.h"
#include "timeline_view.h"
#include "units.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/message_text.h"
#include "view_keys.h"
#include "view_registry.h"
#include "window_menus.h"

#include <QAction>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <new>

namespace ios::gui {

namespace {
constexpr auto kAllowOpaqueKey = "import/allowOpaque";
} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("IOS Explorer"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    createMenus();
    createDocks();
    createTabs();
    addHelpMenu(*this, menuBar()->addMenu(tr("&Help")));
    connectSession();
    scheduleDocument_ = new ScheduleDocumentUi(this);
    new ViewKeyRouter(tabs_); // a tab's keys work whatever has focus
    modelLabel_ = shrinkableStatusLabel(this);
    resultLabel_ = shrinkableStatusLabel(this);
    statusBar()->addWidget(modelLabel_);
    statusBar()->addPermanentWidget(resultLabel_);
    statusBar()->showMessage(tr("Open a model (File ▸ Open, Models menu, or drop a file)."));
    restoreWindowLayout(*this, kWindowStateVersion);
}

MainWindow::~MainWindow() {
    delete tabs_; // the tabs' jobs end before the session they read
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open Model…"), this, [this] {
        const QString path = chooseFile(this, tr("Open Model"), "lastOpenDir", modelFileFilter());
        if (!path.isEmpty())
            openModel(path);
    });
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open an IOS JSON (.ios.json), native (.json) or ONNX (.onnx) model file"));
    recent_ = new RecentFiles(file->addMenu(tr("Open &Recent")), this);
    connect(recent_, &RecentFiles::openRequested, this, &MainWindow::openModel);
    QAction* trace = file->addAction(tr("Open Measured &Trace…"), this, [this] {
        const QString path = chooseFile(this, tr("Open Measured Trace"), "lastTraceDir",
                                        tr("Traces (*.json *.sqlite);;Chrome / PyTorch profiler "
                                           "traces (*.json);;Nsight Systems SQLite exports "
                                           "(*.sqlite);;All files (*)"));
        if (!path.isEmpty())
            openMeasuredTrace(path);
    });
    trace->setToolTip(tr("Show a measured run in the timeline: a trace of ios-sched, a PyTorch "
                         "profiler (Kineto) trace or an Nsight Systems SQLite export"));
    QAction* schedule = file->addAction(tr("Open &Schedule…"), this,
                                        [this] { scheduleDocument_->chooseAndOpen(); });
    schedule->setShortcut(QKeySequence(tr("Ctrl+Shift+O")));
    schedule->setToolTip(tr("Show a saved schedule of the open model exactly, priced on the "
                            "panel's device and batch (IOS JSON, native JSON, schedule file or "
                            "stream program)"));
    simulatedTimelineAction_ =
        file->addAction(tr("Show &Simulated Timeline"), this, &MainWindow::showSimulatedTimeline);
    simulatedTimelineAction_->setEnabled(false);
    allowOpaqueAction_ = file->addAction(tr("Import Unsupported ONNX Operators as &Opaque"));
    allowOpaqueAction_->setObjectName(QStringLiteral("allowOpaque"));
    allowOpaqueAction_->setCheckable(true);
    allowOpaqueAction_->setChecked(QSettings().value(QLatin1String(kAllowOpaqueKey)).toBool());
    allowOpaqueAction_->setToolTip(
        tr("Open ONNX models whose operators the IR cannot describe, importing those as opaque "
           "operators (zero FLOPs, real memory traffic; docs/onnx.md) — the CLI's "
           "--allow-opaque"));
    connect(allowOpaqueAction_, &QAction::toggled, this,
            [](bool on) { QSettings().setValue(QLatin1String(kAllowOpaqueKey), on); });
    file->addSeparator();
    addExportMenu(*this, file->addMenu(tr("&Export")));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    addModelsMenu(*this, menuBar()->addMenu(tr("&Models")));
    viewMenu_ = menuBar()->addMenu(tr("&View"));
}

void MainWindow::createDocks() {
    auto* dock = new QDockWidget(tr("Search"), this);
    dock->setObjectName(QStringLiteral("settingsDock"));
    settings_ = new SettingsPanel(dock);
    settings_->load();
    dock->setWidget(scrollableDockContent(settings_));
    session_ = new Session(settings_, this);
    stages_ = new StageDock(session_, this);
    auto* operators = new OperatorDock(session_, this);
    operatorTable_ = operators->table();
    for (QDockWidget* d : {dock, static_cast<QDockWidget*>(stages_)})
        addDockWidget(Qt::LeftDockWidgetArea, d);
    addDockWidget(Qt::RightDockWidgetArea, operators);
    auto* properties = new PropertiesDock( // the graph's tooltip text, in a panel
        session_, [this](int flat) { return graphView()->operatorToolTip(flat); }, this);
    tabifyDockWidget(operators, properties); // no wider at 1280×800
    operators->raise();
    for (QDockWidget* d :
         {dock, static_cast<QDockWidget*>(stages_), static_cast<QDockWidget*>(operators),
          static_cast<QDockWidget*>(properties)})
        viewMenu_->addAction(d->toggleViewAction());
    // Notes over the docks' views: the stage tree shows the result, the table the model.
    staleNotes_.push_back(new StaleOverlay(stages_->tree(), StaleOverlay::Mode::Cover));
    rewrittenNotes_.push_back(new StaleOverlay(stages_->tree(), StaleOverlay::Mode::Cover));
    rewrittenNotes_.push_back(new StaleOverlay(operatorTable_, StaleOverlay::Mode::Banner));
}

void MainWindow::createTabs() {
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("views"));
    tabs_->setDocumentMode(true);
    setCentralWidget(tabs_);
    for (const ViewRegistration& r : registeredViews()) {
        views::ResultView* view = r.make(*this, tabs_);
        QWidget* w = view->widget();
        w->setObjectName(QLatin1String(r.key));
        tabs_->setTabToolTip(tabs_->addTab(w, tr(r.title)), view->description());
        if (r.overlay == ViewRegistration::Overlay::None)
            continue;
        const auto mode = r.overlay == ViewRegistration::Overlay::Cover
                              ? StaleOverlay::Mode::Cover
                              : StaleOverlay::Mode::Banner;
        staleNotes_.push_back(new StaleOverlay(w, mode));
        rewrittenNotes_.push_back(new StaleOverlay(w, mode));
    }
    timeline_ = timelineView()->findChild<TimelineTab*>();
    connect(tabs_, &QTabWidget::currentChanged, this, &MainWindow::updateTitle);
}

void MainWindow::connectSession() {
    connect(session_, &Session::modelChanged, this, [this] {
        graphHighlight_.clear();
        updateTitle();
        Q_EMIT modelChanged();
    });
    connect(session_, &Session::resultShown, this, &MainWindow::resultShown);
    for (auto signal : {&Session::stalenessChanged, &Session::resultChanged})
        connect(session_, signal, this, &MainWindow::updateOverlays);
    connect(timeline_, &TimelineTab::sourceChanged, this, [this] {
        simulatedTimelineAction_->setEnabled(showsMeasuredTrace());
        updateOverlays();
    });
    connect(session_, &Session::statusMessage, this, [this](const QString& text, int ms) {
        if (text.isEmpty())
            statusBar()->clearMessage();
        else
            statusBar()->showMessage(text, ms);
    });
    connect(session_, &Session::errorRaised, this, &MainWindow::showError);
    connect(session_, &Session::searchFailed, this, [this](const QString& message, qint64 peak) {
        if (peak <= 0)
            return showError(tr("Search failed"), message);
        // A budget below every schedule's peak: said under the budget field, with the least
        // feasible peak to take, rather than in a dialog.
        lastError_ = message;
        statusBar()->showMessage(message, 10000);
        Q_EMIT errorOccurred(message);
    });
}

void MainWindow::updateOverlays() {
    const QString stale = staleMessage();
    for (StaleOverlay* note : staleNotes_) // a measured trace is not a result of the settings
        note->setMessage(note->parentWidget() == timelineView() && showsMeasuredTrace() ? QString()
                                                                                        : stale);
    const QString rewritten = rewrittenNote();
    for (StaleOverlay* note : rewrittenNotes_)
        note->setMessage(rewritten);
    resultLabel_->setText(session_->resultSummary());
}

bool MainWindow::allowOpaque() const {
    return allowOpaqueAction_->isChecked();
}

void MainWindow::setAllowOpaque(bool allow) {
    allowOpaqueAction_->setChecked(allow);
}

bool MainWindow::openModel(const QString& pathOrName) {
    views::LoadedModelPtr loaded;
    io::ModelLoadOptions options;
    options.allowOpaque = allowOpaque();
    std::vector<std::string> warnings; // what was read otherwise than the file says
    options.warnings = &warnings;
    try {
        loaded = views::loadModel(pathOrName, ir::kDefaultMaxPartSize, options);
    } catch (const UserError& e) {
        // The ONNX importer's error for operators the IR cannot describe: the GUI's way is
        // the File menu's option (or the error dialog's button).
        const QString message = forGuiUsers(e);
        if (e.hint() != Hint::AllowOpaque) {
            showError(tr("Cannot open model"), message);
            return false;
        }
        // Offer the GUI's equivalent of the CLI's flag at once.
        bool retry = false;
        if (dialogsEnabled_) {
            QMessageBox box(QMessageBox::Warning, tr("Unsupported operators"), message,
                            QMessageBox::Cancel, this);
            QPushButton* opaque = box.addButton(tr("Open with Unsupported Operators as Opaque"),
                                                QMessageBox::AcceptRole);
            box.setDefaultButton(opaque);
            box.exec();
            retry = box.clickedButton() == opaque;
        }
        if (!retry) {
            lastError_ = QString::fromStdString(util::escapeControl(message.toStdString()));
            statusBar()->showMessage(lastError_, 10000);
            Q_EMIT errorOccurred(lastError_);
            return false;
        }
        setAllowOpaque(true);
        return openModel(pathOrName);
    } catch (const std::bad_alloc&) {
        showError(tr("Cannot open model"),
                  tr("%1: not enough memory to load it; give a smaller model").arg(pathOrName));
        return false;
    } catch (const std::exception& e) {
        showError(tr("Cannot open model"),
                  tr("%1: internal error: %2").arg(pathOrName, QString::fromStdString(e.what())));
        return false;
    }
    lastError_.clear();
    const QString name = QString::fromStdString(loaded->graph().name);
    modelName_ = name.isEmpty() ? pathOrName : name;
    QString summary = tr("%1: %2 operators in %3 blocks, %4")
                          .arg(name.isEmpty() ? pathOrName : name)
                          .arg(loaded->operatorCount())
                          .arg(loaded->dags().size())
                          .arg(views::formatFlops(loaded->totalFlops()));
    // What the reader read otherwise than the file says stays in sight while the model is
    // open (the label), in full in its tooltip; the transient message says it once.
    QStringList said;
    for (const std::string& w : warnings)
        said << QString::fromStdString(util::escapeControl(w));
    if (!said.isEmpty())
        summary += tr(" · ⚠ read otherwise than written (hover)");
    modelLabel_->setText(summary);
    modelLabel_->setToolTip(said.join(QLatin1Char('\n')));
    if (said.isEmpty())
        statusBar()->showMessage(tr("Loaded %1").arg(pathOrName), 5000);
    else
        statusBar()->showMessage(tr("Loaded %1 — %2").arg(pathOrName, said.front()), 30000);
    if (QFileInfo::exists(pathOrName))
        recent_->add(QFileInfo(pathOrName).absoluteFilePath());
    rememberModel(pathOrName);             // reopened at the next start (remembered_state.h)
    session_->setModel(std::move(loaded)); // the views follow; estimated, run when quick
    return true;
}

bool MainWindow::exportTo(const QString& path, const std::function<void(const QString&)>& write) {
    if (!lastResult()) {
        showError(tr("Export"), tr("Nothing to export yet: open a model and run a search."));
        return false;
    }
    exportWarnings_.clear();
    try {
        write(path);
    } catch (const std::exception& e) {
        showError(tr("Export failed"), QString::fromUtf8(e.what()));
        return false;
    }
    if (exportWarnings_.isEmpty())
        statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
    else // what the format could not express, long enough to be read
        statusBar()->showMessage(
            tr("Exported %1 — warning: %2").arg(path, exportWarnings_.join(QStringLiteral("; "))),
            15000);
    return true;
}

void MainWindow::showError(const QString& title, const QString& rawMessage) {
    // Names from files are shown escaped (util::escapeControl, as the CLI prints them).
    const QString message = QString::fromStdString(util::escapeControl(rawMessage.toStdString()));
    lastError_ = message;
    statusBar()->showMessage(message, 10000);
    Q_EMIT errorOccurred(message);
    if (dialogsEnabled_)
        QMessageBox::critical(this, title, message);
}

std::vector<ShortcutHelp> MainWindow::shortcuts() const {
    return collectShortcuts(this);
}

void MainWindow::showShortcuts() {
    showShortcutDialog(this, shortcuts());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    event->acceptProposedAction();
    const QString path = urls.first().toLocalFile();
    if (scheduleDocument_->isScheduleForOpenModel(path))
        openSchedule(path);
    else if (looksLikeChromeTrace(path))
        openMeasuredTrace(path);
    else
        openModel(path);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveWindowLayout(*this, kWindowStateVersion);
    settings_->save();
    QMainWindow::closeEvent(event);
}

// The shared state and the widgets, for the tabs, tests and the screenshot mode.
Selection* MainWindow::selection() const {
    return session_->selection();
}
const views::LoadedModelPtr& MainWindow::model() const {
    return session_->model();
}
const SearchResultPtr& MainWindow::lastResult() const {
    return session_->lastResult();
}
bool MainWindow::isResultCurrent() const {
    return session_->isResultCurrent();
}
QString MainWindow::staleMessage() const {
    return session_->staleMessage();
}
QString MainWindow::rewrittenNote() const {
    return session_->rewrittenNote();
}
bool MainWindow::openSchedule(const QString& path) {
    return scheduleDocument_->open(path);
}
void MainWindow::runOptimize() {
    session_->runOptimize();
}
JobController* MainWindow::jobs() const {
    return session_->jobs();
}
JobController* MainWindow::estimateJobs() const {
    return session_->estimateJobs();
}
bool MainWindow::openMeasuredTrace(const QString& path) {
    return timeline_->openMeasuredTrace(path);
}
void MainWindow::showSimulatedTimeline() {
    timeline_->showSimulatedTimeline();
}
bool MainWindow::showsMeasuredTrace() const {
    return timeline_->showsMeasuredTrace();
}
void MainWindow::highlightInGraph(const std::vector<int>& flat, const std::vector<int>& context,
                                  bool center) {
    graphHighlight_ = flat;
    graphView()->setSelection(flat, context, center);
}
void MainWindow::selectStage(int block, int stage) {
    stages_->selectStage(block, stage);
}
QTreeView* MainWindow::stageTree() const {
    return stages_->tree();
}
QTableView* MainWindow::operatorTable() const {
    return operatorTable_;
}
views::GraphView* MainWindow::graphView() const {
    return tabs_->findChild<views::GraphView*>(QStringLiteral("graphView"));
}
views::TimelineView* MainWindow::timelineView() const {
    return tabs_->findChild<views::TimelineView*>(QStringLiteral("timelineView"));
}
views::StreamsView* MainWindow::streamsView() const {
    return tabs_->findChild<views::StreamsView*>(QStringLiteral("streamsView"));
}
views::MemoryView* MainWindow::memoryView() const {
    return tabs_->findChild<views::MemoryView*>(QStringLiteral("memoryView"));
}
MetaflowPanel* MainWindow::metaflowPanel() const {
    return tabs_->findChild<MetaflowPanel*>(QStringLiteral("metaflowTab"));
}
JobController* MainWindow::memoryJobs() const {
    return memoryView()->findChild<MemoryTab*>()->reportJobs();
}
JobController* MainWindow::paretoJobs() const {
    return memoryView()->findChild<MemoryTab*>()->paretoJobs();
}
void MainWindow::updateTitle() {
    QStringList parts;
    if (const views::ResultView* view = views::asResultView(tabs_->currentWidget()))
        if (const QString note = view->titleNote(); !note.isEmpty())
            parts << note;
    if (!modelName_.isEmpty())
        parts << modelName_ << tabs_->tabText(tabs_->currentIndex()).remove(QLatin1Char('&'));
    parts << tr("IOS Explorer");
    setWindowTitle(parts.join(QStringLiteral(" — ")));
}

bool MainWindow::isAnalysisCurrent(int tabIndex) const {
    const views::ResultView* view = views::asResultView(tabs_->widget(tabIndex));
    return view == nullptr || view->isCurrent();
}

} // namespace ios::gui
