// SPDX-License-Identifier: Apache-2.0
// The MetaFlow options of `ios-sched metaflow` (docs/cli.md): preset, α, budget, split
// threshold, rules, objective and then-scheduler, read into schedulers::MetaflowOptions.
#pragma once

#include "args.h"
#include "schedulers/metaflow.h"

namespace ios::cli {

// Declares --preset, --alpha, --alpha-sweep, --budget, --split-threshold, --rules,
// --objective and --then.
void addMetaflowOptions(ArgParser& parser);

// The preset's options with the given overrides, checked; a UserError naming the option for
// an unknown preset, rule, objective or scheduler, α < 1, a negative budget or threshold.
schedulers::MetaflowOptions metaflowOptions(const ArgParser& parser);

// The α of --alpha-sweep in the order given (empty without the option); a UserError for an
// entry that is no number ≥ 1, an empty list, or --alpha given as well.
std::vector<double> alphaSweepOption(const ArgParser& parser);

// "R1,R3,R6,R7": the rules `rules` enables, in table order.
std::string ruleListText(const rewrite::RuleSet& rules);

} // namespace ios::cli
