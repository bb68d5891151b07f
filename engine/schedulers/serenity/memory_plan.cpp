// SPDX-License-Identifier: Apache-2.0
#include "schedulers/serenity/memory_plan.h"

#include "schedulers/serenity/cuts.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace ios::schedulers::serenity {

std::string_view toString(OrderKind k) {
    switch (k) {
    case OrderKind::File:
        return "file";
    case OrderKind::Kahn:
        return "kahn";
    case OrderKind::Serenity:
        return "serenity";
    case OrderKind::Brute:
        return "brute";
    }
    return "?";
}

std::string_view toString(Partition p) {
    switch (p) {
    case Partition::Cuts:
        return "cuts";
    case Partition::Blocks:
        return "blocks";
    case Partition::None:
        return "none";
    }
    return "?";
}

std::optional<OrderKind> orderKindFromString(std::string_view s) {
    if (s == "file" || s == "tflite")
        return OrderKind::File;
    for (OrderKind k : {OrderKind::Kahn, OrderKind::Serenity, OrderKind::Brute})
        if (s == toString(k))
            return k;
    return std::nullopt;
}

std::optional<Partition> partitionFromString(std::string_view s) {
    for (Partition p : {Partition::Cuts, Partition::Blocks, Partition::None})
        if (s == toString(p))
            return p;
    return std::nullopt;
}

void sliceProgress(SearchControl* control, SearchControl& child, uint64_t base, uint64_t size,
                   uint64_t whole) {
    if (control == nullptr)
        return;
    control->inheritInto(child);
    child.knob = WorkKnob::MemoryExpansions;
    if (!control->progress)
        return;
    child.progress = [control, base, size, whole](uint64_t done, uint64_t total) {
        const uint64_t part = total == 0 ? size : size * std::min(done, total) / total;
        control->progress(base + part, whole);
    };
}

SegmentPlan planSegment(const ir::MemoryProblem& problem, const Segment& segment,
                        const PlanOptions& options, SearchControl* control) {
    if (control != nullptr && control->cancelled())
        throw Cancelled();
    SegmentPlan plan;
    switch (options.order) {
    case OrderKind::File:
        plan.order = segment.ops;
        plan.optimal = false;
        break;
    case OrderKind::Kahn:
        plan.order = segmentKahnOrder(problem, segment);
        plan.optimal = false;
        break;
    case OrderKind::Brute:
        if (segment.ops.size() > 10)
            throw UserError("brute force takes partitions of at most 10 operators, not " +
                                std::to_string(segment.ops.size()),
                            {}, problem.name);
        plan.order = bruteForceOrder(problem, segment).order;
        break;
    case OrderKind::Serenity: {
        SoftBudgetResult r = softBudget(problem, segment, options.limits, options.resolution,
                                        options.escalations, options.exactExpansions, control);
        plan.tauTrace = std::move(r.trace);
        plan.entries = r.entries;
        plan.expansions = r.expansions;
        plan.optimal = r.optimal;
        plan.order = std::move(r.order);
        break;
    }
    }
    plan.peak = segmentPeak(problem, segment, plan.order);
    return plan;
}

void appendSegment(BlockPlan& block, const SegmentPlan& segment) {
    block.partitions.push_back(static_cast<int>(segment.order.size()));
    block.order.insert(block.order.end(), segment.order.begin(), segment.order.end());
    addSearchStatistics(block, segment);
}

void addSearchStatistics(BlockPlan& block, const SegmentPlan& segment) {
    block.tauTrace.insert(block.tauTrace.end(), segment.tauTrace.begin(), segment.tauTrace.end());
    block.entries += segment.entries;
    block.expansions += segment.expansions;
    block.optimal = block.optimal && segment.optimal;
}

BlockPlan planBlock(const ir::MemoryProblem& problem, const PlanOptions& options,
                    SearchControl* control) {
    const auto start = std::chrono::steady_clock::now();
    BlockPlan plan;
    plan.name = problem.name;
    std::vector<Segment> segments;
    if (options.partition == Partition::Cuts)
        segments = cutSegments(problem);
    else if (!problem.ops.empty())
        segments.push_back(wholeSegment(problem));
    uint64_t done = 0;
    for (const Segment& segment : segments) {
        SearchControl part;
        sliceProgress(control, part, done, segment.ops.size(), problem.ops.size());
        appendSegment(plan, planSegment(problem, segment, options, &part));
        done += segment.ops.size();
    }
    if (plan.order.size() != problem.ops.size())
        throw std::logic_error("memory plan of '" + problem.name + "' lost operators");
    plan.peak = ir::orderPeak(problem, plan.order);
    plan.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return plan;
}

MemoryPlan planMemory(const std::vector<ir::MemoryProblem>& blocks, const PlanOptions& options,
                      SearchControl* control) {
    const auto start = std::chrono::steady_clock::now();
    MemoryPlan plan;
    if (control != nullptr)
        control->knob = WorkKnob::MemoryExpansions;
    if (options.partition == Partition::None) {
        PlanOptions whole = options;
        whole.partition = Partition::Blocks;
        plan.blocks.push_back(planBlock(ir::joinedMemoryProblem(blocks), whole, control));
    } else {
        // Progress: operators planned of all blocks' operators.
        uint64_t total = 0;
        for (const ir::MemoryProblem& b : blocks)
            total += b.ops.size();
        uint64_t done = 0;
        for (const ir::MemoryProblem& b : blocks) {
            SearchControl block;
            sliceProgress(control, block, done, b.ops.size(), total);
            plan.blocks.push_back(planBlock(b, options, &block));
            done += b.ops.size();
            if (control != nullptr && control->progress)
                control->progress(done, total);
        }
    }
    for (const BlockPlan& b : plan.blocks)
        plan.peak = std::max(plan.peak, b.peak);
    plan.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return plan;
}

} // namespace ios::schedulers::serenity
