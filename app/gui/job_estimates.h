// SPDX-License-Identifier: Apache-2.0
// What each long job of the explorer will take, before it runs (docs/performance.md
// "Estimates"): built from the schedulers' own estimates (schedulers/work_estimate.h: work
// counted, unit costs measured on this machine), composed as the job composes its runs, then
// corrected by this process's record of that kind of job. Every job publishes its estimate
// (JobControl::estimate) before its work and records its time against it when done.
#pragma once

#include "job.h"
#include "schedulers/work_estimate.h"

#include <string>
#include <string_view>

namespace ios::gui {

// The raw (uncorrected) estimates, each under the settings' cost model, `control` for cancel.
schedulers::TimeRange estimateOptimizeWork(const JobSettings& settings, JobControl& control);
schedulers::TimeRange estimateCompareWork(const JobSettings& settings, JobControl& control);
schedulers::TimeRange estimateSweepWork(const JobSettings& settings, JobControl& control);
schedulers::TimeRange estimateSpecializeWork(const JobSettings& settings, JobControl& control);
schedulers::TimeRange estimateMemoryWork(const JobSettings& settings, JobControl& control);
schedulers::TimeRange estimateMetaflowWork(const JobSettings& settings, JobControl& control);

// The Optimize job's estimate from the strategy's own (result.estimate, nullopt for a
// strategy without one): plus what the job adds (the state space recorded, the timeline,
// the program simulated and the stage latencies) and its set-up (`spentSeconds`, what
// estimating took), as the raw range; then result.estimate's seconds and range corrected by
// the record of this strategy's Optimize jobs.
void completeOptimizeEstimate(EstimateResult& result, const ir::PreparedModel& model,
                              const cost::CostModel& cost, double spentSeconds,
                              JobControl& control);

// What a record is kept under: the job's kind and the model ("compare @ nasnet_large"): a
// correction learnt on one model says little about another (their costs are split
// differently between enumeration, pricing and set-up), while the same model at another
// device, batch or setting keeps most of it.
std::string calibrationKind(std::string_view kind, const JobSettings& settings);
// The calibration kind of an Optimize with these settings' strategy, and the record of one:
// its seconds against the raw range of the estimate the panel showed.
std::string optimizeKind(const JobSettings& settings);
void recordOptimize(const EstimateResult& estimate, double seconds);

// A job's estimate and its record: made at the job's start, it starts the clock, estimates
// (raw: the estimator's range plus once to 1.5 times what estimating took: the job's clock
// includes it, and the job sets up its own cost models again), publishes the range corrected by the
// record of `kind` on this model (calibrationKind) on `control`; finish() records the job's seconds
// against the raw range.
class JobEstimate {
public:
    using Estimator = schedulers::TimeRange (*)(const JobSettings&, JobControl&);
    JobEstimate(std::string_view kind, Estimator estimator, const JobSettings& settings,
                JobControl& control);
    void finish() const;
    const schedulers::TimeRange& corrected() const { return corrected_; }

private:
    std::string kind_;
    schedulers::TimeRange raw_;
    schedulers::TimeRange corrected_;
    double started_ = 0; // seconds on the steady clock, estimate included
};

} // namespace ios::gui
