// MainWindow: the timeline tab's source — a measured Chrome trace (its header names the measured
// run's mode; the chart shows its active warps), or the last result's simulated timeline.
#include "gpu_trace.h"
#include "io/trace_format.h"
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
    // The header is the measured run's: the canvas adds the trace's device and batch, this
    // names its mode (never the simulated settings of the window).
    const bool measured = info.source == io::trace::kMeasuredSource;
    QString title =
        tr("%1: %2").arg(QString::fromStdString(info.source), QFileInfo(path).fileName());
    if (!info.model.empty())
        title +=
            QStringLiteral(" (%1 · %2)")
                .arg(QString::fromStdString(info.model), QString::fromStdString(info.strategy));
    QString mode, warpLegend;
    if (measured) {
        if (info.mode == io::trace::kCudaGraphMode)
            mode = tr("CUDA-graph replay");
        else if (info.mode == io::trace::kEagerMode)
            mode = tr("eager run: host-bound, see docs/gpu.md");
        else
            mode = tr("mode not recorded");
        title += QStringLiteral(" · ") + mode;
        warpLegend = tr("active warps, % of peak — PM sampling");
        if (info.mode == io::trace::kCudaGraphMode)
            warpLegend += tr(", CUDA-graph replay");
        else if (info.mode == io::trace::kEagerMode)
            warpLegend += tr(", eager run");
    }
    if (model_ && !linkedModel)
        title += tr(" — not linked to %1").arg(QString::fromStdString(model_->graph().name));
    QString status = tr("Timeline: %1").arg(title);
    if (const double busy = profiling::busyWarpOccupancy(timeline); measured && busy >= 0)
        status += tr(" — active warps %1 % of peak over busy time")
                      .arg(QString::number(busy * 100, 'f', 2));
    timeline_->setTimeline(linkedModel, std::make_shared<const eval::Timeline>(std::move(timeline)),
                           title, warpLegend);
    simulatedTimelineAction_->setEnabled(true);
    tabs_->setCurrentWidget(timeline_);
    updateStaleness();
    statusBar()->showMessage(status);
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
                  .arg(lastResult_->settings.costModel,
                       QString::fromStdString(model_->graph().name), strategyLabel(run.strategy))
            : tr("No kernel timeline: %1 knows stage latencies only (choose the simulated or "
                 "analytic cost model)")
                  .arg(lastResult_->costModel));
}

} // namespace ios::gui
