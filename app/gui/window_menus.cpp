// SPDX-License-Identifier: Apache-2.0
#include "window_menus.h"

#include "bundled_models.h"
#include "export_dialog.h"
#include "exports.h"
#include "loaded_model.h"
#include "main_window.h"
#include "util/error.h"
#include "util/input_file.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QTabWidget>
#include <algorithm>
#include <functional>

namespace ios::gui {

namespace {
constexpr auto kGeometryKey = "window/geometry";
constexpr auto kStateKey = "window/state";
constexpr auto kStateVersionKey = "window/stateVersion";
} // namespace

QString scheduleExportFilters(const views::LoadedModel* model) {
    const bool parts =
        model != nullptr && std::any_of(model->graph().blocks.begin(), model->graph().blocks.end(),
                                        [](const ir::Block& b) { return !b.parts.empty(); });
    // IOS JSON cannot hold explicit parts (docs/formats.md): offer native first for such models.
    return parts ? MainWindow::tr("Native JSON (*.json);;IOS JSON, without the explicit parts "
                                  "(*.ios.json)")
                 : MainWindow::tr("IOS JSON (*.ios.json);;Native JSON (*.json)");
}

void addExportMenu(MainWindow& window, QMenu* menu) {
    MainWindow* w = &window;
    // `filters` is asked when the dialog opens: the schedule's default format depends on the
    // open model.
    auto addExport = [w, menu](const QString& text, const QKeySequence& key,
                               std::function<QString()> filtersNow, auto write) {
        QAction* a = menu->addAction(text, w, [w, text, filtersNow, write] {
            const QString filters = filtersNow();
            // "<model>-<strategy>" for a schedule or trace, "<model>-<tab>" for a picture, in
            // the last export folder (export_dialog.h).
            const bool picture = filters.startsWith(QLatin1String("SVG"));
            const QString what =
                picture || !w->lastResult() || w->lastResult()->runs.empty()
                    ? QString()
                    : w->lastResult()->runs.front().strategy +
                          (filters.contains(QLatin1String("trace")) ? QStringLiteral("-trace")
                                                                    : QString());
            const QString path = chooseExportPath(w, text, exportBaseName(*w, what), filters);
            if (!path.isEmpty())
                w->exportTo(path, write);
        });
        a->setShortcut(key);
    };
    addExport(
        MainWindow::tr("Schedule…"), QKeySequence(MainWindow::tr("Ctrl+E")),
        [w] { return scheduleExportFilters(w->model().get()); },
        [w](const QString& path) { exportSchedule(*w->lastResult(), path, w->exportWarnings()); });
    addExport(
        MainWindow::tr("Trace…"), QKeySequence(MainWindow::tr("Ctrl+Shift+T")),
        [] { return MainWindow::tr("Chrome trace / Perfetto (*.json);;CSV (*.csv)"); },
        [w](const QString& path) { exportTrace(*w->lastResult(), path); });
    addExport(
        MainWindow::tr("Picture of Current View…"), QKeySequence(MainWindow::tr("Ctrl+Shift+P")),
        [] { return MainWindow::tr("SVG (*.svg);;PNG (*.png)"); },
        [w](const QString& path) { exportPicture(w->tabs()->currentWidget(), path); });
}

void addModelsMenu(MainWindow& window, QMenu* menu) {
    bool demoSeparator = false;
    for (const samples::BundledModel& m : samples::bundledModels()) {
        if (!m.benchmark && !demoSeparator) {
            menu->addSection(MainWindow::tr("Demos"));
            demoSeparator = true;
        }
        const QString name =
            QString::fromUtf8(m.name.data(), static_cast<qsizetype>(m.name.size()));
        QAction* a = menu->addAction(name, &window, [&window, name] { window.openModel(name); });
        a->setStatusTip(
            QString::fromUtf8(m.description.data(), static_cast<qsizetype>(m.description.size())));
        a->setObjectName(QStringLiteral("model_") + name);
    }
}

void addHelpMenu(MainWindow& window, QMenu* menu) {
    QAction* keys = menu->addAction(MainWindow::tr("&Keyboard Shortcuts…"), &window,
                                    &MainWindow::showShortcuts);
    keys->setShortcut(QKeySequence::HelpContents);
    keys->setObjectName(QStringLiteral("shortcutsAction"));
    menu->addAction(MainWindow::tr("&About IOS Explorer"), &window, [&window] {
        QMessageBox::about(
            &window, MainWindow::tr("About IOS Explorer"),
            MainWindow::tr(
                "<b>IOS Explorer</b><br>Inter-operator scheduling of CNN inference: the IOS "
                "dynamic program, its baselines and RAF's stream policies, priced on a simulated "
                "or measured GPU.<br>Built with Qt %1.")
                .arg(QString::fromLatin1(qVersion())));
    });
}

QWidget* scrollableDockContent(QWidget* content) {
    auto* area = new QScrollArea;
    area->setFrameShape(QFrame::NoFrame);
    area->setWidgetResizable(true);
    area->setWidget(content);
    return area;
}

QLabel* shrinkableStatusLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setMinimumWidth(1); // instead of its text's width
    return label;
}

void setDefaultDockWidths(QMainWindow& window) {
    QList<QDockWidget*> docks;
    QList<int> widths;
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) { // settings/stages | operators
        docks << dock;
        widths << (window.dockWidgetArea(dock) == Qt::LeftDockWidgetArea ? 340 : 200);
    }
    window.resizeDocks(docks, widths, Qt::Horizontal);
}

void restoreWindowLayout(QMainWindow& window, int version) {
    QSettings settings;
    // 1400×900, or the screen's free area when smaller (a 1280×800 laptop).
    QSize size(1400, 900);
    if (const QScreen* screen = window.screen())
        size = size.boundedTo(screen->availableGeometry().size());
    window.resize(size);
    setDefaultDockWidths(window);
    window.restoreGeometry(settings.value(QLatin1String(kGeometryKey)).toByteArray());
    if (settings.value(QLatin1String(kStateVersionKey)).toInt() == version)
        window.restoreState(settings.value(QLatin1String(kStateKey)).toByteArray(), version);
}

void saveWindowLayout(const QMainWindow& window, int version) {
    QSettings settings;
    settings.setValue(QLatin1String(kGeometryKey), window.saveGeometry());
    settings.setValue(QLatin1String(kStateKey), window.saveState(version));
    settings.setValue(QLatin1String(kStateVersionKey), version);
}

QString chooseFile(QWidget* parent, const QString& title, const char* key, const QString& filter) {
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        parent, title, settings.value(QLatin1String(key)).toString(), filter);
    if (!path.isEmpty())
        settings.setValue(QLatin1String(key), QFileInfo(path).absolutePath());
    return path;
}

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

} // namespace ios::gui
