// SPDX-License-Identifier: Apache-2.0
// The kernel summary of a timeline (like Nsight Systems' "CUDA GPU Kernel Summary"): per kernel
// name, or per operator type, how many kernels ran, their total and mean time and their share
// of all kernel time, with the operators they ran (for the shared selection).
#pragma once

#include "eval/timeline.h"
#include "loaded_model.h"

#include <QAbstractTableModel>
#include <QString>
#include <vector>

namespace ios::views {

enum class KernelGrouping { Kernel, OperatorType };

struct KernelSummaryRow {
    QString name; // the kernel's name, or the operator type ("Conv", "Pool", …)
    int count = 0;
    double totalUs = 0;
    double meanUs = 0;
    // Of all kernels' summed time (kernels overlap on concurrent streams, so a share of the
    // latency would not add up to 100 %).
    double share = 0;
    std::vector<int> operators; // flat indices of the operators they ran, sorted, unique
};

// The rows, largest total first (ties by name). By operator type, a kernel linked to no
// operator of `model` (op < 0: an unlinked trace kernel) counts under "unlinked"; `model` may
// be null (then every kernel is unlinked and has no operators).
std::vector<KernelSummaryRow> summarizeKernels(const eval::Timeline& timeline,
                                               const LoadedModel* model, KernelGrouping grouping);

class KernelSummaryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Count, Total, Mean, Share, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1, // the raw number (name: the text)
        FilterRole,                  // the name
        OperatorsRole,               // QList<int>: the row's operators
    };

    explicit KernelSummaryModel(QObject* parent = nullptr);

    void setRows(std::vector<KernelSummaryRow> rows);
    void clear() { setRows({}); }
    const std::vector<KernelSummaryRow>& rows() const { return rows_; }
    // The table as CSV (a header line, then one line per row in the model's order).
    QString toCsv() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<KernelSummaryRow> rows_;
};

} // namespace ios::views
