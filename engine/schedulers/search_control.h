// SPDX-License-Identifier: Apache-2.0
// Progress, cancellation and a time limit of a long search, shared by every scheduler and by
// the jobs that run several searches in a row.
#pragma once

#include "util/error.h"
#include "util/work_limit.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace ios::schedulers {

// The knobs and refusals live in util/work_limit.h (layers below schedulers refuse too).
using ios::TimeLimitReached;
using ios::WorkKnob;
using ios::WorkLimitReached;

// progress(done, total) is called at least every 100 ms from the searching thread, in units
// the scheduler chooses (the IOS DP: states finished / non-empty down-sets over all parts);
// setting `cancel` makes the search throw ios::Cancelled within 100 ms. Where a search looks
// at `cancel` it also calls checkDeadline: past `deadline` (none by default) it throws
// TimeLimitReached; the progress callback may throw too (a projection past the limit).
struct SearchControl {
    using Clock = std::chrono::steady_clock;

    std::atomic<bool> cancel{false};
    // A job's control inside runJobs (parallel_jobs.h): the caller's cancel counts too.
    const SearchControl* parent = nullptr;
    std::function<void(uint64_t done, uint64_t total)> progress;
    Clock::time_point deadline = Clock::time_point::max();
    // For the message: what runs ("optimize inception_v3"), the knob of the algorithm that
    // runs now (set by that algorithm before it reports progress) and the front end's words
    // for a knob ("lower -r/-s ..."; empty function or empty words: none).
    std::string task;
    WorkKnob knob = WorkKnob::IosPruning;
    std::function<std::string(WorkKnob)> limitHint;

    // cancel, or the parent's cancelled().
    bool cancelled() const {
        return cancel.load(std::memory_order_relaxed) || (parent != nullptr && parent->cancelled());
    }

    bool hasDeadline() const { return deadline != Clock::time_point::max(); }
    // Throws TimeLimitReached when the deadline has passed; done of total (progress units, 0
    // of 0 when unknown) say how far the search got.
    void checkDeadline(uint64_t done = 0, uint64_t total = 0) const;

    // The front end's words for `k`, empty when it gave none.
    std::string hintFor(WorkKnob k) const { return limitHint ? limitHint(k) : std::string(); }
    // "task: what; hint" as one line.
    std::string limitMessage(const std::string& what, WorkKnob k) const;
    // Before long work: throws TimeLimitReached when `estimatedSeconds` (from a counting
    // pass) cannot end before the deadline; `what` says what was counted ("2^20 chunk states,
    // estimated 45 s").
    void refuseIfPastDeadline(double estimatedSeconds, const std::string& what, WorkKnob k) const;
    // Copies task, knob, deadline and words into a child control whose parent is this one.
    void inheritInto(SearchControl& child) const;
};

} // namespace ios::schedulers
