// SPDX-License-Identifier: Apache-2.0
#include "job_estimates.h"

#include "engine_jobs.h"
#include "memory_jobs.h"
#include "schedulers/search_estimate.h"
#include "schedulers/serenity/plan_estimate.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace ios::gui {

namespace {

namespace sc = schedulers;

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct Costed {
    const views::LoadedModel& model;
    std::unique_ptr<cost::CostModel> cost;
};

Costed costed(const JobSettings& settings) {
    if (!settings.model)
        throw UserError("no model is open");
    return {*settings.model,
            EngineJobs::makeCostModel(*settings.model, settings, settings.device, settings.batch)};
}

sc::TimeRange runEstimate(const sc::Scheduler& scheduler, const Costed& c,
                          const JobSettings& settings, int r, int s, int threads,
                          JobControl& control) {
    return sc::estimateRun(scheduler, c.model.prepared(),
                           searchParams(settings, r, s, false, threads), *c.cost,
                           EngineJobs::kEstimateCountSeconds, &control.search);
}

// Jobs run on `threads` threads at once: the longest alone, or the total shared out.
sc::TimeRange onThreads(const std::vector<sc::TimeRange>& runs, int threads) {
    sc::TimeRange total, longest;
    for (const sc::TimeRange& r : runs) {
        total += r;
        longest.low = std::max(longest.low, r.low);
        longest.high = std::max(longest.high, r.high);
    }
    const double n = std::max(1, threads);
    return {std::max(longest.low, total.low / n), std::max(longest.high, total.high / n)};
}

const sc::Scheduler& chosen(const JobSettings& settings) {
    const sc::Scheduler* s = schedulerFor(settings.strategy);
    if (s == nullptr)
        throw UserError("unknown strategy '" + settings.strategy.toStdString() + "'");
    return *s;
}

// Every operator priced once: the sequential baseline every search job adds.
sc::TimeRange sequentialBaseline(const Costed& c, const JobSettings& settings,
                                 JobControl& control) {
    return runEstimate(sc::schedulerByName("sequential"), c, settings, 0, 0, 1, control);
}

} // namespace

sc::TimeRange estimateOptimizeWork(const JobSettings& settings, JobControl& control) {
    const Costed c = costed(settings);
    sc::TimeRange t = runEstimate(chosen(settings), c, settings, settings.r, settings.s,
                                  settings.threads, control);
    // Timeline, program simulation and stage latencies: each operator priced a few times.
    t += sequentialBaseline(c, settings, control).scaled(2);
    return t;
}

sc::TimeRange estimateCompareWork(const JobSettings& settings, JobControl& control) {
    const Costed c = costed(settings);
    const auto all = sc::registeredSchedulers();
    const int inner = sc::innerThreads(settings.threads, all.size());
    // The IOS DP's searches (IOS-Merge, -Parallel, -Both, MetaFlow's) share the job's cost
    // model and so its canonical stage memo: their stages are priced once, by whichever meets
    // them first. Their pricing counts once (the largest), their enumerations each.
    double sharedPricing = 0;
    size_t pricedBy = 0; // the search with most to price: its weight in the progress carries it
    std::vector<sc::TimeRange> runs;
    for (const sc::Scheduler* s : all) {
        const sc::Params params = searchParams(settings, settings.r, settings.s, false, inner);
        std::optional<sc::SearchEstimate> e;
        if (s->hasEstimate())
            e = s->estimate(c.model.prepared(), params, *c.cost, EngineJobs::kEstimateCountSeconds,
                            &control.search);
        if (!e) {
            runs.push_back(runEstimate(*s, c, settings, settings.r, settings.s, inner, control));
            continue;
        }
        sc::TimeRange r = sc::rangeOf(*e);
        if (e->statesUnit == sc::SearchEstimate{}.statesUnit && e->complete) {
            const double pricing = static_cast<double>(e->stagesPriced) * e->secondsPerStage;
            if (pricing > sharedPricing) {
                sharedPricing = pricing;
                pricedBy = runs.size(); // the run this entry becomes
            }
            r = {std::max(r.low - 0.6 * pricing, e->countSeconds),
                 std::max(r.high - 0.6 * pricing, e->countSeconds)};
        }
        runs.push_back(r);
    }
    control.runSeconds.clear();
    for (const sc::TimeRange& r : runs)
        control.runSeconds.push_back(r.point());
    if (sharedPricing > 0)
        control.runSeconds[pricedBy] += 0.85 * sharedPricing;
    sc::TimeRange t = onThreads(runs, settings.threads);
    t += {0.6 * sharedPricing, 1.2 * sharedPricing};
    t += sequentialBaseline(c, settings, control).scaled(static_cast<double>(all.size()));
    return t;
}

sc::TimeRange estimateSweepWork(const JobSettings& settings, JobControl& control) {
    const Costed c = costed(settings);
    const sc::Scheduler& s = chosen(settings).reads(sc::Knob::MaxGroupSize)
                                 ? chosen(settings)
                                 : sc::schedulerByName("ios-both");
    // The corners counted; the cells between interpolated in log space (the counts grow with
    // r and s); the stages of the largest cell priced once (the cells share one memo).
    const sc::Params params =
        searchParams(settings, EngineJobs::kSweepMaxR, EngineJobs::kSweepMaxS, false, 1);
    const std::optional<sc::SearchEstimate> big = s.estimate(
        c.model.prepared(), params, *c.cost, EngineJobs::kEstimateCountSeconds, &control.search);
    if (!big)
        return runEstimate(s, c, settings, settings.r, settings.s, settings.threads, control)
            .scaled(EngineJobs::kSweepMaxR * EngineJobs::kSweepMaxS);
    const std::optional<sc::SearchEstimate> small =
        s.estimate(c.model.prepared(), searchParams(settings, 1, 1, false, 1), *c.cost,
                   EngineJobs::kEstimateCountSeconds, &control.search);
    const double hi = std::max(big->countSeconds, 1e-6);
    const double lo = std::clamp(small ? small->countSeconds : hi, 1e-6, hi);
    std::vector<sc::TimeRange> cells;
    for (int r = 1; r <= EngineJobs::kSweepMaxR; ++r)
        for (int sv = 1; sv <= EngineJobs::kSweepMaxS; ++sv) {
            const double share = 0.5 * (static_cast<double>(r - 1) / (EngineJobs::kSweepMaxR - 1) +
                                        static_cast<double>(sv - 1) / (EngineJobs::kSweepMaxS - 1));
            const double enumeration = lo * std::pow(hi / lo, share);
            cells.push_back({0.6 * enumeration, 1.5 * enumeration});
        }
    control.runSeconds.clear();
    for (const sc::TimeRange& cell : cells)
        control.runSeconds.push_back(cell.point());
    sc::TimeRange t = onThreads(cells, settings.threads);
    const double pricing = static_cast<double>(big->stagesPriced) * big->secondsPerStage;
    t += {0.5 * pricing, pricing};
    t += sequentialBaseline(c, settings, control);
    t += {big->countSeconds, big->countSeconds}; // the estimate's own counting
    return t;
}

sc::TimeRange estimateSpecializeWork(const JobSettings& settings, JobControl& control) {
    const Costed c = costed(settings);
    const sc::Scheduler& s = chosen(settings);
    const size_t ops = sc::operatorCount(c.model.prepared());
    const std::vector<sc::SampleStage> samples = sc::operatorStages(c.model.prepared());
    std::vector<sc::TimeRange> matrices;
    for (const std::vector<SpecializeSetting>& grid : specializeGrids(settings)) {
        sc::TimeRange m;
        for (const SpecializeSetting& st : grid) {
            // Each setting's search estimated under its own cost model (a batch of 128
            // simulates far more waves per stage): the count again, its stages timed there.
            JobSettings at = settings;
            at.device = st.device;
            at.batch = st.batch;
            const Costed here{c.model,
                              EngineJobs::makeCostModel(c.model, settings, st.device, st.batch)};
            m += runEstimate(s, here, at, settings.r, settings.s, 1, control);
            // Every schedule of the grid priced under this setting.
            const double cross = static_cast<double>(grid.size() * ops) *
                                 sc::secondsPerStage(*here.cost, samples, &control.search);
            m += {cross, 4 * cross};
        }
        matrices.push_back(m);
    }
    sc::TimeRange t = onThreads(matrices, settings.threads);
    t += sequentialBaseline(c, settings, control);
    return t;
}

sc::TimeRange estimateMemoryWork(const JobSettings& settings, JobControl& control) {
    const Costed c = costed(settings);
    const ir::MemoryOptions memory = sc::memoryOptions(sc::Params{}, *c.cost);
    const std::vector<ir::MemoryProblem> problems =
        ir::modelMemoryProblems(c.model.graph(), c.model.dags(), memory);
    const sc::SearchEstimate e = sc::serenity::estimatePlan(
        problems, memoryPlanOptions(memory, settings.memoryDpLimit), &control.search);
    sc::TimeRange t = sc::rangeOf(e);
    // The walks and the peak windows: linear in the operators, counting orders of ≤ 24-op
    // windows (measured on the bundled models: 1–20 µs per operator).
    size_t ops = 0;
    for (const ir::MemoryProblem& p : problems)
        ops += p.ops.size();
    t += {1e-6 * static_cast<double>(ops), 2e-5 * static_cast<double>(ops)};
    return t;
}

sc::TimeRange estimateMetaflowWork(const JobSettings& settings, JobControl& control) {
    const Costed c = costed(settings);
    sc::TimeRange t = runEstimate(sc::schedulerByName("metaflow"), c, settings, settings.r,
                                  settings.s, settings.threads, control);
    // The comparison on G0: IOS-Both, its stages mostly in the memo already (a share of the
    // least MetaFlow's run can take, which is IOS-Both's own), and sequential.
    t += {0.3 * t.low, 0.6 * t.low};
    t += sequentialBaseline(c, settings, control).scaled(2);
    return t;
}

void completeOptimizeEstimate(EstimateResult& result, const ir::PreparedModel& model,
                              const cost::CostModel& cost, double spentSeconds,
                              JobControl& control) {
    if (!result.estimate)
        return;
    sc::SearchEstimate& e = *result.estimate;
    result.raw = sc::rangeOf(e);
    // Recording the state space: 100–400 ns per transition kept (measured here on NasNet-A).
    if (result.settings.recordStateSpace) {
        const double kept = static_cast<double>(
            std::min<uint64_t>(e.transitions, sc::SearchParams{}.maxRecordedTransitions));
        result.raw += {100e-9 * kept, 400e-9 * kept};
    }
    // Timeline, program and stage latencies: every operator priced two to eight times.
    const double once = static_cast<double>(sc::operatorCount(model)) *
                        sc::secondsPerStage(cost, sc::operatorStages(model), &control.search);
    result.raw += {2 * once + spentSeconds, 8 * once + 3 * spentSeconds};
    const sc::TimeRange c =
        sc::EstimateCalibration::process().corrected(optimizeKind(result.settings), result.raw);
    e.low = c.low;
    e.high = e.complete ? c.high : 0;
    e.seconds = e.complete ? c.point() : std::max(e.seconds, c.low);
}

std::string optimizeKind(const JobSettings& settings) {
    const sc::Scheduler* s = schedulerFor(settings.strategy);
    return calibrationKind(
        "optimize:" + (s ? std::string(s->key()) : settings.strategy.toStdString()), settings);
}

void recordOptimize(const EstimateResult& estimate, double seconds) {
    if (estimate.estimate && estimate.estimate->complete)
        sc::EstimateCalibration::process().record(optimizeKind(estimate.settings), estimate.raw,
                                                  seconds);
}

std::string calibrationKind(std::string_view kind, const JobSettings& settings) {
    return std::string(kind) + " @ " +
           (settings.model ? settings.model->source().toStdString() : std::string());
}

JobEstimate::JobEstimate(std::string_view kind, Estimator estimator, const JobSettings& settings,
                         JobControl& control)
    : kind_(calibrationKind(kind, settings)), started_(now()) {
    raw_ = estimator(settings, control);
    // The job spends what the estimate just spent (its clock started before it), and up to
    // half as much again setting up what it prices with (its own cost models): measured.
    const double spent = now() - started_;
    raw_ += {spent, 1.5 * spent};
    corrected_ = sc::EstimateCalibration::process().corrected(kind_, raw_);
    control.estimateLow = corrected_.low;
    control.estimateHigh = corrected_.high;
}

void JobEstimate::finish() const {
    sc::EstimateCalibration::process().record(kind_, raw_, now() - started_);
}

} // namespace ios::gui
