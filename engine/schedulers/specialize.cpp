#include "specialize.h"

#include "schedulers/parallel_jobs.h"
#include "schedulers/search_estimate.h"
#include "util/error.h"
#include "util/message_text.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <utility>

namespace ios::schedulers {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Rows run as jobs; row i reports into `control` as offset + its share of `total` units.
class Rows {
public:
    Rows(const ir::PreparedModel& model, const std::vector<const cost::CostModel*>& settings,
         const Scheduler& scheduler, const Params& params, SpecializationMatrix& m)
        : model_(model), settings_(settings), scheduler_(scheduler), params_(params), m_(m),
          searchSeconds_(settings.size(), 0), evalSeconds_(settings.size(), 0) {}

    // Row i's search prices with `searchCost` when given (a SamplingCostModel of settings[i]).
    void run(const std::vector<size_t>& rows, const std::vector<uint64_t>& weights,
             SearchControl* control, uint64_t offset, uint64_t total, int threads,
             const cost::CostModel* searchCost = nullptr) {
        searchCost_ = searchCost;
        SearchControl phase;
        SearchControl* inner = nullptr;
        if (control != nullptr) {
            control->inheritInto(phase);
            phase.progress = [control, offset, total](uint64_t done, uint64_t) {
                if (control->progress)
                    control->progress(offset + done, total);
            };
            inner = &phase;
        }
        std::vector<uint64_t> rowWeights;
        for (size_t i : rows)
            rowWeights.push_back(weights[i]);
        runJobs(inner, rowWeights, threads,
                [&](size_t k, SearchControl& job) { row(rows[k], job); });
    }

    double searchSeconds(size_t i) const { return searchSeconds_[i]; }
    double evalSeconds(size_t i) const { return evalSeconds_[i]; }

private:
    void row(size_t i, SearchControl& job) {
        const auto t0 = Clock::now();
        const Outcome outcome = scheduler_.run(
            model_, params_, searchCost_ != nullptr ? *searchCost_ : *settings_[i], &job);
        searchSeconds_[i] = secondsSince(t0);
        const auto t1 = Clock::now();
        for (const cost::CostModel* cost : settings_)
            m_.latencyMs[i].push_back(outcomeLatencyMs(model_.dags(), outcome, *cost));
        evalSeconds_[i] = secondsSince(t1);
        m_.schedules[i] = outcome.schedule;
    }

    const ir::PreparedModel& model_;
    const std::vector<const cost::CostModel*>& settings_;
    const Scheduler& scheduler_;
    const Params& params_;
    SpecializationMatrix& m_;
    std::vector<double> searchSeconds_;
    std::vector<double> evalSeconds_;
    const cost::CostModel* searchCost_ = nullptr;
};

} // namespace

std::vector<double> settingCosts(const ir::PreparedModel& model,
                                 const std::vector<const cost::CostModel*>& settings,
                                 const SearchControl* control) {
    const std::vector<SampleStage> samples = operatorStages(model);
    std::vector<double> out;
    for (const cost::CostModel* cost : settings)
        out.push_back(std::max(1e-9, secondsPerStage(*cost, samples, control)));
    return out;
}

double rowEstimateSeconds(double searchSeconds, uint64_t stagesPriced, double stageSeconds,
                          double settingStageSeconds, double evalSeconds) {
    const double pricing = static_cast<double>(stagesPriced) * stageSeconds;
    return std::max(0.0, searchSeconds - pricing) +
           static_cast<double>(stagesPriced) * settingStageSeconds + evalSeconds;
}

double specializationEstimateSeconds(const std::vector<double>& rowSeconds, int threads) {
    if (rowSeconds.empty())
        return 0;
    const double sum = std::accumulate(rowSeconds.begin(), rowSeconds.end(), 0.0);
    const double longest = *std::max_element(rowSeconds.begin(), rowSeconds.end());
    const double parallel =
        static_cast<double>(std::min<size_t>(rowSeconds.size(), std::max(1, threads)));
    return std::max(longest, sum / parallel);
}

namespace {

// The stages the reference row's search priced, timed under every setting, scale its pricing
// time to each other row; past the deadline, refused with the estimate.
void refuseRest(const std::vector<const cost::CostModel*>& settings, const Rows& rows,
                size_t reference, const std::vector<size_t>& rest, const StageSampler& sampler,
                int threads, const SearchControl& control) {
    const std::vector<SampleStage> samples = sampler.samples();
    const double stageSeconds = secondsPerStage(*settings[reference], samples, &control);
    std::vector<double> rowSeconds;
    size_t slowest = rest.front();
    double slowestSeconds = -1;
    for (size_t i : rest) {
        const double settingStage = secondsPerStage(*settings[i], samples, &control);
        rowSeconds.push_back(rowEstimateSeconds(rows.searchSeconds(reference), sampler.offered(),
                                                stageSeconds, settingStage,
                                                rows.evalSeconds(reference)));
        if (rowSeconds.back() > slowestSeconds) {
            slowestSeconds = rowSeconds.back();
            slowest = i;
        }
    }
    const double estimate = specializationEstimateSeconds(rowSeconds, threads);
    control.refuseIfPastDeadline(
        estimate,
        "the other settings are estimated at " + util::formatNumber(estimate) + " s ('" +
            util::escapeControl(settings[slowest]->describe()) + "' alone " +
            util::formatNumber(slowestSeconds) + " s: the search under '" +
            util::escapeControl(settings[reference]->describe()) + "' took " +
            util::formatNumber(rows.searchSeconds(reference)) + " s and priced " +
            std::to_string(sampler.offered()) + " stages)",
        WorkKnob::Specialization);
}

} // namespace

SpecializationMatrix specialize(const ir::PreparedModel& model,
                                const std::vector<const cost::CostModel*>& settings,
                                const Scheduler& scheduler, const Params& params,
                                SearchControl* control) {
    const size_t n = settings.size();
    SpecializationMatrix m;
    m.schedules.resize(n);
    m.latencyMs.resize(n);
    if (n == 0)
        return m;
    if (control != nullptr)
        control->knob = WorkKnob::Specialization;
    // Each row's share of the progress: the same search priced under its setting, so in
    // proportion to its time per stage (a stage at batch 65536 simulates far more waves than
    // at batch 1); the cheapest row runs first, and the stages its search priced time the rest.
    const std::vector<double> costs = settingCosts(model, settings, control);
    const size_t reference =
        static_cast<size_t>(std::min_element(costs.begin(), costs.end()) - costs.begin());
    std::vector<uint64_t> weights;
    for (double c : costs)
        weights.push_back(
            static_cast<uint64_t>(std::min(1e12, std::max(1.0, 1000 * c / costs[reference]))));
    const uint64_t total = std::accumulate(weights.begin(), weights.end(), uint64_t{0});

    Params inner = params;
    inner.threads = innerThreads(params.threads, n);
    Rows rows(model, settings, scheduler, inner, m);
    const SamplingCostModel sampling(*settings[reference], model.dags());
    rows.run({reference}, weights, control, 0, total, 1, &sampling);
    std::vector<size_t> rest;
    for (size_t i = 0; i < n; ++i)
        if (i != reference)
            rest.push_back(i);
    if (rest.empty())
        return m;
    if (control != nullptr && control->hasDeadline())
        refuseRest(settings, rows, reference, rest, sampling.sampler(), params.threads, *control);
    rows.run(rest, weights, control, weights[reference], total, params.threads);
    return m;
}

} // namespace ios::schedulers
