// SPDX-License-Identifier: Apache-2.0
// What the MetaFlow tab asks the engine and what comes back (docs/gui.md "MetaFlow"): the
// search's settings, its live trace (best and popped cost as the search runs), and the result
// — the rewritten graph G* as a model the graph views can draw, the substitution log, the
// before/after metrics and the comparison rows, every latency priced under the main settings'
// cost model (device, batch), for G* by the same factory built on G*.
#pragma once

#include "loaded_model.h"
#include "rewrite/backtracking.h"
#include "schedulers/metaflow.h"

#include <QString>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace ios::gui {

struct JobSettings;
struct JobControl;

// Preset names (schedulers::metaflowPreset).
inline const QString kMetaflowPaper = QStringLiteral("paper");
inline const QString kMetaflowArtifact = QStringLiteral("artifact");
// Objectives (schedulers::objectiveName): the sum of single-operator latencies, or IOS-both's
// latency per block.
inline const QString kObjectiveSeq = QStringLiteral("seq");
inline const QString kObjectiveIos = QStringLiteral("ios");

struct MetaflowSettings {
    QString preset = kMetaflowPaper; // the fields below start from it
    double alpha = 1.05;
    quint64 budget = 100000;
    int splitThreshold = 30;
    rewrite::RuleSet rules;
    QString objective = kObjectiveSeq;
    QString then = QStringLiteral("ios-both"); // the registered scheduler run on G*

    // The fields of a preset, from the engine's own presets (nothing restated here).
    static MetaflowSettings fromPreset(const QString& name);
    // What the engine takes (schedulers::runMetaflow); a UserError for an unknown objective.
    schedulers::MetaflowOptions options() const;
    friend bool operator==(const MetaflowSettings& a, const MetaflowSettings& b) {
        return a.preset == b.preset && a.alpha == b.alpha && a.budget == b.budget &&
               a.splitThreshold == b.splitThreshold && a.rules.enabled == b.rules.enabled &&
               a.objective == b.objective && a.then == b.then;
    }
};

// "α 1.05 → 1.10, rules R1,R3 → R3"; empty when equal.
QString metaflowDifference(const MetaflowSettings& shown, const MetaflowSettings& current);
// The difference that makes a MetaFlow result stale: the MetaFlow fields and the main settings
// its latencies depend on (model, batch, device, cost model, r, s, part size, endings; not the
// main strategy or memory budget, which it does not read).
QString metaflowStaleness(const JobSettings& shown, const JobSettings& current);
// Whether the registered scheduler `key` may schedule G* (not one that rewrites itself).
bool canFollowMetaflow(const QString& key);
// "R1,R3,R6".
QString ruleList(const rewrite::RuleSet& rules);

// One progress report of the search (rewrite::SearchProgress), in arrival order.
struct MetaflowPoint {
    quint64 expanded = 0;
    quint64 queued = 0;
    double bestMs = 0;
    double poppedMs = 0;
};

// The live trace, written by the worker, read by the UI thread (the progress timer).
class MetaflowTrace {
public:
    void add(const MetaflowPoint& point);
    std::vector<MetaflowPoint> snapshot() const;

private:
    mutable std::mutex mutex_;
    std::vector<MetaflowPoint> points_;
};

// A metric before and after the rewrite (empty optional: the cost model cannot say).
struct MetaflowMetric {
    QString name;
    std::optional<double> before, after;
    bool milliseconds = false;
};

// A comparison row: a scheduler on G0 or G*, priced under the job's cost model.
struct MetaflowRow {
    QString label;    // "IOS-Both (G*)"
    QString strategy; // registry key
    bool rewritten = false;
    double latencyMs = 0;
    double searchSeconds = 0;
    int64_t peakBytes = 0;
    double transitions = 0; // the IOS DP's (0 for baselines)
};

struct MetaflowResult {
    views::LoadedModelPtr original;  // G0 (the job's model)
    views::LoadedModelPtr rewritten; // G*
    rewrite::SearchResult search;    // history, stats, objective costs (graph = G*)
    QString objective;               // "seq" or "ios"
    std::vector<MetaflowMetric> metrics;
    std::vector<MetaflowRow> rows; // Sequential(G0), IOS-Both(G0), Sequential(G*), IOS-Both(G*)
    std::vector<MetaflowPoint> trace;
};

// The whole job, on the worker thread: the search on the settings' model (progress into
// control's trace, cancel within one expansion), G* built and validated, the comparison rows.
// Throws ios::Cancelled, ios::UserError.
std::shared_ptr<const MetaflowResult> runMetaflowJob(const JobSettings& settings,
                                                     JobControl& control);

} // namespace ios::gui
