// SPDX-License-Identifier: Apache-2.0
#include "graph_layout.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace ios::views {

namespace {

std::mutex& graphvizMutex() {
    static std::mutex m; // Graphviz keeps global state: one layout at a time, process-wide
    return m;
}

// Graphviz's C API takes char*; it does not modify these strings.
void set(void* object, const char* name, const std::string& value) {
    agsafeset(object, const_cast<char*>(name), const_cast<char*>(value.c_str()),
              const_cast<char*>(""));
}

constexpr double kPointsPerInch = 72.0;

} // namespace

long long estimateVirtualNodes(const LayoutRequest& request) {
    const size_t n = request.nodeSizes.size();
    std::vector<long long> rank(n, 0);
    // Longest-path ranks; edges usually go forwards in node order, so one or two passes settle
    // it. A bounded number of passes keeps a malformed (cyclic) request finite.
    for (size_t pass = 0; pass < n + 1; ++pass) {
        bool changed = false;
        for (const auto& [from, to] : request.edges) {
            const auto f = static_cast<size_t>(from), t = static_cast<size_t>(to);
            if (f < n && t < n && rank[t] < rank[f] + 1) {
                rank[t] = rank[f] + 1;
                changed = true;
            }
        }
        if (!changed)
            break;
    }
    long long skipped = 0;
    for (const auto& [from, to] : request.edges) {
        const auto f = static_cast<size_t>(from), t = static_cast<size_t>(to);
        if (f < n && t < n)
            skipped += std::max(0LL, std::abs(rank[t] - rank[f]) - 1);
    }
    return skipped;
}

std::vector<bool> impliedEdges(const LayoutRequest& request) {
    const size_t n = request.nodeSizes.size();
    std::vector<std::vector<size_t>> out(n); // edge indices by source
    for (size_t e = 0; e < request.edges.size(); ++e) {
        const auto f = static_cast<size_t>(request.edges[e].first);
        if (f < n && static_cast<size_t>(request.edges[e].second) < n)
            out[f].push_back(e);
    }
    std::vector<bool> implied(request.edges.size(), false);
    std::vector<size_t> seen(n, SIZE_MAX), stack;
    for (size_t e = 0; e < request.edges.size(); ++e) {
        const auto [from, to] = request.edges[e];
        if (static_cast<size_t>(from) >= n || static_cast<size_t>(to) >= n || from == to)
            continue;
        // Depth-first search from `from` without this edge (nor its duplicates).
        stack.assign(1, static_cast<size_t>(from));
        seen[static_cast<size_t>(from)] = e;
        while (!stack.empty() && !implied[e]) {
            const size_t u = stack.back();
            stack.pop_back();
            for (size_t o : out[u]) {
                const auto v = static_cast<size_t>(request.edges[o].second);
                if (u == static_cast<size_t>(from) && v == static_cast<size_t>(to))
                    continue;
                if (v == static_cast<size_t>(to)) {
                    implied[e] = true;
                    break;
                }
                if (seen[v] != e) {
                    seen[v] = e;
                    stack.push_back(v);
                }
            }
        }
    }
    return implied;
}

namespace {
// Beyond this many virtual nodes dot's phases take seconds (docs/performance.md "Graph
// layout": DenseNet-121 ~1.5·10^4, 35-60 s unbounded; NasNet-A ~700, 0.05 s).
constexpr long long kManyVirtualNodes = 4000;
} // namespace

bool usesArcsForImpliedEdges(const LayoutRequest& request) {
    return request.arcsForImpliedEdges && estimateVirtualNodes(request) > kManyVirtualNodes;
}

std::vector<std::pair<std::string, std::string>>
defaultLayoutAttributes(const LayoutRequest& request) {
    std::vector<std::pair<std::string, std::string>> attributes{
        {"rankdir", "TB"}, {"nodesep", "0.25"}, {"ranksep", "0.35"}, {"splines", "spline"}};
    // Measured (docs/performance.md "Graph layout"): unbounded, DenseNet-121's 246 operators
    // take 35-60 s in dot's x-coordinate network simplex over ~10^4 virtual nodes; NasNet-A's
    // 374 operators take 0.05 s. Where long edges remain (arcs off, or a graph whose long
    // edges are not implied), capping the simplex iterations (nslimit, nslimit1: times the
    // node count) and the crossing-minimisation passes (mclimit) keeps it to seconds.
    if (estimateVirtualNodes(request) > kManyVirtualNodes) {
        attributes.emplace_back("nslimit", "0.2");
        attributes.emplace_back("nslimit1", "0.2");
        attributes.emplace_back("mclimit", "0.2");
    }
    return attributes;
}

namespace {

// An implied edge drawn by us: a cubic from the source's bottom to the target's top that
// bows out to the right of both, further for longer spans, so nested arcs (DenseNet's fan-in)
// stay apart and never run through the column of nodes.
QPolygonF arc(QPointF from, QSizeF fromSize, QPointF to, QSizeF toSize) {
    const QPointF start(from.x() + fromSize.width() / 4, from.y() + fromSize.height() / 2);
    const QPointF end(to.x() + toSize.width() / 4, to.y() - toSize.height() / 2);
    const double span = std::abs(end.y() - start.y());
    const double side = std::max(from.x() + fromSize.width() / 2, to.x() + toSize.width() / 2) +
                        16 + std::min(360.0, 0.05 * span);
    const double lead = std::min(60.0, span / 3);
    return QPolygonF({start, QPointF(side, start.y() + lead), QPointF(side, end.y() - lead), end});
}

} // namespace

GraphLayout computeLayout(const LayoutRequest& input) {
    // Dot sees the transitive reduction when the full graph would be slow to lay out.
    const bool arcs = usesArcsForImpliedEdges(input);
    const std::vector<bool> implied =
        arcs ? impliedEdges(input) : std::vector<bool>(input.edges.size(), false);
    LayoutRequest reduced;
    if (arcs) {
        reduced = input;
        reduced.edges.clear();
        for (size_t e = 0; e < input.edges.size(); ++e)
            if (!implied[e])
                reduced.edges.push_back(input.edges[e]);
    }
    const LayoutRequest& request = arcs ? reduced : input;

    std::lock_guard lock(graphvizMutex());
    std::unique_ptr<GVC_t, decltype(&gvFreeContext)> gvc(gvContext(), &gvFreeContext);
    Agraph_t* g = agopen(const_cast<char*>("ios"), Agdirected, nullptr);
    if (!gvc || !g)
        throw std::runtime_error("Graphviz could not create a graph");
    for (const auto& [name, value] : defaultLayoutAttributes(request))
        set(g, name.c_str(), value);
    for (const auto& [name, value] : request.attributes)
        set(g, name.c_str(), value);

    std::vector<Agraph_t*> clusters(request.clusterParent.size(), nullptr);
    // Parents come before children (callers number outer clusters first).
    for (size_t c = 0; c < clusters.size(); ++c) {
        const int parent = request.clusterParent[c];
        Agraph_t* owner = parent >= 0 ? clusters[static_cast<size_t>(parent)] : g;
        const std::string name = "cluster_" + std::to_string(c);
        clusters[c] = agsubg(owner, const_cast<char*>(name.c_str()), 1);
        set(clusters[c], "margin", "10");
        set(clusters[c], "label", " "); // reserves room above the nodes for our label
    }

    std::vector<Agnode_t*> nodes(request.nodeSizes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
        const int c = i < request.cluster.size() ? request.cluster[i] : -1;
        Agraph_t* owner = c >= 0 ? clusters[static_cast<size_t>(c)] : g;
        const std::string name = "n" + std::to_string(i);
        nodes[i] = agnode(owner, const_cast<char*>(name.c_str()), 1);
        set(nodes[i], "shape", "box");
        set(nodes[i], "fixedsize", "true");
        set(nodes[i], "label", "");
        set(nodes[i], "width", std::to_string(request.nodeSizes[i].width() / kPointsPerInch));
        set(nodes[i], "height", std::to_string(request.nodeSizes[i].height() / kPointsPerInch));
    }
    std::vector<Agedge_t*> edges; // per input edge; null for the implied ones we draw
    edges.reserve(input.edges.size());
    for (size_t e = 0; e < input.edges.size(); ++e) {
        const auto [from, to] = input.edges[e];
        edges.push_back(implied[e] ? nullptr
                                   : agedge(g, nodes[static_cast<size_t>(from)],
                                            nodes[static_cast<size_t>(to)], nullptr, 1));
    }

    if (gvLayout(gvc.get(), g, "dot") != 0) {
        agclose(g);
        throw std::runtime_error("Graphviz dot layout failed");
    }
    // Graphviz has y growing upwards; flip into Qt's scene coordinates.
    const boxf bb = GD_bb(g);
    auto toScene = [&bb](pointf p) { return QPointF(p.x - bb.LL.x, bb.UR.y - p.y); };

    GraphLayout layout;
    layout.bounds = QRectF(0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    for (Agnode_t* n : nodes)
        layout.centers.push_back(toScene(ND_coord(n)));
    for (size_t i = 0; i < edges.size(); ++i) {
        Agedge_t* e = edges[i];
        QPolygonF spline;
        if (implied[i]) {
            const auto from = static_cast<size_t>(input.edges[i].first);
            const auto to = static_cast<size_t>(input.edges[i].second);
            spline = arc(layout.centers[from], input.nodeSizes[from], layout.centers[to],
                         input.nodeSizes[to]);
            layout.bounds |= spline.boundingRect().adjusted(0, 0, 10, 0);
        }
        // Duplicate edges (same pair) share one Graphviz edge; each keeps its spline.
        else if (e && ED_spl(e) && ED_spl(e)->size > 0) {
            const bezier& bz = ED_spl(e)->list[0];
            for (int k = 0; k < bz.size; ++k)
                spline << toScene(bz.list[k]);
            if (bz.eflag)
                spline << toScene(bz.ep);
        }
        layout.edgeSplines.push_back(spline);
    }
    for (Agraph_t* c : clusters) {
        const boxf cb = GD_bb(c);
        layout.clusterRects.push_back(QRectF(toScene(cb.LL), toScene(cb.UR)).normalized());
    }
    gvFreeLayout(gvc.get(), g);
    agclose(g);
    return layout;
}

} // namespace ios::views
