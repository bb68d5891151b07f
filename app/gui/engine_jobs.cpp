#include "engine_jobs.h"

#include "cost/device_profile.h"
#include "schedule/evaluate.h"
#include "schedulers/baselines.h"
#include "schedulers/specialize.h"
#include "util/error.h"

#include <QObject>
#include <chrono>

namespace ios::gui {

namespace {

// Maps the searches' progress into [begin, end) of the job's progress bar.
struct ProgressSlice {
    JobControl& control;
    double begin;
    double end;

    // The callback holds the slice by value: it outlives this object in control.search.
    void install() const {
        control.search.progress = [slice = *this](uint64_t done, uint64_t total) {
            const double f = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
            slice.control.progress = slice.begin + (slice.end - slice.begin) * f;
        };
    }
};

schedulers::Options dpOptions(const views::LoadedModel& model, const JobSettings& settings,
                              StrategyChoice strategy, int r, int s, bool record) {
    schedulers::Options options;
    options.strategy = strategy == StrategyChoice::Merge      ? schedulers::Strategy::Merge
                       : strategy == StrategyChoice::Parallel ? schedulers::Strategy::Parallel
                                                              : schedulers::Strategy::Both;
    options.r = r;
    options.s = s;
    options.maxPartSize = model.maxPartSize();
    options.endings = settings.endings;
    options.recordStateSpace = record;
    return options;
}

RunResult runStrategy(const views::LoadedModel& model, const JobSettings& settings,
                      StrategyChoice strategy, int r, int s, bool record,
                      const cost::CostModel& cost, ProgressSlice slice) {
    if (slice.control.cancelled())
        throw Cancelled();
    RunResult run;
    run.strategy = strategy;
    run.r = r;
    run.s = s;
    const auto t0 = std::chrono::steady_clock::now();
    if (!isDpStrategy(strategy)) {
        run.schedule = strategy == StrategyChoice::Sequential ? schedulers::sequential(model.dags())
                                                              : schedulers::greedy(model.dags());
        run.latencyMs = schedule::totalLatencyMs(model.dags(), run.schedule, cost);
    } else {
        slice.install();
        schedulers::Result result =
            schedulers::optimize(model.graph(), dpOptions(model, settings, strategy, r, s, record),
                                 cost, &slice.control.search);
        run.schedule = std::move(result.schedule);
        run.latencyMs = result.latencyMs;
        run.stats = std::move(result.stats);
        if (result.stateSpace)
            run.stateSpace = schedulers::indexStateSpace( // off the UI thread (it can be big)
                std::make_shared<const schedulers::StateSpace>(std::move(*result.stateSpace)));
    }
    run.searchSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    slice.control.progress = slice.end;
    return run;
}

struct Setting {
    QString label;
    QString device;
    int batch;
};

// One schedule optimised per setting, each priced under every setting (IOS paper §7.2).
SpecializeMatrix specializeOver(const views::LoadedModel& model, const JobSettings& settings,
                                StrategyChoice strategy, const std::vector<Setting>& grid,
                                const QString& title, const ProgressSlice& slice) {
    std::vector<std::unique_ptr<cost::SimulatedGpuCostModel>> owned;
    std::vector<const cost::CostModel*> costs;
    SpecializeMatrix m;
    m.title = title;
    for (const Setting& st : grid) {
        owned.push_back(EngineJobs::makeCostModel(model, st.device, st.batch));
        costs.push_back(owned.back().get());
        m.labels.push_back(st.label);
    }
    slice.install();
    m.latencyMs =
        schedulers::specialize(
            model.dags(), costs,
            schedulers::dpScheduler(
                model.graph(), dpOptions(model, settings, strategy, settings.r, settings.s, false)),
            &slice.control.search)
            .latencyMs;
    slice.control.progress = slice.end;
    return m;
}

std::vector<SpecializeMatrix> specialize(const views::LoadedModel& model,
                                         const JobSettings& settings, StrategyChoice strategy,
                                         JobControl& control) {
    std::vector<Setting> batches;
    for (int b : EngineJobs::kSpecializeBatches)
        batches.push_back({QObject::tr("batch %1").arg(b), settings.device, b});
    std::vector<Setting> devices;
    for (const std::string& name : cost::bundledDeviceNames())
        devices.push_back(
            {QString::fromStdString(name), QString::fromStdString(name), settings.batch});
    // One failing matrix (e.g. a cost model error at a large batch) must not hide the other.
    auto guarded = [&](const std::vector<Setting>& grid, const QString& title, double begin,
                       double end) {
        try {
            return specializeOver(model, settings, strategy, grid, title, {control, begin, end});
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            SpecializeMatrix failed;
            failed.title = QObject::tr("%1: failed (%2)").arg(title, QString::fromUtf8(e.what()));
            return failed;
        }
    };
    return {guarded(batches, QObject::tr("Batch sizes on %1").arg(settings.device), 0.0, 0.4),
            guarded(devices, QObject::tr("Devices at batch %1").arg(settings.batch), 0.4, 1.0)};
}

} // namespace

std::unique_ptr<cost::SimulatedGpuCostModel>
EngineJobs::makeCostModel(const views::LoadedModel& model, const QString& device, int batch) {
    return std::make_unique<cost::SimulatedGpuCostModel>(
        model.graph(), cost::loadDevice(device.toStdString()), batch);
}

JobResult EngineJobs::run(JobKind kind, const JobSettings& settings, JobControl& control) const {
    if (!settings.model)
        throw UserError("no model is open");
    const views::LoadedModel& model = *settings.model;
    if (settings.maxPartSize != model.maxPartSize())
        throw UserError("internal: the model's parts were built for another max part size");
    const auto cost = makeCostModel(model, settings.device, settings.batch);

    JobResult result;
    result.kind = kind;
    result.settings = settings;
    result.costModel = QString::fromStdString(cost->describe());
    const StrategyChoice dpStrategy =
        isDpStrategy(settings.strategy) ? settings.strategy : StrategyChoice::Both;

    switch (kind) {
    case JobKind::Optimize: {
        RunResult run = runStrategy(model, settings, settings.strategy, settings.r, settings.s,
                                    settings.recordStateSpace, *cost, {control, 0.0, 1.0});
        for (size_t b = 0; b < run.schedule.blocks.size(); ++b) {
            run.stageLatencyMs.emplace_back();
            for (const schedule::Stage& stage : run.schedule.blocks[b].stages)
                run.stageLatencyMs.back().push_back(cost->stageLatencyMs(model.dags()[b], stage));
        }
        run.timeline = std::make_shared<const schedule::Timeline>(
            schedule::buildTimeline(model.dags(), run.schedule, *cost));
        result.runs.push_back(std::move(run));
        break;
    }
    case JobKind::Compare:
        for (int i = 0; i < kStrategyCount; ++i)
            result.runs.push_back(runStrategy(
                model, settings, static_cast<StrategyChoice>(i), settings.r, settings.s, false,
                *cost, {control, i / double(kStrategyCount), (i + 1) / double(kStrategyCount)}));
        break;
    case JobKind::Sweep: {
        const int cells = kSweepMaxR * kSweepMaxS;
        for (int r = 1; r <= kSweepMaxR; ++r) {
            result.sweepR.push_back(r);
            for (int s = 1; s <= kSweepMaxS; ++s) {
                if (r == 1)
                    result.sweepS.push_back(s);
                const int cell = (r - 1) * kSweepMaxS + (s - 1);
                result.runs.push_back(
                    runStrategy(model, settings, dpStrategy, r, s, false, *cost,
                                {control, cell / double(cells), (cell + 1) / double(cells)}));
            }
        }
        break;
    }
    case JobKind::Specialize:
        result.specialize = specialize(model, settings, dpStrategy, control);
        break;
    }
    const RunResult sequential = runStrategy(model, settings, StrategyChoice::Sequential, 0, 0,
                                             false, *cost, {control, 1.0, 1.0});
    result.sequentialLatencyMs = sequential.latencyMs;
    return result;
}

} // namespace ios::gui
