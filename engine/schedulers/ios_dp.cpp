// The IOS DP driver: options, parts, progress totals, statistics (docs/algorithms.md §2-§3).
#include "schedulers/ios_dp.h"

#include "schedulers/dp_part.h"
#include "schedulers/parallel_jobs.h"
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
    if (o.threads < 1 || o.threads > kMaxThreads)
        throw UserError("threads must be in [1, " + std::to_string(kMaxThreads) + "], not " +
                        std::to_string(o.threads));
}

std::vector<std::vector<detail::PartGraph>> partGraphs(const std::vector<ir::BlockDag>& dags) {
    std::vector<std::vector<detail::PartGraph>> out(dags.size());
    for (size_t b = 0; b < dags.size(); ++b)
        for (const std::vector<int>& part : dags[b].parts)
            out[b].push_back(detail::buildPartGraph(dags[b], part));
    return out;
}

// States of every part (block by block, part by part). Throws UserError, naming the part,
// once the states of all parts pass kMaxStates.
std::vector<uint64_t> partStates(const std::vector<ir::BlockDag>& dags,
                                 const std::vector<std::vector<detail::PartGraph>>& graphs,
                                 detail::SearchClock& clock) {
    std::vector<uint64_t> out;
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
            out.push_back(states);
        }
    return out;
}

uint64_t sum(const std::vector<uint64_t>& v) {
    uint64_t total = 0;
    for (uint64_t x : v)
        total += x;
    return total;
}

// One part's outcome, kept until every part is done (they may finish in any order).
struct PartOutcome {
    std::vector<schedule::Stage> stages;
    double costMs = 0;
    PartStatistics stats;
};

} // namespace

uint64_t countStates(const ir::PreparedModel& model) {
    detail::SearchClock clock;
    return sum(partStates(model.dags(), partGraphs(model.dags()), clock));
}

Result optimize(const ir::PreparedModel& model, const Options& options, const cost::CostModel& cost,
                SearchControl* control) {
    checkOptions(options);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<ir::BlockDag>& dags = model.dags();
    const auto graphs = partGraphs(dags);

    detail::SearchClock clock;
    clock.control = control;
    const std::vector<uint64_t> states = partStates(dags, graphs, clock);
    clock.total = sum(states);
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

    // Parts are independent: they run on up to options.threads threads, each with its own
    // memo, and are put together in order below, so the result does not depend on the thread
    // count. The recorded state space numbers states across parts: recording runs on one.
    std::vector<std::pair<size_t, size_t>> parts; // (block, part)
    for (size_t b = 0; b < dags.size(); ++b)
        for (size_t p = 0; p < graphs[b].size(); ++p)
            parts.emplace_back(b, p);
    std::vector<PartOutcome> outcomes(parts.size());
    const int threads = record != nullptr ? 1 : options.threads;
    runJobs(control, states, threads, [&](size_t i, SearchControl& job) {
        const auto [b, p] = parts[i];
        detail::SearchClock partClock;
        partClock.control = &job;
        partClock.total = states[i];
        detail::PartSearch search(dags[b], graphs[b][p], options, cost, partClock, record,
                                  static_cast<int>(b), static_cast<int>(p));
        outcomes[i].stages = search.run();
        outcomes[i].costMs = search.costMs;
        outcomes[i].stats = search.stats;
    });

    result.stats.schedules = BigUint(1);
    for (size_t b = 0; b < dags.size(); ++b)
        result.schedule.blocks.emplace_back();
    for (size_t i = 0; i < parts.size(); ++i) {
        PartOutcome& part = outcomes[i];
        schedule::BlockSchedule& bs = result.schedule.blocks[parts[i].first];
        for (schedule::Stage& st : part.stages)
            bs.stages.push_back(std::move(st));
        result.latencyMs += part.costMs;
        Statistics& s = result.stats;
        s.states += part.stats.states;
        s.transitions += part.stats.transitions;
        s.stages += part.stats.stages;
        s.stagesPriced += part.stats.stagesPriced;
        s.schedules *= part.stats.schedules;
        s.schedulesSaturated |= part.stats.schedulesSaturated;
        s.parts.push_back(part.stats);
    }
    clock.done = clock.total;
    if (control != nullptr && control->progress)
        control->progress(clock.done, clock.total);
    result.stats.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace ios::schedulers
