// SPDX-License-Identifier: Apache-2.0
// How well a simulated device ranks stages, and what its mistakes cost (issue 16 item 3,
// docs/gpu.md): every stage of a measurement cache (cost/measurement_cache.h) is priced by the
// simulator and compared with its measured latency by rank correlation (Spearman ρ, Kendall
// τ-b) and by MAPE; the decision loss is the measured latency of the schedule the DP picks on
// the simulator over that of the schedule it picks on the measurements (the IOS paper §5
// prices stages by profiling them on the device; this says what pricing them by simulation
// instead costs). Used by `ios-sched fidelity`.
#pragma once

#include "cost/cost_model.h"
#include "cost/measurement_cache.h"
#include "ir/prepared_model.h"
#include "schedule/schedule.h"
#include "schedulers/scheduler.h"

#include <string>
#include <vector>

namespace ios::analysis {

// Spearman's rank correlation: the Pearson correlation of the ranks, ties getting the mean of
// the ranks they span. NaN when x and y differ in size, n < 2, or either is constant.
double spearmanRho(const std::vector<double>& x, const std::vector<double>& y);

// Kendall's τ-b = (concordant − discordant) / sqrt((n0 − n1)(n0 − n2)), n0 = n(n−1)/2 and
// n1, n2 the pairs tied in x, in y. O(n log n) (Knight 1966: sort by x then y, count the
// inversions of y with a merge sort). NaN when the sizes differ, n < 2, or either is constant.
double kendallTauB(const std::vector<double>& x, const std::vector<double>& y);

// Mean of |simulated − measured| / measured, in percent (0 for no pairs).
double mapePct(const std::vector<double>& measured, const std::vector<double>& simulated);

// One cache entry resolved in the model and priced by the simulator.
struct StageFidelityRow {
    std::string key; // cost::stageKey
    int block = 0;
    schedule::Stage stage;
    double measuredMs = 0;
    double simulatedMs = 0;
};

struct RankSummary {
    std::string kind; // "all", "parallel", "merge", or "N groups" (rankSummariesByGroups)
    int groups = 0;   // rankSummariesByGroups: the parallel stages' group count
    int stages = 0;
    double spearman = 0;
    double kendallTauB = 0;
    double mapePct = 0;
    double geoMeanRatio = 0; // geometric mean of simulated / measured (> 1: too slow)
};

// Every entry of `cache` for (`graph` name, batch, device) in file order, as a stage of
// `model` priced by `simulated`. Throws ios::UserError naming `source` and the stage when an
// entry names an operator the model lacks, spans blocks, repeats an operator, or is a merge
// stage of operators that cannot merge; and when the cache has no entry for the model.
std::vector<StageFidelityRow> resolveStages(const ir::PreparedModel& model,
                                            const cost::MeasurementCache& cache,
                                            const std::string& device, int batch,
                                            const cost::CostModel& simulated,
                                            const std::string& source);

// "all" first, then "parallel" and "merge" where the rows have such stages.
std::vector<RankSummary> rankSummaries(const std::vector<StageFidelityRow>& rows);

// The parallel stages by their number of groups (streams), fewest first: whether the simulator
// misjudges what running groups side by side costs.
std::vector<RankSummary> rankSummariesByGroups(const std::vector<StageFidelityRow>& rows);

// The `count` rows whose simulated / measured ratio is furthest from 1 (by |log ratio|),
// worst first; ties keep file order.
std::vector<StageFidelityRow> worstStages(const std::vector<StageFidelityRow>& rows, size_t count);

// One block of the two schedules, priced by the measurements.
struct BlockDecision {
    int block = 0;
    double simulatedChoiceMeasuredMs = 0;
    double measuredChoiceMeasuredMs = 0;
    bool sameStages = false; // both DPs chose the same stages for this block
};

struct DecisionLoss {
    schedule::Schedule measuredChoice;  // the DP's schedule on the measurements
    schedule::Schedule simulatedChoice; // the DP's schedule on the simulator
    double simulatedChoiceMeasuredMs = 0;
    double measuredChoiceMeasuredMs = 0;
    double simulatedChoiceSimulatedMs = 0;
    double measuredChoiceSimulatedMs = 0;
    double loss = 0; // simulatedChoiceMeasuredMs / measuredChoiceMeasuredMs (≥ 1 for an exact DP)
    // Where the loss comes from, block by block (stage schedules only; empty when the
    // scheduler's results are stream programs, which are not priced per block).
    std::vector<BlockDecision> blocks;
};

// Runs `scheduler` once under each cost model and prices both schedules under both. Throws
// ios::UserError when the simulator's schedule has a stage the measurements lack (naming it:
// the loss would be a guess) and whatever the searches throw.
DecisionLoss decisionLoss(const ir::PreparedModel& model, const schedulers::Scheduler& scheduler,
                          const schedulers::Params& params, const cost::CostModel& measured,
                          const cost::CostModel& simulated,
                          schedulers::SearchControl* control = nullptr);

} // namespace ios::analysis
