// SPDX-License-Identifier: Apache-2.0
// Times the graph view's layout (docs/performance.md "Graph layout"):
//   bench_graph_layout MODEL [NAME=VALUE ...]
// builds the view's layout request for MODEL (a file or bundled name), applies the optional
// Graphviz graph attributes over the view's defaults (arcs=false: dot routes every edge, as
// before the view drew implied edges itself), and prints the layout's wall seconds;
//   bench_graph_layout --view MODEL
// opens a 1280×800 GraphView on MODEL (QT_QPA_PLATFORM=offscreen) and prints the seconds
// until the graph is shown and the longest single event dispatch on the UI thread meanwhile
// (how long our code blocked it in one go, scene building included).
// Not a test: a benchmark target.
#include "graph_layout.h"
#include "graph_view.h"
#include "loaded_model.h"
#include "model_graph.h"
#include "timed_application.h"

#include <QApplication>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

using namespace ios::views;
using ios::gui::test::TimedApplication;

namespace {

int benchView(int argc, char** argv) {
    TimedApplication app(argc, argv);
    const char* path = argv[2];
    const LoadedModelPtr model = loadModel(QString::fromUtf8(path));
    GraphView view;
    view.resize(1280, 800);
    view.show();
    QEventLoop loop;
    QObject::connect(&view, &GraphView::layoutReady, &loop, &QEventLoop::quit);
    QTimer::singleShot(600000, &loop, &QEventLoop::quit);
    app.processEvents();
    app.longestDispatchMs = 0;
    QElapsedTimer clock;
    clock.start();
    // setModel runs inside an event, as a model switch in the window does.
    QTimer::singleShot(0, &view, [&] { view.setModel(model); });
    loop.exec();
    app.processEvents(); // the first paint of the laid-out scene
    std::printf("%s: %d operators shown in %.3f s; longest UI-thread dispatch %lld ms\n", path,
                model->operatorCount(), static_cast<double>(clock.elapsed()) / 1000.0,
                static_cast<long long>(app.longestDispatchMs));
    return view.isLayoutReady() ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc > 2 && std::strcmp(argv[1], "--view") == 0) {
        try {
            return benchView(argc, argv);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench_graph_layout: %s\n", e.what());
            return 1;
        }
    }
    QCoreApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s MODEL [NAME=VALUE ...] | --view MODEL\n", argv[0]);
        return 2;
    }
    try {
        const LoadedModelPtr model = loadModel(QString::fromUtf8(argv[1]));
        LayoutRequest request = buildModelGraph(*model).layout;
        std::string overrides;
        for (int i = 2; i < argc; ++i) {
            const std::string arg = argv[i];
            const auto eq = arg.find('=');
            if (eq == std::string::npos) {
                std::fprintf(stderr, "bench_graph_layout: expected NAME=VALUE, got %s\n", argv[i]);
                return 2;
            }
            if (arg.substr(0, eq) == "arcs") // not Graphviz: the view's own arcs on/off
                request.arcsForImpliedEdges = arg.substr(eq + 1) != "false";
            else
                request.attributes.emplace_back(arg.substr(0, eq), arg.substr(eq + 1));
            overrides += " " + arg;
        }
        const auto t0 = std::chrono::steady_clock::now();
        const GraphLayout layout = computeLayout(request);
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s: %d operators, %zu edges, ~%lld virtual nodes%s%s: %.3f s (%.0f×%.0f pt)\n",
                    argv[1], model->operatorCount(), request.edges.size(),
                    estimateVirtualNodes(request),
                    usesArcsForImpliedEdges(request) ? ", implied edges as arcs" : "",
                    overrides.c_str(), s, layout.bounds.width(), layout.bounds.height());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_graph_layout: %s\n", e.what());
        return 1;
    }
}
