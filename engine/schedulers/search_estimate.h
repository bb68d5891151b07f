// What an IOS DP search will cost, before it runs (docs/performance.md "Up-front estimate"):
// the GUI runs a search on a settings edit only when this says it is quick.
#pragma once

#include "cost/cost_model.h"
#include "ir/prepared_model.h"
#include "schedulers/ios_dp.h"
#include "schedulers/search_control.h"

#include <cstdint>
#include <vector>

namespace ios::schedulers {

struct SearchEstimate {
    // Exact (deterministic): what optimize() with the same model, options and a cost model
    // with the same operator classes reports on one thread, before it has priced anything.
    // Statistics::states: every down-set of every part (known before any counting), or under
    // a memory budget the ones the search reaches.
    uint64_t states = 0;
    uint64_t transitions = 0; // Statistics::transitions
    // Distinct stages the search meets when it prices every candidate (Statistics::stages for
    // a model without the additive fast path and without Options::boundStages' pruning), and
    // of those the ones a fresh canonical memo does not hold. A search that prunes by a stage
    // lower bound (the simulated GPU) prices at most these, so `seconds` is then an upper
    // bound of its pricing time.
    uint64_t stages = 0;
    uint64_t stagesPriced = 0;
    uint64_t partsSearched = 0;
    // Timings on this machine (not deterministic): the counting pass (the DP's enumeration
    // with stage pricing replaced by a constant) and one stage priced by the real cost model,
    // the mean over kSampleStages to 2 × kSampleStages distinct stages spread evenly over the
    // order the search meets them (the first ones are the small stages).
    double countSeconds = 0;
    double secondsPerStage = 0;
    // countSeconds + stagesPriced × secondsPerStage: the search on one thread.
    double seconds = 0;
    // False when the counting pass reached its time limit: the counts are then unknown (0)
    // beyond `states`, and `seconds` (the limit) is a lower bound, since the search enumerates
    // everything the counting pass does and prices stages on top.
    bool complete = true;

    static constexpr int kSampleStages = 32;
};

// A stage to be timed: a block's DAG and the stage.
struct SampleStage {
    const ir::BlockDag* dag;
    schedule::Stage stage;
};

// Seconds `cost` takes to price one of `samples` (their mean; 0 for none). Priced twice: the
// first pass pays what a model builds once per operator (the simulated GPU's kernels), which a
// search spreads over all its stages; the second is timed. Throws Cancelled when `control` is
// cancelled.
double secondsPerStage(const cost::CostModel& cost, const std::vector<SampleStage>& samples,
                       const SearchControl* control = nullptr);

// Up to SearchEstimate::kSampleStages single-operator stages spread evenly over the model's
// operators: what compares the pricing cost of one model's settings (specialize.h).
std::vector<SampleStage> operatorStages(const ir::PreparedModel& model);

// Counts the search `optimize(model, options, cost)` would run, on one thread, and times
// stage pricing under `cost`. Stops counting after `countLimitSeconds` (complete = false).
// Throws UserError where optimize() would (bad options, too many states) and Cancelled when
// `control` is cancelled.
SearchEstimate estimateSearch(const ir::PreparedModel& model, const Options& options,
                              const cost::CostModel& cost, double countLimitSeconds,
                              const SearchControl* control = nullptr);

} // namespace ios::schedulers
