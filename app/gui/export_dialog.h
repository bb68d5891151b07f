// SPDX-License-Identifier: Apache-2.0
// The save dialog every export goes through (File ▸ Export, the Kernels tab's CSV): it suggests
// a name that says what is exported ("inception_v3-timeline.svg", "nasnet_large-ios-both.ios.json")
// in the folder of the last export (remembered in QSettings), and keeps a suffix the user typed
// for any of the offered formats ("x.png" under the SVG filter is a PNG, never "x.png.svg").
#pragma once

#include <QString>

class QWidget;

namespace ios::gui {

class MainWindow;

// "<model>-<what>", made safe as a file name; `what` empty: the current tab's title
// ("inception_v3-state-space"). Without a model, `what` alone (or "export").
QString exportBaseName(const MainWindow& window, const QString& what);

// The dialog: `baseName` plus the first filter's suffix, in the remembered export folder (the
// home folder at first). Returns the chosen path with withFilterSuffix applied over all
// `filters`, remembering its folder; empty when cancelled.
QString chooseExportPath(QWidget* parent, const QString& title, const QString& baseName,
                         const QString& filters);

// The folder the next export dialog opens in, and setting it (what chooseExportPath records).
QString exportDirectory();
void setExportDirectory(const QString& dir);

} // namespace ios::gui
