// SPDX-License-Identifier: Apache-2.0
// The chosen schedule as a tree: block → stage → group → operator, with per-stage latency,
// kind (parallel / merge), share of the block's time and, when known, SM utilisation.
#pragma once

#include "loaded_model.h"
#include "schedule/schedule.h"

#include <QAbstractItemModel>
#include <vector>

namespace ios::views {

struct StageMetrics {
    double latencyMs = 0;
    double utilization = -1; // 0..1 average SM utilisation; < 0 = unknown
};

class StageTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Name, Kind, Latency, Share, Utilization, ColumnCount };
    enum class NodeType { Block, Stage, Group, Operator };
    enum Role {
        NodeTypeRole = Qt::UserRole + 1, // NodeType as int
        BlockRole,
        StageRole,     // stage within block (-1 for block rows)
        OperatorsRole, // QList<int>: flat operator indices under this row
        SortRole,
    };

    explicit StageTreeModel(QObject* parent = nullptr);

    // What the rows below a block are: a schedule's stages, or a stream program's segments
    // shown as stages (gui::segmentsAsStages: one group per stream).
    enum class Unit { Stage, Segment };
    // metrics[block][stage]; may be empty (latency columns stay blank).
    void setSchedule(LoadedModelPtr model, const schedule::Schedule& schedule,
                     std::vector<std::vector<StageMetrics>> metrics, Unit unit = Unit::Stage);
    Unit unit() const { return unit_; }
    void clear();
    // The row of stage `stage` of block `block` (for linking a graph selection).
    QModelIndex stageIndex(int block, int stage) const;
    QModelIndex operatorIndex(int flatIndex) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Item {
        NodeType type = NodeType::Block;
        int parent = -1; // item index, -1 = root
        int row = 0;
        int block = 0;
        int stage = -1;
        int group = -1;
        int flat = -1; // operator rows
        schedule::StageKind kind = schedule::StageKind::Parallel;
        double latencyMs = -1;
        double share = -1;
        double utilization = -1;
        std::vector<int> children;
        std::vector<int> operators; // flat indices below
    };
    static Item item(NodeType type, int parent, int row, int block, int stage, int group, int flat,
                     schedule::StageKind kind);
    int add(Item it);
    QString name(const Item& it) const;

    LoadedModelPtr model_;
    Unit unit_ = Unit::Stage;
    std::vector<Item> items_;
    std::vector<int> roots_;
    std::vector<std::vector<int>> stageItems_; // [block][stage] → item
    std::vector<int> operatorItems_;           // flat → item
};

} // namespace ios::views
