// SPDX-License-Identifier: Apache-2.0
#include "memory_jobs.h"

#include "schedulers/serenity/cuts.h"
#include "schedulers/serenity/memory_dp.h"
#include "schedulers/serenity/memory_plan.h"
#include "schedulers/serenity/soft_budget.h"
#include "util/error.h"

#include <chrono>
#include <numeric>

namespace ios::gui {

namespace {

namespace sy = schedulers::serenity;

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<int> fileOrder(const ir::MemoryProblem& problem) {
    std::vector<int> order(problem.ops.size());
    std::iota(order.begin(), order.end(), 0);
    return order;
}

// Serenity's order of one block partition by partition (planBlock's loop over cut segments,
// kept per partition so the view can draw each one's τ trace; tst_memory_view checks that the
// result is planBlock's).
void planPartitions(views::BlockMemory& block, const sy::PlanOptions& options, JobControl& control,
                    double begin, double end) {
    const ir::MemoryProblem& problem = block.problem;
    const double n = static_cast<double>(std::max<size_t>(problem.ops.size(), 1));
    std::vector<int> order;
    for (const sy::Segment& segment : sy::cutSegments(problem)) {
        const double from = begin + (end - begin) * static_cast<double>(order.size()) / n;
        ProgressSlice{control, from,
                      from + (end - begin) * static_cast<double>(segment.ops.size()) / n}
            .install();
        sy::SegmentPlan plan = sy::planSegment(problem, segment, options, &control.search);
        order.insert(order.end(), plan.order.begin(), plan.order.end());
        block.partitions.push_back(
            {segment.ops, plan.peak, plan.optimal, plan.expansions, std::move(plan.tauTrace)});
    }
    block.serenity = views::memorySeries(problem, ir::orderSteps(order));
}

views::PeakWindow countWindow(const ir::MemoryProblem& problem, const sy::Segment& segment) {
    views::PeakWindow w;
    w.ops = segment.ops;
    for (const auto& [peak, orders] : sy::peakDistribution(problem, segment, views::kWindowOps)) {
        w.peaks.emplace_back(peak, orders.toDouble());
        w.orders += w.peaks.back().second;
    }
    w.filePeak = sy::segmentPeak(problem, segment, segment.ops);
    return w;
}

// The window whose peaks spread widest (max / min), ties to the one with more orders.
int widestWindow(const std::vector<views::PeakWindow>& windows) {
    int best = -1;
    double bestSpread = 0, bestOrders = 0;
    for (size_t i = 0; i < windows.size(); ++i) {
        const views::PeakWindow& w = windows[i];
        if (w.peaks.empty() || w.optimum() <= 0)
            continue;
        const double spread =
            static_cast<double>(w.peaks.back().first) / static_cast<double>(w.optimum());
        if (best < 0 || spread > bestSpread || (spread == bestSpread && w.orders > bestOrders)) {
            best = static_cast<int>(i);
            bestSpread = spread;
            bestOrders = w.orders;
        }
    }
    return best;
}

} // namespace

std::vector<views::PeakWindow> peakWindows(const ir::MemoryProblem& problem,
                                           const JobControl& control) {
    std::vector<views::PeakWindow> out;
    for (const sy::Segment& segment : sy::cutSegments(problem)) {
        const int n = static_cast<int>(segment.ops.size());
        if (n < 3)
            continue; // at most two orders
        std::vector<int> starts{0};
        for (int s = views::kWindowStride; s + views::kWindowOps < n; s += views::kWindowStride)
            starts.push_back(s);
        if (n > views::kWindowOps)
            starts.push_back(n - views::kWindowOps);
        for (int s : starts) {
            if (control.cancelled())
                throw Cancelled();
            const auto first = segment.ops.begin() + s;
            sy::Segment window;
            window.before = segment.before;
            window.before.insert(window.before.end(), segment.ops.begin(), first);
            window.ops.assign(first, first + std::min(n - s, views::kWindowOps));
            out.push_back(countWindow(problem, window));
        }
    }
    return out;
}

sy::PlanOptions memoryPlanOptions(const ir::MemoryOptions& memory, uint64_t dpLimit) {
    sy::PlanOptions options;
    options.order = sy::OrderKind::Serenity;
    options.resolution = memory.bytesPerElement;
    options.limits.maxExpansions = dpLimit;
    options.escalations = views::kSerenityEscalations;
    options.exactExpansions = 0;
    return options;
}

views::MemoryReport buildMemoryReport(const views::LoadedModel& model,
                                      const ir::MemoryOptions& memory, uint64_t dpLimit,
                                      JobControl& control) {
    const auto start = std::chrono::steady_clock::now();
    views::MemoryReport report;
    report.memory = memory;
    report.dpLimit = dpLimit;
    const sy::PlanOptions options = memoryPlanOptions(memory, dpLimit);
    std::vector<ir::MemoryProblem> problems =
        ir::modelMemoryProblems(model.graph(), model.dags(), memory);
    size_t total = 0;
    for (const ir::MemoryProblem& p : problems)
        total += p.ops.size();
    size_t done = 0;
    auto share = [&](size_t ops) {
        return 0.9 * static_cast<double>(ops) / std::max<size_t>(total, 1);
    };
    for (ir::MemoryProblem& problem : problems) {
        views::BlockMemory& block = report.blocks.emplace_back();
        block.problem = std::move(problem);
        const auto blockStart = std::chrono::steady_clock::now();
        block.file = views::memorySeries(block.problem, ir::orderSteps(fileOrder(block.problem)));
        planPartitions(block, options, control, share(done),
                       share(done + block.problem.ops.size()));
        block.seconds = secondsSince(blockStart);
        done += block.problem.ops.size();
    }
    for (size_t b = 0; b < report.blocks.size(); ++b) {
        views::BlockMemory& block = report.blocks[b];
        block.windows = peakWindows(block.problem, control);
        block.defaultWindow = widestWindow(block.windows);
        control.progress =
            0.9 + 0.1 * static_cast<double>(b + 1) / static_cast<double>(report.blocks.size());
    }
    report.seconds = secondsSince(start);
    return report;
}

const schedulers::Scheduler& paretoScheduler(const QString& strategy) {
    const schedulers::Scheduler* chosen = schedulerFor(strategy);
    return chosen != nullptr && chosen->reads(schedulers::Knob::MemoryBudget)
               ? *chosen
               : schedulers::schedulerByName("ios-both");
}

} // namespace ios::gui
