#include "graph_layout.h"

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

GraphLayout computeLayout(const LayoutRequest& request) {
    std::lock_guard lock(graphvizMutex());
    std::unique_ptr<GVC_t, decltype(&gvFreeContext)> gvc(gvContext(), &gvFreeContext);
    Agraph_t* g = agopen(const_cast<char*>("ios"), Agdirected, nullptr);
    if (!gvc || !g)
        throw std::runtime_error("Graphviz could not create a graph");
    set(g, "rankdir", "TB");
    set(g, "nodesep", "0.25");
    set(g, "ranksep", "0.35");
    set(g, "splines", "spline");

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
    std::vector<Agedge_t*> edges;
    edges.reserve(request.edges.size());
    for (const auto& [from, to] : request.edges)
        edges.push_back(agedge(g, nodes[static_cast<size_t>(from)], nodes[static_cast<size_t>(to)],
                               nullptr, 1));

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
    for (Agedge_t* e : edges) {
        QPolygonF spline;
        // Duplicate edges (same pair) share one Graphviz edge; each keeps its spline.
        if (e && ED_spl(e) && ED_spl(e)->size > 0) {
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
