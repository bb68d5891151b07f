// SPDX-License-Identifier: Apache-2.0
// A scheduler registered by a test at run time, to show that a new scheduler reaches every
// list and dispatch through the registry alone (scheduler.h). It schedules one operator per
// stage in file order and reads only the batch and device knobs.
#pragma once

#include "eval/evaluate.h"
#include "schedulers/baselines.h"
#include "schedulers/scheduler.h"

#include <QStringList>
#include <memory>

namespace ios::testing {

inline constexpr const char* kThrowawayKey = "test-throwaway";

class ThrowawayScheduler final : public schedulers::Scheduler {
public:
    std::string_view key() const override { return kThrowawayKey; }
    std::string_view label() const override { return "Throw-away"; }
    std::string_view description() const override { return "registered by a test"; }
    std::vector<schedulers::Knob> knobs() const override {
        return {schedulers::Knob::Batch, schedulers::Knob::Device};
    }
    std::vector<std::string_view> aliases() const override { return {"test-alias"}; }
    int rank() const override { return 5000; } // after every built-in
    schedulers::Outcome search(const ir::PreparedModel& model, const schedulers::Params&,
                            const cost::CostModel& cost,
                            schedulers::SearchControl*) const override {
        schedulers::Outcome out;
        out.schedule = schedulers::sequential(model.dags());
        out.latencyMs = eval::totalLatencyMs(model.dags(), out.schedule, cost);
        return out;
    }
};

// Registers the throw-away scheduler for its lifetime.
class ThrowawayRegistration {
public:
    ThrowawayRegistration() {
        schedulers::registerScheduler(std::make_unique<ThrowawayScheduler>());
    }
    ~ThrowawayRegistration() { schedulers::unregisterScheduler(kThrowawayKey); }
    ThrowawayRegistration(const ThrowawayRegistration&) = delete;
    ThrowawayRegistration& operator=(const ThrowawayRegistration&) = delete;
};

// The registry's keys in its order (what every list of strategies must show).
inline QStringList registeredKeys() {
    QStringList out;
    for (const schedulers::Scheduler* s : schedulers::registeredSchedulers())
        out << QString::fromUtf8(s->key().data(), static_cast<qsizetype>(s->key().size()));
    return out;
}

} // namespace ios::testing
