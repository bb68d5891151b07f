// SPDX-License-Identifier: Apache-2.0
#include "loaded_model.h"

#include "bundled_models.h"

namespace ios::views {

LoadedModel::LoadedModel(ir::Graph graph, QString source, int maxPartSize)
    : graph_(std::move(graph)), source_(std::move(source)), prepared_(graph_, maxPartSize) {
    const std::vector<ir::BlockDag>& dags = prepared_.dags();
    const ir::NodeIndex index(graph_);
    for (int b = 0; b < static_cast<int>(dags.size()); ++b) {
        blockOffset_.push_back(static_cast<int>(refs_.size()));
        for (int i = 0; i < static_cast<int>(dags[b].ops.size()); ++i) {
            refs_.push_back({b, i});
            metrics_.push_back(ir::computeMetrics(*dags[b].ops[i], index));
            totalFlops_ += static_cast<double>(metrics_.back().flops);
        }
    }
}

LoadedModelPtr loadModel(const QString& pathOrName, int maxPartSize,
                         const io::ModelLoadOptions& options) {
    ir::Graph graph = samples::loadModel(pathOrName.toStdString(), options);
    return std::make_shared<const LoadedModel>(std::move(graph), pathOrName, maxPartSize);
}

} // namespace ios::views
