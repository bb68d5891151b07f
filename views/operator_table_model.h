// SPDX-License-Identifier: Apache-2.0
// The model's operators as a flat table (one row per schedule operator), for the operator dock.
#pragma once

#include "loaded_model.h"

#include <QAbstractTableModel>

namespace ios::views {

class OperatorTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Kind, Shape, Flops, Block, Part, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1, // raw number for numeric columns
        BlockRole,                   // int
        OperatorRole,                // int: index into the block's DAG ops
        FilterRole,                  // name + hint name, for search
    };

    explicit OperatorTableModel(QObject* parent = nullptr);

    void setModel(LoadedModelPtr model);
    const LoadedModelPtr& model() const { return model_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    LoadedModelPtr model_;
};

} // namespace ios::views
