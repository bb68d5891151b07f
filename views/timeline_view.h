// SPDX-License-Identifier: Apache-2.0
// The Timeline tab: the painted lanes and curves (TimelineCanvas: busy % per stream, idle gaps
// marked, range selection, flows, hover readout, W/A/S/D) above a panel that lists the device's
// idle gaps largest first (click one to zoom to it), sets the gap threshold, shows the measured
// range's figures and toggles the flow arrows.
#pragma once

#include "eval/timeline.h"
#include "loaded_model.h"
#include "result_view.h"
#include "time_axis.h"
#include "timeline_canvas.h"

#include <QWidget>
#include <memory>
#include <utility>
#include <vector>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QTreeWidget;
class QToolButton;

namespace ios::views {

class TimelineView : public QWidget, public ResultView {
    Q_OBJECT
public:
    // views::ResultView
    QWidget* widget() override { return this; }
    void renderPicture(QPainter& painter, const QRect& area) override { render(painter, area); }
    ShortcutTable shortcuts() const override { return shortcutHelp(); }
    QWidget* keyTarget() override;

    explicit TimelineView(QWidget* parent = nullptr);

    // `model` may be null (a measured trace of another model): kernels then keep the neutral
    // colour and clicks select nothing. The model and the timeline are kept together, so a click
    // never maps through another model. The title says what the timeline is ("simulated: …").
    // warpLegend: a measured trace's active-warp legend (TimelineCanvas::setTimeline).
    void setTimeline(LoadedModelPtr model, std::shared_ptr<const eval::Timeline> timeline,
                     const QString& title, const QString& warpLegend = {});
    void clear();
    const TimeAxis& axis() const { return canvas_->axis(); }
    const eval::Timeline* timeline() const { return canvas_->timeline(); }
    const QString& title() const { return canvas_->title(); }
    // Paints the lanes and curves (also used for SVG/PNG export).
    void render(QPainter& painter, const QRect& area) { canvas_->render(painter, area); }

    // Highlights the kernels of these operators (flat indices), dims the others and brings them
    // into view when none is visible; empty clears.
    void selectOperators(const std::vector<int>& flatIndices) {
        canvas_->selectOperators(flatIndices);
    }

    // The view-local shortcuts, for the tooltips here and the main window's Help dialog:
    // (keys, what they do).
    static const std::vector<std::pair<QString, QString>>& shortcutHelp();

    TimelineCanvas* canvas() const { return canvas_; }
    QTreeWidget* gapList() const { return gapList_; }
    QDoubleSpinBox* gapThresholdBox() const { return threshold_; }
    QCheckBox* flowsBox() const { return flows_; }
    QLabel* rangeLabel() const { return rangeLabel_; }

    QSize sizeHint() const override { return {1000, 640}; }

Q_SIGNALS:
    void operatorSelected(int flatIndex);
    void stageSelected(int block, int stage);

private:
    void fillGapList();
    void showRange();
    QString gapNeighbour(int kernel) const;

    TimelineCanvas* canvas_;
    QDoubleSpinBox* threshold_;
    QLabel* gapSummary_;
    QLabel* rangeLabel_;
    QCheckBox* flows_;
    QToolButton* help_;
    QTreeWidget* gapList_;
};

} // namespace ios::views
