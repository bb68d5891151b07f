// SPDX-License-Identifier: Apache-2.0
// The IOS DP driver: options, parts, progress totals, statistics (docs/algorithms.md §2-§3).
#include "schedulers/ios_dp.h"

#include "cost/stage_shortcuts.h"
#include "schedulers/dp_part.h"
#include "schedulers/parallel_jobs.h"
#include "schedulers/serenity/memory_dp.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <memory>

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

Options dpOptions(const SearchParams& params, Strategy strategy, const cost::CostModel& cost) {
    Options options;
    static_cast<SearchParams&>(options) = params;
    options.strategy = strategy;
    options.memory = memoryOptions(params, cost);
    return options;
}

const PartStatistics* Statistics::largestPart() const {
    const PartStatistics* best = nullptr;
    for (const PartStatistics& p : parts)
        if (best == nullptr || p.transitions > best->transitions)
            best = &p;
    return best;
}

namespace {

std::string mib(int64_t bytes) {
    const bool gib = bytes >= (int64_t{1} << 30);
    char text[64];
    std::snprintf(text, sizeof text, "%.2f %s (%lld B)",
                  static_cast<double>(bytes) / (gib ? 1073741824.0 : 1048576.0),
                  gib ? "GiB" : "MiB", static_cast<long long>(bytes));
    return text;
}

} // namespace

MemoryBudgetTooSmall::MemoryBudgetTooSmall(int64_t budget, int64_t smallestPeak)
    : UserError("no schedule fits the memory budget of " + mib(budget) +
                    ": the smallest peak any schedule of this model reaches is " +
                    mib(smallestPeak) + " (Serenity's order; ios-sched memory)",
                Hint::RaiseBudget),
      budget_(budget), smallestPeak_(smallestPeak) {}

namespace {

// The block operators of a block's parts before part p.
std::vector<int> earlierOps(const ir::BlockDag& dag, size_t p) {
    std::vector<int> ops;
    for (size_t q = 0; q < p; ++q)
        ops.insert(ops.end(), dag.parts[q].begin(), dag.parts[q].end());
    return ops;
}

// The memory ops (assembly ops included) of some block operators, ascending.
std::vector<int> memoryOps(const ir::MemoryProblem& problem, const std::vector<int>& blockOps) {
    std::vector<int> out;
    for (int b : blockOps) {
        if (problem.assemblyOf[static_cast<size_t>(b)] >= 0)
            out.push_back(problem.assemblyOf[static_cast<size_t>(b)]);
        out.push_back(problem.opOfBlockOp[static_cast<size_t>(b)]);
    }
    std::sort(out.begin(), out.end());
    return out;
}

void checkOptions(const Options& o) {
    if (o.r < 1)
        throw UserError("max group size r must be at least 1, not " + std::to_string(o.r));
    if (o.s < 1)
        throw UserError("max number of groups s must be at least 1, not " + std::to_string(o.s));
    if (o.threads < 1 || o.threads > kMaxThreads)
        throw UserError("threads must be in [1, " + std::to_string(kMaxThreads) + "], not " +
                        std::to_string(o.threads));
    if (o.memoryBudget < 0)
        throw UserError("the memory budget must be at least 0 bytes (0: none), not " +
                        std::to_string(o.memoryBudget));
    if (o.memoryBudget > 0)
        ir::checkMemoryOptions(o.memory);
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
                                {}, dags[b].ops[static_cast<size_t>(g.ops.front())]->name,
                                detail::smallerPartsHint(dags[b]));
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

// Everything a part's DP reads, in local indices: its successor sets, merge classes and the
// cost model's operator classes. Parts with equal keys (the repeated cells of NasNet-A, the
// repeated blocks of a ResNet) have the same states, transitions, stage latencies (the
// canonical stage memo's contract, cost/stage_memo.h) and so the same DP outcome; each is
// searched once. Empty when the cost model has no operator classes (every part is searched).
std::vector<std::vector<uint64_t>>
partKeys(const std::vector<std::vector<detail::PartGraph>>& graphs,
         const std::vector<cost::OperatorClasses>& blockClasses) {
    std::vector<std::vector<uint64_t>> keys;
    for (size_t b = 0; b < graphs.size(); ++b) {
        const std::vector<uint32_t>& classes = blockClasses[b].classes;
        if (blockClasses[b].memo == nullptr)
            return {};
        for (const detail::PartGraph& g : graphs[b]) {
            std::vector<uint64_t>& key = keys.emplace_back();
            key.push_back(g.ops.size());
            for (size_t i = 0; i < g.ops.size(); ++i) {
                key.push_back(static_cast<uint64_t>(g.succ[i]));
                key.push_back(static_cast<uint64_t>(g.succ[i] >> 64));
                key.push_back(static_cast<uint64_t>(static_cast<int64_t>(g.mergeClass[i])));
                key.push_back(classes[static_cast<size_t>(g.ops[i])]);
            }
        }
    }
    return keys;
}

} // namespace

int64_t smallestSchedulePeak(const ir::PreparedModel& model, const ir::MemoryOptions& memory,
                             SearchControl* control) {
    const std::vector<ir::BlockDag>& dags = model.dags();
    int64_t peak = 0;
    serenity::DpLimits limits;
    limits.maxExpansions = 0;
    for (size_t b = 0; b < dags.size(); ++b) {
        const ir::MemoryProblem problem =
            ir::blockMemoryProblem(model.graph(), dags[b], static_cast<int>(b), memory);
        for (size_t p = 0; p < dags[b].parts.size(); ++p) {
            serenity::Segment segment;
            segment.ops = memoryOps(problem, dags[b].parts[p]);
            segment.before = memoryOps(problem, earlierOps(dags[b], p));
            peak = std::max(
                peak,
                serenity::memoryDp(problem, segment, serenity::kNoBudget, limits, control).peak);
        }
    }
    return peak;
}

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
    // count. A part equal to an earlier one (partKeys) takes that part's outcome. The recorded
    // state space numbers every part's states: recording searches every part, on one thread.
    std::vector<std::pair<size_t, size_t>> parts; // (block, part)
    for (size_t b = 0; b < dags.size(); ++b)
        for (size_t p = 0; p < graphs[b].size(); ++p)
            parts.emplace_back(b, p);
    std::vector<cost::OperatorClasses> blockClasses; // once per block, for keys and pricing
    for (const ir::BlockDag& dag : dags)
        blockClasses.push_back(cost::operatorClasses(cost, dag));
    // Under a memory budget equal parts differ in what is live around them: each is searched.
    const bool budgeted = options.memoryBudget > 0;
    std::vector<ir::MemoryProblem> problems;
    if (budgeted)
        problems = ir::modelMemoryProblems(model.graph(), dags, options.memory);
    const auto keys = record != nullptr || budgeted ? std::vector<std::vector<uint64_t>>{}
                                                    : partKeys(graphs, blockClasses);
    std::vector<size_t> searched;             // parts searched, in order
    std::vector<size_t> source(parts.size()); // index into searched of each part's outcome
    std::vector<uint64_t> weights;            // progress: the states of every part it stands for
    {
        std::map<std::vector<uint64_t>, size_t> first;
        for (size_t i = 0; i < parts.size(); ++i) {
            size_t at = searched.size();
            if (!keys.empty())
                at = first.emplace(keys[i], searched.size()).first->second;
            if (at == searched.size()) {
                searched.push_back(i);
                weights.push_back(0);
            }
            source[i] = at;
            weights[at] += states[i];
        }
    }
    // One outcome per searched part, kept until every part is done (they may finish in any
    // order).
    std::vector<detail::PartOutcome> outcomes(searched.size());
    const int threads = record != nullptr ? 1 : options.threads;
    // A thread with no part left to start helps a running one, the heaviest first
    // (docs/performance.md "A part on two threads"), where the cost model allows it.
    const cost::StageShortcuts* shortcuts = cost.stageShortcuts();
    const bool helped = record == nullptr && !budgeted && shortcuts != nullptr &&
                        shortcuts->pricesWithinPartsConcurrently();
    const std::unique_ptr<detail::PartHelpers[]> helpers(new detail::PartHelpers[searched.size()]);
    const std::vector<size_t> helpOrder = jobStartOrder(weights);
    std::function<bool()> idle;
    if (helped)
        idle = [&] {
            for (size_t j : helpOrder)
                if (helpers[j].help())
                    return true;
            return false;
        };
    runJobs(
        control, weights, threads,
        [&](size_t j, SearchControl& job) {
            const size_t i = searched[j];
            const auto [b, p] = parts[i];
            detail::SearchClock partClock;
            partClock.control = &job;
            partClock.total = states[i];
            std::optional<detail::PartMemory> memory;
            if (budgeted)
                memory.emplace(problems[b], graphs[b][p].ops, earlierOps(dags[b], p));
            outcomes[j] =
                detail::searchPart(dags[b], graphs[b][p], options, cost, blockClasses[b], partClock,
                                   record, static_cast<int>(b), static_cast<int>(p),
                                   memory ? &*memory : nullptr, helped ? &helpers[j] : nullptr);
        },
        idle);

    for (const detail::PartOutcome& part : outcomes)
        if (std::isinf(part.costMs))
            throw MemoryBudgetTooSmall(options.memoryBudget,
                                       smallestSchedulePeak(model, options.memory, control));

    result.stats.schedules = BigUint(1);
    result.stats.partsSearched = searched.size();
    for (size_t b = 0; b < dags.size(); ++b)
        result.schedule.blocks.emplace_back();
    for (size_t i = 0; i < parts.size(); ++i) {
        const auto [b, p] = parts[i];
        const detail::PartOutcome& part = outcomes[source[i]];
        schedule::BlockSchedule& bs = result.schedule.blocks[b];
        for (const auto& [ops, merge] : part.chosen)
            bs.stages.push_back(detail::makeStage(graphs[b][p], ops, merge));
        result.latencyMs += part.costMs;
        PartStatistics stats = part.stats;
        if (searched[source[i]] != i) { // the outcome of an equal part: nothing searched here
            stats.block = static_cast<int>(b);
            stats.part = static_cast<int>(p);
            stats.seconds = 0;
            stats.stages = 0;
            stats.stagesPriced = 0;
        }
        Statistics& s = result.stats;
        s.states += stats.states;
        s.transitions += stats.transitions;
        s.stages += stats.stages;
        s.stagesPriced += stats.stagesPriced;
        s.schedules *= stats.schedules;
        s.schedulesSaturated |= stats.schedulesSaturated;
        s.parts.push_back(stats);
    }
    clock.done = clock.total;
    if (control != nullptr && control->progress)
        control->progress(clock.done, clock.total);
    result.stats.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace ios::schedulers
