// SPDX-License-Identifier: Apache-2.0
#include "cost/stage_simulator.h"

#include "cost/gpu_simulation.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

namespace ios::cost {

StageRun simulateStage(const std::vector<GroupKernels>& groups, const DeviceProfile& device,
                       SimulationMode mode) {
    const bool synchronized = groups.size() > 1;
    detail::GpuSimulation sim(groups.size(), device, true, synchronized, synchronized, mode);
    for (size_t g = 0; g < groups.size(); ++g)
        for (const OpKernels& op : groups[g])
            for (const KernelDesc& k : op.kernels)
                sim.add(k, static_cast<int>(g), op.op, &op.label);
    sim.run();
    return sim.timeline();
}

double stageLatencyUs(const std::vector<StageKernel>& kernels, size_t groupCount,
                      const DeviceProfile& device, SimulationMode mode) {
    const bool synchronized = groupCount > 1;
    detail::GpuSimulation sim(groupCount, device, false, synchronized, synchronized, mode);
    for (const StageKernel& k : kernels)
        sim.add(*k.kernel, k.group, 0, nullptr);
    return sim.run();
}

} // namespace ios::cost

namespace ios::cost {

struct PrefixStageSimulator::Level {
    std::vector<const KernelDesc*> group; // the kernels of the level's last group
    detail::Checkpoint checkpoint;
};

struct PrefixStageSimulator::Prepared {
    std::deque<detail::PreparedKernel> kernels;       // every kernel met (stable addresses)
    std::vector<const detail::PreparedKernel*> stage; // the stage being simulated
};

PrefixStageSimulator::PrefixStageSimulator(const DeviceProfile& device, SimulationMode mode)
    : device_(device), mode_(mode), rateModel_(device), preparedSlots_(256),
      prepared_(std::make_unique<Prepared>()) {}
PrefixStageSimulator::~PrefixStageSimulator() = default;

void PrefixStageSimulator::reset() {
    valid_ = 0;
    preparedSlots_.assign(256, {nullptr, nullptr});
    prepared_->kernels.clear();
}

const detail::PreparedKernel* PrefixStageSimulator::prepared(const KernelDesc* kernel) {
    const auto slotOf = [this](const KernelDesc* k) {
        const auto h = reinterpret_cast<uintptr_t>(k) * 0x9E3779B97F4A7C15ull;
        return static_cast<size_t>(h >> 32) & (preparedSlots_.size() - 1);
    };
    size_t i = slotOf(kernel);
    for (; preparedSlots_[i].first != nullptr; i = (i + 1) & (preparedSlots_.size() - 1))
        if (preparedSlots_[i].first == kernel)
            return preparedSlots_[i].second;
    const detail::PreparedKernel* made =
        &prepared_->kernels.emplace_back(detail::prepareKernel(*kernel, device_, rateModel_));
    preparedSlots_[i] = {kernel, made};
    if (2 * prepared_->kernels.size() > preparedSlots_.size()) { // keep it at most half full
        std::vector<std::pair<const KernelDesc*, const detail::PreparedKernel*>> old(
            2 * preparedSlots_.size());
        old.swap(preparedSlots_);
        for (const auto& slot : old)
            if (slot.first != nullptr) {
                size_t j = slotOf(slot.first);
                while (preparedSlots_[j].first != nullptr)
                    j = (j + 1) & (preparedSlots_.size() - 1);
                preparedSlots_[j] = slot;
            }
    }
    return made;
}

double PrefixStageSimulator::lowerBoundUs(const std::vector<StageKernel>& kernels,
                                          size_t groupCount) {
    // GpuSimulation's clocks: kernel i is issued at i launch slots and arrives launchLatency
    // later in a synchronised stage; a stream's next kernel is ready kernelGap after the end
    // of the one before (its first at 0).
    const bool synchronized = groupCount > 1;
    const double latency = synchronized ? device_.launchLatencyUs : 0.0;
    streamEnd_.assign(groupCount, -std::numeric_limits<double>::infinity());
    boundKernels_.clear();
    double end = 0;
    for (size_t i = 0; i < kernels.size(); ++i) {
        const double arrival =
            static_cast<double>(2 * i) * 0.5 * device_.launchOverheadUs + latency;
        double& stream = streamEnd_[static_cast<size_t>(kernels[i].group)];
        const double ready = std::isinf(stream) ? 0.0 : stream + device_.sm.kernelGapUs;
        const detail::PreparedKernel* k = prepared(kernels[i].kernel);
        boundKernels_.push_back(k);
        stream = std::max(arrival, ready) + k->minUs;
        end = std::max(end, stream);
    }
    // The compute the kernels from i on need, after kernel i arrives (arrivals grow with i).
    if (device_.launchOverheadUs >= 0) {
        double work = 0;
        for (size_t i = kernels.size(); i-- > 0;) {
            work += boundKernels_[i]->computeUs;
            end = std::max(end, static_cast<double>(2 * i) * 0.5 * device_.launchOverheadUs +
                                    latency + work);
        }
    }
    const double issueEnd =
        static_cast<double>(2 * kernels.size()) * 0.5 * device_.launchOverheadUs;
    double bound = std::max(end, issueEnd) + (synchronized ? device_.syncOverheadUs : 0.0);
    // The simulation admits a kernel up to 1e-9 µs early and retires a CTA at 1 - 1e-9 of its
    // work; its sums round: stay well below the exact figure.
    bound = bound * (1 - 1e-6) - 1e-6 * static_cast<double>(kernels.size());
    return std::isfinite(bound) && bound > 0 ? bound : 0.0;
}

double PrefixStageSimulator::latencyUs(const std::vector<StageKernel>& kernels, size_t groupCount) {
    // A negative overhead would issue later kernels before earlier ones (ranks no longer by
    // index); a stage of more groups than a search's stages have (greedy's one stage of a
    // wide graph) would keep a copy of its run per group: both are simulated whole, without
    // the kept preparations.
    if (groupCount > kMaxGroups || device_.launchOverheadUs < 0 || device_.launchLatencyUs < 0)
        return stageLatencyUs(kernels, groupCount, device_, mode_);
    const bool synchronized = groupCount > 1;
    detail::GpuSimulation sim(groupCount, device_, false, synchronized, synchronized, mode_);
    std::vector<const detail::PreparedKernel*>& stage = prepared_->stage;
    stage.clear();
    for (const StageKernel& k : kernels)
        stage.push_back(prepared(k.kernel));
    // A stage of one group runs without the launch latency and join of the others: whole.
    if (groupCount < 2) {
        for (size_t i = 0; i < kernels.size(); ++i)
            sim.add(*stage[i], kernels[i].group, 0, nullptr);
        return sim.run();
    }
    groupStart_.assign(groupCount + 1, 0);
    ptrs_.clear();
    for (size_t i = 0; i < kernels.size(); ++i) {
        const auto g = static_cast<size_t>(kernels[i].group);
        if (g >= groupCount || (i > 0 && kernels[i].group < kernels[i - 1].group))
            return stageLatencyUs(kernels, groupCount, device_, mode_);
        ++groupStart_[g + 1];
        ptrs_.push_back(kernels[i].kernel);
    }
    for (size_t g = 0; g < groupCount; ++g) {
        if (groupStart_[g + 1] == 0) { // a group without kernels issues nothing to pause at
            for (size_t i = 0; i < kernels.size(); ++i)
                sim.add(*stage[i], kernels[i].group, 0, nullptr);
            return sim.run();
        }
        groupStart_[g + 1] += groupStart_[g];
    }
    const auto sameGroup = [&](const Level& level, size_t g) {
        return std::equal(level.group.begin(), level.group.end(), ptrs_.begin() + groupStart_[g],
                          ptrs_.begin() + groupStart_[g + 1]);
    };
    size_t have = 0;
    while (have < valid_ && have + 1 < groupCount && sameGroup(*levels_[have], have))
        ++have;
    valid_ = have;
    const auto keep = [&](const detail::GpuSimulation& run, size_t g) {
        if (levels_.size() <= g)
            levels_.push_back(std::make_unique<Level>());
        Level& level = *levels_[g];
        level.group.assign(ptrs_.begin() + groupStart_[g], ptrs_.begin() + groupStart_[g + 1]);
        run.save(level.checkpoint);
        valid_ = g + 1;
    };
    size_t g = have;
    if (have == 0) {
        for (size_t i = groupStart_[0]; i < groupStart_[1]; ++i)
            sim.add(*stage[i], 0, 0, nullptr);
        sim.startPaused(1); // pauses: the admission of group 1 is pending
        keep(sim, 0);
        g = 1;
    } else {
        sim.restore(levels_[have - 1]->checkpoint, groupCount);
        ++resumed_;
    }
    for (; g + 1 < groupCount; ++g) {
        sim.resume(stage.data() + groupStart_[g], groupStart_[g + 1] - groupStart_[g], g + 1);
        keep(sim, g);
    }
    sim.resume(stage.data() + groupStart_[g], groupStart_[g + 1] - groupStart_[g],
               detail::kNoKernel);
    return sim.latencyUs();
}

} // namespace ios::cost
