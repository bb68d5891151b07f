// SPDX-License-Identifier: Apache-2.0
#include "metaflow_sweep.h"

#include "metaflow_options.h"
#include "text_format.h"

#include <cstdio>

namespace ios::cli {

AlphaSweep sweepAlpha(const ir::PreparedModel& model, const schedulers::Params& params,
                      const cost::CostModel& cost, schedulers::MetaflowOptions options,
                      const std::vector<double>& alphas, schedulers::SearchControl* control) {
    options.then = "sequential";
    AlphaSweep sweep{options, {}, {}};
    for (const double alpha : alphas) {
        options.search.alpha = alpha;
        const schedulers::MetaflowResult r =
            schedulers::runMetaflow(model, params, cost, options, control);
        const rewrite::SearchResult& search = r.rewritten->search;
        sweep.before = r.before;
        sweep.rows.push_back({alpha, r.after.objectiveMs, r.after.sequentialMs, r.after.mfKernels,
                              search.history.size(), search.stats.expanded, search.stats.seconds});
    }
    return sweep;
}

nlohmann::ordered_json alphaSweepJson(const std::string& model, const std::string& costModel,
                                      const AlphaSweep& sweep) {
    nlohmann::ordered_json j;
    j["model"] = model;
    j["cost_model"] = costModel;
    j["preset"] = sweep.options.preset;
    j["objective"] = schedulers::objectiveName(sweep.options.objective);
    j["budget"] = sweep.options.search.budget;
    j["split_threshold"] = sweep.options.search.splitThreshold;
    j["rules"] = ruleListText(sweep.options.search.rules);
    j["cost_before_ms"] = sweep.before.objectiveMs;
    j["kernels_before"] = sweep.before.mfKernels;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const AlphaSweepRow& r : sweep.rows)
        rows.push_back({{"alpha", r.alpha},
                        {"cost_ms", r.costMs},
                        {"sequential_ms", r.sequentialMs},
                        {"kernels", r.mfKernels},
                        {"substitutions", r.substitutions},
                        {"expanded", r.expanded},
                        {"search_seconds", r.seconds}});
    j["sweep"] = std::move(rows);
    return j;
}

void printAlphaSweep(std::ostream& out, const std::string& model, const std::string& costModel,
                     const AlphaSweep& sweep) {
    const rewrite::SearchOptions& o = sweep.options.search;
    out << model << ": MetaFlow alpha sweep, preset " << sweep.options.preset << " (budget "
        << o.budget << ", split " << o.splitThreshold << ", rules " << ruleListText(o.rules)
        << ", objective " << schedulers::objectiveName(sweep.options.objective) << "), "
        << costModel << "\n";
    out << "before: cost " << fixed(sweep.before.objectiveMs, 4) << " ms, "
        << sweep.before.mfKernels << " kernels (MetaFlow)\n";
    char line[200];
    std::snprintf(line, sizeof line, "%8s %14s %9s %8s %14s %9s %10s\n", "alpha", "best cost ms",
                  "speed-up", "kernels", "substitutions", "expanded", "search s");
    out << line;
    for (const AlphaSweepRow& r : sweep.rows) {
        const double speedup = r.costMs > 0 ? sweep.before.objectiveMs / r.costMs : 0;
        std::snprintf(line, sizeof line, "%8s %14s %9s %8lld %14zu %9llu %10s\n",
                      fixed(r.alpha, 3).c_str(), fixed(r.costMs, 4).c_str(),
                      (fixed(speedup, 3) + "x").c_str(), static_cast<long long>(r.mfKernels),
                      r.substitutions, static_cast<unsigned long long>(r.expanded),
                      fixed(r.seconds, 3).c_str());
        out << line;
    }
}

} // namespace ios::cli
