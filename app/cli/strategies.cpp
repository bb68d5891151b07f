#include "strategies.h"

#include "schedule/evaluate.h"
#include "schedulers/baselines.h"
#include "schedulers/ios_dp.h"
#include "search_progress.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace ios::cli {

void checkStrategyName(const std::string& name) {
    if (std::find(std::begin(kStrategyNames), std::end(kStrategyNames), name) !=
        std::end(kStrategyNames))
        return;
    throw UserError("unknown strategy '" + name +
                    "' (expected sequential, greedy, merge, parallel or both)");
}

StrategyRun runStrategy(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                        const std::string& name, int r, int s, const cost::CostModel& cost,
                        schedulers::SearchControl* control) {
    checkStrategyName(name);
    StrategyRun run;
    if (name == "sequential" || name == "greedy") {
        const auto start = std::chrono::steady_clock::now();
        run.schedule =
            name == "sequential" ? schedulers::sequential(dags) : schedulers::greedy(dags);
        run.searchSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        run.latencyMs = schedule::totalLatencyMs(dags, run.schedule, cost);
        return run;
    }
    schedulers::Options options;
    options.strategy = *schedulers::strategyFromString(name);
    options.r = r;
    options.s = s;
    schedulers::SearchControl own;
    std::optional<SearchProgress> progress;
    if (control == nullptr) {
        control = &own;
        progress.emplace(own, graph.name + " " + name);
    }
    schedulers::Result result = schedulers::optimize(graph, options, cost, control);
    run.schedule = std::move(result.schedule);
    run.searchSeconds = result.stats.seconds;
    run.latencyMs = schedule::totalLatencyMs(dags, run.schedule, cost);
    return run;
}

} // namespace ios::cli
