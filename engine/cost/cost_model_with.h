// SPDX-License-Identifier: Apache-2.0
// CostModelWith<Capabilities...>: the base of a cost model that offers the listed capability
// interfaces (cost_model.h: StageShortcuts, KernelTimelineModel, ProgramSimulation,
// GraphRetargeting). Each accessor returns the model itself for a listed capability and nullptr
// for the others, so a model names what it offers once and only implements it.
#pragma once

#include "cost/cost_model.h"

#include <type_traits>

namespace ios::cost {

template <class... Capabilities> class CostModelWith : public CostModel, public Capabilities... {
public:
    const StageShortcuts* stageShortcuts() const override { return offered<StageShortcuts>(); }
    const KernelTimelineModel* kernelTimeline() const override {
        return offered<KernelTimelineModel>();
    }
    const ProgramSimulation* programSimulation() const override {
        return offered<ProgramSimulation>();
    }
    const GraphRetargeting* retargeting() const override { return offered<GraphRetargeting>(); }

private:
    template <class Capability> const Capability* offered() const {
        if constexpr ((std::is_same_v<Capability, Capabilities> || ...))
            return this;
        else
            return nullptr;
    }
};

} // namespace ios::cost
