// SPDX-License-Identifier: Apache-2.0
#include "timeline_view.h"

#include "timeline_texts.h"
#include "units.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QToolButton>
#include <QToolTip>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ios::views {

namespace {

// Long lists stay responsive; the gaps beyond are the shortest ones.
constexpr int kMaxListedGaps = 2000;

} // namespace

const std::vector<std::pair<QString, QString>>& TimelineView::shortcutHelp() {
    static const std::vector<std::pair<QString, QString>> table = {
        {tr("W / S"), tr("Zoom in / out around the mouse pointer")},
        {tr("A / D"), tr("Pan to earlier / later times")},
        {tr("Ctrl+wheel"), tr("Zoom around the mouse pointer")},
        {tr("Wheel"), tr("Scroll the lanes when they do not fit")},
        {tr("Shift+wheel, drag"), tr("Pan")},
        {tr("Shift+drag, drag on the ruler"),
         tr("Measure a range: duration, kernels, busy %, mean SM use")},
        {tr("Esc"), tr("Clear the range")},
        {tr("F, double-click"), tr("Show the whole timeline")},
        {tr("Click a kernel / a stage"), tr("Select its operator / the stage")},
        {tr("Click a gap in the list"), tr("Zoom to the gap and measure it")},
    };
    return table;
}

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent), canvas_(new TimelineCanvas), threshold_(new QDoubleSpinBox),
      gapSummary_(new QLabel), rangeLabel_(new QLabel), flows_(new QCheckBox(tr("Flow arrows"))),
      help_(new QToolButton), gapList_(new QTreeWidget) {
    threshold_->setObjectName(QStringLiteral("gapThreshold"));
    threshold_->setRange(0, 1e6);
    threshold_->setDecimals(1);
    threshold_->setSuffix(tr(" µs"));
    threshold_->setValue(TimelineCanvas::kDefaultGapThresholdUs);
    threshold_->setKeyboardTracking(false); // applies on Enter or focus loss, not per keystroke
    threshold_->setToolTip(tr("List and mark the intervals in which no stream runs a kernel for "
                              "at least this long"));
    flows_->setToolTip(tr("Arrows from an operator's last kernel to the first kernel of each "
                          "consumer on another stream (off by default beyond %1 arrows)")
                           .arg(TimelineCanvas::kMaxDefaultFlows));
    help_->setText(QStringLiteral("?"));
    help_->setAutoRaise(true);
    QStringList help;
    for (const auto& [keys, what] : shortcutHelp())
        help << QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(keys, what);
    help_->setToolTip(QStringLiteral("<table>%1</table>").arg(help.join(QString())));
    connect(help_, &QToolButton::clicked, this, [this] {
        QToolTip::showText(help_->mapToGlobal(QPoint(0, help_->height())), help_->toolTip(), help_);
    });
    rangeLabel_->setObjectName(QStringLiteral("rangeFigures"));
    rangeLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    gapList_->setObjectName(QStringLiteral("gapList"));
    gapList_->setRootIsDecorated(false);
    gapList_->setUniformRowHeights(true);
    gapList_->setAlternatingRowColors(true);
    gapList_->setHeaderLabels({tr("Idle"), tr("Start"), tr("End"), tr("After"), tr("Before")});
    gapList_->header()->setStretchLastSection(true);
    gapList_->setToolTip(tr("Intervals in which the GPU runs no kernel on any stream, largest "
                            "first; click one to zoom to it"));

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(new QLabel(tr("Idle gaps ≥")));
    bar->addWidget(threshold_);
    bar->addWidget(gapSummary_, 1);
    bar->addWidget(flows_);
    bar->addWidget(help_);
    auto* panel = new QWidget;
    auto* panelLayout = new QVBoxLayout(panel);
    panelLayout->setContentsMargins(6, 2, 6, 2);
    panelLayout->addLayout(bar);
    panelLayout->addWidget(rangeLabel_);
    panelLayout->addWidget(gapList_);

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(canvas_);
    split->addWidget(panel);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    panel->setMinimumHeight(110);
    split->setSizes({520, 150});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    connect(canvas_, &TimelineCanvas::operatorSelected, this, &TimelineView::operatorSelected);
    connect(canvas_, &TimelineCanvas::stageSelected, this, &TimelineView::stageSelected);
    connect(canvas_, &TimelineCanvas::gapsChanged, this, &TimelineView::fillGapList);
    connect(canvas_, &TimelineCanvas::rangeChanged, this, &TimelineView::showRange);
    connect(canvas_, &TimelineCanvas::flowsToggled, this, [this](bool shown) {
        const QSignalBlocker block(flows_);
        flows_->setChecked(shown);
    });
    connect(flows_, &QCheckBox::toggled, canvas_, &TimelineCanvas::setShowFlows);
    connect(threshold_, &QDoubleSpinBox::valueChanged, canvas_, &TimelineCanvas::setGapThresholdUs);
    // A click (also on the current row again, after panning away) or the arrow keys zoom.
    auto zoomToItem = [this](QTreeWidgetItem* item) {
        const int index = item ? gapList_->indexOfTopLevelItem(item) : -1;
        if (index >= 0 && static_cast<size_t>(index) < canvas_->gaps().size())
            canvas_->zoomToGap(canvas_->gaps()[static_cast<size_t>(index)]);
    };
    connect(gapList_, &QTreeWidget::currentItemChanged, this, zoomToItem);
    connect(gapList_, &QTreeWidget::itemClicked, this, zoomToItem);
    fillGapList();
    showRange();
}

void TimelineView::setTimeline(LoadedModelPtr model, std::shared_ptr<const eval::Timeline> timeline,
                               const QString& title, const QString& warpLegend) {
    canvas_->setTimeline(std::move(model), std::move(timeline), title, warpLegend);
    flows_->setEnabled(!canvas_->flows().empty());
}

void TimelineView::clear() {
    canvas_->clear();
    flows_->setEnabled(false);
}

QString TimelineView::gapNeighbour(int kernel) const {
    if (kernel < 0)
        return tr("(start or end)");
    const eval::TimelineKernel& k = canvas_->timeline()->kernels[static_cast<size_t>(kernel)];
    return tr("B%1 S%2 %3").arg(k.block).arg(k.stage).arg(QString::fromStdString(k.opName));
}

void TimelineView::fillGapList() {
    const QSignalBlocker block(gapList_); // repopulating must not zoom
    gapList_->clear();
    const auto& gaps = canvas_->gaps();
    if (!canvas_->timeline()) {
        gapSummary_->setText(QString());
        return;
    }
    double idle = 0;
    for (const eval::IdleGap& g : gaps)
        idle += g.durationUs();
    const QString count = gaps.size() == 1 ? tr("1 gap") : tr("%1 gaps").arg(gaps.size());
    gapSummary_->setText(
        tr("%1, %2 of the time · GPU busy %3")
            .arg(count,
                 timelinePercent(canvas_->busy().spanUs > 0 ? idle / canvas_->busy().spanUs : 0),
                 timelinePercent(canvas_->busy().overall.fraction)));
    QList<QTreeWidgetItem*> items;
    for (size_t i = 0; i < gaps.size() && i < static_cast<size_t>(kMaxListedGaps); ++i) {
        const eval::IdleGap& g = gaps[i];
        auto* item = new QTreeWidgetItem({formatMs(g.durationUs() / 1000.0),
                                          formatMs(g.startUs / 1000.0), formatMs(g.endUs / 1000.0),
                                          gapNeighbour(g.before), gapNeighbour(g.after)});
        for (int c = 0; c < 3; ++c)
            item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        item->setToolTip(3, canvas_->neighbourText(g.before));
        item->setToolTip(4, canvas_->neighbourText(g.after));
        items << item;
    }
    gapList_->addTopLevelItems(items);
    for (int c = 0; c < 3; ++c)
        gapList_->resizeColumnToContents(c);
}

void TimelineView::showRange() {
    const auto& r = canvas_->range();
    if (!r) {
        rangeLabel_->setText(canvas_->timeline()
                                 ? tr("Shift+drag or drag on the ruler to measure a range")
                                 : QString());
        return;
    }
    // A measured trace has active warps only (PM sampling): no SM figure.
    const QString sms = canvas_->measured()
                            ? QString()
                            : tr(" · mean SMs %1").arg(timelinePercent(r->meanActiveSmFraction));
    rangeLabel_->setText(tr("Range %1 – %2: <b>%3</b> · %4 · busy %5%6 · %7 %8 (Esc clears)")
                             .arg(formatMs(r->startUs / 1000.0), formatMs(r->endUs / 1000.0),
                                  formatMs(r->durationUs / 1000.0),
                                  TimelineCanvas::kernelCount(r->kernels),
                                  timelinePercent(r->busy.fraction), sms,
                                  canvas_->measured() ? tr("active warps") : tr("warps"),
                                  timelinePercent(r->meanWarpOccupancy)));
}

QWidget* TimelineView::keyTarget() {
    return canvas_;
}

} // namespace ios::views
