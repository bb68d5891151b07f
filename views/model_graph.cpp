// SPDX-License-Identifier: Apache-2.0
#include "model_graph.h"

#include <QObject>

namespace ios::views {

ModelGraph buildModelGraph(const LoadedModel& model) {
    ModelGraph mg;
    LayoutRequest& req = mg.layout;
    const auto& dags = model.dags();
    for (int b = 0; b < static_cast<int>(dags.size()); ++b) {
        const ir::BlockDag& dag = dags[b];
        const int blockCluster = static_cast<int>(req.clusterParent.size());
        req.clusterParent.push_back(-1);
        req.clusterLabels.push_back(QObject::tr("block %1").arg(b));
        std::vector<int> partCluster(dag.parts.size(), blockCluster);
        if (dag.parts.size() > 1) {
            for (size_t p = 0; p < dag.parts.size(); ++p) {
                partCluster[p] = static_cast<int>(req.clusterParent.size());
                req.clusterParent.push_back(blockCluster);
                req.clusterLabels.push_back(QObject::tr("part %1").arg(p));
            }
        }
        const std::string& enter = model.graph().blocks[b].enterName;
        const int base = model.flatIndex({b, 0});
        for (int i = 0; i < static_cast<int>(dag.ops.size()); ++i) {
            req.nodeSizes.push_back({kNodeWidth, kNodeHeight});
            req.cluster.push_back(partCluster[static_cast<size_t>(dag.partOf[i])]);
            mg.nodeBlock.push_back(b);
            mg.nodePart.push_back(dag.partOf[i]);
            for (int p : dag.preds[i])
                req.edges.emplace_back(base + p, base + i);
            // The block's enter node is the previous block's exit (its last operator).
            if (b == 0)
                continue;
            bool readsEnter = false;
            for (const ir::Term& term : dag.ops[i]->externalInputs())
                for (const ir::ValueRef& v : term)
                    readsEnter |= v.node == enter;
            if (readsEnter)
                req.edges.emplace_back(base - 1, base + i);
        }
    }
    return mg;
}

} // namespace ios::views
