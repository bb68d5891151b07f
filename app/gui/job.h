// What the GUI asks the engine to compute and what comes back: plain value types, copied into
// the worker thread and back (STYLE.md "results are plain structs").
#pragma once

#include "loaded_model.h"
#include "schedule/schedule.h"
#include "schedule/timeline.h"
#include "schedulers/ios_dp.h"
#include "schedulers/state_space_index.h"

#include <QString>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace ios::gui {

// The five strategies the explorer compares (IOS paper §6: sequential, greedy, IOS-merge,
// IOS-parallel, IOS-both).
enum class StrategyChoice { Sequential, Greedy, Merge, Parallel, Both };
inline constexpr int kStrategyCount = 5;
QString strategyLabel(StrategyChoice s);
QString strategyKey(StrategyChoice s); // "sequential", "greedy", "merge", "parallel", "both"
std::optional<StrategyChoice> strategyFromKey(const QString& key);
bool isDpStrategy(StrategyChoice s);

struct JobSettings {
    views::LoadedModelPtr model;
    StrategyChoice strategy = StrategyChoice::Both;
    int r = 3;
    int s = 8;
    int maxPartSize = ir::kDefaultMaxPartSize;
    int batch = 1;
    QString device = QStringLiteral("v100");
    schedulers::Endings endings = schedulers::Endings::Reference;
    bool recordStateSpace = true;
};

enum class JobKind {
    Optimize,   // one strategy, with state-space recording and timeline
    Compare,    // all five strategies
    Sweep,      // pruning grid r × s (IOS paper Figure 9)
    Specialize, // batch × device matrix (IOS paper Table 3)
};

// One strategy's outcome.
struct RunResult {
    StrategyChoice strategy = StrategyChoice::Both;
    int r = 0;
    int s = 0;
    schedule::Schedule schedule;
    double latencyMs = 0;
    std::optional<schedulers::Statistics> stats; // DP strategies only
    double searchSeconds = 0;
    std::shared_ptr<const schedulers::StateSpaceIndex> stateSpace; // Optimize, recording on
    std::vector<std::vector<double>> stageLatencyMs;               // Optimize: [block][stage]
    std::shared_ptr<const schedule::Timeline> timeline;            // Optimize: simulated execution
};

// IOS paper Table 3: one schedule optimised per setting (row), run at every setting (column).
struct SpecializeMatrix {
    QString title;
    std::vector<QString> labels;
    std::vector<std::vector<double>> latencyMs; // [optimised for][executed at]
};

struct JobResult {
    JobKind kind = JobKind::Optimize;
    JobSettings settings;
    QString costModel;              // CostModel::describe()
    std::vector<RunResult> runs;    // Optimize: 1; Compare: 5; Sweep: r-major grid
    double sequentialLatencyMs = 0; // for speedups
    std::vector<int> sweepR, sweepS;
    std::vector<SpecializeMatrix> specialize; // by batch size, by device
};

using JobResultPtr = std::shared_ptr<const JobResult>;

// Progress and cancellation as the engine sees them (the DP's SearchControl is driven from it).
// One SearchControl serves every search of a job, so a cancel reaches whichever runs.
struct JobControl {
    schedulers::SearchControl search;
    std::atomic<double> progress{0.0}; // 0..1, polled by the UI (throttled)

    void cancel() { search.cancel = true; }
    bool cancelled() const { return search.cancel.load(); }
};

// The computation behind the GUI; the real one calls the engine, tests use a fake.
class JobEngine {
public:
    virtual ~JobEngine() = default;
    // Runs on a worker thread; throws ios::Cancelled when control.cancel is set (within
    // 100 ms), ios::UserError for bad settings.
    virtual JobResult run(JobKind kind, const JobSettings& settings, JobControl& control) const = 0;
};

} // namespace ios::gui
