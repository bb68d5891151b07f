// SPDX-License-Identifier: Apache-2.0
// MetaFlow composed with a scheduler (metaflow.h): the search on G0, figures of G0 and G*, the
// `then` scheduler on G*.
#include "schedulers/metaflow.h"

#include "ir/block_alone.h"
#include "ir/model_summary.h"
#include "ir/validate.h"
#include "rewrite/graph_hash.h"
#include "rewrite/rewrite_cost.h"
#include "schedulers/ios_dp.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace ios::schedulers {

std::string_view objectiveName(MetaflowObjective objective) {
    return objective == MetaflowObjective::Ios ? "ios" : "seq";
}

std::optional<MetaflowObjective> objectiveFromName(std::string_view name) {
    if (name == "seq")
        return MetaflowObjective::Seq;
    if (name == "ios")
        return MetaflowObjective::Ios;
    return std::nullopt;
}

MetaflowOptions metaflowPreset(std::string_view name) {
    MetaflowOptions o;
    o.preset = std::string(name);
    if (name == "paper")
        o.search = rewrite::SearchOptions::paper();
    else if (name == "artifact")
        o.search = rewrite::SearchOptions::artifact();
    else
        throw UserError("unknown MetaFlow preset '" + std::string(name) +
                        "' (valid: paper, artifact)");
    return o;
}

void checkMetaflowOptions(const MetaflowOptions& options) {
    const double alpha = options.search.alpha;
    if (!std::isfinite(alpha) || alpha < 1)
        throw UserError("MetaFlow's alpha must be a finite number ≥ 1 (1: greedy), not " +
                        std::to_string(alpha));
    if (options.search.splitThreshold < 0)
        throw UserError("MetaFlow's split threshold must be ≥ 0 (0: never split), not " +
                        std::to_string(options.search.splitThreshold));
    const Scheduler& then = schedulerByName(options.then);
    if (then.key() == "metaflow")
        throw UserError("MetaFlow's then-scheduler schedules the rewritten graph; it cannot be "
                        "metaflow itself");
}

namespace {

GraphFigures figuresOf(const ir::PreparedModel& model, const Params& params,
                       const cost::CostModel& cost, double objectiveMs, SearchControl* control) {
    GraphFigures f;
    const Outcome seq = schedulerByName("sequential").run(model, params, cost, control);
    f.sequentialMs = seq.latencyMs;
    f.objectiveMs = objectiveMs;
    f.mfKernels = rewrite::mfKernels(model.graph());
    if (cost.kernelTimeline() != nullptr)
        f.kernels = static_cast<int64_t>(outcomeTimeline(model.dags(), seq, cost).kernels.size());
    const ir::ModelSummary summary = ir::summarize(model.graph(), model.maxPartSize());
    f.flops = summary.totals.flops;
    f.operators = summary.operators;
    return f;
}

// Seconds to build one rewritten graph the size of g0: a copy validated and hashed, as
// applyMatch and the search's deduplication do for every graph they build (a lower bound).
double secondsPerGraph(const ir::Graph& g0) {
    const auto start = std::chrono::steady_clock::now();
    ir::Graph copy = g0;
    ir::validateAndInferShapes(copy);
    (void)rewrite::graphHash(copy);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string countText(uint64_t n, uint64_t cap) {
    return n > cap ? "more than " + std::to_string(cap) : std::to_string(n);
}

// The refusals before the search (docs/metaflow.md "Work bound"): the IOS DP that schedules
// G* has at most G0's states (every substitution merges operators), so G0 over the DP's
// limit is refused now rather than after the search; and the first expansion of every
// region, counted on G0, must stay within maxWork operator copies and the time limit.
void refuseUpFront(const ir::PreparedModel& model, const Scheduler& then,
                   const rewrite::SearchPlan& plan, uint64_t maxWork,
                   const SearchControl* control) {
    // Each region's graph holds the blocks it touches (a lower bound past the counting cap).
    const uint64_t work = plan.copies;
    const std::string what =
        "MetaFlow's first expansions alone would build " +
        countText(plan.candidates, rewrite::kMaxPlanCandidates) + " rewritten graphs of at most " +
        std::to_string(plan.largestGraph) + " operators (" + std::to_string(plan.regions.size()) +
        " regions, the largest " + std::to_string(plan.largestRegion) + " operators)";
    if (work > maxWork) // runMetaflow adds the task and the front end's words
        throw WorkLimitReached(what + ", more than " + std::to_string(maxWork) + " operator copies",
                               WorkKnob::Metaflow);
    const std::vector<Knob> knobs = then.knobs();
    if (std::find(knobs.begin(), knobs.end(), Knob::MaxNumGroups) != knobs.end())
        countStates(model); // cheap; throws the IOS DP's own refusal
    if (control != nullptr && control->hasDeadline()) {
        const double seconds = static_cast<double>(plan.copies) * secondsPerGraph(model.graph()) /
                               static_cast<double>(std::max<uint64_t>(1, plan.operators));
        char buf[48];
        std::snprintf(buf, sizeof buf, ", estimated at least %.1f s", seconds);
        control->refuseIfPastDeadline(seconds, what + buf, WorkKnob::Metaflow);
    }
}

} // namespace

double iosBlockLatencyMs(const ir::Graph& graph, int block, int maxPartSize, const Params& params,
                         const cost::CostModel& cost) {
    const ir::Graph sub = ir::blockAlone(graph, block);
    const ir::PreparedModel prepared(sub, maxPartSize);
    const std::unique_ptr<cost::CostModel> priced = costForRewrittenGraph(cost, sub);
    Params p = params;
    p.recordStateSpace = false;
    p.memoryBudget = 0;
    return schedulerByName("ios-both").run(prepared, p, *priced, nullptr).latencyMs;
}

MetaflowResult runMetaflow(const ir::PreparedModel& model, const Params& params,
                           const cost::CostModel& cost, const MetaflowOptions& options,
                           SearchControl* control, const rewrite::SearchHooks& hooks) {
    checkMetaflowOptions(options);
    const Scheduler& then = schedulerByName(options.then);
    const ir::Graph& g0 = model.graph();
    costForRewrittenGraph(cost, g0); // fails at once for models that cannot price G*

    rewrite::SearchOptions search = options.search;
    if (options.objective == MetaflowObjective::Ios)
        search.blockObjective = [&model, &params, &cost](const ir::Graph& g, int b) {
            return iosBlockLatencyMs(g, b, model.maxPartSize(), params, cost);
        };
    rewrite::SearchHooks bridged = hooks;
    if (control != nullptr)
        control->knob = WorkKnob::Metaflow;
    bridged.planned = [&model, &then, &options, control, &hooks](const rewrite::SearchPlan& plan) {
        refuseUpFront(model, then, plan, options.maxPlanWork, control);
        if (hooks.planned)
            hooks.planned(plan);
    };
    bridged.cancelled = [control, &hooks]() {
        if (control != nullptr) {
            control->checkDeadline();
            if (control->cancelled())
                return true;
        }
        return hooks.cancelled && hooks.cancelled();
    };
    bridged.progress = [control, &hooks](const rewrite::SearchProgress& p) {
        // Regions searched of the plan's regions.
        if (control != nullptr && control->progress)
            control->progress(p.done, p.total);
        if (hooks.progress)
            hooks.progress(p);
    };
    rewrite::RewriteCost rewriteCost(
        [&cost](const ir::Graph& g) { return costForRewrittenGraph(cost, g); });
    rewrite::SearchResult found = [&] {
        try {
            return rewrite::metaflowSearch(g0, rewriteCost, search, bridged);
        } catch (const TimeLimitReached&) {
            throw;
        } catch (const WorkLimitReached& e) { // the work and queue bounds: add task and words
            if (control == nullptr)
                throw;
            throw WorkLimitReached(control->limitMessage(e.what(), e.knob()), e.knob());
        }
    }();

    // The schedulers after the search report in their own units (DP states): they run under
    // a child control (cancel, deadline) without the caller's progress, whose estimate would
    // mix the two.
    SearchControl inner;
    if (control != nullptr) {
        control->inheritInto(inner);
        inner.knob = WorkKnob::IosPruning; // the schedulers below set their own
    }
    MetaflowResult result;
    result.options = options;
    const double beforeMs = found.costBeforeMs;
    const double afterMs = found.costAfterMs;
    auto rewritten = std::make_shared<RewrittenModel>(std::move(found), model.maxPartSize(), cost);
    result.before = figuresOf(model, params, cost, beforeMs, &inner);
    result.after = figuresOf(rewritten->prepared, params, *rewritten->cost, afterMs, &inner);
    result.then = then.run(rewritten->prepared, params, *rewritten->cost, &inner);
    result.then.rewritten = rewritten;
    result.rewritten = std::move(rewritten);
    return result;
}

std::vector<CompositionRow> compositionTable(const ir::PreparedModel& model, const Params& params,
                                             const cost::CostModel& cost,
                                             const MetaflowResult& result, SearchControl* control) {
    const RewrittenModel& g = *result.rewritten;
    // One run, timed; cancelled before it starts.
    auto run = [&](const Scheduler& s, const ir::PreparedModel& m, const cost::CostModel& c,
                   double& seconds) {
        if (control != nullptr && control->cancelled())
            throw Cancelled();
        const auto t0 = std::chrono::steady_clock::now();
        Outcome outcome = s.run(m, params, c, control);
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return outcome;
    };
    std::vector<CompositionRow> rows;
    for (const std::string_view key :
         {std::string_view("sequential"), std::string_view("ios-both")}) {
        const Scheduler& s = schedulerByName(key);
        CompositionRow row;
        row.scheduler = std::string(s.key());
        row.original = run(s, model, cost, row.originalSeconds);
        row.originalMs = row.original.latencyMs;
        if (schedulerByName(result.options.then).key() == s.key()) {
            row.rewritten = result.then;
            row.rewrittenSeconds = result.then.searchSeconds;
        } else {
            row.rewritten = run(s, g.prepared, *g.cost, row.rewrittenSeconds);
        }
        row.rewrittenMs = row.rewritten.latencyMs;
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace ios::schedulers
