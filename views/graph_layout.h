// Node positions for the graph view, computed by Graphviz dot (positions only: drawing is
// QGraphicsScene, docs/architecture.md). Graphviz is not thread-safe, so every layout in the
// process runs under one global mutex; callers run it off the UI thread.
#pragma once

#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <utility>
#include <vector>

namespace ios::views {

struct LayoutRequest {
    std::vector<QSizeF> nodeSizes;          // pixels (1 px = 1 Graphviz point)
    std::vector<std::pair<int, int>> edges; // node indices, from → to
    std::vector<int> cluster;               // per node: cluster id (-1 = none)
    std::vector<int> clusterParent;         // per cluster: enclosing cluster (-1 = top)
    std::vector<QString> clusterLabels;     // per cluster
};

struct GraphLayout {
    std::vector<QPointF> centers;       // per node, y grows downwards
    std::vector<QPolygonF> edgeSplines; // per edge: cubic Bézier control points (1 + 3k)
    std::vector<QRectF> clusterRects;   // per cluster
    QRectF bounds;
};

// Runs dot (top to bottom). Thread-safe; throws std::runtime_error when Graphviz fails.
GraphLayout computeLayout(const LayoutRequest& request);

} // namespace ios::views
