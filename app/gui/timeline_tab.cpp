// SPDX-License-Identifier: Apache-2.0
#include "timeline_tab.h"

#include "gpu_trace.h"
#include "io/trace_format.h"
#include "io/trace_import.h"
#include "main_window.h"
#include "session.h"
#include "timeline_view.h"
#include "view_registry.h"

#include <QFileInfo>
#include <QStatusBar>
#include <QTabWidget>

namespace ios::gui {

static views::ResultView* makeTimelineTab(MainWindow& window, QWidget* parent) {
    auto* view = new views::TimelineView(parent);
    new TimelineTab(window, view);
    return view;
}

TimelineTab::TimelineTab(MainWindow& window, views::TimelineView* view)
    : QObject(view), window_(window), session_(window.session()), view_(view) {
    // A click on a kernel or a launch selects its operator everywhere, but only through the
    // model the view shows: after a model switch an old kernel's index means nothing.
    connect(view, &views::TimelineView::operatorSelected, this, [this](int flat) {
        if (linked())
            session_->selectOperator(flat, Selection::Source::Timeline);
    });
    // A click on the stage lane selects that stage's row (and so its operators).
    connect(view, &views::TimelineView::stageSelected, this, [this](int block, int stage) {
        if (linked())
            window_.selectStage(block, stage);
    });
    // The selected operators' kernels (its own click included), the rest dimmed; a timeline of
    // another model (a measured trace) shows no selection.
    connect(session_->selection(), &Selection::changed, this, [this] {
        view_->selectOperators(linked()
                                   ? session_->withMergePartners(session_->selection()->operators())
                                   : std::vector<int>());
    });
    connect(session_, &Session::modelChanged, this, [this] {
        if (showsMeasuredTrace())
            openMeasuredTrace(measuredTrace_); // linked again, to the new model if traced
    });
    connect(session_, &Session::resultChanged, this, [this] {
        if (!showsMeasuredTrace())
            showSimulatedTimeline();
    });
}

bool TimelineTab::linked() const {
    return timelineModel_ && timelineModel_ == session_->model();
}

bool TimelineTab::openMeasuredTrace(const QString& path) {
    // Traces are < 1 MB (docs/performance.md): parsing on the UI thread takes milliseconds.
    io::TraceInfo info;
    eval::Timeline timeline;
    try {
        timeline = io::readChromeTrace(path.toStdString(), &info);
    } catch (const std::exception& e) {
        window_.showError(tr("Cannot open trace"), QString::fromStdString(e.what()));
        return false;
    }
    // Kernels carry block and operator names: link them to the open model when it is the
    // traced one (colours by kind, click selects the operator in the graph and stage table).
    const views::LoadedModelPtr& model = session_->model();
    views::LoadedModelPtr linkedModel;
    if (model && (info.model.empty() || info.model == model->graph().name) &&
        eval::linkKernelsToOperators(timeline, model->dags()) > 0)
        linkedModel = model;
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
    if (model && !linkedModel)
        title += tr(" — not linked to %1").arg(QString::fromStdString(model->graph().name));
    QString status = tr("Timeline: %1").arg(title);
    if (const double busy = profiling::busyWarpOccupancy(timeline); measured && busy >= 0)
        status += tr(" — active warps %1 % of peak over busy time")
                      .arg(QString::number(busy * 100, 'f', 2));
    view_->setTimeline(linkedModel, std::make_shared<const eval::Timeline>(std::move(timeline)),
                       title, warpLegend);
    window_.tabs()->setCurrentWidget(view_);
    Q_EMIT sourceChanged();
    window_.statusBar()->showMessage(status);
    return true;
}

void TimelineTab::showSimulatedTimeline() {
    measuredTrace_.clear();
    Q_EMIT sourceChanged();
    const SearchResultPtr& result = session_->lastResult();
    const RunResult* run = session_->shownRun();
    if (run == nullptr) {
        timelineModel_.reset();
        view_->clear();
        return;
    }
    timelineModel_ = session_->model();
    view_->setTimeline(
        timelineModel_, run->timeline,
        run->timeline
            ? tr("%1: %2 · %3") // the view adds the device and batch
                  .arg(result->settings.costModel,
                       QString::fromStdString(timelineModel_->graph().name),
                       strategyLabel(run->strategy))
            : tr("No kernel timeline: %1 knows stage latencies only (choose the simulated or "
                 "analytic cost model)")
                  .arg(result->costModel));
}

IOS_REGISTER_VIEW(timeline,
                  ViewRegistration{"timelineView", IOS_TAB_TITLE("Timeline"),
                                   ViewRegistration::Overlay::Cover, 20, &makeTimelineTab});

} // namespace ios::gui
