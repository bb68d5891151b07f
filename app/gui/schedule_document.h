// SPDX-License-Identifier: Apache-2.0
// Saved schedules as documents in the explorer (docs/gui.md "Opening a saved schedule"):
// File ▸ Open Schedule… (Ctrl+Shift+O), `ios-explorer MODEL --schedule FILE` and a dropped
// schedule file read an IOS JSON / native model with stages, a schedule file or a stream program
// against the open model (io/schedule_document.h) and show exactly it — stage tree, timeline,
// Streams, header — priced under the panel's device, batch and cost model; the banner above the
// tabs names the file and its "Search again" goes back to searching.
#pragma once

#include <QObject>
#include <QString>

class QLabel;
class QToolBar;

namespace ios::gui {

class MainWindow;

class ScheduleDocumentUi : public QObject {
    Q_OBJECT
public:
    explicit ScheduleDocumentUi(MainWindow* window);

    // Reads `path` against the open model and shows it (the Session prices it). Errors go to
    // the window's message box / lastError, naming the file and the node; returns false then.
    bool open(const QString& path);
    // File ▸ Open Schedule…: a file dialog, then open().
    void chooseAndOpen();
    // Whether a dropped file is a schedule for the open model rather than a model: a schedule
    // or program file, or a model file with stages that names the open model.
    bool isScheduleForOpenModel(const QString& path) const;

    QToolBar* banner() const { return banner_; }
    QString bannerText() const;

private:
    void update();

    MainWindow* window_;
    QToolBar* banner_;
    QLabel* label_;
};

} // namespace ios::gui
