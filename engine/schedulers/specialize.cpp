#include "specialize.h"

#include "schedule/evaluate.h"
#include "util/error.h"

#include <utility>

namespace ios::schedulers {

namespace {

// Puts the caller's progress callback back, also when a search throws.
class RestoreProgress {
public:
    explicit RestoreProgress(SearchControl* control)
        : control_(control), saved_(control ? control->progress : nullptr) {}
    ~RestoreProgress() {
        if (control_)
            control_->progress = std::move(saved_);
    }
    RestoreProgress(const RestoreProgress&) = delete;
    RestoreProgress& operator=(const RestoreProgress&) = delete;

    const std::function<void(uint64_t, uint64_t)>& saved() const { return saved_; }

private:
    SearchControl* control_;
    std::function<void(uint64_t, uint64_t)> saved_;
};

} // namespace

Scheduler dpScheduler(const ir::Graph& graph, const Options& options) {
    return [&graph, options](const cost::CostModel& cost, SearchControl* control) {
        return optimize(graph, options, cost, control).schedule;
    };
}

SpecializationMatrix specialize(const std::vector<ir::BlockDag>& dags,
                                const std::vector<const cost::CostModel*>& settings,
                                const Scheduler& scheduler, SearchControl* control) {
    const RestoreProgress restore(control);
    const uint64_t n = settings.size();
    SpecializationMatrix m;
    for (uint64_t i = 0; i < n; ++i) {
        if (control && control->cancel)
            throw Cancelled();
        if (control && restore.saved())
            control->progress = [&outer = restore.saved(), i, n](uint64_t done, uint64_t total) {
                outer(i * total + done, n * total);
            };
        m.schedules.push_back(scheduler(*settings[i], control));
        std::vector<double>& row = m.latencyMs.emplace_back();
        for (const cost::CostModel* cost : settings)
            row.push_back(schedule::totalLatencyMs(dags, m.schedules.back(), *cost));
    }
    return m;
}

} // namespace ios::schedulers
