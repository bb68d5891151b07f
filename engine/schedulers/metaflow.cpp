// MetaFlow composed with a scheduler (metaflow.h): the search on G0, figures of G0 and G*, the
// `then` scheduler on G*.
#include "schedulers/metaflow.h"

#include "ir/model_summary.h"
#include "ir/validate.h"
#include "rewrite/rewrite_cost.h"
#include "util/error.h"

#include <cmath>

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

// Block `block` of `graph` alone, its enter node a placeholder of the same name and shape.
ir::Graph blockAlone(const ir::Graph& graph, int block) {
    const ir::Block& b = graph.blocks.at(static_cast<size_t>(block));
    ir::Graph sub;
    sub.name = graph.name;
    sub.input.kind = ir::NodeKind::Placeholder;
    sub.input.name = b.enterName;
    sub.input.outputShape = b.enterNode.outputShape;
    ir::Block copy = b;
    copy.enterNode = sub.input;
    sub.blocks.push_back(std::move(copy));
    ir::validateAndInferShapes(sub);
    return sub;
}

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

} // namespace

double iosBlockLatencyMs(const ir::Graph& graph, int block, int maxPartSize, const Params& params,
                         const cost::CostModel& cost) {
    const ir::Graph sub = blockAlone(graph, block);
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
    bridged.cancelled = [control, &hooks]() {
        if (control != nullptr) {
            control->checkDeadline();
            if (control->cancelled())
                return true;
        }
        return hooks.cancelled && hooks.cancelled();
    };
    bridged.progress = [control, &hooks](const rewrite::SearchProgress& p) {
        if (control != nullptr && control->progress)
            control->progress(p.stats.expanded, 0); // no total: the budget is per region
        if (hooks.progress)
            hooks.progress(p);
    };
    rewrite::RewriteCost rewriteCost(
        [&cost](const ir::Graph& g) { return costForRewrittenGraph(cost, g); });
    rewrite::SearchResult found = rewrite::metaflowSearch(g0, rewriteCost, search, bridged);

    // The schedulers after the search report in their own units (DP states): they run under
    // a child control (cancel, deadline) without the caller's progress, whose estimate would
    // mix the two.
    SearchControl inner;
    if (control != nullptr)
        control->inheritInto(inner);
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
    std::vector<CompositionRow> rows;
    for (const std::string_view key :
         {std::string_view("sequential"), std::string_view("ios-both")}) {
        const Scheduler& s = schedulerByName(key);
        CompositionRow row;
        row.scheduler = std::string(s.key());
        row.originalMs = s.run(model, params, cost, control).latencyMs;
        row.rewrittenMs = schedulerByName(result.options.then).key() == s.key()
                              ? result.then.latencyMs
                              : s.run(g.prepared, params, *g.cost, control).latencyMs;
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace ios::schedulers
