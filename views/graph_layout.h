// SPDX-License-Identifier: Apache-2.0
// Node positions for the graph view, computed by Graphviz dot (positions only: drawing is
// QGraphicsScene, docs/architecture.md). Graphviz is not thread-safe, so every layout in the
// process runs under one global mutex; callers run it off the UI thread.
#pragma once

#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <string>
#include <utility>
#include <vector>

namespace ios::views {

struct LayoutRequest {
    std::vector<QSizeF> nodeSizes;          // pixels (1 px = 1 Graphviz point)
    std::vector<std::pair<int, int>> edges; // node indices, from → to
    std::vector<int> cluster;               // per node: cluster id (-1 = none)
    std::vector<int> clusterParent;         // per cluster: enclosing cluster (-1 = top)
    std::vector<QString> clusterLabels;     // per cluster
    // Graphviz graph attributes applied after the defaults (name, value): how benches and
    // callers try other configurations, e.g. {"splines", "spline"}.
    std::vector<std::pair<std::string, std::string>> attributes;
    // When dot would add many virtual nodes (see below), lay out the transitive reduction and
    // draw the implied edges ourselves as arcs beside the nodes; false: dot routes them all.
    bool arcsForImpliedEdges = true;
};

struct GraphLayout {
    std::vector<QPointF> centers;       // per node, y grows downwards
    std::vector<QPolygonF> edgeSplines; // per edge: cubic Bézier control points (1 + 3k)
    std::vector<QRectF> clusterRects;   // per cluster
    QRectF bounds;
};

// How many virtual nodes dot will add: the sum over edges of the ranks each one skips, with
// nodes ranked by longest path. Dot's network simplex and crossing minimisation grow with
// this, not with the node count: DenseNet's concats (every layer reads every earlier layer)
// give ~10^4 on 250 operators where NasNet-A gives ~10^3 on 374.
long long estimateVirtualNodes(const LayoutRequest& request);

// Per edge: whether another path already leads from its source to its target (the edge is
// not in the transitive reduction). DenseNet's dense concat fan-in is all such edges.
std::vector<bool> impliedEdges(const LayoutRequest& request);

// Whether computeLayout lays out the transitive reduction and draws the implied edges as arcs.
bool usesArcsForImpliedEdges(const LayoutRequest& request);

// The Graphviz attributes computeLayout uses for this request before request.attributes:
// bounded network simplex and crossing minimisation when the estimate is large.
std::vector<std::pair<std::string, std::string>>
defaultLayoutAttributes(const LayoutRequest& request);

// Runs dot (top to bottom). Thread-safe; throws std::runtime_error when Graphviz fails.
GraphLayout computeLayout(const LayoutRequest& request);

} // namespace ios::views
