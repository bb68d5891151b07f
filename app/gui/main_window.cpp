#include "main_window.h"

#include "bundled_models.h"
#include "error_hints.h"
#include "exports.h"
#include "graph_view.h"
#include "io/model_options.h"
#include "job_controller.h"
#include "memory_view.h"
#include "operator_table_model.h"
#include "settings_panel.h"
#include "streams_view.h"
#include "units.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/message_text.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>
#include <new>

namespace ios::gui {

namespace {
constexpr auto kRecentKey = "recentFiles";
constexpr auto kGeometryKey = "window/geometry";
constexpr auto kStateKey = "window/state";
constexpr auto kStateVersionKey = "window/stateVersion";
constexpr auto kAllowOpaqueKey = "import/allowOpaque";

// A dropped file is a trace, not a model, when named *.trace.json or when a .json file's
// head holds the Chrome trace key (our exporter writes "traceEvents" first).
bool looksLikeChromeTrace(const QString& path) {
    if (path.endsWith(QLatin1String(".trace.json"), Qt::CaseInsensitive))
        return true;
    if (!path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        return false;
    // Through the input layer: a FIFO or a device named *.json must not block the UI thread.
    try {
        return util::readInputHead(path.toStdString(), 4096).find("\"traceEvents\"") !=
               std::string::npos;
    } catch (const UserError&) {
        return false; // opening it as a model reports the problem
    }
}
} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("IOS Explorer"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    createActions();
    createCentralViews();
    createSettingsDock();
    createStageDock();
    createOperatorDock();
    connectJobs();
    createAnalysisTabs();
    connectMemoryView();
    createHelpMenu();
    modelLabel_ = new QLabel(this);
    resultLabel_ = new QLabel(this);
    statusBar()->addWidget(modelLabel_);
    statusBar()->addPermanentWidget(resultLabel_);
    statusBar()->showMessage(tr("Open a model (File ▸ Open, Models menu, or drop a file)."));
    restoreLayout();
}

MainWindow::~MainWindow() {
    delete jobs_; // join the workers before engine_ (a member) goes away
    delete estimateJobs_;
    delete analysisJobs_;
    delete memoryJobs_;
    delete paretoJobs_;
    delete metaflowJobs_;
}

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open Model…"), this, &MainWindow::openFileDialog);
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open an IOS JSON (.ios.json), native (.json) or ONNX (.onnx) model file"));
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    updateRecentMenu();
    QAction* trace =
        file->addAction(tr("Open Measured &Trace…"), this, &MainWindow::openTraceDialog);
    trace->setToolTip(tr("Show a Chrome trace (measured on a GPU, or exported) in the timeline"));
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
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    auto addExport = [this, exportMenu](const QString& text, const QKeySequence& key,
                                        const QString& filters, auto write) {
        QAction* a = exportMenu->addAction(text, this, [this, text, filters, write] {
            // Suggest the model's name with the first format's suffix; a bare name typed in
            // the dialog gets the suffix of the format chosen there.
            QString selected = filters.section(QStringLiteral(";;"), 0, 0);
            const QString suggested = model_ ? QString::fromStdString(model_->graph().name) +
                                                   filterSuffixes(selected).value(0)
                                             : QString();
            const QString path = withFilterSuffix(
                QFileDialog::getSaveFileName(this, text, suggested, filters, &selected), selected);
            if (!path.isEmpty())
                exportTo(path, write);
        });
        a->setShortcut(key);
    };
    addExport(tr("Schedule…"), QKeySequence(tr("Ctrl+E")),
              tr("IOS JSON (*.ios.json);;Native JSON (*.json)"), [this](const QString& path) {
                  exportSchedule(*lastResult_, path, &exportWarnings_);
              });
    addExport(tr("Trace…"), QKeySequence(tr("Ctrl+Shift+T")),
              tr("Chrome trace / Perfetto (*.json);;CSV (*.csv)"),
              [this](const QString& path) { exportTrace(*lastResult_, path); });
    addExport(tr("Picture of Current View…"), QKeySequence(tr("Ctrl+Shift+P")),
              tr("SVG (*.svg);;PNG (*.png)"),
              [this](const QString& path) { exportPicture(tabs_->currentWidget(), path); });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* models = menuBar()->addMenu(tr("&Models"));
    bool demoSeparator = false;
    for (const samples::BundledModel& m : samples::bundledModels()) {
        if (!m.benchmark && !demoSeparator) {
            models->addSection(tr("Demos"));
            demoSeparator = true;
        }
        const QString name =
            QString::fromUtf8(m.name.data(), static_cast<qsizetype>(m.name.size()));
        QAction* a = models->addAction(name, this, [this, name] { openModel(name); });
        a->setStatusTip(
            QString::fromUtf8(m.description.data(), static_cast<qsizetype>(m.description.size())));
        a->setObjectName(QStringLiteral("model_") + name);
    }
    viewMenu_ = menuBar()->addMenu(tr("&View"));
}

void MainWindow::createOperatorDock() {
    auto* dock = new QDockWidget(tr("Operators"), this);
    dock->setObjectName(QStringLiteral("operatorsDock"));
    auto* box = new QWidget(dock);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* filter = new QLineEdit(box);
    filter->setPlaceholderText(tr("Filter operators by name…"));
    filter->setClearButtonEnabled(true);
    operatorModel_ = new views::OperatorTableModel(this);
    operatorProxy_ = new QSortFilterProxyModel(this);
    operatorProxy_->setSourceModel(operatorModel_);
    operatorProxy_->setSortRole(views::OperatorTableModel::SortRole);
    operatorProxy_->setFilterRole(views::OperatorTableModel::FilterRole);
    operatorProxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(filter, &QLineEdit::textChanged, operatorProxy_,
            &QSortFilterProxyModel::setFilterFixedString);
    operatorTable_ = new QTableView(box);
    operatorTable_->setObjectName(QStringLiteral("operatorTable"));
    operatorTable_->setModel(operatorProxy_);
    operatorTable_->setSortingEnabled(true);
    operatorTable_->sortByColumn(views::OperatorTableModel::Name, Qt::AscendingOrder);
    operatorTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    operatorTable_->setAlternatingRowColors(true);
    operatorTable_->verticalHeader()->hide();
    operatorTable_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    operatorTable_->horizontalHeader()->setStretchLastSection(true);
    operatorTable_->setSelectionMode(QAbstractItemView::SingleSelection);
    operatorTable_->setToolTip(tr("Select a row to select the operator in every view"));
    connect(operatorTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { selectTableRow(current); });
    // A click on the current row after the selection moved elsewhere changes the selection
    // only: it selects that operator again.
    connect(operatorTable_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const QModelIndex current = operatorTable_->currentIndex();
        if (operatorTable_->selectionModel()->isSelected(current))
            selectTableRow(current);
    });
    layout->addWidget(filter);
    layout->addWidget(operatorTable_);
    dock->setWidget(box);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    viewMenu_->addAction(dock->toggleViewAction());
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
    jobs_->cancel(); // a search of the old model is moot
    model_ = std::move(loaded);
    lastError_.clear();
    operatorModel_->setModel(model_);
    operatorTable_->resizeColumnsToContents();
    graph_->setModel(model_);
    graphHighlight_.clear();
    // Nothing of the old model's result stays on screen: its indices mean other operators here.
    clearResultViews();
    memoryShownKey_.clear();
    paretoShownKey_.clear();
    const QString name = QString::fromStdString(model_->graph().name);
    setWindowTitle(tr("%1 — IOS Explorer").arg(name.isEmpty() ? pathOrName : name));
    modelLabel_->setText(tr("%1: %2 operators in %3 blocks, %4")
                             .arg(name.isEmpty() ? pathOrName : name)
                             .arg(model_->operatorCount())
                             .arg(model_->dags().size())
                             .arg(views::formatFlops(model_->totalFlops())));
    statusBar()->showMessage(tr("Loaded %1").arg(pathOrName), 5000);
    if (QFileInfo::exists(pathOrName))
        addRecentFile(QFileInfo(pathOrName).absoluteFilePath());
    Q_EMIT modelChanged();
    settingsEdited(); // runs when the estimate is under the auto-run limit
    return true;
}

bool MainWindow::exportTo(const QString& path, const std::function<void(const QString&)>& write) {
    if (!lastResult_) {
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

void MainWindow::createHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* keys = help->addAction(tr("&Keyboard Shortcuts…"), this, &MainWindow::showShortcuts);
    keys->setShortcut(QKeySequence::HelpContents);
    keys->setObjectName(QStringLiteral("shortcutsAction"));
    help->addAction(tr("&About IOS Explorer"), this, [this] {
        QMessageBox::about(
            this, tr("About IOS Explorer"),
            tr("<b>IOS Explorer</b><br>Inter-operator scheduling of CNN inference: the IOS "
               "dynamic program, its baselines and RAF's stream policies, priced on a simulated "
               "or measured GPU.<br>Built with Qt %1.")
                .arg(QString::fromLatin1(qVersion())));
    });
}

std::vector<ShortcutHelp> MainWindow::shortcuts() const {
    return collectShortcuts(this);
}

void MainWindow::showShortcuts() {
    showShortcutDialog(this, shortcuts());
}

void MainWindow::openFileDialog() {
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("lastOpenDir")).toString();
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open Model"), dir, modelFileFilter());
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastOpenDir"), QFileInfo(path).absolutePath());
    openModel(path);
}

void MainWindow::openTraceDialog() {
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("lastTraceDir")).toString();
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open Measured Trace"), dir,
                                     tr("Chrome traces (*.trace.json *.json);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastTraceDir"), QFileInfo(path).absolutePath());
    openMeasuredTrace(path);
}

void MainWindow::addRecentFile(const QString& path) {
    QSettings settings;
    QStringList files = settings.value(QLatin1String(kRecentKey)).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    settings.setValue(QLatin1String(kRecentKey), files);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    const QStringList files = QSettings().value(QLatin1String(kRecentKey)).toStringList();
    for (int i = 0; i < files.size(); ++i) {
        const QString path = files[i];
        QAction* a = recentMenu_->addAction(
            QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()), this,
            [this, path] { openModel(path); });
        a->setStatusTip(path);
    }
    recentMenu_->addSeparator();
    QAction* clear = recentMenu_->addAction(tr("Clear List"), this, [this] {
        QSettings().remove(QLatin1String(kRecentKey));
        updateRecentMenu();
    });
    clear->setEnabled(!files.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) {
        event->acceptProposedAction();
        const QString path = urls.first().toLocalFile();
        if (looksLikeChromeTrace(path))
            openMeasuredTrace(path);
        else
            openModel(path);
    }
}

void MainWindow::restoreLayout() {
    QSettings settings;
    resize(1400, 900);
    // First start: the left docks wide enough for the stage table's latency columns.
    const auto all = findChildren<QDockWidget*>();
    QList<QDockWidget*> docks;
    QList<int> widths;
    for (QDockWidget* dock : all)
        if (dockWidgetArea(dock) == Qt::LeftDockWidgetArea) {
            docks << dock;
            widths << 340;
        }
    resizeDocks(docks, widths, Qt::Horizontal);
    restoreGeometry(settings.value(QLatin1String(kGeometryKey)).toByteArray());
    if (settings.value(QLatin1String(kStateVersionKey)).toInt() == kWindowStateVersion)
        restoreState(settings.value(QLatin1String(kStateKey)).toByteArray(), kWindowStateVersion);
}

void MainWindow::saveLayout() const {
    QSettings settings;
    settings.setValue(QLatin1String(kGeometryKey), saveGeometry());
    settings.setValue(QLatin1String(kStateKey), saveState(kWindowStateVersion));
    settings.setValue(QLatin1String(kStateVersionKey), kWindowStateVersion);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveLayout();
    settings_->save();
    QMainWindow::closeEvent(event);
}

} // namespace ios::gui
