// SPDX-License-Identifier: Apache-2.0
#include "operator_table_model.h"

#include "palette.h"
#include "units.h"

namespace ios::views {

OperatorTableModel::OperatorTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void OperatorTableModel::setModel(LoadedModelPtr model) {
    beginResetModel();
    model_ = std::move(model);
    endResetModel();
}

int OperatorTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !model_ ? 0 : model_->operatorCount();
}

int OperatorTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OperatorTableModel::data(const QModelIndex& index, int role) const {
    if (!model_ || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const OperatorRef ref = model_->operators()[static_cast<size_t>(index.row())];
    const ir::Node& node = model_->node(ref);
    const ir::OperatorMetrics& m = model_->metrics(index.row());
    const int part = model_->dags()[ref.block].partOf[ref.op];
    switch (role) {
    case BlockRole:
        return ref.block;
    case OperatorRole:
        return ref.op;
    case FilterRole:
        return QString::fromStdString(node.name + ' ' + node.hintName);
    case Qt::DecorationRole:
        return index.column() == Kind ? QVariant(kindColor(node.kind)) : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() >= Flops ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ToolTipRole:
        return QStringLiteral(
                   "<b>%1</b> (%2)<br>output %3<br>%4, weights %5<br>reads %6, writes %7")
            .arg(QString::fromStdString(node.name), kindLabel(node.kind),
                 formatShape(node.outputShape), formatFlops(m.flops), formatBytes(m.weightBytes),
                 formatBytes(m.bytesRead), formatBytes(m.bytesWritten));
    case SortRole:
        switch (index.column()) {
        case Flops:
            return static_cast<qlonglong>(m.flops);
        case Block:
            return ref.block;
        case Part:
            return part;
        case Shape:
            return static_cast<qlonglong>(node.outputShape.elements());
        case Name:
            return index.row(); // file order
        default:
            break;
        }
        [[fallthrough]];
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name:
            return QString::fromStdString(node.name);
        case Kind:
            return kindLabel(node.kind);
        case Shape:
            return formatShape(node.outputShape);
        case Flops:
            return formatFlops(m.flops);
        case Block:
            return ref.block;
        case Part:
            return part;
        default:
            return {};
        }
    default:
        return {};
    }
}

QVariant OperatorTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Operator");
    case Kind:
        return tr("Kind");
    case Shape:
        return tr("Output (C×H×W)");
    case Flops:
        return tr("FLOPs (batch 1)");
    case Block:
        return tr("Block");
    case Part:
        return tr("Part");
    default:
        return {};
    }
}

} // namespace ios::views
