// SPDX-License-Identifier: Apache-2.0
// The Streams view: one block of a stream program (schedule/stream_program.h) as lanes per
// program stream, launches as boxes labelled with the operator (synthetic RAF tuples dashed),
// record → wait arrows between lanes, barriers and syncs as lines across every lane; in issue
// order or in simulated time (the job's cost::ProgramRun), with per-block counts and latency,
// a block selector, Ctrl+wheel zoom, drag pan, fit, tooltips and linked operator selection.
#pragma once

#include "cost/program_simulator.h"
#include "loaded_model.h"
#include "result_view.h"
#include "schedule/stream_program.h"
#include "stream_layout.h"
#include "streams_painter.h"
#include "time_axis.h"

#include <QWidget>
#include <vector>

class QButtonGroup;
class QComboBox;
class QLabel;
class QToolButton;

namespace ios::views {

class StreamsCanvas;

class StreamsView : public QWidget, public ResultView {
    Q_OBJECT
public:
    // views::ResultView
    QWidget* widget() override { return this; }
    void renderPicture(QPainter& painter, const QRect& area) override { render(painter, area); }
    ShortcutTable shortcuts() const override;
    QWidget* keyTarget() override;

    explicit StreamsView(QWidget* parent = nullptr);

    // `runs` simulates `program` block by block (may be empty: issue order only, `note` says
    // why). `title` says what the program is ("simulated: inception_v3 · RAF ASAP …").
    void setProgram(LoadedModelPtr model, schedule::Program program,
                    std::vector<cost::ProgramRun> runs, const QString& title,
                    const QString& note = {});
    void clear();

    int blockCount() const { return static_cast<int>(program_.size()); }
    int block() const { return block_; }
    void setBlock(int block); // fits the view
    StreamAxis axis() const { return layout_.axis; }
    bool canShowTime() const { return !runs_.empty(); }
    void setAxis(StreamAxis axis); // SimulatedTime needs runs; fits the view
    // The shown block's layout, program and counts.
    const StreamLayout& layout() const { return layout_; }
    const schedule::StreamProgram* blockProgram() const;
    schedule::ProgramCounts blockCounts() const;
    const QString& title() const { return title_; }

    // Selects the launches of these operators (flat indices), switching to the first one's
    // block, and highlights the events they wait on; false when none is in the program.
    bool selectOperators(const std::vector<int>& flatIndices);
    bool selectOperator(int flatIndex) { return selectOperators({flatIndex}); }
    void clearSelection();
    const std::vector<int>& selectedLaunches() const { return selected_; }
    // Arrows of the events the selected launches wait on.
    std::vector<int> highlightedArrows() const;

    void fitToView();
    // The x range shown (instruction slots or µs): Ctrl+wheel zooms it, dragging pans it.
    const TimeAxis& xAxis() const { return axisState_; }
    // Paints the whole view (header, lanes, legend); also used for SVG/PNG export.
    void render(QPainter& painter, const QRect& area);
    // Where the last render drew launch `launch` (canvas coordinates), empty when not drawn.
    QRectF launchRect(int launch) const;
    QString tooltipAt(const QPointF& pos) const;
    QWidget* canvas() const;
    QComboBox* blockBox() const { return blockBox_; }

    // What StreamsPainter draws from (read-only).
    const LoadedModel* model() const { return model_.get(); }
    double scrollY() const { return scrollY_; } // lanes scrolled by this many pixels
    // The block's counts and simulated latency, items joined by " · " (the header's line).
    QString countsText() const;

    QSize sizeHint() const override { return {1000, 500}; }

Q_SIGNALS:
    void operatorSelected(int flatIndex);

private:
    friend class StreamsCanvas;
    using Hit = StreamsHit;
    using Geometry = StreamsPainter::Geometry;
    void relayout();
    void updateControls();
    Geometry geometry(const QRect& area) const { return StreamsPainter(*this).geometry(area); }
    QString launchTooltip(int launch) const;
    QString arrowTooltip(int arrow) const;
    QString eventText(int arrow, bool fromWaitSide) const;
    QString timeText(int instruction) const;
    int hitLaunchAt(const QPointF& pos) const;
    void scrollToLaunch(int launch);
    // Canvas events.
    void zoomAt(double x, double factor);
    void panBy(double dx, double dy);
    bool lanesOverflow() const;
    void clickAt(const QPointF& pos);

    LoadedModelPtr model_;
    schedule::Program program_;
    std::vector<cost::ProgramRun> runs_;
    QString title_;
    QString note_;
    int block_ = 0;
    StreamAxis wantedAxis_ = StreamAxis::IssueOrder;
    StreamLayout layout_;
    TimeAxis axisState_;
    double scrollY_ = 0;
    std::vector<int> selected_;
    std::vector<Hit> hits_;
    QRect lastArea_;

    StreamsCanvas* canvas_;
    QComboBox* blockBox_;
    QToolButton* issueButton_;
    QToolButton* timeButton_;
    QButtonGroup* axisGroup_;
    QLabel* hint_;

    static constexpr int kLabelWidth = StreamsPainter::kLabelWidth;
};

} // namespace ios::views
