// SPDX-License-Identifier: Apache-2.0
#include "engine_jobs.h"

#include "cost/block_model.h"
#include "cost/device_profile.h"
#include "cost/kernel_timeline.h"
#include "cost/program_simulator.h"
#include "error_hints.h"
#include "eval/timeline.h"
#include "job_estimates.h"
#include "memory_jobs.h"
#include "schedule/program_verify.h"
#include "schedulers/not_applicable.h"
#include "schedulers/parallel_jobs.h"
#include "schedulers/rewritten_model.h"
#include "schedulers/specialize.h"
#include "shown_stages.h"
#include "util/error.h"

#include <QFileInfo>
#include <QObject>
#include <chrono>
#include <functional>
#include <optional>

namespace ios::gui {

schedulers::Params searchParams(const JobSettings& settings, int r, int s, bool record,
                                int threads) {
    schedulers::SearchParams params;
    params.r = r;
    params.s = s;
    params.endings = settings.endings;
    params.maxPartSize = settings.maxPartSize;
    params.recordStateSpace = record;
    params.threads = threads;
    params.memoryBudget = settings.memoryBudget;
    return params;
}

namespace {

// What the Optimize job adds to a run from its outcome (timeline, program simulation).
using OutcomeDetails = std::function<void(const schedulers::Outcome&, RunResult&)>;

// One search on `search` (whose progress the caller has set up).
RunResult runOn(const views::LoadedModel& model, const JobSettings& settings,
                const schedulers::Scheduler& scheduler, int r, int s, bool record, int threads,
                const cost::CostModel& cost, schedulers::SearchControl& search,
                const OutcomeDetails& details = {}) {
    if (search.cancelled())
        throw Cancelled();
    RunResult run;
    run.strategy =
        QString::fromUtf8(scheduler.key().data(), static_cast<qsizetype>(scheduler.key().size()));
    run.r = r;
    run.s = s;
    const auto t0 = std::chrono::steady_clock::now();
    schedulers::Params params = searchParams(settings, r, s, record, threads);
    // The budget only for schedulers that read it: one that runs another inside (MetaFlow runs
    // IOS-Both on its rewritten graph, whose tensors differ) must not inherit it.
    if (!scheduler.reads(schedulers::Knob::MemoryBudget))
        params.memoryBudget = 0;
    schedulers::Outcome outcome = scheduler.run(model.prepared(), params, cost, &search);
    // Priced as the timeline lays it out: its program's latency when it has one (RAF).
    run.latencyMs = schedulers::outcomeLatencyMs(model.dags(), outcome, cost);
    run.peakBytes = outcome.peakBytes;
    if (outcome.rewritten) {
        // Its schedule's indices are G*'s operators: nothing of it may reach views of G0.
        run.rewritten = true;
        run.substitutions = static_cast<int>(outcome.rewritten->search.history.size());
        run.stats = std::move(outcome.stats);
        run.searchSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return run;
    }
    run.program = schedulers::programOf(outcome);
    run.ownProgram = !outcome.programs.empty();
    if (details)
        details(outcome, run);
    run.schedule = std::move(outcome.schedule);
    run.stats = std::move(outcome.stats);
    if (outcome.stateSpace)
        run.stateSpace = schedulers::indexStateSpace( // off the UI thread (it can be big)
            std::make_shared<const schedulers::StateSpace>(std::move(*outcome.stateSpace)));
    run.searchSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return run;
}

RunResult runStrategy(const views::LoadedModel& model, const JobSettings& settings,
                      const schedulers::Scheduler& scheduler, int r, int s, bool record,
                      const cost::CostModel& cost, ProgressSlice slice,
                      const OutcomeDetails& details = {}) {
    slice.install();
    RunResult run = runOn(model, settings, scheduler, r, s, record, settings.threads, cost,
                          slice.control.search, details);
    slice.control.progress = slice.end;
    return run;
}

// The outcome in time, when the cost model can say (a program, or a kernel timeline); null
// otherwise.
std::shared_ptr<const eval::Timeline> timelineIfAny(const views::LoadedModel& model,
                                                    const cost::CostModel& cost,
                                                    const schedulers::Outcome& outcome) {
    if (outcome.programs.empty() && cost.kernelTimeline() == nullptr)
        return nullptr;
    return std::make_shared<const eval::Timeline>(
        schedulers::outcomeTimeline(model.dags(), outcome, cost));
}

// The Optimize job's views of an outcome, on the worker thread: the stage latencies, the
// timeline (schedulers::outcomeTimeline: a RAF program's own, not its issue-order stages) and
// the program's instruction times per block (the Streams view).
void addOptimizeDetails(const views::LoadedModel& model, const cost::CostModel& cost,
                        const schedulers::Outcome& outcome, RunResult& run) {
    // A scheduler that rewrites the graph (metaflow) refers to its own DAGs and cost model.
    std::unique_ptr<cost::CostModel> owned;
    const cost::CostModel& priced = schedulers::scheduledCost(outcome, cost, owned);
    const std::vector<ir::BlockDag>& dags =
        schedulers::scheduledModel(model.prepared(), outcome).dags();
    if (run.ownProgram) // its segments' latencies come with the program's simulation below
        run.segmentStages = segmentsAsStages(run.program);
    else
        for (size_t b = 0; b < outcome.schedule.blocks.size(); ++b) {
            run.stageLatencyMs.emplace_back();
            for (const schedule::Stage& stage : outcome.schedule.blocks[b].stages)
                run.stageLatencyMs.back().push_back(
                    cost::checkedStageLatencyMs(priced, dags[b], stage));
        }
    run.timeline = timelineIfAny(model, cost, outcome);
    // A model that knows stage latencies only prices a program launch by launch; one without
    // those (a cache holding whole stages) leaves the Streams view in issue order.
    try {
        schedule::verifyProgram(dags, run.program);
        for (size_t b = 0; b < run.program.size(); ++b)
            run.programRuns.push_back(
                cost::simulateProgram(priced, dags[b], run.program[b], false));
        if (run.ownProgram)
            for (const cost::ProgramRun& r : run.programRuns)
                run.stageLatencyMs.push_back(r.segmentMs);
    } catch (const UserError& e) {
        run.programRuns.clear();
        run.programNote = QString::fromUtf8(e.what());
    }
}

// Independent searches as parallel jobs (settings.threads), results in index order; each
// job's progress counts in [slice.begin, slice.end) by its estimated seconds
// (JobControl::runSeconds, when the job's estimate gave one per run), else equally.
std::vector<RunResult>
runAll(size_t n, const JobSettings& settings, ProgressSlice slice,
       const std::function<RunResult(size_t, int, schedulers::SearchControl&)>& run) {
    std::vector<RunResult> out(n);
    const int inner = schedulers::innerThreads(settings.threads, n);
    std::vector<uint64_t> weights(n, 1000);
    if (slice.control.runSeconds.size() == n)
        for (size_t i = 0; i < n; ++i) // microseconds, at least 1
            weights[i] = static_cast<uint64_t>(std::max(1.0, slice.control.runSeconds[i] * 1e6));
    slice.install();
    schedulers::runJobs(
        &slice.control.search, weights, settings.threads,
        [&](size_t i, schedulers::SearchControl& job) { out[i] = run(i, inner, job); });
    slice.control.progress = slice.end;
    return out;
}

// One schedule optimised per setting, each priced under every setting (IOS paper §7.2); with
// `block`, of that block alone (IOS paper Figure 10), priced as the whole model prices it.
SpecializeMatrix specializeOver(const views::LoadedModel& model, const cost::BlockModel* block,
                                const JobSettings& settings, const schedulers::Scheduler& scheduler,
                                const std::vector<SpecializeSetting>& grid, const QString& title,
                                int threads, schedulers::SearchControl& search) {
    std::vector<std::unique_ptr<cost::CostModel>> owned;
    std::vector<const cost::CostModel*> costs;
    SpecializeMatrix m;
    m.title = title;
    for (const SpecializeSetting& st : grid) {
        owned.push_back(EngineJobs::makeCostModel(model, settings, st.device, st.batch));
        if (block != nullptr)
            owned.push_back(block->cost(*owned.back()));
        costs.push_back(owned.back().get());
        m.labels.push_back(st.label);
    }
    // A memory budget holds at the settings' batch; the matrix's other batches have other
    // tensor sizes.
    schedulers::Params params = searchParams(settings, settings.r, settings.s, false, threads);
    params.memoryBudget = 0;
    m.latencyMs = schedulers::specialize(block != nullptr ? block->prepared() : model.prepared(),
                                         costs, scheduler, params, &search)
                      .latencyMs;
    return m;
}

std::vector<SpecializeMatrix> specialize(const views::LoadedModel& model,
                                         const JobSettings& settings,
                                         const schedulers::Scheduler& scheduler, int blockIndex,
                                         JobControl& control) {
    std::optional<cost::BlockModel> block;
    if (blockIndex >= 0)
        block.emplace(model.graph(), blockIndex, model.maxPartSize());
    const auto [batches, devices] = specializeGrids(settings);
    const QString label = strategyLabel(
        QString::fromUtf8(scheduler.key().data(), static_cast<qsizetype>(scheduler.key().size())));
    const std::vector<SpecializeSetting>* grids[] = {&batches, &devices};
    const QString scope = block ? QObject::tr(", block %1").arg(blockIndex) : QString();
    const QString titles[] = {
        QObject::tr("%1, batch sizes on %2%3").arg(label, settings.device, scope),
        QObject::tr("%1, devices at batch %2%3").arg(label).arg(settings.batch).arg(scope)};
    // Both matrices at once (parallel jobs), their rows too. One failing matrix (e.g. a cost
    // model error at a large batch) must not hide the other.
    std::vector<SpecializeMatrix> out(2);
    const int inner = schedulers::innerThreads(settings.threads, 2);
    ProgressSlice{control, 0.0, 1.0}.install();
    schedulers::runJobs(
        &control.search, {batches.size(), devices.size()}, settings.threads,
        [&](size_t i, schedulers::SearchControl& job) {
            try {
                out[i] = specializeOver(model, block ? &*block : nullptr, settings, scheduler,
                                        *grids[i], titles[i], inner, job);
            } catch (const Cancelled&) {
                throw;
            } catch (const std::exception& e) {
                out[i] = SpecializeMatrix{};
                out[i].title =
                    QObject::tr("%1: failed (%2)").arg(titles[i], QString::fromUtf8(e.what()));
            }
        });
    control.progress = 1.0;
    return out;
}

// The IOS DP's up-front estimate for the settings (their max part size may not be the
// loaded model's yet: the parts are built here, the model is rebuilt when the search runs).
std::optional<schedulers::SearchEstimate>
estimate(const views::LoadedModel& model, const JobSettings& settings,
         const schedulers::Scheduler& scheduler, const cost::CostModel& cost, JobControl& control) {
    if (!scheduler.hasEstimate())
        return std::nullopt;
    const schedulers::Params params =
        searchParams(settings, settings.r, settings.s, false, settings.threads);
    std::optional<ir::PreparedModel> rebuilt;
    if (settings.maxPartSize != model.maxPartSize())
        rebuilt.emplace(model.graph(), settings.maxPartSize);
    return scheduler.estimate(rebuilt ? *rebuilt : model.prepared(), params, cost,
                              EngineJobs::kEstimateCountSeconds, &control.search);
}

} // namespace

std::array<std::vector<SpecializeSetting>, 2> specializeGrids(const JobSettings& settings) {
    std::array<std::vector<SpecializeSetting>, 2> grids;
    for (int b : EngineJobs::kSpecializeBatches)
        grids[0].push_back({QObject::tr("batch %1").arg(b), settings.device, b});
    // The devices validated against measurements (`ios-sched devices`) and the selected one:
    // every bundled profile would make a matrix too wide to read and ten times the work.
    for (const cost::DeviceProfile& d : cost::bundledDevices()) {
        const QString name = QString::fromStdString(d.name);
        if (!d.validation.empty() || name.compare(settings.device, Qt::CaseInsensitive) == 0)
            grids[1].push_back({name, name, settings.batch});
    }
    if (cost::findBundledDevice(settings.device.toStdString()) == nullptr) // a profile file
        grids[1].push_back(
            {QFileInfo(settings.device).completeBaseName(), settings.device, settings.batch});
    return grids;
}

cost::CostModelSpec EngineJobs::costModelSpec(const JobSettings& settings, const QString& device,
                                              int batch) {
    // Through the engine's registry (cost_model_factory.h): the key, and for models that take
    // one ("cache:FILE", "store:URL[@DEVICE]") the measurements' file or URL.
    const std::optional<cost::CostModelEntry> entry = costModelEntry(settings.costModel);
    if (!entry)
        throw UserError("this build has no cost model '" + settings.costModel.toStdString() + "'");
    std::string text = entry->key;
    if (entry->takesArgument()) {
        const QString argument = settings.cacheFile.trimmed();
        if (argument.isEmpty())
            throw UserError("choose the measurements (a cache .json, a store .db file or a "
                            "postgresql:// URL) for the cost model '" +
                            entry->label + "'");
        text += argument.toStdString();
    }
    cost::CostModelSpec spec;
    cost::parseCostModelKind(text, spec);
    spec.simulatedFallback = settings.storeFallback && entry->can.simulatedFallback;
    spec.device = cost::loadDevice(device.toStdString());
    spec.batch = batch;
    spec.measureCache = "ios-measurements.json";
    return spec;
}

std::unique_ptr<cost::CostModel> EngineJobs::makeCostModel(const views::LoadedModel& model,
                                                           const JobSettings& settings,
                                                           const QString& device, int batch) {
    return cost::makeCostModel(costModelSpec(settings, device, batch), model.graph());
}

namespace {

// What every search job starts from: the open model, its cost model and the chosen scheduler.
struct Prepared {
    const views::LoadedModel& model;
    std::unique_ptr<cost::CostModel> cost;
    const schedulers::Scheduler& chosen;
};

Prepared prepare(const JobSettings& settings) {
    if (!settings.model)
        throw UserError("no model is open");
    const views::LoadedModel& model = *settings.model;
    auto cost = EngineJobs::makeCostModel(model, settings, settings.device, settings.batch);
    const schedulers::Scheduler* chosen = schedulerFor(settings.strategy);
    if (chosen == nullptr)
        throw UserError("unknown strategy '" + settings.strategy.toStdString() +
                        "' (expected one of " + schedulers::schedulerKeyList() + ")");
    return {model, std::move(cost), *chosen};
}

// The sequential baseline, run after the searches (its progress slice is the end).
double sequentialLatencyMs(const Prepared& p, const JobSettings& settings, JobControl& control) {
    const schedulers::Scheduler& sequential = schedulers::schedulerByName("sequential");
    return runStrategy(p.model, settings, sequential, 0, 0, false, *p.cost, {control, 1.0, 1.0})
        .latencyMs;
}

// The sequential baseline after the searches, and the cost model's description (again after
// the searches: a model that counts what it did, the store's simulated fallback, says so).
void finishSearch(const Prepared& p, const JobSettings& settings, JobControl& control,
                  SearchResult& result) {
    result.settings = settings;
    result.sequentialLatencyMs = sequentialLatencyMs(p, settings, control);
    result.costModel = QString::fromStdString(p.cost->describe());
}

} // namespace

Job<SearchResult> optimizeJob(JobSettings settings) {
    return {[settings](JobControl& control) {
        const Prepared p = prepare(settings);
        SearchResult result;
        result.runs.push_back(runStrategy(p.model, settings, p.chosen, settings.r, settings.s,
                                          settings.recordStateSpace, *p.cost, {control, 0.0, 1.0},
                                          [&](const schedulers::Outcome& outcome, RunResult& run) {
                                              addOptimizeDetails(p.model, *p.cost, outcome, run);
                                          }));
        finishSearch(p, settings, control, result);
        return result;
    }};
}

namespace {

// A saved schedule as a scheduler that searches nothing: its outcome is the document's, priced.
class SavedSchedule final : public schedulers::Scheduler {
public:
    explicit SavedSchedule(const io::ScheduleDocument& document) : document_(document) {}
    std::string_view key() const override { return "saved"; }
    std::string_view label() const override { return "Saved schedule"; }
    std::string_view description() const override { return "a schedule read from a file"; }
    std::vector<schedulers::Knob> knobs() const override {
        return {schedulers::Knob::Batch, schedulers::Knob::Device};
    }

protected:
    schedulers::Outcome search(const ir::PreparedModel& model, const schedulers::Params& params,
                               const cost::CostModel& cost,
                               schedulers::SearchControl*) const override {
        return io::pricedScheduleDocument(document_, model, cost, params);
    }

private:
    const io::ScheduleDocument& document_;
};

} // namespace

Job<SearchResult> savedScheduleJob(JobSettings settings,
                                   std::shared_ptr<const io::ScheduleDocument> document) {
    return {[settings, document](JobControl& control) {
        const Prepared p = prepare(settings);
        const SavedSchedule saved(*document);
        SearchResult result;
        result.runs.push_back(runStrategy(p.model, settings, saved, 0, 0, false, *p.cost,
                                          {control, 0.0, 1.0},
                                          [&](const schedulers::Outcome& outcome, RunResult& run) {
                                              addOptimizeDetails(p.model, *p.cost, outcome, run);
                                          }));
        result.runs.front().strategy =
            QFileInfo(QString::fromStdString(document->source)).fileName();
        result.scheduleFile = QString::fromStdString(document->source);
        finishSearch(p, settings, control, result);
        return result;
    }};
}

Job<SearchResult> compareJob(JobSettings settings) {
    return {[settings](JobControl& control) {
        const JobEstimate estimated("compare", &estimateCompareWork, settings, control);
        const Prepared p = prepare(settings);
        SearchResult result;
        const auto all = schedulers::registeredSchedulers();
        // Each outcome in time, when the cost model can say (the bars' concurrency, stages).
        const OutcomeDetails timelineOf = [&](const schedulers::Outcome& outcome, RunResult& run) {
            run.timeline = timelineIfAny(p.model, *p.cost, outcome);
        };
        // A scheduler the cost model or settings refuse gets a row saying why; the rest run.
        result.runs =
            runAll(all.size(), settings, {control, 0.0, 1.0},
                   [&](size_t i, int threads, schedulers::SearchControl& job) {
                       RunResult run;
                       const auto refused = schedulers::runOrNotApplicable([&] {
                           run = runOn(p.model, settings, *all[i], settings.r, settings.s, false,
                                       threads, *p.cost, job, timelineOf);
                       });
                       if (refused) {
                           run.strategy = QString::fromUtf8(
                               all[i]->key().data(), static_cast<qsizetype>(all[i]->key().size()));
                           run.notApplicable =
                               QString::fromStdString(refused->reason) + guiHintText(refused->hint);
                       }
                       return run;
                   });
        // Without the sequential baseline (a cache lacking its stages) the chart has no
        // speed-ups (sequentialLatencyMs 0), but the rows that ran are still shown.
        if (schedulers::runOrNotApplicable([&] { finishSearch(p, settings, control, result); }))
            result.costModel = QString::fromStdString(p.cost->describe());
        estimated.finish();
        return result;
    }};
}

Job<DiffJobResult> diffJob(JobSettings settings, DiffSource a, DiffSource b) {
    return {[settings, a, b](JobControl& control) {
        const Prepared p = prepare(settings);
        if (p.cost->kernelTimeline() == nullptr)
            throw UserError("the cost model " + p.cost->describe() +
                            " gives no kernel timeline to compare: choose the simulated or "
                            "analytic cost model");
        DiffJobResult result;
        result.settings = settings;
        result.aSource = a;
        result.bSource = b;
        const DiffSource* sources[] = {&a, &b};
        RunResult* runs[] = {&result.a, &result.b};
        for (size_t i = 0; i < 2; ++i) {
            const schedulers::Scheduler* scheduler = schedulerFor(sources[i]->key);
            if (scheduler == nullptr)
                throw UserError("unknown strategy '" + sources[i]->key.toStdString() + "'");
            *runs[i] = runStrategy(
                p.model, settings, *scheduler, settings.r, settings.s, false, *p.cost,
                {control, 0.45 * static_cast<double>(i), 0.45 * static_cast<double>(i + 1)},
                [&](const schedulers::Outcome& outcome, RunResult& run) {
                    run.timeline = timelineIfAny(p.model, *p.cost, outcome); // checked above
                });
            if (!runs[i]->timeline)
                throw UserError(sources[i]->label().toStdString() +
                                " rewrites the graph: its schedule is not of the open model");
        }
        const cost::DeviceProfile device = cost::loadDevice(settings.device.toStdString());
        const eval::ComputeBound bound = eval::computeBoundOperators(
            p.model.graph(), p.model.dags(), eval::ridgeFlopsPerByte(device));
        result.diff = std::make_shared<const eval::ScheduleDiff>(
            eval::diffSchedules(*result.a.timeline, *result.b.timeline, bound,
                                a.label().toStdString(), b.label().toStdString()));
        result.costModel = QString::fromStdString(p.cost->describe());
        control.progress = 1.0;
        return result;
    }};
}

Job<SweepResult> sweepJob(JobSettings settings) {
    return {[settings](JobControl& control) {
        const JobEstimate estimated("sweep", &estimateSweepWork, settings, control);
        const Prepared p = prepare(settings);
        // The sweep varies r and s: a strategy without them is swept as IOS-Both, the paper's
        // choice (the chart's title names the strategy that ran).
        const schedulers::Scheduler& scheduler = p.chosen.reads(schedulers::Knob::MaxGroupSize)
                                                     ? p.chosen
                                                     : schedulers::schedulerByName("ios-both");
        SweepResult result;
        for (int r = 1; r <= EngineJobs::kSweepMaxR; ++r)
            result.r.push_back(r);
        for (int s = 1; s <= EngineJobs::kSweepMaxS; ++s)
            result.s.push_back(s);
        // Cell (r, s) at index (r - 1) * kSweepMaxS + (s - 1).
        result.search.runs = runAll(
            static_cast<size_t>(EngineJobs::kSweepMaxR * EngineJobs::kSweepMaxS), settings,
            {control, 0.0, 1.0}, [&](size_t cell, int threads, schedulers::SearchControl& job) {
                const int r = static_cast<int>(cell) / EngineJobs::kSweepMaxS + 1;
                const int s = static_cast<int>(cell) % EngineJobs::kSweepMaxS + 1;
                return runOn(p.model, settings, scheduler, r, s, false, threads, *p.cost, job);
            });
        finishSearch(p, settings, control, result.search);
        estimated.finish();
        return result;
    }};
}

Job<SpecializeResult> specializeJob(JobSettings settings, int block) {
    return {[settings, block](JobControl& control) {
        const JobEstimate estimated(block < 0 ? "specialize" : "specialize:block",
                                    &estimateSpecializeWork, settings, control);
        const Prepared p = prepare(settings);
        SpecializeResult result;
        result.settings = settings;
        result.matrices = specialize(p.model, settings, p.chosen, block, control);
        result.sequentialLatencyMs = sequentialLatencyMs(p, settings, control);
        estimated.finish();
        return result;
    }};
}

Job<MemoryJobResult> memoryJob(JobSettings settings) {
    return {[settings](JobControl& control) {
        const JobEstimate estimated("memory", &estimateMemoryWork, settings, control);
        const Prepared p = prepare(settings);
        MemoryJobResult result;
        result.settings = settings;
        // Tensors sized as every outcome's peak is (Scheduler::run: the cost model's batch).
        result.report = std::make_shared<const views::MemoryReport>(
            buildMemoryReport(p.model, schedulers::memoryOptions(schedulers::Params{}, *p.cost),
                              settings.memoryDpLimit, control));
        estimated.finish();
        return result;
    }};
}

Job<ParetoResult> paretoJob(JobSettings settings) {
    return {[settings](JobControl& control) {
        const Prepared p = prepare(settings);
        const schedulers::Scheduler& scheduler = paretoScheduler(settings.strategy);
        ParetoResult result;
        result.settings = settings;
        result.strategy = QString::fromUtf8(scheduler.key().data(),
                                            static_cast<qsizetype>(scheduler.key().size()));
        ProgressSlice{control, 0.0, 1.0}.install();
        result.front = std::make_shared<const schedulers::ParetoFront>(schedulers::paretoFront(
            p.model.prepared(), scheduler,
            searchParams(settings, settings.r, settings.s, false, settings.threads), *p.cost,
            kParetoPoints, &control.search));
        return result;
    }};
}

Job<EstimateResult> estimateJob(JobSettings settings) {
    return {[settings](JobControl& control) {
        const auto start = std::chrono::steady_clock::now();
        const Prepared p = prepare(settings);
        EstimateResult result; // no sequential baseline: nothing is searched
        result.settings = settings;
        result.estimate = estimate(p.model, settings, p.chosen, *p.cost, control);
        completeOptimizeEstimate(
            result, p.model.prepared(), *p.cost,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
            control);
        return result;
    }};
}

Job<MetaflowJobResult> metaflowJob(JobSettings settings) {
    return {[settings](JobControl& control) {
        const Prepared p = prepare(settings); // the same refusals as every job
        const JobEstimate estimated("metaflow", &estimateMetaflowWork, settings, control);
        MetaflowJobResult result;
        result.settings = settings;
        result.costModel = QString::fromStdString(p.cost->describe());
        result.metaflow = runMetaflowJob(settings, control);
        result.sequentialLatencyMs = result.metaflow->rows.front().latencyMs;
        estimated.finish();
        return result;
    }};
}

} // namespace ios::gui
