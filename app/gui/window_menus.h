// SPDX-License-Identifier: Apache-2.0
// The main window's fixed menus (File ▸ Export, Models, Help) and its file helpers, as free
// functions over MainWindow's public interface.
#pragma once

#include <QString>

class QLabel;
class QMainWindow;
class QMenu;
class QWidget;

namespace ios::views {
class LoadedModel;
}

namespace ios::gui {

class MainWindow;

// The schedule export's dialog filters: IOS JSON first, or native JSON first for a model with
// explicit DP parts (IOS JSON cannot hold them; the IOS JSON entry then says so).
QString scheduleExportFilters(const views::LoadedModel* model);

// Schedule…, Trace…, Picture of Current View… (through MainWindow::exportTo).
void addExportMenu(MainWindow& window, QMenu* menu);
// The bundled models, benchmarks first, then the demos.
void addModelsMenu(MainWindow& window, QMenu* menu);
// Keyboard Shortcuts…, About.
void addHelpMenu(MainWindow& window, QMenu* menu);

// The window's geometry and docks (QSettings); a state saved by another `version` is not
// restored (its docks may differ). The first start takes 1400×900 or the screen's free area,
// gives the left docks room for the stage table's latency columns and the right one 200 px.
void restoreWindowLayout(QMainWindow& window, int version);
// The docks' default widths (settings and stages 340 px, operators 200 px).
void setDefaultDockWidths(QMainWindow& window);
void saveWindowLayout(const QMainWindow& window, int version);

// Small screens (1280×800 and less): `content` in a frameless scroll area that scrolls only when
// its dock is narrower or shorter than the content's minimum, so the dock can shrink; and a
// status-bar label that may be narrower than its text (which is then cut at the right).
QWidget* scrollableDockContent(QWidget* content);
QLabel* shrinkableStatusLabel(QWidget* parent);

// An open-file dialog remembering its folder under the QSettings key `key`; empty: cancelled.
QString chooseFile(QWidget* parent, const QString& title, const char* key, const QString& filter);
// A dropped file is a trace, not a model, when named *.trace.json or when a .json file's head
// holds the Chrome trace key (our exporter writes "traceEvents" first).
bool looksLikeChromeTrace(const QString& path);

} // namespace ios::gui
