// SPDX-License-Identifier: Apache-2.0
// The one place where CLI commands choose schedulers and their search parameters: every
// command that schedules declares these options (addSearchOptions) and reads them back with
// searchOptions(). The strategies are the engine's registry (schedulers/scheduler.h).
#pragma once

#include "args.h"
#include "cost/cost_model.h"
#include "io/schedule_document.h"
#include "ir/prepared_model.h"
#include "schedule/schedule.h"
#include "schedulers/scheduler.h"
#include "util/output_file.h"

#include <optional>
#include <string>
#include <vector>

namespace ios::cli {

enum class StrategyArg {
    None, // the command runs every registered scheduler (compare)
    One,  // --strategy S
    List, // --strategy S[,S...]
};

// Declares --strategy (as `strategy` says), -r, -s, --max-part-size, --endings and
// --max-seconds (search_progress.h); the help texts list the registry's keys.
void addSearchOptions(
    ArgParser& parser, StrategyArg strategy,
    const std::string& defaultStrategy = std::string(schedulers::kDefaultStrategy));

// --threads N|all (default all: every core), declared by addSearchOptions and by commands
// that search without the other options; threadsOption reads it back (1 .. kMaxThreads).
void addThreadsOption(ArgParser& parser);
int threadsOption(const ArgParser& parser);

struct SearchOptions {
    std::vector<const schedulers::Scheduler*> schedulers; // --strategy, or every registered one
    schedulers::SearchParams params;                      // params.maxPartSize: --max-part-size
    double maxSeconds = 0; // --max-seconds (0 = no limit), already set as the command's limit
};

// The options' values, checked (unknown strategy names list the valid keys; old names such as
// "both" are accepted as aliases).
SearchOptions searchOptions(const ArgParser& parser, StrategyArg strategy);

struct StrategyRun {
    schedulers::Outcome outcome;
    double latencyMs = 0; // the schedule evaluated stage by stage (eval::totalLatencyMs)
};

// Runs `scheduler` on `model` under `cost`. The search reports to `control` when given
// (progress and cancel are then the caller's), else to a SearchProgress on stderr.
StrategyRun runStrategy(const ir::PreparedModel& model, const schedulers::Scheduler& scheduler,
                        const schedulers::Params& params, const cost::CostModel& cost,
                        schedulers::SearchControl* control = nullptr);

// --schedule FILE: a saved schedule (io/schedule_document.h: IOS JSON or native model with
// stages, schedule file, stream program) shown instead of a search; declared by optimize,
// trace, streams and compare.
void addScheduleOption(ArgParser& parser);

// Declares --schedule's file as an input of `outputs` (so no output may overwrite it); call
// before loading the model. Refuses --schedule together with an explicit `--<strategyOption>`.
void planScheduleInput(const ArgParser& parser, util::OutputTransaction& outputs,
                       const std::string& strategyOption = "strategy");

// The saved schedule of --schedule read against `model`, or nullopt without the option.
std::optional<io::ScheduleDocument> scheduleOption(const ArgParser& parser,
                                                   const ir::PreparedModel& model);

// A saved schedule priced under `cost` (no search; outcome.searchSeconds 0).
StrategyRun savedScheduleRun(const io::ScheduleDocument& document, const ir::PreparedModel& model,
                             const schedulers::Params& params, const cost::CostModel& cost);

// How outputs name a saved schedule: "schedule FILE" or "schedule FILE (ios-both)".
std::string scheduleLabel(const io::ScheduleDocument& document);

} // namespace ios::cli
