// SPDX-License-Identifier: Apache-2.0
#include "schedulers/serenity/rewrite_plan.h"

#include "ir/block_dag.h"
#include "schedulers/serenity/cuts.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace ios::schedulers::serenity {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The problems of a (rewritten) graph: one per block, or the joined model.
std::vector<ir::MemoryProblem> problemsOf(const GraphRewrite& rewrite,
                                          const ir::MemoryOptions& memory, bool joined) {
    const std::vector<ir::BlockDag> dags = ir::buildDags(rewrite.graph);
    std::vector<ir::MemoryProblem> blocks = rewrittenMemoryProblems(rewrite, dags, memory);
    if (joined)
        return {ir::joinedMemoryProblem(blocks)};
    return blocks;
}

// Ops by name: orders move between the unrewritten, fully rewritten and final problems by name.
std::unordered_map<std::string, int> opsByName(const ir::MemoryProblem& p) {
    std::unordered_map<std::string, int> out;
    for (size_t i = 0; i < p.ops.size(); ++i)
        if (!out.emplace(p.ops[i].name, static_cast<int>(i)).second)
            throw UserError("two operators are named '" + p.ops[i].name +
                                "'; rewriting needs unique names",
                            {}, p.name);
    return out;
}

// One partition's decision under `best`: the order kept, by op name.
struct PartChoice {
    std::vector<std::string> order;
    bool rewritten = false;
};

struct ProblemChoice {
    std::vector<PartChoice> parts;
    std::vector<size_t> kept; // the model's match indices applied
    BlockPlan searches;       // statistics of every search run (order unused)
    int64_t originalPeak = 0;
};

// Partitions of `p` (rewrite_plan.h): segment index ranges [first, last].
std::vector<std::pair<int, int>>
partitions(const ir::MemoryProblem& p, const std::vector<Segment>& segments,
           const std::vector<int>& convOps,
           const std::unordered_map<std::string, int>& inRewritten) {
    std::vector<int> segmentOf(p.ops.size(), 0);
    for (size_t s = 0; s < segments.size(); ++s)
        for (int op : segments[s].ops)
            segmentOf[static_cast<size_t>(op)] = static_cast<int>(s);
    std::vector<char> joinNext(segments.size(), 0);
    for (int y : convOps) {
        int first = segmentOf[static_cast<size_t>(y)];
        // Removed preds, transitively: the chain, the concat, the assembly.
        std::vector<int> removed{y};
        while (!removed.empty()) {
            const int r = removed.back();
            removed.pop_back();
            for (int q : p.preds[static_cast<size_t>(r)])
                if (inRewritten.count(p.ops[static_cast<size_t>(q)].name) == 0) {
                    first = std::min(first, segmentOf[static_cast<size_t>(q)]);
                    removed.push_back(q);
                }
        }
        for (int s = first; s < segmentOf[static_cast<size_t>(y)]; ++s)
            joinNext[static_cast<size_t>(s)] = 1;
    }
    std::vector<std::pair<int, int>> out;
    for (int s = 0; s < static_cast<int>(segments.size()); ++s)
        if (s == 0 || joinNext[static_cast<size_t>(s - 1)] == 0)
            out.emplace_back(s, s);
        else
            out.back().second = s;
    return out;
}

std::vector<std::string> namesOf(const ir::MemoryProblem& p, const std::vector<int>& order) {
    std::vector<std::string> names;
    names.reserve(order.size());
    for (int op : order)
        names.push_back(p.ops[static_cast<size_t>(op)].name);
    return names;
}

// `best` on one problem: `p` unrewritten, `rewritten` with every match of `matchIndices`.
ProblemChoice decide(const ir::MemoryProblem& p, const ir::MemoryProblem& rewritten,
                     const std::vector<RewriteMatch>& matches,
                     const std::vector<size_t>& matchIndices, const PlanOptions& options,
                     SearchControl* control) {
    const std::unordered_map<std::string, int> inP = opsByName(p);
    const std::unordered_map<std::string, int> inRewritten = opsByName(rewritten);
    std::vector<Segment> segments;
    if (options.partition == Partition::Cuts)
        segments = cutSegments(p);
    else if (!p.ops.empty())
        segments.push_back(wholeSegment(p));
    std::vector<int> convOps;
    for (size_t m : matchIndices)
        convOps.push_back(inP.at(matches[m].conv.name));
    ProblemChoice out;
    std::vector<int> before, beforeRewritten; // ops of the earlier partitions
    // Progress in operators of p and of `rewritten`: each partition's plain search, then its
    // rewritten one.
    const uint64_t whole = p.ops.size() + rewritten.ops.size();
    for (const auto& [first, last] : partitions(p, segments, convOps, inRewritten)) {
        Segment part{{}, before};
        for (int s = first; s <= last; ++s) {
            const std::vector<int>& ops = segments[static_cast<size_t>(s)].ops;
            part.ops.insert(part.ops.end(), ops.begin(), ops.end());
        }
        SearchControl plainPart;
        sliceProgress(control, plainPart, before.size() + beforeRewritten.size(), part.ops.size(),
                      whole);
        const SegmentPlan plain = planSegment(p, part, options, &plainPart);
        addSearchStatistics(out.searches, plain);
        out.originalPeak = std::max(out.originalPeak, plain.peak);

        Segment partRewritten{{}, beforeRewritten};
        for (int op : part.ops)
            if (auto it = inRewritten.find(p.ops[static_cast<size_t>(op)].name);
                it != inRewritten.end())
                partRewritten.ops.push_back(it->second);
        std::vector<size_t> here;
        for (size_t i = 0; i < matchIndices.size(); ++i)
            if (std::binary_search(part.ops.begin(), part.ops.end(), convOps[i])) {
                here.push_back(matchIndices[i]);
                const RewriteMatch& m = matches[matchIndices[i]];
                for (const std::string& member : m.members)
                    partRewritten.ops.push_back(inRewritten.at(member));
                for (const std::string& copy : m.copies)
                    partRewritten.ops.push_back(inRewritten.at(copy));
            }
        std::sort(partRewritten.ops.begin(), partRewritten.ops.end());

        PartChoice choice{namesOf(p, plain.order), false};
        if (!here.empty()) {
            SearchControl rewrittenPart;
            sliceProgress(control, rewrittenPart,
                          before.size() + beforeRewritten.size() + part.ops.size(),
                          partRewritten.ops.size(), whole);
            const SegmentPlan rw = planSegment(rewritten, partRewritten, options, &rewrittenPart);
            addSearchStatistics(out.searches, rw);
            if (rw.peak < plain.peak) {
                choice = {namesOf(rewritten, rw.order), true};
                out.kept.insert(out.kept.end(), here.begin(), here.end());
            }
        }
        out.parts.push_back(std::move(choice));
        before.insert(before.end(), part.ops.begin(), part.ops.end());
        beforeRewritten.insert(beforeRewritten.end(), partRewritten.ops.begin(),
                               partRewritten.ops.end());
    }
    return out;
}

// The final plan of a decided problem: the kept orders mapped into the final problem.
BlockPlan assemble(const ir::MemoryProblem& final, ProblemChoice choice) {
    BlockPlan plan = std::move(choice.searches);
    plan.name = final.name;
    const std::unordered_map<std::string, int> index = opsByName(final);
    for (const PartChoice& part : choice.parts) {
        for (const std::string& name : part.order)
            plan.order.push_back(index.at(name));
        plan.partitions.push_back(static_cast<int>(part.order.size()));
    }
    if (plan.order.size() != final.ops.size())
        throw std::logic_error("rewritten plan of '" + final.name + "' lost operators");
    plan.peak = ir::orderPeak(final, plan.order);
    if (plan.peak > choice.originalPeak)
        throw std::logic_error("rewritten plan of '" + final.name + "' raised the peak");
    return plan;
}

// A finished plan's statistics folded into another's (the unrewritten search under `all`).
void addStatistics(BlockPlan& to, const BlockPlan& from) {
    SegmentPlan search;
    search.tauTrace = from.tauTrace;
    search.entries = from.entries;
    search.expansions = from.expansions;
    search.optimal = from.optimal;
    addSearchStatistics(to, search);
}

} // namespace

std::string_view toString(RewriteMode mode) {
    switch (mode) {
    case RewriteMode::None:
        return "none";
    case RewriteMode::All:
        return "all";
    case RewriteMode::Best:
        return "best";
    }
    return "?";
}

std::optional<RewriteMode> rewriteModeFromString(std::string_view s) {
    for (RewriteMode m : {RewriteMode::None, RewriteMode::All, RewriteMode::Best})
        if (s == toString(m))
            return m;
    return std::nullopt;
}

RewrittenPlan planRewrittenMemory(const ir::Graph& graph, const ir::MemoryOptions& memory,
                                  const PlanOptions& options, RewriteMode mode,
                                  SearchControl* control) {
    const auto start = Clock::now();
    const bool joined = options.partition == Partition::None;
    PlanOptions perProblem = options;
    if (joined)
        perProblem.partition = Partition::Blocks;
    const std::vector<RewriteMatch> matches = findRewrites(graph);

    RewrittenPlan out;
    out.rewrite = rewriteGraph(graph, {});
    out.original = problemsOf(out.rewrite, memory, joined);
    const size_t n = out.original.size();
    std::vector<std::vector<size_t>> matchesOf(n); // per problem: model match indices
    for (size_t m = 0; m < matches.size(); ++m)
        matchesOf[joined ? 0 : static_cast<size_t>(matches[m].block)].push_back(m);
    for (const auto& list : matchesOf)
        out.matches.push_back(static_cast<int>(list.size()));
    out.rewrites.assign(n, 0);
    out.plan.blocks.resize(n);
    out.originalPeaks.assign(n, 0);

    GraphRewrite everything; // every match applied (all, best)
    std::vector<ir::MemoryProblem> all;
    if (mode != RewriteMode::None && !matches.empty()) {
        everything = rewriteGraph(graph, matches);
        all = problemsOf(everything, memory, joined);
    }
    std::vector<ProblemChoice> choices(n);
    std::vector<size_t> kept;
    std::vector<double> seconds(n, 0);
    // Progress: operators planned of every problem's, rewritten ones included.
    std::vector<uint64_t> work(n, 0);
    uint64_t total = 0;
    for (size_t j = 0; j < n; ++j) {
        work[j] = out.original[j].ops.size();
        if (mode != RewriteMode::None && !matchesOf[j].empty())
            work[j] += all[j].ops.size();
        total += work[j];
    }
    if (control != nullptr)
        control->knob = WorkKnob::MemoryExpansions;
    uint64_t done = 0;
    for (size_t j = 0; j < n; ++j) {
        const auto problemStart = Clock::now();
        SearchControl problem;
        sliceProgress(control, problem, done, work[j], total);
        done += work[j];
        if (mode == RewriteMode::Best && !matchesOf[j].empty()) {
            choices[j] =
                decide(out.original[j], all[j], matches, matchesOf[j], perProblem, &problem);
            out.originalPeaks[j] = choices[j].originalPeak;
            kept.insert(kept.end(), choices[j].kept.begin(), choices[j].kept.end());
        } else {
            const uint64_t plainOps = out.original[j].ops.size();
            SearchControl part;
            sliceProgress(&problem, part, 0, plainOps, work[j]);
            const BlockPlan plain = planBlock(out.original[j], perProblem, &part);
            out.originalPeaks[j] = plain.peak;
            out.plan.blocks[j] = plain;
            if (mode == RewriteMode::All && !matchesOf[j].empty()) {
                SearchControl rewritten;
                sliceProgress(&problem, rewritten, plainOps, work[j] - plainOps, work[j]);
                out.plan.blocks[j] = planBlock(all[j], perProblem, &rewritten);
                addStatistics(out.plan.blocks[j], plain);
                kept.insert(kept.end(), matchesOf[j].begin(), matchesOf[j].end());
            }
        }
        seconds[j] = secondsSince(problemStart);
        if (control != nullptr && control->progress)
            control->progress(done, total);
    }

    std::sort(kept.begin(), kept.end());
    std::vector<RewriteMatch> applied;
    for (size_t m : kept) {
        applied.push_back(matches[m]);
        ++out.rewrites[joined ? 0 : static_cast<size_t>(matches[m].block)];
    }
    if (applied.empty()) {
        out.problems = out.original;
    } else if (mode == RewriteMode::All) {
        out.rewrite = std::move(everything);
        out.problems = std::move(all);
    } else {
        out.rewrite = rewriteGraph(graph, applied);
        out.problems = problemsOf(out.rewrite, memory, joined);
    }
    for (size_t j = 0; j < n; ++j) {
        if (mode == RewriteMode::Best && !matchesOf[j].empty())
            out.plan.blocks[j] = assemble(out.problems[j], std::move(choices[j]));
        out.plan.blocks[j].seconds = seconds[j];
        out.plan.peak = std::max(out.plan.peak, out.plan.blocks[j].peak);
        out.originalPeak = std::max(out.originalPeak, out.originalPeaks[j]);
    }
    out.plan.seconds = secondsSince(start);
    return out;
}

} // namespace ios::schedulers::serenity
