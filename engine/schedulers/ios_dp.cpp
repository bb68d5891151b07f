// The IOS DP driver: options, parts, progress totals, statistics (docs/algorithms.md §2-§3).
#include "schedulers/ios_dp.h"

#include "schedulers/dp_part.h"
#include "util/error.h"

#include <chrono>

namespace ios::schedulers {

std::string_view toString(Strategy s) {
    switch (s) {
    case Strategy::Parallel:
        return "parallel";
    case Strategy::Merge:
        return "merge";
    case Strategy::Both:
        return "both";
    }
    return "both";
}

std::string_view toString(Endings e) {
    return e == Endings::All ? "all" : "reference";
}

std::optional<Strategy> strategyFromString(std::string_view s) {
    if (s == "parallel")
        return Strategy::Parallel;
    if (s == "merge")
        return Strategy::Merge;
    if (s == "both")
        return Strategy::Both;
    return std::nullopt;
}

std::optional<Endings> endingsFromString(std::string_view s) {
    if (s == "reference")
        return Endings::Reference;
    if (s == "all")
        return Endings::All;
    return std::nullopt;
}

const PartStatistics* Statistics::largestPart() const {
    const PartStatistics* best = nullptr;
    for (const PartStatistics& p : parts)
        if (best == nullptr || p.transitions > best->transitions)
            best = &p;
    return best;
}

namespace {

void checkOptions(const Options& o) {
    if (o.r < 1)
        throw UserError("max group size r must be at least 1, not " + std::to_string(o.r));
    if (o.s < 1)
        throw UserError("max number of groups s must be at least 1, not " + std::to_string(o.s));
}

std::vector<std::vector<detail::PartGraph>> partGraphs(const std::vector<ir::BlockDag>& dags) {
    std::vector<std::vector<detail::PartGraph>> out(dags.size());
    for (size_t b = 0; b < dags.size(); ++b)
        for (const std::vector<int>& part : dags[b].parts)
            out[b].push_back(detail::buildPartGraph(dags[b], part));
    return out;
}

// Throws UserError, naming the part, once the states of all parts pass kMaxStates.
uint64_t totalStates(const std::vector<ir::BlockDag>& dags,
                     const std::vector<std::vector<detail::PartGraph>>& graphs,
                     detail::SearchClock& clock) {
    uint64_t total = 0;
    auto tick = [&clock] { clock.tick(); };
    for (size_t b = 0; b < graphs.size(); ++b)
        for (size_t p = 0; p < graphs[b].size(); ++p) {
            const detail::PartGraph& g = graphs[b][p];
            const uint64_t left = kMaxStates - total;
            const uint64_t states = detail::countDownSets(g, g.all, tick, left + 1) - 1;
            if (states > left)
                throw UserError("the IOS DP would have more than " + std::to_string(kMaxStates) +
                                    " states (block " + std::to_string(b) + ", part " +
                                    std::to_string(p) + " of " + std::to_string(g.ops.size()) +
                                    " operators with few dependencies among them); " +
                                    detail::smallerPartsAdvice(dags[b]),
                                {}, dags[b].ops[static_cast<size_t>(g.ops.front())]->name);
            total += states;
        }
    return total;
}

} // namespace

uint64_t countStates(const ir::PreparedModel& model) {
    detail::SearchClock clock;
    return totalStates(model.dags(), partGraphs(model.dags()), clock);
}

Result optimize(const ir::PreparedModel& model, const Options& options, const cost::CostModel& cost,
                SearchControl* control) {
    checkOptions(options);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<ir::BlockDag>& dags = model.dags();
    const auto graphs = partGraphs(dags);

    detail::SearchClock clock;
    clock.control = control;
    clock.total = totalStates(dags, graphs, clock);
    clock.check();

    Result result;
    if (options.recordStateSpace) {
        result.stateSpace.emplace();
        for (const auto& block : graphs) {
            auto& ops = result.stateSpace->partOps.emplace_back();
            for (const detail::PartGraph& g : block)
                ops.push_back(g.ops);
        }
    }
    StateSpace* record = result.stateSpace ? &*result.stateSpace : nullptr;
    result.stats.schedules = BigUint(1);
    for (size_t b = 0; b < dags.size(); ++b) {
        schedule::BlockSchedule& bs = result.schedule.blocks.emplace_back();
        for (size_t p = 0; p < graphs[b].size(); ++p) {
            detail::PartSearch search(dags[b], graphs[b][p], options, cost, clock, record,
                                      static_cast<int>(b), static_cast<int>(p));
            for (schedule::Stage& st : search.run())
                bs.stages.push_back(std::move(st));
            result.latencyMs += search.costMs;
            Statistics& s = result.stats;
            s.states += search.stats.states;
            s.transitions += search.stats.transitions;
            s.schedules *= search.stats.schedules;
            s.schedulesSaturated |= search.stats.schedulesSaturated;
            s.parts.push_back(search.stats);
        }
    }
    if (control != nullptr && control->progress)
        control->progress(clock.done, clock.total);
    result.stats.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace ios::schedulers
