// SPDX-License-Identifier: Apache-2.0
// Non-interactive modes of ios-explorer used by tools/screenshots.sh and docs/performance.md:
// wait until the model's schedule and graph layout are on screen, then grab every view.
#pragma once

#include <QSize>
#include <QString>
#include <functional>

namespace ios::gui {

class MainWindow;

// Every batch mode (--screenshots, --measure-startup) ends at the first error the window
// reports (errorOccurred: a model that does not load, a search refused or failed, …): the
// message as one line on stderr, "ios-explorer: MESSAGE", and exit status 1. The waits of the
// batch modes end at once after it (batchFailed()).
void exitOnError(MainWindow& window);
bool batchFailed();

// Calls `then` once the current model's optimisation result and graph layout are shown.
void whenResultShown(MainWindow& window, std::function<void()> then);

// Saves one PNG per view tab (and the whole window) for each size into `directory`, named
// <tab>_<width>x<height>.png, then quits the application. The Streams tab is shot with the
// raf-asap strategy (the settings' strategy is restored after it).
void takeScreenshots(MainWindow& window, const QString& directory, const QList<QSize>& sizes);

} // namespace ios::gui
