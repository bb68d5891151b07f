// SPDX-License-Identifier: Apache-2.0
// What the explorer remembers between starts (QSettings), beside the window layout and the
// settings panel: the last model opened (a file's absolute path or a bundled model's name) and
// the last tab shown. The export folder is export_dialog.h's. A start without a MODEL argument
// reopens the last model on the last tab; batch modes (--screenshots, --measure-startup) do
// not, so that they stay reproducible.
#pragma once

#include <QString>

class QTabWidget;

namespace ios::gui {

// Records a model that opened (MainWindow::openModel).
void rememberModel(const QString& pathOrName);
// The model to open when none is given: the last one while it still exists, else `fallback`.
QString rememberedModel(const QString& fallback);

// Makes the last tab shown current again (when it still exists) and records every change.
void rememberTabs(QTabWidget* tabs);

} // namespace ios::gui
