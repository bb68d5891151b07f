// SPDX-License-Identifier: Apache-2.0
// `ios-sched bench --memory`: the exact Serenity DP's cost per model (docs/performance.md).
#pragma once

#include "args.h"

#include <string>
#include <vector>

namespace ios::cli {

// Runs the unbudgeted, unlimited memory DP on every block of each model (one thread) and
// prints entries, expansions, seconds, ns per expansion and the process's peak RSS.
int benchMemory(const ArgParser& parser, const std::vector<std::string>& models, bool json);

} // namespace ios::cli
