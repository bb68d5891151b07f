// SPDX-License-Identifier: Apache-2.0
#include "stage_tree_model.h"

#include "palette.h"
#include "units.h"

namespace ios::views {

StageTreeModel::StageTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

StageTreeModel::Item StageTreeModel::item(NodeType type, int parent, int row, int block, int stage,
                                          int group, int flat, schedule::StageKind kind) {
    Item it;
    it.type = type;
    it.parent = parent;
    it.row = row;
    it.block = block;
    it.stage = stage;
    it.group = group;
    it.flat = flat;
    it.kind = kind;
    return it;
}

int StageTreeModel::add(Item it) {
    items_.push_back(std::move(it));
    return static_cast<int>(items_.size()) - 1;
}

void StageTreeModel::clear() {
    beginResetModel();
    model_.reset();
    items_.clear();
    roots_.clear();
    stageItems_.clear();
    operatorItems_.clear();
    endResetModel();
}

void StageTreeModel::setSchedule(LoadedModelPtr model, const schedule::Schedule& schedule,
                                 std::vector<std::vector<StageMetrics>> metrics, Unit unit) {
    beginResetModel();
    model_ = std::move(model);
    unit_ = unit;
    items_.clear();
    roots_.clear();
    stageItems_.clear();
    operatorItems_.assign(static_cast<size_t>(model_ ? model_->operatorCount() : 0), -1);
    const size_t blocks = model_ ? std::min(schedule.blocks.size(), model_->dags().size()) : 0;
    for (size_t b = 0; b < blocks; ++b) {
        const int blockItem = add(
            item(NodeType::Block, -1, static_cast<int>(b), static_cast<int>(b), -1, -1, -1, {}));
        roots_.push_back(blockItem);
        stageItems_.emplace_back();
        double blockMs = 0;
        const auto& stages = schedule.blocks[b].stages;
        for (size_t st = 0; st < stages.size(); ++st)
            if (b < metrics.size() && st < metrics[b].size())
                blockMs += metrics[b][st].latencyMs;
        for (size_t st = 0; st < stages.size(); ++st) {
            Item s = item(NodeType::Stage, blockItem, static_cast<int>(st), static_cast<int>(b),
                          static_cast<int>(st), -1, -1, stages[st].kind);
            if (b < metrics.size() && st < metrics[b].size()) {
                s.latencyMs = metrics[b][st].latencyMs;
                s.share = blockMs > 0 ? s.latencyMs / blockMs : -1;
                s.utilization = metrics[b][st].utilization;
            }
            const int stageItem = add(s);
            items_[static_cast<size_t>(blockItem)].children.push_back(stageItem);
            stageItems_.back().push_back(stageItem);
            const auto& groups = stages[st].groups;
            for (size_t g = 0; g < groups.size(); ++g) {
                const int groupItem =
                    add(item(NodeType::Group, stageItem, static_cast<int>(g), static_cast<int>(b),
                             static_cast<int>(st), static_cast<int>(g), -1, stages[st].kind));
                items_[static_cast<size_t>(stageItem)].children.push_back(groupItem);
                for (size_t p = 0; p < groups[g].size(); ++p) {
                    const int flat = model_->flatIndex({static_cast<int>(b), groups[g][p]});
                    const int opItem = add(item(NodeType::Operator, groupItem, static_cast<int>(p),
                                                static_cast<int>(b), static_cast<int>(st),
                                                static_cast<int>(g), flat, stages[st].kind));
                    operatorItems_[static_cast<size_t>(flat)] = opItem;
                    items_[static_cast<size_t>(groupItem)].children.push_back(opItem);
                    for (int up : {groupItem, stageItem, blockItem})
                        items_[static_cast<size_t>(up)].operators.push_back(flat);
                    items_[static_cast<size_t>(opItem)].operators.push_back(flat);
                }
            }
        }
        items_[static_cast<size_t>(blockItem)].latencyMs = blockMs;
    }
    endResetModel();
}

QModelIndex StageTreeModel::stageIndex(int block, int stage) const {
    if (block < 0 || block >= static_cast<int>(stageItems_.size()) || stage < 0 ||
        stage >= static_cast<int>(stageItems_[static_cast<size_t>(block)].size()))
        return {};
    const int item = stageItems_[static_cast<size_t>(block)][static_cast<size_t>(stage)];
    return createIndex(items_[static_cast<size_t>(item)].row, 0, static_cast<quintptr>(item));
}

QModelIndex StageTreeModel::operatorIndex(int flatIndex) const {
    if (flatIndex < 0 || flatIndex >= static_cast<int>(operatorItems_.size()) ||
        operatorItems_[static_cast<size_t>(flatIndex)] < 0)
        return {};
    const int item = operatorItems_[static_cast<size_t>(flatIndex)];
    return createIndex(items_[static_cast<size_t>(item)].row, 0, static_cast<quintptr>(item));
}

QModelIndex StageTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent))
        return {};
    const std::vector<int>& children =
        parent.isValid() ? items_[parent.internalId()].children : roots_;
    return createIndex(row, column, static_cast<quintptr>(children[static_cast<size_t>(row)]));
}

QModelIndex StageTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid())
        return {};
    const int p = items_[child.internalId()].parent;
    if (p < 0)
        return {};
    return createIndex(items_[static_cast<size_t>(p)].row, 0, static_cast<quintptr>(p));
}

int StageTreeModel::rowCount(const QModelIndex& parent) const {
    if (parent.column() > 0)
        return 0;
    return static_cast<int>(parent.isValid() ? items_[parent.internalId()].children.size()
                                             : roots_.size());
}

int StageTreeModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QString StageTreeModel::name(const Item& item) const {
    switch (item.type) {
    case NodeType::Block: {
        const bool one = item.children.size() == 1;
        const bool segments = unit_ == Unit::Segment;
        if (one)
            return (segments ? tr("Block %1 (1 segment)") : tr("Block %1 (1 stage)"))
                .arg(item.block);
        return (segments ? tr("Block %1 (%2 segments)") : tr("Block %1 (%2 stages)"))
            .arg(item.block)
            .arg(item.children.size());
    }
    case NodeType::Stage:
        return (unit_ == Unit::Segment ? tr("Segment %1") : tr("Stage %1")).arg(item.stage);
    case NodeType::Group:
        return (unit_ == Unit::Segment ? tr("Stream %1 (%2 ops)") : tr("Group %1 (%2 ops)"))
            .arg(item.group)
            .arg(item.children.size());
    case NodeType::Operator:
        return QString::fromStdString(
            model_->node(model_->operators()[static_cast<size_t>(item.flat)]).name);
    }
    return {};
}

QVariant StageTreeModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Item& item = items_[index.internalId()];
    switch (role) {
    case NodeTypeRole:
        return static_cast<int>(item.type);
    case BlockRole:
        return item.block;
    case StageRole:
        return item.stage;
    case OperatorsRole:
        return QVariant::fromValue(QList<int>(item.operators.begin(), item.operators.end()));
    case Qt::DecorationRole:
        if (index.column() == Name && item.type == NodeType::Operator)
            return kindColor(
                model_->node(model_->operators()[static_cast<size_t>(item.flat)]).kind);
        return {};
    case Qt::TextAlignmentRole:
        return index.column() >= Latency ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name:
            return name(item);
        case Kind:
            if (item.type == NodeType::Operator)
                return kindLabel(
                    model_->node(model_->operators()[static_cast<size_t>(item.flat)]).kind);
            if (item.type == NodeType::Stage)
                return item.kind == schedule::StageKind::Merge
                           ? tr("merge")
                           : (unit_ == Unit::Segment ? tr("streams ×%1") : tr("parallel ×%1"))
                                 .arg(item.children.size());
            return {};
        case Latency:
            return item.latencyMs >= 0 ? formatMs(item.latencyMs) : QString();
        case Share:
            return item.share >= 0 ? QStringLiteral("%1 %").arg(item.share * 100.0, 0, 'f', 1)
                                   : QString();
        case Utilization:
            return item.utilization >= 0
                       ? QStringLiteral("%1 %").arg(item.utilization * 100.0, 0, 'f', 0)
                       : QString();
        default:
            return {};
        }
    case SortRole:
        return item.latencyMs;
    default:
        return {};
    }
}

QVariant StageTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Schedule");
    case Kind:
        return tr("Kind");
    case Latency:
        return tr("Latency");
    case Share:
        return tr("Share of block");
    case Utilization:
        return tr("SM util.");
    default:
        return {};
    }
}

} // namespace ios::views
