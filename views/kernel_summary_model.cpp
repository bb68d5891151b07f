// SPDX-License-Identifier: Apache-2.0
#include "kernel_summary_model.h"

#include "palette.h"
#include "units.h"

#include <algorithm>
#include <map>

namespace ios::views {

namespace {

QString groupOf(const eval::TimelineKernel& k, const LoadedModel* model, KernelGrouping grouping,
                int* flat) {
    *flat = -1;
    if (model != nullptr && k.op >= 0 && k.block >= 0 &&
        static_cast<size_t>(k.block) < model->dags().size() &&
        static_cast<size_t>(k.op) < model->dags()[static_cast<size_t>(k.block)].ops.size())
        *flat = model->flatIndex({k.block, k.op});
    if (grouping == KernelGrouping::Kernel)
        return QString::fromStdString(k.kernel.empty() ? k.opName : k.kernel);
    return *flat >= 0 ? kindLabel(model->node({k.block, k.op}).kind) : QObject::tr("unlinked");
}

QString csvField(const QString& text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

} // namespace

std::vector<KernelSummaryRow> summarizeKernels(const eval::Timeline& timeline,
                                               const LoadedModel* model, KernelGrouping grouping) {
    std::map<QString, KernelSummaryRow> byName;
    double all = 0;
    for (const eval::TimelineKernel& k : timeline.kernels) {
        int flat = -1;
        const QString name = groupOf(k, model, grouping, &flat);
        KernelSummaryRow& row = byName[name];
        row.name = name;
        ++row.count;
        const double us = std::max(0.0, k.endUs - k.startUs);
        row.totalUs += us;
        all += us;
        if (flat >= 0)
            row.operators.push_back(flat);
    }
    std::vector<KernelSummaryRow> rows;
    for (auto& [name, row] : byName) {
        row.meanUs = row.totalUs / row.count;
        row.share = all > 0 ? row.totalUs / all : 0;
        std::sort(row.operators.begin(), row.operators.end());
        row.operators.erase(std::unique(row.operators.begin(), row.operators.end()),
                            row.operators.end());
        rows.push_back(std::move(row));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.totalUs > b.totalUs; });
    return rows;
}

KernelSummaryModel::KernelSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelSummaryModel::setRows(std::vector<KernelSummaryRow> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

QString KernelSummaryModel::toCsv() const {
    QString out = QStringLiteral("name,count,total_ms,mean_us,share_percent\n");
    for (const KernelSummaryRow& r : rows_)
        out += QStringLiteral("%1,%2,%3,%4,%5\n")
                   .arg(csvField(r.name))
                   .arg(r.count)
                   .arg(QString::number(r.totalUs / 1000.0, 'f', 6))
                   .arg(QString::number(r.meanUs, 'f', 3))
                   .arg(QString::number(r.share * 100.0, 'f', 3));
    return out;
}

int KernelSummaryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int KernelSummaryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelSummaryModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const KernelSummaryRow& r = rows_[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name:
            return r.name;
        case Count:
            return r.count;
        case Total:
            return formatMs(r.totalUs / 1000.0);
        case Mean:
            return formatMs(r.meanUs / 1000.0);
        case Share:
            return QStringLiteral("%1 %").arg(r.share * 100.0, 0, 'f', 1);
        default:
            return {};
        }
    case SortRole:
        switch (index.column()) {
        case Name:
            return r.name;
        case Count:
            return r.count;
        case Total:
            return r.totalUs;
        case Mean:
            return r.meanUs;
        case Share:
            return r.share;
        default:
            return {};
        }
    case FilterRole:
        return r.name;
    case OperatorsRole:
        return QVariant::fromValue(QList<int>(r.operators.begin(), r.operators.end()));
    case Qt::TextAlignmentRole:
        return index.column() == Name ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return QObject::tr("%1: %2 kernels, %3 operators")
            .arg(r.name)
            .arg(r.count)
            .arg(r.operators.size());
    default:
        return {};
    }
}

QVariant KernelSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Name");
    case Count:
        return tr("Count");
    case Total:
        return tr("Total");
    case Mean:
        return tr("Mean");
    case Share:
        return tr("Share");
    default:
        return {};
    }
}

} // namespace ios::views
