// SPDX-License-Identifier: Apache-2.0
#include "cost/simulated_gpu_cost_model.h"

#include "cost/cost_model_factory.h"
#include "schedule/merge.h"
#include "util/error.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <sstream>
#include <utility>

namespace ios::cost {

namespace {

// Ids are never reused, so a thread's prefix runs never outlive the model they point into.
uint64_t nextModelId() {
    static std::atomic<uint64_t> next{1};
    return next.fetch_add(1);
}

} // namespace

SimulatedGpuCostModel::SimulatedGpuCostModel(const ir::Graph& graph, DeviceProfile device,
                                             int batch, SimulationMode mode)
    : device_(std::move(device)), batch_(batch), mode_(mode), index_(graph), id_(nextModelId()) {
    if (batch < 1)
        throw UserError("batch size must be at least 1 (got " + std::to_string(batch) + ")");
}

SimulatedGpuCostModel::SimulatedGpuCostModel(const ir::Graph& graph,
                                             const SimulatedGpuCostModel& sharing)
    : device_(sharing.device_), batch_(sharing.batch_), mode_(sharing.mode_), index_(graph),
      id_(nextModelId()), canonical_(CanonicalStages::SharedWith{sharing.canonical_}) {}

std::unique_ptr<CostModel> SimulatedGpuCostModel::forGraph(const ir::Graph& graph) const {
    return std::unique_ptr<CostModel>(new SimulatedGpuCostModel(graph, *this));
}

const ir::TensorShape* SimulatedGpuCostModel::shapeOf(const std::string& name) const {
    const ir::Node* n = index_.find(name);
    return n ? &n->outputShape : nullptr;
}

const std::vector<KernelDesc>& SimulatedGpuCostModel::kernelsOf(const ir::Node& node) const {
    std::lock_guard lock(mutex_);
    auto it = cache_.find(&node);
    if (it == cache_.end()) {
        auto lookup = [this](const std::string& name) { return shapeOf(name); };
        it = cache_.emplace(&node, operatorKernels(node, lookup, batch_, device_)).first;
    }
    return it->second;
}

std::vector<GroupKernels> SimulatedGpuCostModel::stageKernels(const ir::BlockDag& dag,
                                                              const schedule::Stage& stage) const {
    std::vector<GroupKernels> groups;
    if (stage.kind == schedule::StageKind::Merge && stage.operatorCount() > 1) {
        // One merged convolution (IOS §3 "operator merge"); outputs are split by channel
        // ranges, which costs nothing (consumers read slices).
        std::vector<const ir::Node*> members;
        std::string label = "merged(";
        for (const schedule::Group& g : stage.groups)
            for (int op : g) {
                members.push_back(dag.ops[static_cast<size_t>(op)]);
                label += (members.size() > 1 ? "," : "") + members.back()->name;
            }
        const ir::Node merged = schedule::mergedConv(members);
        auto lookup = [this](const std::string& name) { return shapeOf(name); };
        groups.push_back({OpKernels{stage.groups.front().front(), label + ")",
                                    operatorKernels(merged, lookup, batch_, device_)}});
        return groups;
    }
    for (const schedule::Group& g : stage.groups) {
        GroupKernels gk;
        for (int op : g) {
            const ir::Node& node = *dag.ops[static_cast<size_t>(op)];
            gk.push_back({op, node.name, kernelsOf(node)});
        }
        groups.push_back(std::move(gk));
    }
    return groups;
}

StageRun SimulatedGpuCostModel::simulate(const ir::BlockDag& dag,
                                         const schedule::Stage& stage) const {
    return simulateStage(stageKernels(dag, stage), device_, mode_);
}

// What one thread keeps between the search's stage simulations for one model: its prefix
// runs (they point into the model's kernels) and the model's kernels by node, read without
// the model's lock (an entry, once in the model's cache, never moves or changes).
struct SimulatedGpuCostModel::ThreadStages {
    uint64_t owner = 0;
    std::unique_ptr<PrefixStageSimulator> prefix;
    std::vector<std::pair<const ir::Node*, const std::vector<KernelDesc>*>> slots;
    size_t used = 0;

    size_t slotOf(const ir::Node* node) const {
        const auto h = reinterpret_cast<uintptr_t>(node) * 0x9E3779B97F4A7C15ull;
        return static_cast<size_t>(h >> 32) & (slots.size() - 1);
    }
    template <class Fetch>
    const std::vector<KernelDesc>& kernels(const ir::Node* node, const Fetch& fetch) {
        size_t i = slotOf(node);
        for (; slots[i].first != nullptr; i = (i + 1) & (slots.size() - 1))
            if (slots[i].first == node)
                return *slots[i].second;
        const std::vector<KernelDesc>& found = fetch(*node);
        slots[i] = {node, &found};
        if (2 * ++used > slots.size()) { // keep it at most half full
            std::vector<std::pair<const ir::Node*, const std::vector<KernelDesc>*>> old(
                2 * slots.size());
            old.swap(slots);
            for (const auto& slot : old)
                if (slot.first != nullptr) {
                    size_t j = slotOf(slot.first);
                    while (slots[j].first != nullptr)
                        j = (j + 1) & (slots.size() - 1);
                    slots[j] = slot;
                }
        }
        return found;
    }
};

// The calling thread's prefix simulator for this model, and the stage's kernels (cached by
// node) in issue order, group after group, into `kernels`.
SimulatedGpuCostModel::ThreadStages&
SimulatedGpuCostModel::threadStages(const ir::BlockDag& dag, const schedule::Stage& stage,
                                    std::vector<StageKernel>& kernels) const {
    thread_local ThreadStages local;
    if (local.owner != id_ || !local.prefix) {
        local.owner = id_;
        local.prefix = std::make_unique<PrefixStageSimulator>(device_, mode_);
        local.slots.assign(256, {nullptr, nullptr});
        local.used = 0;
    }
    const auto fetch = [this](const ir::Node& node) -> const std::vector<KernelDesc>& {
        return kernelsOf(node);
    };
    kernels.clear();
    for (size_t g = 0; g < stage.groups.size(); ++g)
        for (int op : stage.groups[g])
            for (const KernelDesc& k : local.kernels(dag.ops[static_cast<size_t>(op)], fetch))
                kernels.push_back({&k, static_cast<int>(g)});
    return local;
}

double SimulatedGpuCostModel::stageLatencyMs(const ir::BlockDag& dag,
                                             const schedule::Stage& stage) const {
    // The search's hot path: the simulation without its timeline, on references to the
    // cached kernels (simulate() gives the same latency, bit for bit).
    thread_local std::vector<StageKernel> kernels;
    kernels.clear();
    if (stage.kind == schedule::StageKind::Merge && stage.operatorCount() > 1) {
        const std::vector<GroupKernels> groups = stageKernels(dag, stage);
        for (size_t g = 0; g < groups.size(); ++g)
            for (const OpKernels& op : groups[g])
                for (const KernelDesc& k : op.kernels)
                    kernels.push_back({&k, static_cast<int>(g)});
        return stageLatencyUs(kernels, groups.size(), device_, mode_) / 1000.0;
    }
    ThreadStages& local = threadStages(dag, stage, kernels);
    return local.prefix->latencyUs(kernels, stage.groups.size()) / 1000.0;
}

double SimulatedGpuCostModel::stageLowerBoundMs(const ir::BlockDag& dag,
                                                const schedule::Stage& stage) const {
    if (stage.kind == schedule::StageKind::Merge && stage.operatorCount() > 1)
        return 0;
    thread_local std::vector<StageKernel> kernels;
    ThreadStages& local = threadStages(dag, stage, kernels);
    return local.prefix->lowerBoundUs(kernels, stage.groups.size()) / 1000.0;
}

ProgramRun SimulatedGpuCostModel::simulateProgram(const ir::BlockDag& dag,
                                                  const schedule::StreamProgram& program,
                                                  bool timeline) const {
    std::deque<std::vector<KernelDesc>> merged; // kernels of merged launches, kept alive
    static const std::vector<KernelDesc> kNone;
    return simulateProgramKernels(
        program, device_, timeline,
        [&](const schedule::Instruction& in) -> const std::vector<KernelDesc>& {
            if (in.ops.empty())
                return kNone;
            if (in.ops.size() == 1)
                return kernelsOf(*dag.ops[static_cast<size_t>(in.ops.front())]);
            schedule::Stage stage{schedule::StageKind::Merge, {in.ops}};
            merged.push_back(std::move(stageKernels(dag, stage).front().front().kernels));
            return merged.back();
        },
        [&](const schedule::Instruction& in) {
            return in.ops.size() > 1 ? "merged(" + schedule::launchName(dag, in) + ")"
                                     : schedule::launchName(dag, in);
        },
        mode_);
}

StageMemo* SimulatedGpuCostModel::canonicalStageMemo(const ir::BlockDag& dag,
                                                     std::vector<uint32_t>& classes) const {
    return canonical_.classify(
        dag, [this](const std::string& name) { return shapeOf(name); }, classes);
}

std::string SimulatedGpuCostModel::describe() const {
    std::ostringstream out;
    out << "simulated " << device_.name << ", batch " << batch_;
    if (mode_ == SimulationMode::Exact)
        out << ", exact simulation";
    return out.str();
}

namespace {

constexpr CostModelCapabilities kSimulatedCan{
    .rewrittenGraphs = true, .programs = true, .kernelTimelines = true, .usesDevice = true};

CostModelBuilder simulatedBuilder(SimulationMode mode) {
    return [mode](const CostModelSpec& spec, const ir::Graph& graph) {
        return std::make_unique<SimulatedGpuCostModel>(graph, spec.device, spec.batch, mode);
    };
}

} // namespace

IOS_REGISTER_COST_MODEL(simulated,
                        CostModelEntry{.key = "simulated",
                                       .label = "Simulated GPU",
                                       .usage = "simulated",
                                       .description = "kernel-level GPU simulation, "
                                                      "docs/cost-model.md; steady waves taken in "
                                                      "one step",
                                       .can = kSimulatedCan,
                                       .rank = 10,
                                       .build = simulatedBuilder(SimulationMode::Fast)});
IOS_REGISTER_COST_MODEL(simulated_exact,
                        CostModelEntry{.key = "simulated-exact",
                                       .label = "Simulated GPU, every wave stepped",
                                       .usage = "simulated-exact",
                                       .description = "the same, every CTA wave stepped: the "
                                                      "reference, slower at large batches",
                                       .can = kSimulatedCan,
                                       .rank = 11,
                                       .build = simulatedBuilder(SimulationMode::Exact)});

} // namespace ios::cost
