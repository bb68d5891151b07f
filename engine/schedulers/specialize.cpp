// SPDX-License-Identifier: Apache-2.0
#include "specialize.h"

#include "schedulers/parallel_jobs.h"
#include "schedulers/search_estimate.h"
#include "util/error.h"
#include "util/message_text.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>
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
    // Row i's evaluation; the reference row's: under its own setting alone.
    double evalSeconds(size_t i) const { return evalSeconds_[i]; }

    // The reference row (run with a searchCost) is priced under its own setting only, until
    // finishReference: under a huge batch the evaluation alone may take long.
    void finishReference(size_t i) {
        evaluate(i, *reference_);
        reference_.reset();
    }

private:
    void row(size_t i, SearchControl& job) {
        const auto t0 = Clock::now();
        Outcome outcome = scheduler_.run(
            model_, params_, searchCost_ != nullptr ? *searchCost_ : *settings_[i], &job);
        searchSeconds_[i] = secondsSince(t0);
        if (searchCost_ != nullptr) {
            const auto t1 = Clock::now();
            static_cast<void>(outcomeLatencyMs(model_.dags(), outcome, *settings_[i]));
            evalSeconds_[i] = secondsSince(t1);
            reference_ = std::move(outcome);
            return;
        }
        evaluate(i, outcome);
    }

    void evaluate(size_t i, const Outcome& outcome) {
        for (const cost::CostModel* cost : settings_)
            m_.latencyMs[i].push_back(outcomeLatencyMs(model_.dags(), outcome, *cost));
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
    std::optional<Outcome> reference_;
};

} // namespace

std::vector<double> settingCosts(const ir::PreparedModel& model,
                                 const std::vector<const cost::CostModel*>& settings,
                                 const SearchControl* control) {
    const std::vector<SampleStage> samples = operatorStages(model);
    std::vector<double> out;
    for (const cost::CostModel* cost : settings) {
        // A quarter of a second at most where stages are slow; where a pass takes less than a
        // millisecond, the robust timing (repeated passes).
        double seconds = secondsPerStageWithin(*cost, samples, 0.25, control);
        if (seconds * static_cast<double>(samples.size()) < 1e-3)
            seconds = secondsPerStage(*cost, samples, control);
        out.push_back(std::max(1e-9, seconds));
    }
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

constexpr double kTimingSeconds = 2; // timing the other settings, in all

// The stages the reference row's search priced, timed under every setting, scale its pricing
// time to each other row; past the deadline, refused with the estimate.
void refuseRest(const std::vector<const cost::CostModel*>& settings, const Rows& rows,
                size_t reference, const std::vector<size_t>& rest, const StageSampler& sampler,
                int threads, const SearchControl& control) {
    const std::vector<SampleStage> samples = sampler.samples();
    const double stageSeconds = secondsPerStage(*settings[reference], samples, &control);
    std::vector<double> settingStage;
    double evalScale = 1; // a row's evaluation under every setting, in evaluations under the
                          // reference setting
    for (size_t i : rest) {
        // A few seconds in all: a stage at a huge batch may take a second to price.
        settingStage.push_back(secondsPerStageWithin(
            *settings[i], samples, kTimingSeconds / static_cast<double>(rest.size()), &control));
        evalScale += stageSeconds > 0 ? settingStage.back() / stageSeconds : 1;
    }
    std::vector<double> rowSeconds;
    size_t slowest = rest.front();
    double slowestSeconds = -1;
    for (size_t k = 0; k < rest.size(); ++k) {
        rowSeconds.push_back(rowEstimateSeconds(rows.searchSeconds(reference), sampler.offered(),
                                                stageSeconds, settingStage[k],
                                                rows.evalSeconds(reference) * evalScale));
        if (rowSeconds.back() > slowestSeconds) {
            slowestSeconds = rowSeconds.back();
            slowest = rest[k];
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
    // The row whose setting prices stages fastest runs first; the stages its search priced,
    // timed under every setting, estimate the rest (a stage at batch 65536 simulates far more
    // waves than at batch 1). Progress: 1000 units a row (a share by the setting's cost makes
    // the DP's uneven progress inside a long row project far past the truth).
    const std::vector<double> costs = settingCosts(model, settings, control);
    const size_t reference =
        static_cast<size_t>(std::min_element(costs.begin(), costs.end()) - costs.begin());
    const std::vector<uint64_t> weights(n, 1000);
    const uint64_t total = 1000 * static_cast<uint64_t>(n);

    Params inner = params;
    inner.threads = innerThreads(params.threads, n);
    Rows rows(model, settings, scheduler, inner, m);
    const SamplingCostModel sampling(*settings[reference], model.dags());
    rows.run({reference}, weights, control, 0, total, 1, &sampling);
    std::vector<size_t> rest;
    for (size_t i = 0; i < n; ++i)
        if (i != reference)
            rest.push_back(i);
    if (!rest.empty() && control != nullptr && control->hasDeadline())
        refuseRest(settings, rows, reference, rest, sampling.sampler(), params.threads, *control);
    rows.finishReference(reference);
    if (!rest.empty())
        rows.run(rest, weights, control, weights[reference], total, params.threads);
    return m;
}

} // namespace ios::schedulers
