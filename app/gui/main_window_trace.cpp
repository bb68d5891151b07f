// MainWindow: the timeline tab's source — a measured Chrome trace, or the last result's
// simulated timeline.
#include "io/trace_import.h"
#include "main_window.h"
#include "timeline_view.h"
#include "util/error.h"

#include <QAction>
#include <QFileInfo>
#include <QStatusBar>
#include <QTabWidget>

namespace ios::gui {

bool MainWindow::openMeasuredTrace(const QString& path) {
    // Traces are < 1 MB (docs/performance.md): parsing on the UI thread takes milliseconds.
    io::TraceInfo info;
    eval::Timeline timeline;
    try {
        timeline = io::readChromeTrace(path.toStdString(), &info);
    } catch (const std::exception& e) {
        showError(tr("Cannot open trace"), QString::fromStdString(e.what()));
        return false;
    }
    // Kernels carry block and operator names: link them to the open model when it is the
    // traced one (colours by kind, click selects the operator in the graph and stage table).
    views::LoadedModelPtr linkedModel;
    if (model_ && (info.model.empty() || info.model == model_->graph().name) &&
        eval::linkKernelsToOperators(timeline, model_->dags()) > 0)
        linkedModel = model_;
    measuredTrace_ = path;
    timelineModel_ = linkedModel;
    QString title =
        tr("%1: %2").arg(QString::fromStdString(info.source), QFileInfo(path).fileName());
    if (!info.model.empty())
        title +=
            QStringLiteral(" (%1 · %2)")
                .arg(QString::fromStdString(info.model), QString::fromStdString(info.strategy));
    if (model_ && !linkedModel)
        title += tr(" — not linked to %1").arg(QString::fromStdString(model_->graph().name));
    timeline_->setTimeline(linkedModel, std::make_shared<const eval::Timeline>(std::move(timeline)),
                           title);
    simulatedTimelineAction_->setEnabled(true);
    tabs_->setCurrentWidget(timeline_);
    updateStaleness();
    statusBar()->showMessage(tr("Timeline: %1").arg(title));
    return true;
}

void MainWindow::showSimulatedTimeline() {
    measuredTrace_.clear();
    simulatedTimelineAction_->setEnabled(false);
    updateStaleness();
    if (!lastResult_ || lastResult_->runs.empty() || !model_) {
        timelineModel_.reset();
        timeline_->clear();
        return;
    }
    const RunResult& run = lastResult_->runs.front();
    timelineModel_ = model_;
    timeline_->setTimeline(
        model_, run.timeline,
        run.timeline
            ? tr("%1: %2 · %3") // the view adds the device and batch
                  .arg(costModelKey(lastResult_->settings.costModel),
                       QString::fromStdString(model_->graph().name), strategyLabel(run.strategy))
            : tr("No kernel timeline: %1 knows stage latencies only (choose the simulated or "
                 "analytic cost model)")
                  .arg(lastResult_->costModel));
}

} // namespace ios::gui
