// SPDX-License-Identifier: Apache-2.0
// `ios-sched metaflow --alpha-sweep A1,A2,...` (docs/metaflow.md "α sweep", [MF] Fig. 10): the
// search once per α, every other option as given, and the best cost found against α.
#pragma once

#include "schedulers/metaflow.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace ios::cli {

struct AlphaSweepRow {
    double alpha = 1;
    double costMs = 0;       // G*'s cost under the search's objective
    double sequentialMs = 0; // G*'s sequential latency (= costMs for `seq`)
    int64_t mfKernels = 0;   // G*'s MetaFlow kernel count
    size_t substitutions = 0;
    uint64_t expanded = 0;
    double seconds = 0; // the search's wall time
};

struct AlphaSweep {
    schedulers::MetaflowOptions options; // the search's options but α
    schedulers::GraphFigures before;     // G0
    std::vector<AlphaSweepRow> rows;     // in the order the α were given
};

// MetaFlow's search on `model` once per α of `alphas` (options.search.alpha replaced); the
// search only: no scheduler runs on G* (options.then is set to `sequential`, the cheapest).
AlphaSweep sweepAlpha(const ir::PreparedModel& model, const schedulers::Params& params,
                      const cost::CostModel& cost, schedulers::MetaflowOptions options,
                      const std::vector<double>& alphas, schedulers::SearchControl* control);

// {"model", "cost_model", "preset", "objective", "budget", "rules", "cost_before_ms",
// "kernels_before", "sweep": [{"alpha", "cost_ms", "sequential_ms", "kernels",
// "substitutions", "expanded", "search_seconds"}]}.
nlohmann::ordered_json alphaSweepJson(const std::string& model, const std::string& costModel,
                                      const AlphaSweep& sweep);
void printAlphaSweep(std::ostream& out, const std::string& model, const std::string& costModel,
                     const AlphaSweep& sweep);

} // namespace ios::cli
