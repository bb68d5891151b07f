#include "specialize.h"

#include "eval/evaluate.h"
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

SpecializationMatrix specialize(const ir::PreparedModel& model,
                                const std::vector<const cost::CostModel*>& settings,
                                const Scheduler& scheduler, const Params& params,
                                SearchControl* control) {
    const RestoreProgress restore(control);
    const uint64_t n = settings.size();
    SpecializationMatrix m;
    for (uint64_t i = 0; i < n; ++i) {
        if (control && control->cancel)
            throw Cancelled();
        if (control)
            control->checkDeadline();
        if (control && restore.saved())
            control->progress = [&outer = restore.saved(), i, n](uint64_t done, uint64_t total) {
                outer(i * total + done, n * total);
            };
        m.schedules.push_back(scheduler.run(model, params, *settings[i], control).schedule);
        std::vector<double>& row = m.latencyMs.emplace_back();
        for (const cost::CostModel* cost : settings)
            row.push_back(eval::totalLatencyMs(model.dags(), m.schedules.back(), *cost));
    }
    return m;
}

} // namespace ios::schedulers
