// SPDX-License-Identifier: Apache-2.0
// MetaFlow composed with a scheduler (docs/metaflow.md "Scheduler and CLI", "Composition with
// IOS"): the relaxed backtracking search of [MF] §3–§4 rewrites the model's graph, then a
// registered scheduler (default IOS-both) schedules the rewritten graph G*. The front ends
// (the `metaflow` scheduler, `ios-sched metaflow`, the GUI's MetaFlow panel) all run
// runMetaflow and show its MetaflowResult.
#pragma once

#include "cost/cost_model.h"
#include "ir/graph.h"
#include "ir/prepared_model.h"
#include "rewrite/backtracking.h"
#include "schedulers/rewritten_model.h"
#include "schedulers/scheduler.h"
#include "schedulers/search_control.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::schedulers {

// What the search minimises: `seq`, the sum of one-operator stage latencies (MetaFlow's own
// cost, [MF] §4.1), or `ios`, the sum over blocks of IOS-both's latency of the block with the
// run's r and s (docs/metaflow.md §2; blocks are then never split).
enum class MetaflowObjective : uint8_t { Seq, Ios };
std::string_view objectiveName(MetaflowObjective objective); // "seq", "ios"
std::optional<MetaflowObjective> objectiveFromName(std::string_view name);

// The most operator copies the first expansion of every region may build (SearchPlan's
// candidates × G0's operators) before runMetaflow refuses the search up front: about 2^20
// candidates on a graph of 2^10 operators, minutes of work.
inline constexpr uint64_t kMaxPlanWork = uint64_t{1} << 30;

struct MetaflowOptions {
    std::string preset = "paper"; // the preset `search` started from, for reports
    rewrite::SearchOptions search = rewrite::SearchOptions::paper();
    MetaflowObjective objective = MetaflowObjective::Seq;
    std::string then = "ios-both"; // the registry key (or alias) run on G*
    uint64_t maxPlanWork = kMaxPlanWork;
};

// "paper" ([MF] §6.1: α 1.05, budget 100 000 per subgraph, split above 30) or "artifact"
// ([mf-code]: α 1.01, budget 300, one search); a UserError naming both for anything else.
MetaflowOptions metaflowPreset(std::string_view name);
inline constexpr std::string_view kMetaflowPresets[] = {"paper", "artifact"};

// Checks options a user typed (α ≥ 1 and finite, split threshold ≥ 0, a known `then`
// scheduler that does not itself rewrite the graph); a UserError saying which is wrong.
void checkMetaflowOptions(const MetaflowOptions& options);

// The figures MetaFlow's paper reports for a graph (Table 2, Fig. 11).
struct GraphFigures {
    double sequentialMs = 0; // cost_seq: the sequential schedule's latency
    double objectiveMs = 0;  // under the search's objective (= sequentialMs for `seq`)
    int64_t mfKernels = 0;   // MetaFlow's kernel count (rewrite::mfKernels)
    int64_t kernels = -1;    // kernels the cost model launches sequentially (-1: it has none)
    int64_t flops = 0;       // batch 1
    int64_t operators = 0;   // schedule operators
};

struct MetaflowResult {
    MetaflowOptions options;
    // G*, its prepared model and cost model, the substitution history and search statistics
    // (rewritten->search).
    std::shared_ptr<const RewrittenModel> rewritten;
    GraphFigures before; // G0
    GraphFigures after;  // G*
    Outcome then;        // options.then on G* (then.rewritten == rewritten)
};

// The `ios` objective: IOS-both's latency (params' r, s, endings) of block `block` of
// `graph`, the block scheduled alone under cost::forGraph(cost, graph). Deterministic.
double iosBlockLatencyMs(const ir::Graph& graph, int block, int maxPartSize, const Params& params,
                         const cost::CostModel& cost);

// MetaFlow's search on model.graph() under `cost` (which must offer GraphRetargeting), then the
// `then` scheduler on G* with the same params. Progress goes to control->progress (the
// regions searched of the counting pass's regions), cancel is polled once per expansion
// (ios::Cancelled). Before the search (counting pass, rewrite::planSearch) it refuses with
// the IOS DP's own error when `then` runs the IOS DP and G0 has more states than it takes,
// and with WorkLimitReached (knob Metaflow) when the first expansions would build more than
// options.maxPlanWork operator copies or (TimeLimitReached) could not end before control's
// deadline; the search's queue is bounded by SearchOptions::maxQueuedOperators (WorkLimitReached);
// hooks.progress and hooks.enqueued are passed to the search (the GUI's live chart),
// hooks.cancelled is also polled. Deterministic.
MetaflowResult runMetaflow(const ir::PreparedModel& model, const Params& params,
                           const cost::CostModel& cost, const MetaflowOptions& options,
                           SearchControl* control = nullptr,
                           const rewrite::SearchHooks& hooks = {});

// MetaFlow's question, [IOS] §6 next to [MF] §6: the same scheduler on the original and on
// the rewritten graph. Latencies under the cost model the search used.
struct CompositionRow {
    std::string scheduler;       // registry key
    double originalMs = 0;       // on G0
    double rewrittenMs = 0;      // on G*
    Outcome original;            // the run on G0
    Outcome rewritten;           // the run on G* (result.then when reused)
    double originalSeconds = 0;  // wall time of the run on G0
    double rewrittenSeconds = 0; // and on G* (reused: then's searchSeconds)
};
// Sequential and IOS-both on G0 and G* (the run on G* of `result.then` is reused when `then`
// is one of them). ios::Cancelled before a run when control is cancelled.
std::vector<CompositionRow> compositionTable(const ir::PreparedModel& model, const Params& params,
                                             const cost::CostModel& cost,
                                             const MetaflowResult& result,
                                             SearchControl* control = nullptr);

} // namespace ios::schedulers
