// SPDX-License-Identifier: Apache-2.0
// The Kernels tab: the kernel summary of the shown result's timeline (the cost model's, as the
// Timeline tab draws it), per kernel name or per operator type, sortable and filterable, with
// CSV export; a row selects its operators in every view, and the rows of the selected
// operators are selected here. Registers itself in kernels_tab.cpp (IOS_REGISTER_VIEW).
#pragma once

#include "job.h"
#include "kernel_summary_model.h"
#include "result_view.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace ios::gui {

class MainWindow;

class KernelsTab : public QWidget, public views::ResultView {
    Q_OBJECT
public:
    explicit KernelsTab(QWidget* parent = nullptr);
    // The registry's factory: a tab following the window's Session (its result, the selection).
    static views::ResultView* create(MainWindow& window, QWidget* parent);

    // Shows `result`'s first run's timeline (nothing for null or one without a timeline).
    void setResult(const SearchResultPtr& result);
    void setGrouping(views::KernelGrouping grouping);
    views::KernelGrouping grouping() const;
    // Rows whose operators include any of `operators` become selected (no signal).
    void selectOperators(const std::vector<int>& operators);
    // Writes the table as CSV, atomically. Throws ios::UserError.
    void exportCsv(const QString& path) const;

    views::KernelSummaryModel* summary() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    QLineEdit* filter() const { return filter_; }
    QString header() const;

    QWidget* widget() override { return this; }
    views::ShortcutTable shortcuts() const override;
    QString description() const override;

Q_SIGNALS:
    // A row was chosen: its operators (flat indices).
    void operatorsSelected(std::vector<int> operators);

private:
    void refresh();
    void chooseCsvFile();

    SearchResultPtr result_;
    views::KernelSummaryModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QLineEdit* filter_;
    QComboBox* grouping_;
    QLabel* header_;
};

} // namespace ios::gui
