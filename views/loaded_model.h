// SPDX-License-Identifier: Apache-2.0
// A model as the GUI holds it: the validated graph plus the per-block dependency DAGs the
// schedulers see. The DAGs point into the graph, so both live in one immutable, shared object
// that worker threads may read while the UI shows it.
#pragma once

#include "io/model_options.h"
#include "ir/block_dag.h"
#include "ir/graph.h"
#include "ir/metrics.h"
#include "ir/prepared_model.h"

#include <QString>
#include <memory>
#include <vector>

namespace ios::views {

struct OperatorRef {
    int block = 0;
    int op = 0; // index into LoadedModel::dags[block].ops
    friend bool operator==(const OperatorRef&, const OperatorRef&) = default;
};

class LoadedModel {
public:
    // Builds the DAGs with the given part size (docs/algorithms.md §1). Throws ios::UserError.
    LoadedModel(ir::Graph graph, QString source, int maxPartSize = ir::kDefaultMaxPartSize);
    LoadedModel(const LoadedModel&) = delete;
    LoadedModel& operator=(const LoadedModel&) = delete;

    const ir::Graph& graph() const { return graph_; }
    // What the schedulers take: the DAGs and parts built once, for maxPartSize().
    const ir::PreparedModel& prepared() const { return prepared_; }
    const std::vector<ir::BlockDag>& dags() const { return prepared_.dags(); }
    const QString& source() const { return source_; }
    int maxPartSize() const { return prepared_.maxPartSize(); }
    int operatorCount() const { return static_cast<int>(refs_.size()); }

    // Flat operator list in block/file order, with batch-1 metrics.
    const std::vector<OperatorRef>& operators() const { return refs_; }
    const ir::Node& node(OperatorRef r) const { return *dags()[r.block].ops[r.op]; }
    const ir::OperatorMetrics& metrics(int flatIndex) const { return metrics_[flatIndex]; }
    int flatIndex(OperatorRef r) const { return blockOffset_[r.block] + r.op; }
    double totalFlops() const { return totalFlops_; }

private:
    ir::Graph graph_;
    QString source_;
    ir::PreparedModel prepared_; // after graph_: it points into it
    std::vector<OperatorRef> refs_;
    std::vector<int> blockOffset_;
    std::vector<ir::OperatorMetrics> metrics_;
    double totalFlops_ = 0;
};

using LoadedModelPtr = std::shared_ptr<const LoadedModel>;

// Loads a file path or bundled model name (samples::loadModel) with the format options
// (ONNX: input shape, opaque operators). Throws ios::UserError.
LoadedModelPtr loadModel(const QString& pathOrName, int maxPartSize = ir::kDefaultMaxPartSize,
                         const io::ModelLoadOptions& options = {});

} // namespace ios::views
