// SPDX-License-Identifier: Apache-2.0
// What the GUI asks the engine to compute and what comes back: plain value types, copied into
// the worker thread and back (docs/architecture.md "Style": plain value types).
#pragma once

#include "cost/cost_model_factory.h"
#include "cost/program_simulator.h"
#include "eval/schedule_diff.h"
#include "eval/timeline.h"
#include "loaded_model.h"
#include "memory_report.h"
#include "metaflow_job.h"
#include "schedule/schedule.h"
#include "schedule/stream_program.h"
#include "schedulers/ios_dp.h"
#include "schedulers/parallel_jobs.h"
#include "schedulers/pareto.h"
#include "schedulers/scheduler.h"
#include "schedulers/search_estimate.h"
#include "schedulers/search_params.h"
#include "schedulers/state_space_index.h"
#include "schedulers/work_estimate.h"

#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace ios::gui {

// Strategies are the engine's registered schedulers (schedulers/scheduler.h), named by key.
inline const QString kDefaultStrategy =
    QString::fromUtf8(schedulers::kDefaultStrategy.data(), schedulers::kDefaultStrategy.size());
// The registered scheduler for a key or alias ("both" → ios-both), or nullptr.
const schedulers::Scheduler* schedulerFor(const QString& keyOrAlias);
// Its label ("IOS-Both"), or the key itself when nothing is registered under it.
QString strategyLabel(const QString& key);

// Cost models are the engine's registered entries (cost/cost_model_factory.h), named in the
// GUI by their key without a trailing ':' ("simulated", "analytic", "cache", "store", ...: the
// cost-model box's data and the saved settings).
QString costModelKey(const cost::CostModelEntry& entry);
// The registered entry of a GUI key, or nullopt.
std::optional<cost::CostModelEntry> costModelEntry(const QString& key);
inline const QString kDefaultCostModel = QStringLiteral("simulated");

struct JobSettings {
    views::LoadedModelPtr model;
    QString strategy = kDefaultStrategy; // a registry key
    // Defaults: schedulers::SearchParams (search_params.h), the one place they are set.
    int r = schedulers::SearchParams{}.r;
    int s = schedulers::SearchParams{}.s;
    int maxPartSize = schedulers::SearchParams{}.maxPartSize;
    int batch = schedulers::kDefaultBatch;
    QString device = QStringLiteral("v100");
    schedulers::Endings endings = schedulers::Endings::Reference;
    QString costModel = kDefaultCostModel; // costModelKey of a registered entry
    // Entries that take an argument: "cache", the measurement cache to replay; "store", the
    // measurement store's URL (a SQLite file or postgresql://…, optionally @DEVICE).
    QString cacheFile;
    bool storeFallback = false; // "store": simulate the stages the store lacks
    bool recordStateSpace = true;
    // Independent searches and DP parts at once (same results for every count).
    int threads = schedulers::defaultThreadCount();
    // Cap on peak activation memory for the strategies that read Knob::MemoryBudget
    // (schedulers::Params::memoryBudget, bytes; 0 = none). The settings panel gives 0 when the
    // chosen strategy does not read it.
    int64_t memoryBudget = 0;
    // The Memory view's Serenity DP: expansions per run before it counts as a timeout (a low
    // limit shows the soft budget at work, Serenity Fig. 8(b)).
    uint64_t memoryDpLimit = views::kSerenityExpansions;
    // The MetaFlow tab's search (its own settings; sameSearch ignores them: the main result
    // does not depend on them).
    MetaflowSettings metaflow;
};

// The settings that decide a search's result (everything but the model, the threads, the
// state-space recording and the Memory view's DP limit): a result is current when these equal
// the panel's and its model is the open one.
bool sameSearch(const JobSettings& a, const JobSettings& b);
// What differs, as the panel says it: "batch 1 → 16, r 3 → 2"; empty when sameSearch.
QString searchDifference(const JobSettings& shown, const JobSettings& current);

// One strategy's outcome.
struct RunResult {
    QString strategy = kDefaultStrategy; // registry key
    int r = 0;
    int s = 0;
    schedule::Schedule schedule;
    // The outcome as a stream program per block (schedulers::programOf): the scheduler's own
    // (RAF's policies; ownProgram) or its stage schedule lowered (syncs and barriers).
    schedule::Program program;
    bool ownProgram = false;
    double latencyMs = 0;  // schedulers::outcomeLatencyMs under the job's cost model
    int64_t peakBytes = 0; // peak activation memory of `schedule` (Outcome::peakBytes)
    std::optional<schedulers::Statistics> stats; // searches that count (the IOS DP)
    double searchSeconds = 0;
    std::shared_ptr<const schedulers::StateSpaceIndex> stateSpace; // Optimize, recording on
    // Optimize, a program of its own (ownProgram): its segments as stages (shown_stages.h).
    schedule::Schedule segmentStages;
    // Optimize: [block][stage] of shownStages(), under the job's cost model (a program's
    // segments: their simulated latencies, which add up to latencyMs).
    std::vector<std::vector<double>> stageLatencyMs;
    // Optimize: the outcome laid out in time (schedulers::outcomeTimeline: the program's own
    // timeline for RAF's policies), when the cost model can give one.
    std::shared_ptr<const eval::Timeline> timeline;
    // Optimize: `program` simulated per block under the job's cost model (instruction times for
    // the Streams view); empty with programNote saying why when the model could not price it.
    std::vector<cost::ProgramRun> programRuns;
    QString programNote;
    // The scheduler rewrote the graph (MetaFlow, Outcome::rewritten): latency, peak memory and
    // statistics are of its schedule of G*; schedule, program, timeline and state space are left
    // empty, since the views draw the open model G0 (the MetaFlow tab shows G*).
    bool rewritten = false;
    int substitutions = 0; // how many rewrites turned G0 into G*
    // Compare: why this scheduler could not run under the cost model or settings
    // (schedulers::runOrNotApplicable, with the GUI's advice); empty when it ran.
    QString notApplicable;

    // What the views show as this result's stages (the stage tree, the graph's stage colours,
    // a selection's stage context): its program's segments when it has its own program (the
    // timeline's stage lane draws those), else its stage schedule. One outcome, never a stale
    // stage list beside a program's timeline.
    const schedule::Schedule& shownStages() const { return ownProgram ? segmentStages : schedule; }
};

// IOS paper Table 3: one schedule optimised per setting (row), run at every setting (column).
struct SpecializeMatrix {
    QString title;
    std::vector<QString> labels;
    std::vector<std::vector<double>> latencyMs; // [optimised for][executed at]
};

// What a search job gives (Optimize: one run; Compare: one per registered scheduler; Sweep:
// the grid, r-major) and what it was computed for.
struct SearchResult {
    JobSettings settings;
    QString costModel; // CostModel::describe()
    std::vector<RunResult> runs;
    double sequentialLatencyMs = 0; // for speedups
    // Optimize: the saved schedule shown instead of a search (savedScheduleJob), its file;
    // empty for a search.
    QString scheduleFile;

    // True when this result is what the current model and settings would give.
    bool matches(const views::LoadedModelPtr& model, const JobSettings& current) const {
        return settings.model == model && sameSearch(settings, current);
    }
};
using SearchResultPtr = std::shared_ptr<const SearchResult>;

// The pruning sweep (IOS paper Figure 9): cell (r, s) of the grid at runs[(r - 1) * s.size() +
// (s - 1)].
struct SweepResult {
    SearchResult search;
    std::vector<int> r, s;
};

// The specialization matrices (IOS paper Table 3): by batch size, by device.
struct SpecializeResult {
    JobSettings settings;
    std::vector<SpecializeMatrix> matrices;
    double sequentialLatencyMs = 0; // the sequential baseline at the settings
};

// The Memory view's report.
struct MemoryJobResult {
    JobSettings settings;
    std::shared_ptr<const views::MemoryReport> report;
};

// The latency–memory trade-off and the strategy searched (the chosen one when it reads the
// budget, else IOS-Both).
struct ParetoResult {
    JobSettings settings;
    std::shared_ptr<const schedulers::ParetoFront> front;
    QString strategy;
};

// The IOS DP's up-front estimate; empty for strategies that are not the IOS DP (baselines,
// RAF's policies, Serenity: they take milliseconds to seconds, no estimate).
struct EstimateResult {
    JobSettings settings;
    // Its seconds and range corrected by this process's record of the strategy's searches
    // (schedulers::EstimateCalibration); `raw` is the range before, what a run is recorded
    // against (recordOptimize).
    std::optional<schedulers::SearchEstimate> estimate;
    schedulers::TimeRange raw;
};

// The MetaFlow tab's job: rewrite, then compare schedulers on G0 and G*.
struct MetaflowJobResult {
    JobSettings settings;
    QString costModel; // CostModel::describe()
    std::shared_ptr<const MetaflowResult> metaflow;
    double sequentialLatencyMs = 0;
};

// One side of the Diff tab: what is compared. Today a registered scheduler run under the
// job's settings; a saved schedule file or a measured trace is another kind here, and the diff
// job turns each kind into a RunResult with a timeline.
struct DiffSource {
    enum class Kind { Scheduler };
    Kind kind = Kind::Scheduler;
    QString key; // the scheduler's registry key
    QString label() const { return strategyLabel(key); }
    friend bool operator==(const DiffSource&, const DiffSource&) = default;
};

// The Diff tab's job: both sides run and laid out in time, and the comparison
// (eval/schedule_diff.h) of B against A.
struct DiffJobResult {
    JobSettings settings;
    QString costModel; // CostModel::describe()
    DiffSource aSource, bSource;
    RunResult a, b;
    std::shared_ptr<const eval::ScheduleDiff> diff;
};

// Progress and cancellation as the engine sees them (the DP's SearchControl is driven from it).
// One SearchControl serves every search of a job, so a cancel reaches whichever runs.
struct JobControl {
    schedulers::SearchControl search;
    std::atomic<double> progress{0.0}; // 0..1, polled by the UI (throttled)
    // The current search's own units (the IOS DP: states finished of all states), for the
    // rate and the ETA the progress bar shows; 0 of 0 when the search reports none.
    std::atomic<uint64_t> done{0};
    std::atomic<uint64_t> total{0};
    // The job's up-front estimate in seconds (job_estimates.h), published before its work;
    // 0 of 0 until then.
    std::atomic<double> estimateLow{0};
    std::atomic<double> estimateHigh{0};
    // The estimate's seconds per run of a job of independent runs (the comparison's schedulers,
    // the sweep's cells), in run order, or empty: their weights in the job's progress. Written
    // and read on the job's thread only.
    std::vector<double> runSeconds;
    // Metaflow: the search's progress reports, for the live chart.
    std::shared_ptr<MetaflowTrace> metaflowTrace = std::make_shared<MetaflowTrace>();

    void cancel() { search.cancel = true; }
    bool cancelled() const { return search.cancel.load(); }
};

// Maps the searches' progress into [begin, end) of the job's progress bar.
struct ProgressSlice {
    JobControl& control;
    double begin;
    double end;

    // The callback holds the slice by value: it outlives this object in control.search.
    void install() const;
};

// A typed job (hotspot's job tracker): what it computes from the inputs `run` holds (copied
// into it when the job is made), on a worker thread, and its result type R. JobController::start
// hands the result to a callback typed on R on the UI thread; a new job kind is a function that
// returns a Job<ItsResult> (engine_jobs.h), never a case in a switch.
// `run` throws ios::Cancelled when control.cancelled() (within 100 ms), ios::UserError for bad
// settings.
template <class R> struct Job {
    using Result = R;
    std::function<R(JobControl&)> run;
};

} // namespace ios::gui
