// SPDX-License-Identifier: Apache-2.0
// The Stages dock: the shown schedule as a tree (block ▸ stage ▸ group ▸ operator) with each
// stage's latency, share and utilisation; a row selects its operators, the selection's rows
// are selected here.
#pragma once

#include <QDockWidget>
#include <vector>

class QModelIndex;
class QTreeView;

namespace ios::views {
class StageTreeModel;
}

namespace ios::gui {

class Session;

class StageDock : public QDockWidget {
    Q_OBJECT
public:
    StageDock(Session* session, QWidget* parent);

    QTreeView* tree() const { return tree_; }
    // Makes stage `stage` of block `block` the current row (and so selects its operators).
    void selectStage(int block, int stage);

private:
    void showResult();
    void selectRow(const QModelIndex& index);
    void showSelection();

    Session* session_;
    views::StageTreeModel* model_;
    QTreeView* tree_;
};

} // namespace ios::gui
