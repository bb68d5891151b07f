// SPDX-License-Identifier: Apache-2.0
#include "analysis/stage_fidelity.h"

#include "eval/evaluate.h"
#include "schedulers/search_control.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>

namespace ios::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Ranks 1..n, ties sharing the mean of the ranks they span.
std::vector<double> averageRanks(const std::vector<double>& v) {
    std::vector<size_t> order(v.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    std::vector<double> ranks(v.size());
    for (size_t i = 0; i < order.size();) {
        size_t j = i;
        while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]])
            ++j;
        const double rank = (static_cast<double>(i + j) / 2.0) + 1.0;
        for (size_t k = i; k <= j; ++k)
            ranks[order[k]] = rank;
        i = j + 1;
    }
    return ranks;
}

// Σ t(t−1)/2 over runs of equal values in a sorted sequence, as `equal` says.
template <class Equal> int64_t tiedPairs(size_t n, Equal equal) {
    int64_t pairs = 0;
    int64_t run = 1;
    for (size_t i = 1; i <= n; ++i) {
        if (i < n && equal(i - 1, i)) {
            ++run;
            continue;
        }
        pairs += run * (run - 1) / 2;
        run = 1;
    }
    return pairs;
}

// Sorts v ascending (stable merge sort) and returns the number of inversions it removed.
int64_t mergeSortInversions(std::vector<double>& v) {
    std::vector<double> buffer(v.size());
    int64_t inversions = 0;
    for (size_t width = 1; width < v.size(); width *= 2) {
        for (size_t lo = 0; lo < v.size(); lo += 2 * width) {
            const size_t mid = std::min(lo + width, v.size());
            const size_t hi = std::min(lo + 2 * width, v.size());
            size_t a = lo, b = mid, out = lo;
            while (a < mid && b < hi) {
                if (v[b] < v[a]) {
                    // v[b] jumps every element still left in the lower half.
                    inversions += static_cast<int64_t>(mid - a);
                    buffer[out++] = v[b++];
                } else {
                    buffer[out++] = v[a++];
                }
            }
            while (a < mid)
                buffer[out++] = v[a++];
            while (b < hi)
                buffer[out++] = v[b++];
        }
        v.swap(buffer);
    }
    return inversions;
}

const char* kindName(schedule::StageKind kind) {
    return kind == schedule::StageKind::Merge ? "merge" : "parallel";
}

RankSummary summarise(const std::string& kind, const std::vector<const StageFidelityRow*>& rows,
                      int groups = 0) {
    std::vector<double> measured, simulated;
    double logSum = 0;
    for (const StageFidelityRow* r : rows) {
        measured.push_back(r->measuredMs);
        simulated.push_back(r->simulatedMs);
        logSum += std::log(r->simulatedMs / r->measuredMs);
    }
    RankSummary s;
    s.kind = kind;
    s.groups = groups;
    s.stages = static_cast<int>(rows.size());
    s.spearman = spearmanRho(measured, simulated);
    s.kendallTauB = kendallTauB(measured, simulated);
    s.mapePct = mapePct(measured, simulated);
    s.geoMeanRatio = rows.empty() ? kNaN : std::exp(logSum / static_cast<double>(rows.size()));
    return s;
}

} // namespace

double spearmanRho(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size() || x.size() < 2)
        return kNaN;
    const std::vector<double> rx = averageRanks(x);
    const std::vector<double> ry = averageRanks(y);
    // Both rank vectors have the mean (n + 1) / 2.
    const double mean = (static_cast<double>(x.size()) + 1.0) / 2.0;
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        sxy += (rx[i] - mean) * (ry[i] - mean);
        sxx += (rx[i] - mean) * (rx[i] - mean);
        syy += (ry[i] - mean) * (ry[i] - mean);
    }
    if (sxx == 0 || syy == 0)
        return kNaN;
    return sxy / std::sqrt(sxx * syy);
}

double kendallTauB(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size() || x.size() < 2)
        return kNaN;
    const size_t n = x.size();
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return x[a] != x[b] ? x[a] < x[b] : y[a] < y[b]; });
    std::vector<double> ys(n);
    for (size_t i = 0; i < n; ++i)
        ys[i] = y[order[i]];
    const int64_t n0 = static_cast<int64_t>(n) * static_cast<int64_t>(n - 1) / 2;
    const int64_t tiesX =
        tiedPairs(n, [&](size_t a, size_t b) { return x[order[a]] == x[order[b]]; });
    const int64_t tiesXY = tiedPairs(
        n, [&](size_t a, size_t b) { return x[order[a]] == x[order[b]] && ys[a] == ys[b]; });
    // Pairs tied in x are ordered by y already, so every inversion left is a discordant pair.
    const int64_t discordant = mergeSortInversions(ys);
    const int64_t tiesY = tiedPairs(n, [&](size_t a, size_t b) { return ys[a] == ys[b]; });
    const int64_t concordant = n0 - tiesX - tiesY + tiesXY - discordant;
    const double denominator =
        std::sqrt(static_cast<double>(n0 - tiesX) * static_cast<double>(n0 - tiesY));
    if (denominator == 0)
        return kNaN;
    return static_cast<double>(concordant - discordant) / denominator;
}

double mapePct(const std::vector<double>& measured, const std::vector<double>& simulated) {
    const size_t n = std::min(measured.size(), simulated.size());
    if (n == 0)
        return 0;
    double sum = 0;
    for (size_t i = 0; i < n; ++i)
        sum += std::abs(simulated[i] - measured[i]) / measured[i];
    return 100.0 * sum / static_cast<double>(n);
}

std::vector<StageFidelityRow> resolveStages(const ir::PreparedModel& model,
                                            const cost::MeasurementCache& cache,
                                            const std::string& device, int batch,
                                            const cost::CostModel& simulated,
                                            const std::string& source) {
    const std::vector<ir::BlockDag>& dags = model.dags();
    const cost::OperatorPlaces ops = cost::operatorPlaces(dags);
    const std::string& name = model.graph().name;
    std::vector<StageFidelityRow> rows;
    for (const cost::StageMeasurement& m : cache.entries()) {
        if (m.device != device || m.model != name || m.batch != batch)
            continue;
        StageFidelityRow row;
        row.key = m.stage;
        std::string why;
        std::optional<cost::KeyedStage> resolved =
            cost::resolveStageKey(m.stage, ops, dags, name, why);
        if (!resolved)
            throw UserError("stage " + m.stage + " " + why, source);
        row.block = resolved->block;
        row.stage = std::move(resolved->stage);
        row.measuredMs = m.latencyMs;
        row.simulatedMs =
            cost::checkedStageLatencyMs(simulated, dags[static_cast<size_t>(row.block)], row.stage);
        rows.push_back(std::move(row));
    }
    if (rows.empty())
        throw UserError("the measurement cache holds no stages of model '" + name + "' on " +
                            device + " at batch " + std::to_string(batch),
                        source);
    return rows;
}

std::vector<RankSummary> rankSummaries(const std::vector<StageFidelityRow>& rows) {
    std::vector<const StageFidelityRow*> all, parallel, merge;
    for (const StageFidelityRow& r : rows) {
        all.push_back(&r);
        (r.stage.kind == schedule::StageKind::Merge ? merge : parallel).push_back(&r);
    }
    std::vector<RankSummary> out{summarise("all", all)};
    if (!parallel.empty())
        out.push_back(summarise(kindName(schedule::StageKind::Parallel), parallel));
    if (!merge.empty())
        out.push_back(summarise(kindName(schedule::StageKind::Merge), merge));
    return out;
}

std::vector<RankSummary> rankSummariesByGroups(const std::vector<StageFidelityRow>& rows) {
    std::map<size_t, std::vector<const StageFidelityRow*>> byGroups;
    for (const StageFidelityRow& r : rows)
        if (r.stage.kind == schedule::StageKind::Parallel)
            byGroups[r.stage.groups.size()].push_back(&r);
    std::vector<RankSummary> out;
    for (const auto& [groups, members] : byGroups)
        out.push_back(summarise(std::to_string(groups) + (groups == 1 ? " group" : " groups"),
                                members, static_cast<int>(groups)));
    return out;
}

std::vector<StageFidelityRow> worstStages(const std::vector<StageFidelityRow>& rows, size_t count) {
    std::vector<size_t> order(rows.size());
    std::iota(order.begin(), order.end(), size_t{0});
    const auto miss = [&](size_t i) {
        return std::abs(std::log(rows[i].simulatedMs / rows[i].measuredMs));
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return miss(a) > miss(b); });
    std::vector<StageFidelityRow> out;
    for (size_t i = 0; i < std::min(count, order.size()); ++i)
        out.push_back(rows[order[i]]);
    return out;
}

DecisionLoss decisionLoss(const ir::PreparedModel& model, const schedulers::Scheduler& scheduler,
                          const schedulers::Params& params, const cost::CostModel& measured,
                          const cost::CostModel& simulated, schedulers::SearchControl* control) {
    const std::vector<ir::BlockDag>& dags = model.dags();
    const std::string who(scheduler.key());
    // The simulator's choice is priced first: a stage it chose that was never measured is
    // named as such, not as a failure of the search on the measurements.
    const schedulers::Outcome onSimulated = scheduler.run(model, params, simulated, control);
    DecisionLoss d;
    try {
        d.simulatedChoiceMeasuredMs = schedulers::outcomeLatencyMs(dags, onSimulated, measured);
    } catch (const UserError& e) {
        throw UserError("the schedule " + who +
                            " picks on the simulator has a stage the measurements lack, so its "
                            "measured latency is unknown: " +
                            e.message(),
                        e.file(), e.node());
    }
    schedulers::Outcome onMeasured;
    try {
        onMeasured = scheduler.run(model, params, measured, control);
    } catch (const schedulers::TimeLimitReached&) {
        throw;
    } catch (const UserError& e) {
        throw UserError(who +
                            " on the measurements met a stage they lack (were they taken with "
                            "the same strategy, -r, -s and part size?): " +
                            e.message(),
                        e.file(), e.node());
    }
    d.measuredChoice = onMeasured.schedule;
    d.simulatedChoice = onSimulated.schedule;
    d.measuredChoiceMeasuredMs = schedulers::outcomeLatencyMs(dags, onMeasured, measured);
    d.measuredChoiceSimulatedMs = schedulers::outcomeLatencyMs(dags, onMeasured, simulated);
    d.simulatedChoiceSimulatedMs = schedulers::outcomeLatencyMs(dags, onSimulated, simulated);
    d.loss = d.simulatedChoiceMeasuredMs / d.measuredChoiceMeasuredMs;
    if (onMeasured.programs.empty() && onSimulated.programs.empty())
        for (size_t b = 0; b < dags.size(); ++b) {
            const schedule::BlockSchedule& sim = d.simulatedChoice.blocks[b];
            const schedule::BlockSchedule& meas = d.measuredChoice.blocks[b];
            d.blocks.push_back({static_cast<int>(b), eval::blockLatencyMs(dags[b], sim, measured),
                                eval::blockLatencyMs(dags[b], meas, measured), sim == meas});
        }
    return d;
}

} // namespace ios::analysis
