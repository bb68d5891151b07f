// SPDX-License-Identifier: Apache-2.0
// Times the GUI's engine jobs without a window (docs/performance.md "GUI jobs", "Estimates"):
//   bench_gui_jobs MODEL compare|sweep|specialize [THREADS]
// prints the job's wall seconds and its first result line;
//   bench_gui_jobs schedulers MODEL DEVICE BATCH
// prints every scheduler's own estimate against its search on one thread;
//   bench_gui_jobs matrix MODELS DEVICES BATCHES KINDS [THREADS]
// (comma-separated lists; kinds: optimize, compare, sweep, specialize, memory, metaflow) runs
// every combination in one process, as a session would, and prints per job its up-front
// estimate (the range the explorer shows, corrected by what the process measured before) and
// its wall seconds as CSV. Not a test: a benchmark target.
#include "engine_jobs.h"
#include "job_estimates.h"
#include "util/error.h"

#include <QCoreApplication>
#include <QStringList>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

using namespace ios;
using namespace ios::gui;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Runs one job kind; returns its estimate (low, high) as the explorer shows it.
schedulers::TimeRange runKind(const QString& kind, const JobSettings& settings) {
    JobControl control;
    if (kind == QLatin1String("optimize")) {
        // As the explorer: the panel's estimate first, then the search, recorded against it.
        const EstimateResult e = estimateJob(settings).run(control);
        const auto t0 = Clock::now();
        JobControl run;
        optimizeJob(settings).run(run);
        recordOptimize(e, since(t0));
        return e.estimate ? schedulers::rangeOf(*e.estimate) : schedulers::TimeRange{};
    }
    const std::function<void()> jobs[] = {
        [&] { compareJob(settings).run(control); }, [&] { sweepJob(settings).run(control); },
        [&] { specializeJob(settings).run(control); }, [&] { memoryJob(settings).run(control); },
        [&] { metaflowJob(settings).run(control); }};
    const QStringList names = {QStringLiteral("compare"), QStringLiteral("sweep"),
                               QStringLiteral("specialize"), QStringLiteral("memory"),
                               QStringLiteral("metaflow")};
    const auto i = names.indexOf(kind);
    if (i < 0)
        throw UserError("unknown job kind '" + kind.toStdString() + "'");
    jobs[i]();
    return {control.estimateLow.load(), control.estimateHigh.load()};
}

// Every registered scheduler's own estimate (uncorrected) against its search on one thread.
int schedulersOf(char** argv) {
    JobSettings settings;
    settings.model = views::loadModel(QString::fromUtf8(argv[2]));
    settings.device = QString::fromUtf8(argv[3]);
    settings.batch = std::atoi(argv[4]);
    settings.threads = 1;
    const auto cost =
        EngineJobs::makeCostModel(*settings.model, settings, settings.device, settings.batch);
    std::printf("scheduler,estimate_low_s,estimate_high_s,count_s,seconds_per_stage,work,"
                "stages_priced,search_s\n");
    for (const schedulers::Scheduler* s : schedulers::registeredSchedulers()) {
        const schedulers::Params params = searchParams(settings, settings.r, settings.s, false, 1);
        const auto e = s->estimate(settings.model->prepared(), params, *cost,
                                   EngineJobs::kEstimateCountSeconds, nullptr);
        const auto fresh =
            EngineJobs::makeCostModel(*settings.model, settings, settings.device, settings.batch);
        const auto t0 = Clock::now();
        s->run(settings.model->prepared(), params, *fresh, nullptr);
        std::printf("%s,%.4f,%.4f,%.4f,%.3g,%llu,%llu,%.4f\n", std::string(s->key()).c_str(),
                    e ? e->low : 0.0, e ? e->high : 0.0, e ? e->countSeconds : 0.0,
                    e ? e->secondsPerStage : 0.0,
                    static_cast<unsigned long long>(e ? e->transitions : 0),
                    static_cast<unsigned long long>(e ? e->stagesPriced : 0), since(t0));
    }
    return 0;
}

int matrix(char** argv, int argc) {
    const QStringList models = QString::fromUtf8(argv[2]).split(QLatin1Char(','));
    const QStringList devices = QString::fromUtf8(argv[3]).split(QLatin1Char(','));
    const QStringList batches = QString::fromUtf8(argv[4]).split(QLatin1Char(','));
    const QStringList kinds = QString::fromUtf8(argv[5]).split(QLatin1Char(','));
    std::printf("model,device,batch,kind,estimate_low_s,estimate_high_s,estimate_s,actual_s,"
                "ratio\n");
    for (const QString& m : models) {
        JobSettings settings;
        settings.model = views::loadModel(m);
        if (argc > 6)
            settings.threads = std::stoi(argv[6]);
        for (const QString& b : batches)
            for (const QString& d : devices)
                for (const QString& k : kinds) {
                    settings.device = d;
                    settings.batch = b.toInt();
                    const auto t0 = Clock::now();
                    const schedulers::TimeRange e = runKind(k, settings);
                    const double actual = since(t0);
                    std::printf("%s,%s,%d,%s,%.4f,%.4f,%.4f,%.4f,%.3f\n", qPrintable(m),
                                qPrintable(d), settings.batch, qPrintable(k), e.low, e.high,
                                e.point(), actual, e.point() > 0 ? actual / e.point() : 0.0);
                    std::fflush(stdout);
                }
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc >= 5 && std::string(argv[1]) == "schedulers") {
        try {
            return schedulersOf(argv);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench_gui_jobs: %s\n", e.what());
            return 1;
        }
    }
    if (argc >= 6 && std::string(argv[1]) == "matrix") {
        try {
            return matrix(argv, argc);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench_gui_jobs: %s\n", e.what());
            return 1;
        }
    }
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: %s MODEL compare|sweep|specialize [THREADS]\n"
                     "       %s schedulers MODEL DEVICE BATCH\n"
                     "       %s matrix MODELS DEVICES BATCHES KINDS [THREADS]\n",
                     argv[0], argv[0], argv[0]);
        return 2;
    }
    const std::string kind = argv[2];
    try {
        JobSettings settings;
        settings.model = views::loadModel(QString::fromUtf8(argv[1]));
        if (argc > 3)
            settings.threads = std::stoi(argv[3]);
        JobControl control;
        const auto t0 = Clock::now();
        size_t runs = 0; // a specialize job has matrices, no runs
        double sequentialMs = 0;
        if (kind == "compare" || kind == "sweep") {
            const SearchResult r = kind == "compare" ? compareJob(settings).run(control)
                                                     : sweepJob(settings).run(control).search;
            runs = r.runs.size();
            sequentialMs = r.sequentialLatencyMs;
        } else if (kind == "specialize") {
            sequentialMs = specializeJob(settings).run(control).sequentialLatencyMs;
        } else {
            throw UserError("unknown job kind '" + kind +
                            "' (compare, sweep or specialize; the matrix mode takes the others)");
        }
        std::printf("%s %s threads %d: %.3f s (%zu runs, sequential %.4f ms)\n", argv[1],
                    kind.c_str(), settings.threads, since(t0), runs, sequentialMs);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_gui_jobs: %s\n", e.what());
        return 1;
    }
}
