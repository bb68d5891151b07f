// Times the GUI's engine jobs without a window (docs/performance.md "GUI jobs"):
//   bench_gui_jobs MODEL compare|sweep|specialize [THREADS]
// prints the job's wall seconds and its first result line. Not a test: a benchmark target.
#include "engine_jobs.h"
#include "util/error.h"

#include <QCoreApplication>
#include <chrono>
#include <cstdio>
#include <string>

using namespace ios;
using namespace ios::gui;

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s MODEL compare|sweep|specialize [THREADS]\n", argv[0]);
        return 2;
    }
    const std::string kind = argv[2];
    try {
        JobSettings settings;
        settings.model = views::loadModel(QString::fromUtf8(argv[1]));
        if (argc > 3)
            settings.threads = std::stoi(argv[3]);
        JobControl control;
        const auto t0 = std::chrono::steady_clock::now();
        SearchResult r;
        if (kind == "compare")
            r = compareJob(settings).run(control);
        else if (kind == "sweep")
            r = sweepJob(settings).run(control).search;
        else
            specializeJob(settings).run(control); // no runs, no baseline: reads 0 and 0
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s %s threads %d: %.3f s (%zu runs, sequential %.4f ms)\n", argv[1],
                    kind.c_str(), settings.threads, s, r.runs.size(), r.sequentialLatencyMs);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_gui_jobs: %s\n", e.what());
        return 1;
    }
}
