// SPDX-License-Identifier: Apache-2.0
#include "memory_view.h"

#include "memory_charts.h"
#include "memory_step_chart.h"
#include "pareto_chart.h"
#include "units.h"
#include "widget_picture.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace ios::views {

namespace {

QLabel* caption(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setContentsMargins(8, 0, 2, 0);
    return label;
}

QString partitionCount(size_t n) {
    return n == 1 ? MemoryView::tr("1 partition") : MemoryView::tr("%1 partitions").arg(n);
}

QString percentLower(int64_t from, int64_t to) {
    if (from <= 0 || to >= from)
        return {};
    return QStringLiteral(" (−%1%)").arg(
        100.0 * static_cast<double>(from - to) / static_cast<double>(from), 0, 'f', 0);
}

} // namespace

MemoryView::MemoryView(QWidget* parent) : QWidget(parent) {
    blockBox_ = new QComboBox(this);
    blockBox_->setObjectName(QStringLiteral("memoryBlock"));
    blockBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    blockBox_->setMinimumContentsLength(16);
    blockBox_->setToolTip(tr("The block shown: its operators' tensors live only within it"));
    orderBox_ = new QComboBox(this);
    orderBox_->setObjectName(QStringLiteral("memoryOrder"));
    orderBox_->addItem(tr("File order (TFLite)"), static_cast<int>(Order::File));
    orderBox_->addItem(tr("Serenity (least peak)"), static_cast<int>(Order::Serenity));
    orderBox_->addItem(tr("Current schedule"), static_cast<int>(Order::Schedule));
    orderBox_->setToolTip(tr("Which execution to walk: the model's own operator order, "
                             "Serenity's memory-optimal order, or the current result's stages "
                             "(a stage allocates all of its outputs when it starts)"));
    limitBox_ = new QComboBox(this);
    limitBox_->setObjectName(QStringLiteral("memoryDpLimit"));
    for (int power : {27, 20, 16, 14, 12})
        limitBox_->addItem(tr("2^%1 expansions").arg(power),
                           QVariant::fromValue<qulonglong>(qulonglong{1} << power));
    limitBox_->setToolTip(tr("Serenity's DP: expansions per run before it counts as a timeout. "
                             "2^27 is what the serenity scheduler uses; a low limit shows the "
                             "soft budget at work (Serenity Fig. 8(b))"));
    windowBox_ = new QComboBox(this);
    windowBox_->setObjectName(QStringLiteral("memoryWindow"));
    windowBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    windowBox_->setMinimumContentsLength(9);
    windowBox_->setToolTip(tr("Operators whose every order the peak distribution counts"));
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    progress_->setMaximumWidth(160);
    progress_->hide();
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName(QStringLiteral("memoryCancel"));
    cancel_->hide();
    recompute_ = new QPushButton(tr("Recompute"), this);
    recompute_->setObjectName(QStringLiteral("memoryRecompute"));
    recompute_->setToolTip(tr("Compute the memory report and the trade-off again"));
    clearBudget_ = new QPushButton(tr("No budget"), this);
    clearBudget_->setObjectName(QStringLiteral("memoryNoBudget"));
    clearBudget_->setToolTip(tr("Search again without a memory budget"));
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    bar->addWidget(caption(tr("Block"), this));
    bar->addWidget(blockBox_, 1);
    bar->addWidget(caption(tr("Order"), this));
    bar->addWidget(orderBox_, 1);
    bar->addStretch(0);
    bar->addWidget(progress_);
    bar->addWidget(cancel_);
    bar->addWidget(recompute_);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("memorySummary"));
    summary_->setWordWrap(true);
    summary_->setContentsMargins(10, 2, 10, 2);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    stepChart_ = new MemoryStepChart(this);
    tauChart_ = new TauTraceChart(this);
    distributionChart_ = new PeakDistributionChart(this);
    paretoChart_ = new ParetoChart(this);
    // Each small chart under the control that belongs to it.
    auto panel = [this](QWidget* chart, const QString& label, QWidget* control) {
        auto* box = new QWidget(this);
        auto* row = new QHBoxLayout;
        row->setContentsMargins(6, 2, 6, 0);
        row->addWidget(caption(label, box));
        const bool button = qobject_cast<QPushButton*>(control) != nullptr;
        row->addWidget(control, button ? 0 : 1);
        if (button)
            row->addStretch(1);
        auto* column = new QVBoxLayout(box);
        column->setContentsMargins(0, 0, 0, 0);
        column->setSpacing(0);
        column->addLayout(row);
        column->addWidget(chart, 1);
        return box;
    };
    panels_ = {panel(tauChart_, tr("DP limit"), limitBox_),
               panel(distributionChart_, tr("Window"), windowBox_),
               panel(paretoChart_, tr("Budget"), clearBudget_)};
    bottomSplit_ = new QSplitter(Qt::Horizontal, this);
    bottomSplit_->setChildrenCollapsible(false);
    bottomTabs_ = new QTabWidget(this);
    bottomTabs_->setObjectName(QStringLiteral("memoryPanels"));
    bottomTabs_->setDocumentMode(true);
    bottom_ = new QStackedWidget(this);
    bottom_->addWidget(bottomSplit_);
    bottom_->addWidget(bottomTabs_);
    arrangePanels(false);
    split_ = new QSplitter(Qt::Vertical, this);
    split_->addWidget(stepChart_);
    split_->addWidget(bottom_);
    split_->setStretchFactor(0, 5);
    split_->setStretchFactor(1, 4);
    split_->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addWidget(summary_);
    layout->addWidget(split_, 1);

    connect(blockBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0)
            setBlock(i);
    });
    connect(orderBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0)
            setOrder(static_cast<Order>(orderBox_->itemData(i).toInt()));
    });
    connect(windowBox_, &QComboBox::currentIndexChanged, this, [this] { showWindow(); });
    connect(limitBox_, &QComboBox::currentIndexChanged, this, &MemoryView::dpLimitChanged);
    connect(recompute_, &QPushButton::clicked, this, &MemoryView::computeRequested);
    connect(cancel_, &QPushButton::clicked, this, &MemoryView::cancelRequested);
    connect(stepChart_, &MemoryStepChart::stepSelected, this, &MemoryView::onStepSelected);
    connect(paretoChart_, &ParetoChart::budgetChosen, this, &MemoryView::budgetChosen);
    connect(clearBudget_, &QPushButton::clicked, this, [this] { Q_EMIT budgetChosen(0); });
    setPlaceholder(tr("The memory report is computed when the Memory tab is shown."));
    updateOrderBox();
}

void MemoryView::arrangePanels(bool tabbed) {
    if (arranged_ && tabbed == tabbed_)
        return;
    arranged_ = true;
    tabbed_ = tabbed;
    const int shown = bottomTabs_->currentIndex();
    if (tabbed) {
        const QString titles[] = {tr("Soft budget (τ)"), tr("Peak distribution"),
                                  tr("Latency vs memory")};
        for (size_t i = 0; i < panels_.size(); ++i)
            bottomTabs_->addTab(panels_[i], titles[i]);
        bottomTabs_->setCurrentIndex(std::max(shown, 0));
        bottom_->setCurrentWidget(bottomTabs_);
    } else {
        for (QWidget* panel : panels_) {
            bottomSplit_->addWidget(panel); // takes it out of the tabs
            panel->show();                  // the tabs hid all but their current page
        }
        const int stretch[] = {3, 3, 4};
        for (int i = 0; i < 3; ++i)
            bottomSplit_->setStretchFactor(i, stretch[i]);
        bottom_->setCurrentWidget(bottomSplit_);
    }
}

void MemoryView::showPanel(int index) {
    arrangePanels(width() < kTabbedBelow);
    if (tabbed_)
        bottomTabs_->setCurrentIndex(index);
}

void MemoryView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    arrangePanels(width() < kTabbedBelow);
}

uint64_t MemoryView::dpLimit() const {
    return limitBox_->currentData().toULongLong();
}

void MemoryView::setReport(LoadedModelPtr model, std::shared_ptr<const MemoryReport> report) {
    const bool sameShape =
        report_ && report && model == model_ && report_->blocks.size() == report->blocks.size();
    model_ = std::move(model);
    report_ = std::move(report);
    if (!sameShape)
        block_ = 0;
    if (report_ && !sameShape) {
        // Open on the block that sets the model's peak in file order.
        for (size_t b = 0; b < report_->blocks.size(); ++b)
            if (report_->blocks[b].file.walk.peak >
                report_->blocks[static_cast<size_t>(block_)].file.walk.peak)
                block_ = static_cast<int>(b);
    }
    fillBlockBox();
    showBlock();
}

void MemoryView::setSchedule(LoadedModelPtr model, schedule::Schedule schedule,
                             const QString& label, int64_t peakBytes, double latencyMs,
                             int64_t budget) {
    scheduleModel_ = std::move(model);
    schedule_ = std::move(schedule);
    scheduleLabel_ = label;
    schedulePeak_ = peakBytes;
    paretoChart_->setCurrent(peakBytes, latencyMs, budget);
    budget_ = budget;
    showBlock();
}

void MemoryView::setPareto(std::shared_ptr<const schedulers::ParetoFront> front,
                           const QString& strategy) {
    paretoChart_->setFront(std::move(front), strategy);
}

void MemoryView::setPlaceholder(const QString& text) {
    for (ChartWidget* chart :
         std::initializer_list<ChartWidget*>{stepChart_, tauChart_, distributionChart_})
        chart->setPlaceholder(text);
}

void MemoryView::setParetoPlaceholder(const QString& text) {
    paretoChart_->setPlaceholder(text);
}

void MemoryView::setRunning(bool running) {
    progress_->setVisible(running);
    cancel_->setVisible(running);
    progress_->setValue(0);
}

void MemoryView::setProgress(double fraction, const QString& text) {
    progress_->setValue(static_cast<int>(fraction * 1000));
    progress_->setTextVisible(!text.isEmpty());
    progress_->setFormat(text);
}

void MemoryView::clear() {
    model_.reset();
    report_.reset();
    scheduleModel_.reset();
    schedule_ = {};
    scheduleSeries_.reset();
    paretoChart_->setFront(nullptr, {});
    paretoChart_->clearCurrent();
    setPlaceholder(tr("The memory report is computed when the Memory tab is shown."));
    setParetoPlaceholder(tr("The trade-off is computed when the Memory tab is shown."));
    fillBlockBox();
    showBlock();
}

void MemoryView::fillBlockBox() {
    const QSignalBlocker block(blockBox_);
    blockBox_->clear();
    if (!report_)
        return;
    for (const BlockMemory& b : report_->blocks)
        blockBox_->addItem(tr("%1 · %2 ops · %3 → %4")
                               .arg(QString::fromStdString(b.problem.name))
                               .arg(b.problem.ops.size())
                               .arg(formatBytes(static_cast<double>(b.file.walk.peak)),
                                    formatBytes(static_cast<double>(b.serenity.walk.peak))));
    blockBox_->setCurrentIndex(block_);
}

void MemoryView::setBlock(int block) {
    if (!report_ || block < 0 || block >= static_cast<int>(report_->blocks.size()))
        return;
    block_ = block;
    {
        const QSignalBlocker blocker(blockBox_);
        blockBox_->setCurrentIndex(block);
    }
    stepChart_->selectStep(-1);
    showBlock();
}

void MemoryView::setOrder(Order order) {
    order_ = order;
    stepChart_->selectStep(-1);
    showBlock();
}

MemoryView::Order MemoryView::order() const {
    return order_ == Order::Schedule && !scheduleSeries_ ? Order::Serenity : order_;
}

void MemoryView::updateOrderBox() {
    const int row = orderBox_->findData(static_cast<int>(Order::Schedule));
    orderBox_->setItemText(row, scheduleSeries_ ? tr("Current schedule: %1").arg(scheduleLabel_)
                                                : tr("Current schedule (none)"));
    // Disabled while there is no result of the shown model.
    if (auto* items = qobject_cast<QStandardItemModel*>(orderBox_->model()))
        items->item(row)->setEnabled(scheduleSeries_.has_value());
    const QSignalBlocker blocker(orderBox_);
    orderBox_->setCurrentIndex(orderBox_->findData(static_cast<int>(order())));
}

const MemorySeries* MemoryView::shownSeries() const {
    if (!report_ || block_ >= static_cast<int>(report_->blocks.size()))
        return nullptr;
    const BlockMemory& b = report_->blocks[static_cast<size_t>(block_)];
    switch (order()) {
    case Order::File:
        return &b.file;
    case Order::Serenity:
        return &b.serenity;
    case Order::Schedule:
        return scheduleSeries_ ? &*scheduleSeries_ : nullptr;
    }
    return nullptr;
}

QString MemoryView::stepLabel(const std::vector<int>& ops) const {
    const ir::MemoryProblem& problem = report_->blocks[static_cast<size_t>(block_)].problem;
    QStringList names;
    for (int op : ops)
        names << QString::fromStdString(problem.ops[static_cast<size_t>(op)].name);
    if (names.size() > 4)
        return tr("%1 and %2 more")
            .arg(names.mid(0, 3).join(QStringLiteral(", ")))
            .arg(names.size() - 3);
    return names.join(QStringLiteral(", "));
}

void MemoryView::showBlock() {
    scheduleSeries_.reset();
    if (report_ && scheduleModel_ == model_ && schedule_.blocks.size() == report_->blocks.size()) {
        // One block's stages: a walk of a few hundred steps at most, cheap on the UI thread.
        const BlockMemory& b = report_->blocks[static_cast<size_t>(block_)];
        scheduleSeries_ = scheduleSeries(b.problem, schedule_.blocks[static_cast<size_t>(block_)]);
    }
    updateOrderBox(); // the schedule's entry is usable only with a schedule of this model
    const MemorySeries* series = shownSeries();
    if (!report_ || series == nullptr) {
        stepChart_->clear(); // the placeholder stays (clear, computing, an error)
        fillWindowBox();
        updateSummary();
        return;
    }
    const BlockMemory& b = report_->blocks[static_cast<size_t>(block_)];
    StepChartData chart;
    chart.report = report_;
    chart.problem = &b.problem;
    chart.series = *series;
    const Order shown = order();
    const QString orderName = shown == Order::File       ? tr("file order")
                              : shown == Order::Serenity ? tr("Serenity order")
                                                         : scheduleLabel_;
    chart.title = tr("Block %1 · %2").arg(QString::fromStdString(b.problem.name), orderName);
    chart.stepNoun = shown == Order::Schedule ? tr("stage") : tr("step");
    for (const std::vector<int>& step : series->steps)
        chart.stepLabels.push_back(stepLabel(step));
    chart.budget = shown == Order::Schedule ? budget_ : 0;
    stepChart_->setData(std::move(chart));
    uint64_t expansions = 0;
    for (const DpPartition& part : b.partitions)
        expansions += part.expansions;
    tauChart_->setData(tr("Soft budget: %1, %2 expansions%3")
                           .arg(partitionCount(b.partitions.size()))
                           .arg(formatCount(static_cast<double>(expansions)))
                           .arg(b.optimal() ? QString() : tr(" (not optimal)")),
                       b.partitions);
    fillWindowBox();
    updateSummary();
}

void MemoryView::fillWindowBox() {
    const QSignalBlocker blocker(windowBox_);
    windowBox_->clear();
    if (report_) {
        const BlockMemory& b = report_->blocks[static_cast<size_t>(block_)];
        for (const PeakWindow& w : b.windows) {
            windowBox_->addItem(tr("ops %1–%2").arg(w.ops.front() + 1).arg(w.ops.back() + 1));
            windowBox_->setItemData(
                windowBox_->count() - 1,
                tr("%1 orders; peaks %2 to %3")
                    .arg(formatCount(w.orders), formatBytes(static_cast<double>(w.optimum())),
                         formatBytes(static_cast<double>(w.peaks.back().first))),
                Qt::ToolTipRole);
        }
        windowBox_->setCurrentIndex(b.defaultWindow);
    }
    windowBox_->setEnabled(windowBox_->count() > 0);
    showWindow();
}

void MemoryView::showWindow() {
    const int i = windowBox_->currentIndex();
    if (!report_ || i < 0) {
        distributionChart_->setPlaceholder(
            report_ ? tr("No partition of this block has more than two orders.")
                    : distributionChart_->placeholder());
        return;
    }
    const BlockMemory& b = report_->blocks[static_cast<size_t>(block_)];
    const PeakWindow& w = b.windows[static_cast<size_t>(i)];
    const auto name = [&](int op) {
        return QString::fromStdString(b.problem.ops[static_cast<size_t>(op)].name);
    };
    const double optimumShare = w.orders > 0 ? w.peaks.front().second / w.orders : 0;
    const QString which =
        tr("ops %1–%2 (%3 … %4)%5 · %6% of orders reach the optimum")
            .arg(w.ops.front() + 1)
            .arg(w.ops.back() + 1)
            .arg(name(w.ops.front()), name(w.ops.back()))
            .arg(w.ops.front() > 0 ? tr(", after ops 1–%1 in file order").arg(w.ops.front())
                                   : QString())
            .arg(optimumShare * 100, 0, 'g', 3);
    distributionChart_->setData(
        tr("Peak over all %1 orders of %2 ops").arg(formatCount(w.orders)).arg(w.ops.size()), w,
        which);
}

void MemoryView::updateSummary() {
    if (!report_) {
        summary_->setText(QString());
        return;
    }
    const BlockMemory& b = report_->blocks[static_cast<size_t>(block_)];
    const int64_t file = b.file.walk.peak;
    const int64_t serenity = b.serenity.walk.peak;
    QString text =
        tr("<b>Block %1</b> (%2 ops, %3): file order %4 · <b>Serenity %5</b>%6%7")
            .arg(QString::fromStdString(b.problem.name).toHtmlEscaped())
            .arg(b.problem.ops.size())
            .arg(partitionCount(b.partitions.size()))
            .arg(formatBytes(static_cast<double>(file)), formatBytes(static_cast<double>(serenity)),
                 percentLower(file, serenity),
                 b.optimal() ? QString() : tr(" (not optimal at this DP limit)"));
    if (scheduleSeries_)
        text += tr(" · %1 %2")
                    .arg(scheduleLabel_.toHtmlEscaped(),
                         formatBytes(static_cast<double>(scheduleSeries_->walk.peak)));
    text += tr("<br>Model (largest block): file order %1 · Serenity %2%3")
                .arg(formatBytes(static_cast<double>(report_->filePeak())),
                     formatBytes(static_cast<double>(report_->serenityPeak())),
                     percentLower(report_->filePeak(), report_->serenityPeak()));
    if (scheduleSeries_)
        text += tr(" · %1 %2")
                    .arg(scheduleLabel_.toHtmlEscaped(),
                         formatBytes(static_cast<double>(schedulePeak_)));
    text += tr(" · batch %1, %2 B per element · report %3")
                .arg(report_->memory.batch)
                .arg(report_->memory.bytesPerElement)
                .arg(formatSeconds(report_->seconds));
    summary_->setText(text);
}

int MemoryView::selectedStep() const {
    return stepChart_->selectedStep();
}

void MemoryView::selectStep(int step) {
    stepChart_->selectStep(step);
}

std::vector<int> MemoryView::liveOperators() const {
    const MemorySeries* series = shownSeries();
    if (series == nullptr || !model_)
        return {};
    const int step = selectedStep() >= 0 ? selectedStep() : series->walk.peakStep;
    if (step < 0)
        return {};
    const BlockMemory& b = report_->blocks[static_cast<size_t>(block_)];
    return producerOperators(*model_, block_, b.problem,
                             series->walk.liveAt[static_cast<size_t>(step)]);
}

bool MemoryView::selectOperator(int flatIndex) {
    if (!model_ || !report_ || flatIndex < 0 || flatIndex >= model_->operatorCount())
        return false;
    const OperatorRef ref = model_->operators()[static_cast<size_t>(flatIndex)];
    if (ref.block != block_)
        setBlock(ref.block);
    const MemorySeries* series = shownSeries();
    if (series == nullptr)
        return false;
    const int step =
        stepOfBlockOp(report_->blocks[static_cast<size_t>(block_)].problem, *series, ref.op);
    const QSignalBlocker blocker(stepChart_);
    stepChart_->selectStep(step);
    return step >= 0;
}

void MemoryView::onStepSelected(int step) {
    const MemorySeries* series = shownSeries();
    if (series == nullptr || !model_ || step < 0)
        return;
    const BlockMemory& b = report_->blocks[static_cast<size_t>(block_)];
    QList<int> live, ops;
    for (int flat : liveOperators())
        live << flat;
    for (int flat :
         stepOperators(*model_, block_, b.problem, series->steps[static_cast<size_t>(step)]))
        ops << flat;
    Q_EMIT stepSelected(live, ops);
}

void MemoryView::render(QPainter& p, const QRect& area) const {
    p.fillRect(area, QColor(0xfc, 0xfc, 0xfc));
    const WidgetPicture picture(*this, area);
    picture.paintLabel(p, *summary_);
    for (const ChartWidget* chart : std::initializer_list<const ChartWidget*>{
             stepChart_, tauChart_, distributionChart_, paretoChart_})
        if (chart->isVisibleTo(this)) // else an unshown tab of the narrow layout
            picture.paintChart(p, *chart);
}

ShortcutTable MemoryView::shortcuts() const {
    return {{tr("← / →"), tr("Previous / next step of the walk")},
            {tr("Home / End"), tr("First / last step")},
            {tr("P"), tr("The peak step")}};
}

QWidget* MemoryView::keyTarget() {
    return stepChart_;
}

} // namespace ios::views
