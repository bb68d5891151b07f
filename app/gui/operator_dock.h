// SPDX-License-Identifier: Apache-2.0
// The Operators dock: the open model's operators as a sortable table with a name filter; a row
// selects its operator, the selection's rows are selected here.
#pragma once

#include <QDockWidget>

class QModelIndex;
class QSortFilterProxyModel;
class QTableView;

namespace ios::views {
class OperatorTableModel;
}

namespace ios::gui {

class Session;

class OperatorDock : public QDockWidget {
    Q_OBJECT
public:
    OperatorDock(Session* session, QWidget* parent);

    QTableView* table() const { return table_; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitColumns();    // to their contents, the name capped
    void capNameColumn(); // the name at most 40 % of the table
    void selectRow(const QModelIndex& proxyIndex);
    void showSelection();

    Session* session_;
    views::OperatorTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
};

} // namespace ios::gui
