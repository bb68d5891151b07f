// SPDX-License-Identifier: Apache-2.0
#include "stage_dock.h"

#include "session.h"
#include "stage_tree_model.h"
#include "units.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QTreeView>
#include <algorithm>
#include <utility>

namespace ios::gui {

StageDock::StageDock(Session* session, QWidget* parent)
    : QDockWidget(tr("Stages"), parent), session_(session), model_(new views::StageTreeModel(this)),
      tree_(new QTreeView(this)) {
    setObjectName(QStringLiteral("stagesDock"));
    tree_->setObjectName(QStringLiteral("stageTree"));
    tree_->setModel(model_);
    tree_->setAlternatingRowColors(true);
    tree_->setUniformRowHeights(true);
    tree_->header()->setStretchLastSection(false);
    setWidget(tree_);
    connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) { selectRow(current); });
    // A click on the current row after the selection moved elsewhere (a state, a range) changes
    // the tree's selection only: it selects that row again.
    connect(tree_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const QModelIndex current = tree_->currentIndex();
        if (tree_->selectionModel()->isSelected(current))
            selectRow(current);
    });
    connect(session_, &Session::resultChanged, this, &StageDock::showResult);
    connect(session_->selection(), &Selection::changed, this, &StageDock::showSelection);
}

void StageDock::showResult() {
    const RunResult* run = session_->shownRun();
    if (run == nullptr) {
        model_->clear();
        return;
    }
    std::vector<std::vector<views::StageMetrics>> metrics;
    for (const auto& block : run->stageLatencyMs) {
        metrics.emplace_back();
        for (double ms : block)
            metrics.back().push_back({ms, -1});
    }
    // A program's own timeline has segments, not the stages of its issue-order schedule.
    if (run->timeline && !run->ownProgram)
        for (const eval::TimelineStage& st : run->timeline->stages)
            if (st.block < static_cast<int>(metrics.size()) &&
                st.stage < static_cast<int>(metrics[st.block].size()))
                metrics[st.block][st.stage].utilization = st.meanActiveSmFraction;
    // The stages the timeline's stage lane draws: a program's segments when it has its own.
    model_->setSchedule(session_->model(), run->shownStages(), std::move(metrics),
                        run->ownProgram ? views::StageTreeModel::Unit::Segment
                                        : views::StageTreeModel::Unit::Stage);
    tree_->expandToDepth(0);
    for (int c = 0; c < views::StageTreeModel::ColumnCount; ++c)
        tree_->resizeColumnToContents(c); // a horizontal scroll bar when the dock is narrow
    // The figures are never cut ("7.6 µ"): the contents are measured over the rows on screen
    // only, so the numeric columns take at least their widest possible text.
    const QFontMetrics fm = tree_->fontMetrics();
    const int pad = 3 * fm.averageCharWidth();
    const std::pair<int, QString> widest[] = {
        {views::StageTreeModel::Latency, views::formatMs(888.888)},
        {views::StageTreeModel::Latency, views::formatMs(0.8888)},
        {views::StageTreeModel::Share, QStringLiteral("100.0 %")},
        {views::StageTreeModel::Utilization, QStringLiteral("100 %")}};
    for (const auto& [column, text] : widest)
        tree_->setColumnWidth(
            column, std::max(tree_->columnWidth(column), fm.horizontalAdvance(text) + pad));
}

void StageDock::selectStage(int block, int stage) {
    const QModelIndex row = model_->stageIndex(block, stage);
    if (row.isValid()) {
        tree_->setCurrentIndex(row);
        tree_->scrollTo(row);
    }
}

void StageDock::selectRow(const QModelIndex& index) {
    if (!index.isValid())
        return;
    const auto ops = index.data(views::StageTreeModel::OperatorsRole).value<QList<int>>();
    std::vector<int> flat(ops.begin(), ops.end());
    const auto type = static_cast<views::StageTreeModel::NodeType>(
        index.data(views::StageTreeModel::NodeTypeRole).toInt());
    // An operator or group row: those operators, in their stage; a stage or block row: all.
    std::vector<int> context = type == views::StageTreeModel::NodeType::Operator ||
                                       type == views::StageTreeModel::NodeType::Group
                                   ? session_->stageContextOf(flat.empty() ? -1 : flat.front())
                                   : flat;
    session_->selection()->select(std::move(flat), std::move(context),
                                  Selection::Source::StageTree);
}

void StageDock::showSelection() {
    const Selection& selection = *session_->selection();
    if (selection.source() == Selection::Source::StageTree)
        return;
    const std::vector<int>& ops = selection.operators();
    // One operator: its row becomes current; several (a state, a range): their rows are
    // selected, the current row left where it is.
    const QSignalBlocker block(tree_->selectionModel());
    const QModelIndex index = ops.size() == 1 ? model_->operatorIndex(ops.front()) : QModelIndex();
    if (index.isValid()) {
        tree_->setCurrentIndex(index);
        tree_->scrollTo(index);
        tree_->viewport()->update(); // the blocked model did not tell the view to repaint
        return;
    }
    tree_->clearSelection();
    for (int flat : ops) {
        const QModelIndex row = model_->operatorIndex(flat);
        if (!row.isValid())
            continue;
        tree_->selectionModel()->select(row,
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
        if (flat == ops.front())
            tree_->scrollTo(row);
    }
    tree_->viewport()->update();
}

} // namespace ios::gui
