// SPDX-License-Identifier: Apache-2.0
// What the explorer says about a job's cost and progress, in words: the estimate line under
// Run, the progress bars' text (settings panel, analysis tabs, Memory, MetaFlow) and the
// auto-run notes. Pure functions of their arguments.
#pragma once

#include "schedulers/search_estimate.h"

#include <QString>
#include <optional>

namespace ios::gui::estimate_text {

// "≈ 1.2 s · 1,206 states · 28,874 transitions", or what is known when counting stopped.
QString describeEstimate(const schedulers::SearchEstimate& e);
// Whether an estimate starts the search under the auto-run limit (seconds; 0 = never), and
// what to append when not: an unfinished count is "not known to be under" the limit, not
// "over" it (its "> 1 s" may be under a 2 s limit).
bool runsUnder(const schedulers::SearchEstimate& e, double limit);
QString notRunNote(const schedulers::SearchEstimate* e, double limit);
// "850 ms", "12.3 s", "15 min", "2.5 h".
QString formatDuration(double seconds);
// What a progress bar reads: "42 % · 12,300 states/s · ETA 8 s" (the rate when total > 0,
// the time left when known, "over estimate" past it); the panel's bar and the analysis
// tabs' share it.
QString formatProgress(double fraction, quint64 done, quint64 total, double elapsed,
                       std::optional<double> left = std::nullopt, bool over = false);
// "ETA 8 s", "over estimate" (running past the estimate) or nothing.
QString formatLeft(std::optional<double> left, bool over);
// An estimate's seconds for people: "≈ 1.2 s", or "1.2–4.8 s" when the range is wide.
QString formatEstimate(double low, double high);

} // namespace ios::gui::estimate_text
