// SPDX-License-Identifier: Apache-2.0
// The Timeline tab's source and links: the shown result's simulated timeline, or a measured
// Chrome trace (its header names the measured run's mode; the chart shows its active warps),
// linked to the open model when it is the traced one. A child of the TimelineView.
#pragma once

#include "loaded_model.h"

#include <QObject>
#include <QString>

namespace ios::views {
class TimelineView;
}

namespace ios::gui {

class MainWindow;
class Session;

class TimelineTab : public QObject {
    Q_OBJECT
public:
    TimelineTab(MainWindow& window, views::TimelineView* view);

    // Shows a trace written by trace_export, titled "measured: <file>", until
    // showSimulatedTimeline(). Errors go to the window (MainWindow::showError).
    bool openMeasuredTrace(const QString& path);
    void showSimulatedTimeline();
    bool showsMeasuredTrace() const { return !measuredTrace_.isEmpty(); }

Q_SIGNALS:
    void sourceChanged(); // a trace opened or the simulated timeline is back

private:
    bool linked() const;

    MainWindow& window_;
    Session* session_;
    views::TimelineView* view_;
    QString measuredTrace_;               // empty: the simulated timeline
    views::LoadedModelPtr timelineModel_; // the model the kernels link to
};

} // namespace ios::gui
