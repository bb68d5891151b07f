// SPDX-License-Identifier: Apache-2.0
// The baselines of the IOS paper §6.1 as registered schedulers (docs/algorithms.md
// "Baselines"): sequential and greedy.
#include "eval/evaluate.h"
#include "schedulers/baselines.h"
#include "schedulers/scheduler.h"
#include "util/error.h"

#include <chrono>

namespace ios::schedulers {

namespace {

// A baseline builds its schedule directly from the DAGs: no search, no statistics.
class BaselineScheduler : public Scheduler {
public:
    std::vector<Knob> knobs() const override { return {Knob::Batch, Knob::Device}; }

    Outcome search(const ir::PreparedModel& model, const Params& /*params*/,
                   const cost::CostModel& cost, SearchControl* control) const override {
        if (control != nullptr && control->cancelled())
            throw Cancelled();
        if (control != nullptr)
            control->checkDeadline();
        const auto start = std::chrono::steady_clock::now();
        Outcome out;
        out.schedule = build(model.dags());
        out.searchSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        out.latencyMs = eval::totalLatencyMs(model.dags(), out.schedule, cost);
        return out;
    }

protected:
    virtual schedule::Schedule build(const std::vector<ir::BlockDag>& dags) const = 0;
};

class SequentialScheduler final : public BaselineScheduler {
public:
    std::string_view key() const override { return "sequential"; }
    std::string_view label() const override { return "Sequential"; }
    std::string_view description() const override {
        return "one operator per stage, in file order (IOS paper §6.1)";
    }
    int rank() const override { return 0; }

protected:
    schedule::Schedule build(const std::vector<ir::BlockDag>& dags) const override {
        return sequential(dags);
    }
};

class GreedyScheduler final : public BaselineScheduler {
public:
    std::string_view key() const override { return "greedy"; }
    std::string_view label() const override { return "Greedy"; }
    std::string_view description() const override {
        return "every ready operator in one stage, one stream each (IOS paper §6.1)";
    }
    int rank() const override { return 10; }

protected:
    schedule::Schedule build(const std::vector<ir::BlockDag>& dags) const override {
        return greedy(dags);
    }
};

} // namespace

IOS_REGISTER_SCHEDULER(SequentialScheduler);
IOS_REGISTER_SCHEDULER(GreedyScheduler);

} // namespace ios::schedulers
