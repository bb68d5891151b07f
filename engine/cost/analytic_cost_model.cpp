// SPDX-License-Identifier: Apache-2.0
#include "cost/analytic_cost_model.h"

#include "cost/cost_model_factory.h"
#include "schedule/merge.h"
#include "util/error.h"

#include <algorithm>
#include <cstdio>

namespace ios::cost {

AnalyticCostModel::AnalyticCostModel(const ir::Graph& graph, AnalyticParams params)
    : params_(params), index_(graph) {
    if (params_.batch < 1)
        throw UserError("batch size must be at least 1, not " + std::to_string(params_.batch));
    precompute(graph);
}

AnalyticCostModel::AnalyticCostModel(const ir::Graph& graph, const AnalyticCostModel& sharing)
    : params_(sharing.params_), index_(graph),
      canonical_(CanonicalStages::SharedWith{sharing.canonical_}) {
    precompute(graph);
}

std::unique_ptr<CostModel> AnalyticCostModel::forGraph(const ir::Graph& graph) const {
    return std::unique_ptr<CostModel>(new AnalyticCostModel(graph, *this));
}

void AnalyticCostModel::precompute(const ir::Graph& graph) {
    for (const ir::Block& b : graph.blocks)
        for (const ir::Node* op : b.operators())
            metrics_.emplace(op, ir::computeMetrics(*op, index_));
    for (const ir::Block& b : graph.blocks) {
        const std::vector<const ir::Node*> ops = b.operators();
        std::vector<double> ms;
        for (const ir::Node* op : ops)
            ms.push_back(operatorMs(*op));
        if (!ops.empty())
            blockOpMs_.emplace(ops.front(), std::move(ms));
    }
}

const ir::OperatorMetrics& AnalyticCostModel::metricsOf(const ir::Node& node) const {
    auto it = metrics_.find(&node);
    if (it == metrics_.end())
        throw std::logic_error("analytic cost model: operator '" + node.name +
                               "' is not in the model it was built for");
    return it->second;
}

// Activations scale with the batch; weights are read once per launch.
double AnalyticCostModel::metricsMs(const ir::OperatorMetrics& m, int launches) const {
    const double batch = params_.batch;
    const double flops = static_cast<double>(m.flops) * batch;
    const double bytes = static_cast<double>(m.bytesRead + m.bytesWritten) * batch +
                         static_cast<double>(m.weightBytes);
    return flops / (params_.peakGflops * 1e6) + bytes / (params_.bandwidthGBs * 1e6) +
           launches * params_.launchOverheadUs * 1e-3;
}

double AnalyticCostModel::operatorMs(const ir::Node& node) const {
    const int launches =
        node.kind == ir::NodeKind::Sequential ? static_cast<int>(node.nodes.size()) : 1;
    return metricsMs(metricsOf(node), launches);
}

double AnalyticCostModel::stageLatencyMs(const ir::BlockDag& dag,
                                         const schedule::Stage& stage) const {
    const double sync = params_.syncOverheadUs * 1e-3;
    if (stage.kind == schedule::StageKind::Merge && stage.operatorCount() > 1)
        return mergedMs(dag, stage.groups.front()) + sync;
    const std::vector<double>* opMs = precomputedOpMs(dag);
    double slowest = 0;
    for (const schedule::Group& g : stage.groups) {
        double ms = 0;
        for (int op : g)
            ms += opMs != nullptr ? (*opMs)[static_cast<size_t>(op)] : operatorMs(*dag.ops[op]);
        slowest = std::max(slowest, ms);
    }
    return slowest + sync;
}

double AnalyticCostModel::mergedMs(const ir::BlockDag& dag, const std::vector<int>& ops) const {
    std::vector<const ir::Node*> members;
    for (int op : ops)
        members.push_back(dag.ops[static_cast<size_t>(op)]);
    const ir::Node merged = schedule::mergedConv(members);
    return metricsMs(ir::computeMetrics(merged, index_), 1);
}

ProgramRun AnalyticCostModel::simulateProgram(const ir::BlockDag& dag,
                                              const schedule::StreamProgram& program,
                                              bool timeline) const {
    const std::vector<double>* opMs = precomputedOpMs(dag);
    return simulateProgramDataflow(
        dag, program, timeline,
        [&](const schedule::Instruction& in) {
            if (in.ops.empty())
                return 0.0;
            if (in.ops.size() > 1)
                return mergedMs(dag, in.ops);
            const auto op = static_cast<size_t>(in.ops.front());
            return opMs != nullptr ? (*opMs)[op] : operatorMs(*dag.ops[op]);
        },
        [&](const ProgramSegment&) { return params_.syncOverheadUs * 1e-3; });
}

// A dag of this model's block: its precomputed per-operator latencies, else null.
const std::vector<double>* AnalyticCostModel::precomputedOpMs(const ir::BlockDag& dag) const {
    if (!dag.ops.empty())
        if (auto it = blockOpMs_.find(dag.ops.front());
            it != blockOpMs_.end() && it->second.size() == dag.ops.size())
            return &it->second;
    return nullptr;
}

// The parallel branch of stageLatencyMs: slowest group's Σ operatorMs + sync.
bool AnalyticCostModel::additiveParallelStages(const ir::BlockDag& dag, std::vector<double>& opMs,
                                               double& overheadMs) const {
    if (const std::vector<double>* pre = precomputedOpMs(dag)) {
        opMs = *pre;
    } else {
        opMs.clear();
        for (const ir::Node* op : dag.ops)
            opMs.push_back(operatorMs(*op));
    }
    overheadMs = params_.syncOverheadUs * 1e-3;
    return true;
}

StageRun AnalyticCostModel::simulate(const ir::BlockDag& dag, const schedule::Stage& stage) const {
    StageRun run;
    run.latencyUs = stageLatencyMs(dag, stage) * 1000;
    run.synchronized = true;
    if (stage.kind == schedule::StageKind::Merge && stage.operatorCount() > 1) {
        std::string label;
        for (int op : stage.groups.front())
            label += (label.empty() ? "" : "+") + dag.ops[op]->name;
        const double endUs = run.latencyUs - params_.syncOverheadUs;
        run.kernels.push_back(
            {0, stage.groups.front().front(), label, "merged conv", 0, 0, 0, endUs});
        return run;
    }
    const std::vector<double>* opMs = precomputedOpMs(dag);
    for (size_t g = 0; g < stage.groups.size(); ++g) {
        double t = 0;
        for (int op : stage.groups[g]) {
            const double ms =
                opMs != nullptr ? (*opMs)[static_cast<size_t>(op)] : operatorMs(*dag.ops[op]);
            const ir::Node& node = *dag.ops[op];
            run.kernels.push_back({static_cast<int>(g), op, node.name,
                                   std::string(ir::toString(node.kind)), 0, t, t, t + ms * 1000});
            t += ms * 1000;
        }
    }
    return run;
}

std::string AnalyticCostModel::deviceName() const {
    char buf[64];
    std::snprintf(buf, sizeof buf, "analytic %.0f GFLOP/s", params_.peakGflops);
    return buf;
}

StageMemo* AnalyticCostModel::canonicalStageMemo(const ir::BlockDag& dag,
                                                 std::vector<uint32_t>& classes) const {
    return canonical_.classify(
        dag,
        [this](const std::string& name) -> const ir::TensorShape* {
            const ir::Node* n = index_.find(name);
            return n ? &n->outputShape : nullptr;
        },
        classes);
}

std::string AnalyticCostModel::describe() const {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "analytic (%.0f GFLOP/s, %.0f GB/s, launch %.1f us, sync %.1f us), batch %d",
                  params_.peakGflops, params_.bandwidthGBs, params_.launchOverheadUs,
                  params_.syncOverheadUs, params_.batch);
    return buf;
}

namespace {

// The roofline takes the device's peak figures; its overheads stay its own.
std::unique_ptr<CostModel> buildAnalytic(const CostModelSpec& spec, const ir::Graph& graph) {
    AnalyticParams params;
    params.peakGflops = spec.device.fp32PeakTflops * 1000;
    params.bandwidthGBs = spec.device.dramBandwidthGBs;
    params.batch = spec.batch;
    return std::make_unique<AnalyticCostModel>(graph, params);
}

} // namespace

IOS_REGISTER_COST_MODEL(analytic, CostModelEntry{.key = "analytic",
                                                 .label = "Analytic roofline",
                                                 .usage = "analytic",
                                                 .description = "roofline per operator",
                                                 .can = {.rewrittenGraphs = true,
                                                         .programs = true,
                                                         .kernelTimelines = true,
                                                         .usesDevice = true},
                                                 .rank = 20,
                                                 .build = buildAnalytic});

} // namespace ios::cost
