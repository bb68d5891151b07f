// SPDX-License-Identifier: Apache-2.0
#include "metaflow_job.h"

#include "engine_jobs.h"
#include "job.h"
#include "rewrite/graph_hash.h"
#include "schedulers/scheduler.h"
#include "util/error.h"

#include <QObject>
#include <QStringList>
#include <algorithm>

namespace ios::gui {

MetaflowSettings MetaflowSettings::fromPreset(const QString& name) {
    const schedulers::MetaflowOptions o = schedulers::metaflowPreset(
        name == kMetaflowArtifact ? kMetaflowArtifact.toStdString() : kMetaflowPaper.toStdString());
    MetaflowSettings s;
    s.preset = QString::fromStdString(o.preset);
    s.alpha = o.search.alpha;
    s.budget = o.search.budget;
    s.splitThreshold = o.search.splitThreshold;
    s.rules = o.search.rules;
    s.objective = QString::fromUtf8(schedulers::objectiveName(o.objective).data());
    s.then = QString::fromStdString(o.then);
    return s;
}

schedulers::MetaflowOptions MetaflowSettings::options() const {
    schedulers::MetaflowOptions o = schedulers::metaflowPreset(preset.toStdString());
    o.search.alpha = alpha;
    o.search.budget = budget;
    o.search.splitThreshold = splitThreshold;
    o.search.rules = rules;
    const auto objectiveKind = schedulers::objectiveFromName(objective.toStdString());
    if (!objectiveKind)
        throw UserError("unknown MetaFlow objective '" + objective.toStdString() +
                        "' (valid: seq, ios)");
    o.objective = *objectiveKind;
    o.then = then.toStdString();
    return o;
}

bool canFollowMetaflow(const QString& key) {
    schedulers::MetaflowOptions o;
    o.then = key.toStdString();
    try {
        schedulers::checkMetaflowOptions(o);
        return true;
    } catch (const UserError&) {
        return false;
    }
}

QString ruleList(const rewrite::RuleSet& rules) {
    QStringList out;
    for (rewrite::RuleId rule : rewrite::kAllRules)
        if (rules.on(rule)) {
            const std::string_view name = rewrite::ruleName(rule);
            out << QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
        }
    return out.isEmpty() ? QObject::tr("none") : out.join(QLatin1Char(','));
}

QString metaflowDifference(const MetaflowSettings& shown, const MetaflowSettings& current) {
    QStringList out;
    auto differ = [&out](const QString& what, const QString& a, const QString& b) {
        if (a != b)
            out << QStringLiteral("%1 %2 → %3").arg(what, a, b);
    };
    differ(QObject::tr("preset"), shown.preset, current.preset);
    differ(QStringLiteral("α"), QString::number(shown.alpha, 'f', 2),
           QString::number(current.alpha, 'f', 2));
    differ(QObject::tr("search budget"), QString::number(shown.budget),
           QString::number(current.budget));
    differ(QObject::tr("split"), QString::number(shown.splitThreshold),
           QString::number(current.splitThreshold));
    differ(QObject::tr("rules"), ruleList(shown.rules), ruleList(current.rules));
    differ(QObject::tr("objective"), shown.objective, current.objective);
    differ(QObject::tr("then"), strategyLabel(shown.then), strategyLabel(current.then));
    return out.join(QStringLiteral(", "));
}

QString metaflowStaleness(const JobSettings& shown, const JobSettings& current) {
    if (shown.model != current.model)
        return QObject::tr("another model");
    JobSettings same = current;
    same.strategy = shown.strategy;         // the main strategy is not run by this tab
    same.memoryBudget = shown.memoryBudget; // nor read by the schedulers it runs
    QStringList out;
    for (const QString& part :
         {searchDifference(shown, same), metaflowDifference(shown.metaflow, current.metaflow)})
        if (!part.isEmpty())
            out << part;
    return out.join(QStringLiteral(", "));
}

void MetaflowTrace::add(const MetaflowPoint& point) {
    const std::lock_guard lock(mutex_);
    points_.push_back(point);
}

std::vector<MetaflowPoint> MetaflowTrace::snapshot() const {
    const std::lock_guard lock(mutex_);
    return points_;
}

namespace {

QString keyOf(const schedulers::Scheduler& s) {
    return QString::fromUtf8(s.key().data(), static_cast<qsizetype>(s.key().size()));
}

MetaflowRow rowOf(const schedulers::Scheduler& scheduler, bool rewritten, double latencyMs,
                  double seconds, const schedulers::Outcome& outcome) {
    MetaflowRow row;
    row.strategy = keyOf(scheduler);
    row.rewritten = rewritten;
    row.label = QStringLiteral("%1 (%2)").arg(
        strategyLabel(row.strategy), rewritten ? QStringLiteral("G*") : QStringLiteral("G0"));
    row.latencyMs = latencyMs;
    row.searchSeconds = seconds;
    row.peakBytes = outcome.peakBytes;
    row.transitions = outcome.stats ? static_cast<double>(outcome.stats->transitions) : 0.0;
    return row;
}

std::optional<double> figure(int64_t v) {
    return v < 0 ? std::nullopt : std::optional<double>(static_cast<double>(v));
}

} // namespace

std::shared_ptr<const MetaflowResult> runMetaflowJob(const JobSettings& settings,
                                                     JobControl& control) {
    if (!settings.model)
        throw UserError("no model is open");
    const views::LoadedModel& g0 = *settings.model;
    const schedulers::MetaflowOptions options = settings.metaflow.options();
    const auto cost = EngineJobs::makeCostModel(g0, settings, settings.device, settings.batch);
    schedulers::Params params;
    params.r = settings.r;
    params.s = settings.s;
    params.endings = settings.endings;
    params.threads = settings.threads;

    // The search reports no total (its budget is per region): the bar stays busy, the live
    // chart and the "expanded · queue · best" text show how it goes.
    control.search.progress = nullptr;
    std::shared_ptr<MetaflowTrace> trace = control.metaflowTrace;
    rewrite::SearchHooks hooks;
    hooks.progress = [&control, trace](const rewrite::SearchProgress& p) {
        control.done = p.stats.expanded;
        // In whole-graph terms, so the curve falls across regions instead of restarting.
        trace->add(
            {p.stats.expanded, p.queued, p.graphBestMs, p.graphBestMs - p.bestMs + p.poppedMs});
    };
    schedulers::MetaflowResult found =
        schedulers::runMetaflow(g0.prepared(), params, *cost, options, &control.search, hooks);

    auto result = std::make_shared<MetaflowResult>();
    result->original = settings.model;
    result->trace = trace->snapshot();
    result->search = found.rewritten->search;
    result->objective = QString::fromUtf8(schedulers::objectiveName(options.objective).data());
    // The source names the graph by its hash: the graph view caches layouts by source, and two
    // searches with other settings can give other graphs of the same size.
    result->rewritten = std::make_shared<const views::LoadedModel>(
        found.rewritten->graph(),
        QStringLiteral("%1 · MetaFlow %2")
            .arg(g0.source())
            .arg(rewrite::graphHash(found.rewritten->graph()), 16, 16, QLatin1Char('0')),
        g0.maxPartSize());

    // The comparison: the engine's composition table (sequential and IOS-Both on both graphs,
    // G* priced by the cost model's forGraph, the then-scheduler's run on G* reused), G0's rows
    // first; a then-scheduler outside the table gets its own row.
    control.progress = 0.5;
    const std::vector<schedulers::CompositionRow> table =
        schedulers::compositionTable(g0.prepared(), params, *cost, found, &control.search);
    for (const bool rewritten : {false, true})
        for (const schedulers::CompositionRow& c : table)
            result->rows.push_back(rowOf(schedulers::schedulerByName(c.scheduler), rewritten,
                                         rewritten ? c.rewrittenMs : c.originalMs,
                                         rewritten ? c.rewrittenSeconds : c.originalSeconds,
                                         rewritten ? c.rewritten : c.original));
    const schedulers::Scheduler& then = schedulers::schedulerByName(options.then);
    if (std::none_of(table.begin(), table.end(), [&then](const schedulers::CompositionRow& c) {
            return c.scheduler == then.key();
        })) {
        const ir::PreparedModel& g1 = found.rewritten->prepared;
        result->rows.push_back(rowOf(
            then, true, schedulers::outcomeLatencyMs(g1.dags(), found.then, *found.rewritten->cost),
            found.then.searchSeconds, found.then));
    }
    control.progress = 1.0;

    const schedulers::GraphFigures& a = found.before;
    const schedulers::GraphFigures& b = found.after;
    const QString objective = options.objective == schedulers::MetaflowObjective::Ios
                                  ? QObject::tr("IOS-Both per block")
                                  : QObject::tr("Σ operators");
    auto count = [](int64_t v) { return static_cast<double>(v); };
    result->metrics = {
        {QObject::tr("Cost (objective: %1)").arg(objective), a.objectiveMs, b.objectiveMs, true},
        {QObject::tr("Sequential latency"), a.sequentialMs, b.sequentialMs, true},
        {QObject::tr("IOS-Both latency"), result->rows[1].latencyMs, result->rows[3].latencyMs,
         true},
        {QObject::tr("MetaFlow kernels"), count(a.mfKernels), count(b.mfKernels), false},
        {QObject::tr("Simulated kernels (sequential)"), figure(a.kernels), figure(b.kernels),
         false},
        {QObject::tr("FLOPs"), count(a.flops), count(b.flops), false},
        {QObject::tr("Operators"), count(a.operators), count(b.operators), false},
    };
    return result;
}

} // namespace ios::gui
