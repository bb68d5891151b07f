// SPDX-License-Identifier: Apache-2.0
#include "bench_metaflow.h"

#include "command.h"
#include "cost_options.h"
#include "model_options.h"
#include "schedulers/metaflow.h"
#include "search_progress.h"
#include "strategies.h"
#include "util/json_number.h"

#include <cstdio>
#include <iostream>

namespace ios::cli {

int benchMetaflow(const ArgParser& parser, const std::vector<std::string>& models, bool json) {
    util::Json rows = util::Json::array();
    if (!json)
        std::cout << "model              search s  expanded  generated  subst  mfKernels   "
                     "seq(G0) ms  ios(G0) ms  seq(G*) ms  ios(G*) ms\n";
    schedulers::Params params;
    params.threads = threadsOption(parser);
    for (const std::string& name : models) {
        const ir::Graph graph = loadModelArg(parser, name);
        const auto cost = makeCostModel(parser, graph);
        const ir::PreparedModel prepared(graph, parser.getInt("max-part-size", 1, 128));
        schedulers::MetaflowResult r;
        {
            schedulers::SearchControl control;
            SearchProgress progress(control, "metaflow " + graph.name);
            r = schedulers::runMetaflow(prepared, params, *cost,
                                        schedulers::metaflowPreset("paper"), &control);
        }
        std::vector<schedulers::CompositionRow> table;
        {
            schedulers::SearchControl control;
            SearchProgress progress(control, graph.name + " sequential and ios-both");
            table = schedulers::compositionTable(prepared, params, *cost, r, &control);
        }
        const rewrite::SearchResult& s = r.rewritten->search;
        if (json) {
            util::Json composition = util::Json::array();
            for (const schedulers::CompositionRow& row : table)
                composition.push_back({{"scheduler", row.scheduler},
                                       {"original_ms", row.originalMs},
                                       {"rewritten_ms", row.rewrittenMs}});
            rows.push_back({{"model", graph.name},
                            {"preset", "paper"},
                            {"cost_model", cost->describe()},
                            {"seconds", s.stats.seconds},
                            {"expanded", s.stats.expanded},
                            {"generated", s.stats.generated},
                            {"substitutions", s.history.size()},
                            {"kernels_before", r.before.mfKernels},
                            {"kernels_after", r.after.mfKernels},
                            {"composition", std::move(composition)}});
            continue;
        }
        char line[256];
        std::snprintf(
            line, sizeof line,
            "%-18s %8.3f %9llu %10llu %6zu %4lld->%-4lld %11.4f %11.4f %11.4f %11.4f\n",
            graph.name.c_str(), s.stats.seconds, static_cast<unsigned long long>(s.stats.expanded),
            static_cast<unsigned long long>(s.stats.generated), s.history.size(),
            static_cast<long long>(r.before.mfKernels), static_cast<long long>(r.after.mfKernels),
            table[0].originalMs, table[1].originalMs, table[0].rewrittenMs, table[1].rewrittenMs);
        std::cout << line << std::flush;
    }
    if (json)
        std::cout << util::dumpJson(rows, 2) << "\n";
    return kExitOk;
}

} // namespace ios::cli
