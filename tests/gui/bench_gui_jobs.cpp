// SPDX-License-Identifier: Apache-2.0
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
        size_t runs = 0; // a specialize job has matrices, no runs
        double sequentialMs = 0;
        if (kind == "compare" || kind == "sweep") {
            const SearchResult r = kind == "compare" ? compareJob(settings).run(control)
                                                     : sweepJob(settings).run(control).search;
            runs = r.runs.size();
            sequentialMs = r.sequentialLatencyMs;
        } else {
            sequentialMs = specializeJob(settings).run(control).sequentialLatencyMs;
        }
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s %s threads %d: %.3f s (%zu runs, sequential %.4f ms)\n", argv[1],
                    kind.c_str(), settings.threads, s, runs, sequentialMs);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_gui_jobs: %s\n", e.what());
        return 1;
    }
}
