// SPDX-License-Identifier: Apache-2.0
#include "operator_dock.h"

#include "operator_table_model.h"
#include "session.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace ios::gui {

OperatorDock::OperatorDock(Session* session, QWidget* parent)
    : QDockWidget(tr("Operators"), parent), session_(session),
      model_(new views::OperatorTableModel(this)), proxy_(new QSortFilterProxyModel(this)) {
    setObjectName(QStringLiteral("operatorsDock"));
    auto* box = new QWidget(this);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* filter = new QLineEdit(box);
    filter->setPlaceholderText(tr("Filter operators by name…"));
    filter->setClearButtonEnabled(true);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(views::OperatorTableModel::SortRole);
    proxy_->setFilterRole(views::OperatorTableModel::FilterRole);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(filter, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
    table_ = new QTableView(box);
    table_->setObjectName(QStringLiteral("operatorTable"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(views::OperatorTableModel::Name, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setToolTip(tr("Select a row to select the operator in every view"));
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { selectRow(current); });
    // A click on the current row after the selection moved elsewhere changes the selection
    // only: it selects that operator again.
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const QModelIndex current = table_->currentIndex();
        if (table_->selectionModel()->isSelected(current))
            selectRow(current);
    });
    layout->addWidget(filter);
    layout->addWidget(table_);
    setWidget(box);
    // Long paths ("features/denseblock3/denselayer12/conv2/Conv") elide from the left, so the
    // distinguishing tail and the other columns stay in view (the tooltip has the full name).
    table_->setTextElideMode(Qt::ElideLeft);
    table_->setWordWrap(false); // a wrapped path broke at "/" and showed only "/features/…"
    connect(session_, &Session::modelChanged, this, [this] {
        model_->setModel(session_->model());
        fitColumns();
    });
    connect(session_, &Session::modelRebuilt, this,
            [this] { model_->setModel(session_->model()); });
    connect(session_->selection(), &Selection::changed, this, &OperatorDock::showSelection);
}

void OperatorDock::fitColumns() {
    table_->resizeColumnsToContents();
    capNameColumn();
}

void OperatorDock::capNameColumn() {
    // The name takes at most 40 % of the table, never the other columns' room.
    auto* header = table_->horizontalHeader();
    const int cap = std::max(120, table_->viewport()->width() * 2 / 5);
    if (header->sectionSize(views::OperatorTableModel::Name) > cap)
        header->resizeSection(views::OperatorTableModel::Name, cap);
}

void OperatorDock::resizeEvent(QResizeEvent* event) {
    QDockWidget::resizeEvent(event);
    capNameColumn();
}

void OperatorDock::selectRow(const QModelIndex& proxyIndex) {
    if (!proxyIndex.isValid() || !session_->model())
        return;
    // Rows of the table are the model's flat operator list (OperatorTableModel).
    session_->selectOperator(proxy_->mapToSource(proxyIndex).row(),
                             Selection::Source::OperatorTable);
}

void OperatorDock::showSelection() {
    const Selection& selection = *session_->selection();
    if (selection.source() == Selection::Source::OperatorTable)
        return;
    const std::vector<int>& ops = selection.operators();
    const QSignalBlocker block(table_->selectionModel());
    table_->clearSelection();
    for (int flat : ops) {
        const QModelIndex row = proxy_->mapFromSource(model_->index(flat, 0));
        if (!row.isValid())
            continue; // filtered out
        table_->selectionModel()->select(row,
                                         QItemSelectionModel::Select | QItemSelectionModel::Rows);
        if (ops.size() == 1)
            table_->selectionModel()->setCurrentIndex(row, QItemSelectionModel::NoUpdate);
        if (flat == ops.front()) // several: the first in view, the others follow it
            table_->scrollTo(row);
    }
}

} // namespace ios::gui
