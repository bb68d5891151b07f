// SPDX-License-Identifier: Apache-2.0
#include "bench_memory.h"

#include "command.h"
#include "ir/block_dag.h"
#include "ir/memory.h"
#include "model_options.h"
#include "process_usage.h"
#include "schedulers/serenity/memory_dp.h"
#include "search_progress.h"
#include "text_format.h"
#include "util/json_number.h"

#include <cstdio>
#include <iostream>

namespace ios::cli {

int benchMemory(const ArgParser& parser, const std::vector<std::string>& models, bool json) {
    namespace sy = schedulers::serenity;
    sy::DpLimits unlimited;
    unlimited.maxExpansions = 0;
    util::Json rows = util::Json::array();
    if (!json)
        std::cout << "model                blocks  largest     entries    expansions   seconds  "
                     "ns/expansion  peak memory   max RSS\n";
    for (const std::string& name : models) {
        const ir::Graph graph = loadModelArg(parser, name);
        const std::vector<ir::BlockDag> dags = ir::buildDags(graph);
        const std::vector<ir::MemoryProblem> problems =
            ir::modelMemoryProblems(graph, dags, ir::MemoryOptions{});
        uint64_t entries = 0;
        uint64_t expansions = 0;
        double seconds = 0;
        int64_t peak = 0;
        size_t largest = 0;
        schedulers::SearchControl control;
        SearchProgress progress(control, "bench memory " + graph.name);
        for (const ir::MemoryProblem& p : problems) {
            const sy::DpResult r =
                sy::memoryDp(p, sy::wholeSegment(p), sy::kNoBudget, unlimited, &control);
            entries += r.entries;
            expansions += r.expansions;
            seconds += r.seconds;
            peak = std::max(peak, r.peak);
            largest = std::max(largest, p.ops.size());
        }
        const double ns = expansions > 0 ? seconds * 1e9 / static_cast<double>(expansions) : 0;
        if (json) {
            rows.push_back({{"model", graph.name},
                            {"blocks", problems.size()},
                            {"largest_block_operators", largest},
                            {"entries", entries},
                            {"expansions", expansions},
                            {"seconds", seconds},
                            {"ns_per_expansion", ns},
                            {"peak_bytes", peak},
                            {"max_rss_kb", processUsage().maxRssKib}});
            continue;
        }
        char line[200];
        std::snprintf(
            line, sizeof line, "%-20s %6zu %8zu %11llu %13llu %9.3f %13.1f %12s %6lld MiB\n",
            graph.name.c_str(), problems.size(), largest, static_cast<unsigned long long>(entries),
            static_cast<unsigned long long>(expansions), seconds, ns, bytesText(peak).c_str(),
            static_cast<long long>(processUsage().maxRssKib / 1024));
        std::cout << line;
    }
    if (json)
        std::cout << util::dumpJson(rows, 2) << "\n";
    return kExitOk;
}

} // namespace ios::cli
